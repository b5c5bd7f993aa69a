"""What each argument of a Bad, Bad, Turtle plug-in decision means, and what it returns.

Shown by ``cardsim games turtle`` and in ``docs/plugins.md``; a test checks
that every decision's arguments are listed here, in the kernel's order.
Every decision gets the same arguments; ``obs`` is laid out by the ``OBS_*``
constants of ``cardsim.games.turtle.cards`` and the actions are its
constants too (``PASS``, ``NH_CARD``, ``SHIELD_BASE``, ``PERFORM``, ...).
"""

OBS = ("int64[OBS_LEN]: what the seat may see, by the OBS_* constants of cardsim.games.turtle.cards: "
       "obs[OBS_CARD] the action code in question, obs[OBS_REVEALER] who revealed it, obs[OBS_VICTIM] the seat it "
       "acts on now, obs[OBS_LAST] / obs[OBS_LAST_BY] the held card last played on it and by whom (-1: none), "
       "obs[OBS_SEATS + OBS_SEAT_W * s + k] seat s's public counts (k: 0 alive, 1 stack, 2 discards, 3 reveals, "
       "4 held cards as bits: 1 Never Happened, 2 No Way, 4 Shield), obs[OBS_STACK:] its own stack top first as far "
       "as a Peek told it (obs[OBS_KNOWN] cards; -1 beyond), obs[OBS_LIVE + a] 1 while action card a can still be "
       "revealed")
COMMON = {
    "seat": "int: the deciding seat (seats 0.. clockwise; 'left' of s is s + 1)",
    "obs": OBS,
    "legal": "int64[16]: legal[a] is 1 for each legal action a (any other answer stops the run with an error)",
    "params": "float64[w]: the seat's parameters, in the order of the plug-in's <name>_params dict",
    "rng": ("uint64[1]: the seat's own random stream; draw with cardsim.rng.randint(rng, n) or "
            "cardsim.rng.uniform(rng)"),
}
ARGS = {"pick": COMMON, "respond": COMMON, "perform": COMMON}
RETURNS = {
    "pick": "Pick a Player (T7): the seat that takes the next turn",
    "respond": ("after an action card is revealed (and after each held card played on it, T8): PASS 0; NH_CARD 1 "
                "(Never Happened overrules the card); NH_HELD 2 (Never Happened overrules the No Way or Shield last "
                "played on it); NO_WAY_PLAY 3 (the card goes to its player's discard pile); SHIELD_BASE + t (4 + t: "
                "Shield forces the card onto seat t)"),
    "perform": "a performance card asks the seat to perform (T7): PERFORM 1, or SKIP_TURN 0 to take the skip",
}
