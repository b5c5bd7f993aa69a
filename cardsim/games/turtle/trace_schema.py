"""Bad, Bad, Turtle's trace events (``cardsim trace turtle --format jsonl``), field by field.

Seats are numbered 0..players-1 clockwise; seat 0 deals and seat 1 plays first (T3). Number cards
are named as the sheet writes them (``"Gold 6"``), action cards by name (``"Second Chance"``).
"""

from __future__ import annotations

EVENTS: dict[str, dict[str, str]] = {
    "start": {
        "dealer": "the seat that deals (seat 0, T3)",
        "players": "players at the table",
        "cards": "cards in the deck (55 less the removed action cards)",
    },
    "deal": {
        "seat": "the seat",
        "cards": "how many cards its stack gets (a count, not the cards)",
        "reason": "initial, gecko (T5), empty_stack (T6), shuffle or restart",
    },
    "turn": {
        "seat": "the seat whose turn it is",
        "turn": "turn number (skipped and Second Chance turns count)",
        "stack": "cards in its stack at the start of the turn",
        "second_chance": "a Second Chance turn",
        "direction": "the play direction: clockwise or counter-clockwise",
    },
    "skip": {"seat": "the seat whose turn is skipped", "reason": "Skip, declined (to perform) or unable (T7)"},
    "perform": {
        "seat": "the seat asked to perform (T7)",
        "card": "the performance card",
        "able": "the seat could perform (knob p_perform)",
        "performed": "it performed",
    },
    "discard": {"seat": "the seat", "card": "the card it discarded face down (T4)", "stack": "cards left in its stack"},
    "reveal": {"seat": "the seat", "card": "the card it revealed", "from": "stack, or discard pile (No Trash)"},
    "effect": {
        "seat": "the seat the card acts for (another seat after a Shield)",
        "card": "the action card acting",
        "moved": "(optional) Clean Up / Do Over: cards moved",
        "stack": "(optional) Do Over: cards in the stack after",
        "second_reveal": "(optional) Double Dip / Recycle Bonus: another card was revealed",
        "card_back": "(optional) Refund: the card put back into the stack (null: none)",
        "to": "(optional) Refund: top or bottom of the stack; Stack Swap: left or right",
        "known": "(optional) Peek: cards of the stack the seat now knows",
        "picked": "(optional) Pick a Player: the seat picked",
        "direction": "(optional) Reverse Direction: the play direction from now on",
    },
    "next_effect": {
        "seat": "the seat a \"next player\" effect now applies to",
        "card": "the action card",
        "moved": "(optional) Slow Down: cards shuffled back into the stack",
        "discards": "(optional) No Trash: cards in the discard pile",
    },
    "hold": {"seat": "the seat setting a held card aside (T8)", "card": "Never Happened, No Way or Shield"},
    "play_held": {
        "seat": "the seat playing its held card",
        "card": "the held card",
        "answer": "overrule_card, overrule_held, discard (No Way) or shield",
        "on": "the action card it answers",
        "on_seat": "the seat that card acted on",
        "target": "(optional) Shield: the seat the card is forced onto",
        "held_by": "(optional) Never Happened on a held card: the seat that played it",
    },
    "cancel": {"seat": "the seat of the card that does not act", "card": "the card", "by": "Never Happened or No Way"},
    "eliminated": {"seat": "the seat knocked out by the gecko (T5)", "order": "elimination order, 1 = first out"},
    "redeal": {
        "reason": "gecko (T5), empty_stack (T6), shuffle or restart",
        "cards": "cards shuffled and dealt",
        "first": "the seat dealt first",
    },
    "win": {"seat": "the winner", "by": "turtle or last_player"},
    "cap": {"turns": "turns played when the game was cut at max_turns (T9)"},
    "end": {
        "winner": "the seat that won, -1 when cut",
        "ended_by": "turtle, last_player or cap",
        "turns": "turns played",
    },
}
