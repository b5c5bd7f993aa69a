"""Gubs' trace events (``cardsim trace gubs --format jsonl``), field by field.

Seats are numbered 0..players-1; seat 0 takes the first turn. Cards are named as the sheets write
them (``"Sud Spout"``). A Gub in play sits in a numbered slot; Rings are numbered as they come into
play. A depth counts the cards above a card in the deck (0: the top).
"""

from __future__ import annotations

EVENTS: dict[str, dict[str, str]] = {
    "start_gub": {"seat": "the seat", "card": "the Gub it starts with in play (G2)", "slot": "the Gub's slot"},
    "deal": {"seat": "the seat", "card": "a card dealt to it (G2)"},
    "event_dealt_back": {
        "seat": "the seat that was dealt an Event",
        "card": "the Event, put back into the deck at random (G2)",
        "depth": "its depth in the deck",
    },
    "turn": {
        "seat": "the seat whose turn it is",
        "turn": "turn number",
        "letters": "Letters set aside so far",
        "deck": "cards in the deck",
    },
    "draw": {"seat": "the seat drawing (G3)", "card": "the card drawn", "deck_left": "cards left in the deck"},
    "skip_draw": {"seat": "the seat that does not draw this turn (G3)"},
    "interrupt_asked": {
        "seat": "the seat asked whether it answers (G4)",
        "card": "the card it may answer",
        "context": "play (a Hazard or Trap played), event (an Event drawn) or plague",
        "actor": "the seat that played or drew that card",
        "as": "the card it acts as (Cricket Song)",
    },
    "interrupt": {
        "seat": "the seat answering",
        "card": "the interrupt card it plays",
        "as": "the card it acts as",
        "answers": "the card it answers",
        "actor": "the seat that played or drew that card",
        "context": "play, event or plague",
    },
    "interrupt_pass": {"seat": "the seat letting the card stand", "card": "the card", "context": "play, event or plague"},
    "cancelled": {
        "seat": "the seat whose card is cancelled",
        "card": "the card",
        "by": "the seat that answered it",
        "op": "the action the card was to carry out",
    },
    "flop_boat": {
        "seat": "the seat playing Flop Boat",
        "card": "the Event sent back into the deck",
        "depth": "its depth in the deck",
        "drawer": "the seat that drew it",
    },
    "event": {"seat": "the seat that drew the Event", "card": "the Event acting"},
    "letter": {"seat": "the seat that drew the Letter", "card": "G, U or B", "letters": "Letters set aside now"},
    "play": {
        "seat": "the seat playing",
        "op": "the action: gub, protect, discard_mushroom, destroy_barricade, trap, ring, lure, super_lure, cyclone, "
              "lightning_elder, lightning_hand, steal, omen_beetle, spear_spout, spear_barricade, flute, "
              "scout_deck, scout_hand, retreat, cure or stop",
        "card": "the card played from hand",
        "as": "(optional) Cricket Song: the card it acts as",
        "targets": "(optional) a Ring: Gubs it traps per seat, {\"seat<s>\": count}",
        "target_seat": "(optional) the seat targeted",
        "target_slot": "(optional) the slot targeted",
        "target_card": "(optional) the card targeted (a Barricade, a Mushroom, Age-Old Cure's card)",
        "ring": "(optional) Haki Flute: the Ring shattered",
        "target_state": "(optional) Smahl Thief: free, sud_spout or protected",
    },
    "gub_moved": {
        "from_seat": "the side the Gub leaves",
        "slot": "its slot",
        "to_seat": "the side it joins",
        "by": "the action that moved it",
    },
    "to_discard": {
        "seat": "the seat the cards come from",
        "card": "the card",
        "copies": "copies",
        "from": "play, hand, discard or played (a card just played)",
    },
    "to_hand": {
        "seat": "the seat whose hand gets the cards",
        "card": "the card",
        "copies": "copies",
        "from": "play, hand, discard or played",
        "from_seat": "the seat they come from",
    },
    "to_deck": {
        "card": "the card put into the deck",
        "depth": "its depth in the deck",
        "from": "play, hand, discard or played",
        "seat": "(optional) the seat it comes from",
    },
    "trapped": {
        "seat": "the side of the Gub",
        "slot": "its slot",
        "trap": "Sud Spout or a Ring",
        "ring": "(optional) the Ring's number",
        "ring_side": "(optional) the seat the Ring belongs to",
    },
    "freed": {"seat": "the side of the Gub", "slot": "its slot", "trap": "the trap it leaves"},
    "protected": {"seat": "the side of the Gub", "slot": "its slot", "card": "the Barricade put on it"},
    "plague_save": {"seat": "the seat", "card": "the card discarded to keep its hand", "as": "the card it acts as"},
    "merchant_keep": {"seat": "the seat", "card": "the card it keeps (Traveling Merchant)"},
    "scout_seen": {
        "seat": "the seat scouting",
        "card": "a card it sees",
        "where": "deck, or hand of seat <s>",
        "position": "(optional) deck: the card's depth",
        "copies": "(optional) a hand: copies of the card in it",
    },
    "discard": {"seat": "the seat", "card": "a card discarded down to the hand limit (G3)"},
    "score": {
        "seat": "the seat",
        "score": "Free + Protected Gubs at the end (G5)",
        "hand": "cards in hand",
        "elder": "the seat has the Esteemed Elder in play",
    },
    "game_end": {
        "winner": "the winning seat, -1 for a shared win or an unfinished game",
        "winners": "the winning seats",
        "tie_break": "none, elder, hand, shared or unfinished (G5)",
        "turns": "turns taken",
        "letters_flopped": "Letters sent back by Flop Boat",
        "finished": "the third Letter was drawn",
    },
    "deck_shuffled": {"deck": "cards in the deck, shuffled"},
}
