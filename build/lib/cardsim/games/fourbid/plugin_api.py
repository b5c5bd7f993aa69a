"""What each argument of a FOURBID plug-in decision means, and what it returns.

Shown by ``cardsim games fourbid`` and in ``docs/plugins.md``; a test checks
that every decision's arguments are listed here, in the kernel's order.
OceanLife card codes index the catalogue ``cset`` / ``cval``
(``cardsim.games.fourbid.cards``); ``pub`` is laid out by the ``P_*``
constants of ``cardsim.games.fourbid.state``. Seats are 0-3 (positions A-D).
"""

COMMON = {
    "seat": "int: the deciding seat (0-3)",
    "hand": "int64[...]: the seat's OceanLife card codes, hand[:nh]",
    "nh": "int: cards in hand",
    "cnt": "int64[nsets + 1]: the seat's cards per OceanLife set (cnt[k] for set k; the last entry counts wilds)",
    "pts": "int64[nsets + 1]: the point total of those cards, per set (wilds last)",
    "pub": ("int64[...]: the public state of the hand, by the P_* constants of cardsim.games.fourbid.state: "
            "pub[P_IND + s] Indicators seat s has played, pub[P_SPENT + s] its Points Spent, pub[P_SCORE + s] its "
            "score before this hand, pub[P_TOP] the top discard (-1: empty pile), pub[P_FORCED] 1 while the seat "
            "must play Indicator 1 (B7), pub[P_BID] the standing bid, pub[P_NSETS] the number of sets, ..."),
    "cset": "int64[cards]: the set of each card code (-1: a wild)",
    "cval": "int64[cards]: the point value of each card code",
    "params": "float64[w]: the seat's parameters, in the order of the plug-in's <name>_params dict",
    "rng": "uint64[1]: the seat's own random stream; draw with cardsim.rng.randint(rng, n) or cardsim.rng.uniform(rng)",
}
ARGS = {
    "acquire": COMMON,
    "discard": {**COMMON, "hand": "int64[...]: the seat's OceanLife card codes, hand[:nh], after this turn's acquire"},
    "bid": {"seat": COMMON["seat"], "bid": "int: the standing bid the seat may raise by one (B4)",
            **{k: v for k, v in COMMON.items() if k != "seat"}},
    "challenge": COMMON,
}
RETURNS = {
    "acquire": "0 to take the top of the deck, 1 the top of the discard pile (B3)",
    "discard": ("the code of an OceanLife card in hand[:nh] to discard face up, or -1 to play the next Indicator "
                "(B3; the 4 only when B8 allows; -1 is the only legal answer while pub[P_FORCED] is 1, B7)"),
    "bid": "1 to raise the standing bid by one, 0 to pass (B4; never asked for the forced opening 1)",
    "challenge": "1 to pay to challenge the player who went out, 0 to decline (B9)",
}
