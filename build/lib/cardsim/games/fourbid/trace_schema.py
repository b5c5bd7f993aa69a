"""FOURBID's trace events (``cardsim trace fourbid --format jsonl``), field by field.

Seats are positions, clockwise, seat 0 being position A (B13); ``game`` is the unit index (a hand,
a game or a tournament, by variant). OceanLife cards are named ``"Set3 5"`` (set and value, both
assumed, B1) and the wilds ``"Wild#1"``..``"Wild#3"``. In the tournament variant every event but
``tournament_end`` also carries ``tgame``, the game number inside the tournament.
"""

from __future__ import annotations

_HAND = "hand number in the game (0-based; void hands count)"
_TGAME = "(optional) tournament variant: the game number inside the tournament (0-based)"


def _in_hand(fields: dict[str, str]) -> dict[str, str]:
    return {**fields, "hand": _HAND, "tgame": _TGAME}


EVENTS: dict[str, dict[str, str]] = {
    "hand": _in_hand({"dealer": "the seat that deals this hand (B2)"}),
    "deal": _in_hand({
        "seat": "the seat",
        "cards": "the four OceanLife cards dealt to it, in dealt order, first dealt first (B2: one at a time "
                 "from the dealer's left, off the top of the shuffled deck)",
    }),
    "deck": _in_hand({
        "cards": "the deck after the deal, top first: the next card drawn from the deck is the first",
    }),
    "acquire": _in_hand({
        "seat": "the seat completing the turn",
        "source": "deck (its top card) or discards (the top of the discard pile), B3",
        "card": "the card taken",
        "deck": "cards left in the deck after it",
        "discards": "cards left in the discard pile after it",
    }),
    "discard": _in_hand({"seat": "the seat", "card": "the OceanLife card it discarded onto the pile (B3)"}),
    "indicator": _in_hand({
        "seat": "the seat",
        "indicator": "the Indicator it played instead of a discard (1-4, in order, B3; 4 goes out, B8)",
        "cost": "Points Spent for it: the first Indicator of the hand (Special Rule 1, B6), else 0",
        "forced": "Special Rule 2 forced it (B7)",
        "rule2_starts": "the hand's first 2: Special Rule 2 applies from now on (B7)",
    }),
    "bid": _in_hand({
        "seat": "the seat bidding (B4)",
        "bid": "the bid it makes, 1-4",
        "forced": "the opener's forced 1",
    }),
    "pass": _in_hand({"seat": "the seat passing", "standing_bid": "the bid that stands (its maker wins)"}),
    "win_bid": _in_hand({
        "seat": "the seat that won the bidding and completes the turn",
        "bid": "the winning bid",
        "cost": "bid x Indicator showing, added to its Points Spent (B5)",
        "indicator_showing": "the Indicator showing on its board (0: none)",
    }),
    "reshuffle": _in_hand({
        "deck": "cards in the new deck (B12: every discard but the top one)",
        "top_discard": "the discard that stays on the pile",
        "cards": "the new deck, top first: the next card drawn from the deck is the first",
    }),
    "go_out": _in_hand({
        "seat": "the seat going out with its Indicator 4 (B8)",
        "earned": "its Earned Points (B10)",
        "set_cards": "its most cards of one set, wilds counted (4+ to go out)",
    }),
    "challenge": _in_hand({
        "seat": "a seat asked, from the left of the one who went out (B9)",
        "challenge": "it pays to challenge",
        "cost": "Points Spent for the challenge (0 when it declines)",
    }),
    "challenge_result": _in_hand({
        "seat": "the challenger",
        "earned": "its Earned Points",
        "out_earned": "the Earned Points of the one who went out",
        "result": "won, tied or lost",
        "bonus": "its Bonus Points from the challenge (B9)",
    }),
    "score": _in_hand({
        "seat": "the seat",
        "earned": "Earned Points (B10)",
        "bonus": "Bonus Points (B8, B9)",
        "spent": "Points Spent (B5, B6, B9)",
        "net": "Net = Earned + Bonus - Spent (B11; may be negative)",
        "score": "running score after the hand (a negative Net adds 0, B11)",
    }),
    "hand_cut": _in_hand({"turns": "completed turns when the hand was cut at turn_cap: void, nobody scores (B14)"}),
    "game_end": {
        "winner": "the seat that won (B13), -1 when unfinished (max_hands)",
        "winner_player": "the player (P1 = 0) seated there, -1 when unfinished",
        "hands": "hands played, void hands included",
        "finished": "a sole leader reached the target",
        "tgame": _TGAME,
    },
    "seating": {
        "tgame": "the game number inside the tournament",
        "players": "the player (P1 = 0) at positions A, B, C, D, in that order (the Player Position Map, B13)",
    },
    "tournament_end": {
        "winner_player": "the player (P1 = 0) who won the tournament, -1 when cut at max_games",
        "games": "games played",
        "hands": "hands played",
    },
}
