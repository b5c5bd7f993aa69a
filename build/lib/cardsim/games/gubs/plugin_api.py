"""What each argument of a Gubs plug-in decision means, and what it returns.

Shown by ``cardsim games gubs`` and in ``docs/plugins.md``; a test checks
that every decision's arguments are listed here, in the kernel's order.
Card codes are ``cardsim.games.gubs.cards`` constants (``cards.CARD_NAMES[k]``
names code ``k``); ``pub`` is laid out by its ``P_*`` constants and the
action rows by its ``OP_*`` constants. A policy never sees other hands or
the deck order.
"""

SEAT = "int: the deciding seat (seats 0.. in turn order)"
PUB = ("int32[P_SIZE]: the public state, by the P_* constants of cardsim.games.gubs.cards: pub[P_NP] players, "
       "pub[P_LETTERS] Letters out, pub[P_DECKN] cards in the deck, pub[P_ELDER] the Elder's seat (-1), and per "
       "seat s: pub[P_HANDN + s] cards in hand, pub[P_SCORE + s] Free + Protected Gubs, pub[P_FREE + s], "
       "pub[P_PROT + s], pub[P_BARS + s] Barricades, ...; pub[P_DISC + k] copies of card k in the discard pile")
HAND = "int32[NK]: the seat's own hand as copies per card code (hand[k] copies of card k)"
PARAMS = "float64[w]: the seat's parameters, in the order of the plug-in's <name>_params dict"
RNG = "uint64[1]: the seat's own random stream; draw with cardsim.rng.randint(rng, n) or cardsim.rng.uniform(rng)"
OPTS = "int32[...]: the choices, opts[:nopts]"
NOPTS = "int: how many choices there are"
ARGS = {
    "draw": {
        "seat": SEAT,
        "peek": "int: the top card of the deck when the seat knows it from a Scout, else -1",
        "pub": PUB, "hand": HAND, "params": PARAMS, "rng": RNG,
    },
    "play": {
        "seat": SEAT,
        "acts": ("int32[MAX_ACTS, 5]: the legal plays, acts[:nacts]; row i is (op, card, tseat, tslot, aux): op an "
                 "OP_* code (OP_NAMES), card the card played from hand (Cricket Song acting as another card is "
                 "itself here), tseat / tslot the target seat and Gub slot (-1: none), aux an op's extra choice. "
                 "Row 0 is 'stop playing' (end the turn's plays)"),
        "nacts": "int: how many rows of acts are legal (at least 1: stop)",
        "pub": PUB, "hand": HAND, "params": PARAMS, "rng": RNG,
    },
    "respond": {
        "seat": SEAT,
        "ann": ("int32[8]: the card announced, (ctx, op, card, actor, tseat, tslot, aux, as_card): ctx CTX_PLAY / "
                "CTX_EVENT / CTX_PLAGUE (a play, an Event, the Gargok Plague save), op and card as in play's acts, "
                "actor the seat that played it, as_card the card it acts as"),
        "opts": OPTS + ": opts[0] = -1 is pass, the others are the card codes the seat may answer with",
        "nopts": NOPTS,
        "pub": PUB, "hand": HAND, "params": PARAMS, "rng": RNG,
    },
    "pick": {
        "seat": SEAT,
        "purpose": "int: PICK_DISCARD 0 (over the hand limit, G3: a card to discard) or PICK_KEEP 1 (Traveling "
                   "Merchant: a card to keep)",
        "opts": OPTS + ": the card codes in hand",
        "nopts": NOPTS,
        "pub": PUB, "hand": HAND, "params": PARAMS, "rng": RNG,
    },
}
RETURNS = {
    "draw": "1 to draw, 0 to skip the draw (asked only when skipping is legal: never two skips in a row, G3)",
    "play": "the row index into acts[:nacts] of the play (0: stop)",
    "respond": "the index into opts[:nopts] of the answer (0: pass)",
    "pick": "the index into opts[:nopts] of the card",
}
