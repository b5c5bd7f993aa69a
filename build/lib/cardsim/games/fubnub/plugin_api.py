"""What each argument of a FUBNUB plug-in decision means, and what it returns.

Shown by ``cardsim games fubnub`` and in ``docs/plugins.md``; a test checks
that every decision's arguments are listed here, in the kernel's order.
Card codes are 0-23, ``(rank - 1) * 4 + colour`` with Red < Purple < Green <
Gold (F1; ``cardsim.games.fubnub.cards.card_name``). Seats are 0-3 clockwise;
seats 0 and 2 are team 0 (team variants).
"""

HAND = ("int64[5]: the seat's cards (card codes), ordered highest first under this hand's ranking: hand[0] is "
        "the highest")
HELD = HAND + "; only hand[:n] are still held, hand[n - 1] the lowest"
POS = ("int64[24]: pos[c] is card c's position in this hand's ranking (0 = the highest card, F3: the point card "
       "promotes its cards); 'c is in the top k' is pos[c] < k")
POINT = ("int: the point card in play, an index into cardsim.games.fubnub.cards.KIND_NAMES (Ones, Twos, ..., "
         "Gold, ..., Natural)")
PARAMS = "float64[w]: the seat's parameters, in the order of the plug-in's <name>_params dict (overridden per seat)"
RNG = ("uint64[1]: the seat's own random stream; draw with cardsim.rng.randint(rng, n) (0..n-1) or "
       "cardsim.rng.uniform(rng) (0 <= u < 1)")
TRICK = {
    "n": "int: how many cards the seat still holds (5 before the first trick)",
    "trick": "int64[4]: the cards played to this trick so far, in play order (trick[:nplayed])",
    "tseat": "int64[4]: the seat that played each of them (tseat[:nplayed])",
    "nplayed": "int: cards played to this trick so far (0: the seat leads)",
    "winner": ("int: the INDEX INTO trick (and tseat) of the card winning the trick so far, not a seat; -1 before "
               "the lead. The seat winning it is tseat[winner], its card trick[winner]"),
    "seat": "int: the deciding seat",
}
ARGS = {
    "call": {
        "hand": HAND, "pos": POS, "point": POINT,
        "seat": "int: the deciding seat",
        "dealer": "int: the seat that dealt this hand (it decides last, F6)",
        "rnd": "int: the decision round, 1 or 2 (2: everyone passed once and a new point card is up, F6)",
        "params": PARAMS, "rng": RNG,
    },
    "swap": {
        "hand": HAND + " (all five: swaps come before the first trick)", "pos": POS, "point": POINT,
        "nswaps": ("int: how many swaps the seat may make: 2 with a double advantage (F7), else 1; 1 also for the "
                   "Full Deck Eliminated pick (F15: the card to give the dealer for a blind card)"),
        "params": PARAMS, "rng": RNG,
        "out": ("int64[2], to fill: out[i] = the hand index (0-4) of the i-th card to swap, -1 for no swap; "
                "swap i trades hand[out[i]] for the next undealt card, blind"),
    },
    "card": {
        "hand": HELD, **TRICK, "pos": POS, "point": POINT,
        "partner": "int: the partner's seat ((seat + 2) % 4) in team variants; -1 in individual play",
        "caller": "int: the seat that said play this hand (its team defends the point card); -1 in individual play",
        "tricks": "int64[4]: tricks won by each seat this hand so far",
        "params": PARAMS, "rng": RNG,
    },
    "steal": {
        "points": "int64[nplayers]: point cards each seat has earned so far",
        "seat": "int: the deciding seat (it revealed Never Happened, No Way or Shield)",
        "nplayers": "int: seats at the table (Full Deck: 4)",
        "params": PARAMS, "rng": RNG,
    },
    "pick": {
        "points": "int64[nplayers]: point cards each seat has earned so far",
        "seat": "int: the deciding seat (it revealed Pick a Player)",
        "nplayers": "int: seats at the table (Full Deck: 4)",
        "params": PARAMS, "rng": RNG,
    },
    "keep": {
        "hand": HAND + " (all five)", "pos": POS, "point": POINT, "params": PARAMS, "rng": RNG,
    },
    "peek": {
        "hand": HELD, **TRICK, "pos": POS, "point": POINT,
        "hands": "int64[4, 5]: every seat's cards (hands[s, :nh[s]], in no particular order), which Peek showed",
        "nh": "int64[4]: how many cards each seat still holds",
        "tricks": "int64[4]: tricks won by each seat this hand so far",
        "params": PARAMS, "rng": RNG,
    },
}
ARGS["card"] = {k: ARGS["card"][k] for k in ("hand", "n", "pos", "point", "trick", "tseat", "nplayed", "winner",
                                              "seat", "partner", "caller", "tricks", "params", "rng")}
ARGS["peek"] = {k: ARGS["peek"][k] for k in ("hand", "n", "pos", "point", "trick", "tseat", "nplayed", "winner",
                                              "seat", "hands", "nh", "tricks", "params", "rng")}
RETURNS = {
    "call": "1 to play (become the caller), 0 to pass",
    "swap": "nothing: fill out instead",
    "card": "the index into hand[:n] of the card to play (0 = the highest)",
    "steal": "the seat to steal one earned point card from (another seat with points > 0), or -1 not to steal",
    "pick": "the other seat that gets the dealer advantage this hand",
    "keep": "the hand index (0-4) of the one card kept (Do Over: the other four are replaced by the undealt cards)",
    "peek": "the index into hand[:n] of the card to play",
}
