"""FUBNUB's trace events (``cardsim trace fubnub --format jsonl``), field by field.

Seats are numbered 0-3 clockwise ("left" of seat ``s`` is ``s + 1``); team 0 is seats 0 and 2,
team 1 seats 1 and 3. Number cards are named as the sheet writes them (``"Gold 6"``), point
cards by kind (``"Twos"``, ``"Natural"``), action cards by name (``"Second Chance"``). Every hand
starts with a ``dealer`` event; the events of a hand come in the order things happen at the table.
"""

from __future__ import annotations

_DEAL_ORDER = ("the seat's five number cards in dealt order, first dealt first (F5: one at a time from the "
               "dealer's next seat in the play direction); a ghost or a No Reveal player plays them as a stack "
               "from the last dealt back. After Do Over, Second Chance / Slow Down or a Stack Swap: the hand as "
               "it now stands, in the same slot order")

EVENTS: dict[str, dict[str, str]] = {
    "draw_for_deal": {
        "seat": "the seat drawing (players only: ghosts do not draw, F12)",
        "card": "the number card it drew (F4: the highest deals the first hand)",
    },
    "dealer": {
        "hand": "hand number in the game (0-based; every deal counts, misdeals included)",
        "seat": "the seat that deals this hand",
        "advantage": "the dealer's advantage (F7, F10): single, double, or none in the individual variants",
        "direction": "(optional) individual variants: the play direction this hand, clockwise or "
                     "counter-clockwise (Full Deck's Reverse Direction)",
    },
    "deal": {
        "seat": "the seat",
        "cards": _DEAL_ORDER,
    },
    "undealt": {
        "cards": "the number cards left undealt, in the order they are drawn: the first is the next card a swap "
                 "takes (F7). Team variants: the 4 cards after the deal; individual variants: all of them (4, "
                 "or 9 / 14 with 3 / 2 players), after the deal, a complete redeal, Do Over (the four cards "
                 "given up, in the hand's dealt order) and Second Chance / Slow Down (after the shuffle)",
    },
    "reveal": {
        "point_card": "the point card turned up (F5, F6; Full Deck Restart Game with move_points: a new one)",
        "round": "decision round (1 or 2; always 1 in the individual variants, which have no decision cycle)",
    },
    "decision": {
        "seat": "the seat deciding (from the dealer's left, dealer last, F6)",
        "choice": "play or pass (ghosts always pass, F12)",
        "round": "decision round, 1 or 2",
        "point_card": "the point card decided on",
    },
    "shuffle_back": {
        "point_card": "the point card every seat passed, shuffled back into the point deck (F6)",
        "round": "the round that passed",
    },
    "misdeal": {
        "hand": "hand number in the game",
        "dealer": "the seat that dealt it (the deal moves left, F6, F10)",
        "point_card": "the second-round point card, shuffled back",
    },
    "swap": {
        "seat": "the seat swapping (the dealer, F7; Full Deck: the seat holding this hand's advantage, or a player "
                "giving a card after Eliminated)",
        "out": "the card it gave up (it takes the drawn card's place among the undealt cards)",
        "in": "the card it took: the next undealt card",
    },
    "play": {
        "seat": "the seat playing",
        "card": "the card played",
        "trick": "trick number, 1-5",
    },
    "trick": {
        "winner": "the seat whose card won the trick (F8: highest under the point card, F3)",
        "trick": "trick number, 1-5",
        "card": "the winning card",
    },
    "hand": {
        "point_card": "the point card of the hand",
        "round": "(optional) team variants: the decision round the card was played in (1 or 2)",
        "caller": "(optional) team variants: the seat that said play",
        "winner_team": "(optional) team variants: the team that won the point card (F9)",
        "tricks_t0": "(optional) team variants: tricks won by team 0",
        "tricks_t1": "(optional) team variants: tricks won by team 1",
        "swept": "(optional) team variants: the calling team won all five tricks (F10)",
        "fubbed": "(optional) team variants: the calling team lost the point card (F10)",
        "winner": "(optional) individual variants: the seat that won the point card (-1: nobody, after a tie "
                  "under tie_rule limbo or discard, F13)",
        "tie": "(optional) individual variants: the most tricks were tied",
        "limbo": "(optional) individual variants: point cards in limbo after the hand",
        "tricks": "(optional) individual variants: tricks won by each seat, in seat order, one entry per seat at "
                  "the table",
    },
    "score": {
        "points": "individual variants: point cards held by each seat after the hand, in seat order",
    },
    "game": {
        "hands": "hands dealt, misdeals included",
        "winner_team": "(optional) team variants: the team that won the game (-1: unfinished, cut at max_hands)",
        "points_t0": "(optional) team variants: point cards won by team 0",
        "points_t1": "(optional) team variants: point cards won by team 1",
        "winner": "(optional) individual variants: the seat with the most point cards (-1: a tie at the top, or "
                  "unfinished)",
        "tie": "(optional) individual variants: two or more seats tied for the most point cards",
        "unfinished": "(optional) individual variants: the game was cut at max_hands",
        "turtle": "(optional) individual variants: the Turtle ended the game (Full Deck)",
        "limbo_left": "(optional) individual variants: point cards still in limbo at the end (they go to nobody)",
    },
    "action_card": {
        "seat": "the revealer: last hand's point-card winner (F15)",
        "card": "the action card revealed (the top of the face-down stack)",
        "effect": "its FUBNUB meaning: none, skip, eliminated, no_reveal, peek, do_over, rapid_fire, clean_up, "
                  "pick_a_player, double_advantage, no_advantage, redeal_self, steal, restart, reverse, shuffle, "
                  "swap_left, swap_right, turtle",
    },
    "limbo": {
        "seat": "the seat whose point card goes to limbo (Skip), -1 after a tie",
        "point_card": "the point card put in limbo",
        "limbo": "point cards in limbo now",
        "reason": "tie (F13) or skip (F15 Skip)",
    },
    "discard": {
        "point_card": "the point card discarded after a tie (tie_rule discard)",
    },
    "claim_limbo": {
        "seat": "the seat taking the point cards in limbo",
        "point_cards": "how many it takes",
        "reason": "hand (the next hand's winner, limbo_award next_winner), clean_up or turtle",
    },
    "steal": {
        "seat": "the revealer of Never Happened, No Way or Shield",
        "from": "the seat it steals from, -1 for no steal",
        "point_card": "the point card taken (the victim's last earned), null for no steal",
    },
    "pick_a_player": {
        "seat": "the revealer of Pick a Player",
        "picked": "the seat it picks, which holds this hand's dealer advantage",
    },
    "eliminated_pick": {
        "seat": "the player giving a card to the dealer after Eliminated, in turn from the dealer's next seat",
        "dealer": "the dealer",
        "gave": "the card it gave, null when it gave none",
        "took": "the card it took blind from the dealer's hand, null when it gave none",
    },
    "do_over": {
        "seat": "the revealer of Do Over",
        "kept": "the card it kept (it takes the four undealt cards for the other four)",
    },
    "redeal": {
        "seat": "the revealer shuffling its hand with the undealt cards (Second Chance / Slow Down); -1 for a "
                "complete redeal of every hand (Shuffle)",
        "reason": "the card's effect: redeal_self or shuffle",
    },
    "points_dealt": {
        "seat": "a seat at the table",
        "point_cards": "its earned point cards after a Shuffle under move_points: every earned card shuffled and "
                       "dealt out one at a time from the dealer's next seat in the play direction; in the order "
                       "this seat got them, first dealt first",
    },
    "stack_swap": {
        "to": "left or right: where every hand goes",
        "point_cards_move": "earned point cards go with the hands (move_points)",
    },
    "reverse": {
        "seat": "the revealer of Reverse Direction",
        "direction": "the play direction from now on",
    },
    "restart": {
        "seat": "the revealer of Restart Game",
        "point_cards_reset": "every point card went back into the point deck (move_points)",
    },
    "no_reveal": {"seat": "the revealer of No Reveal: it plays this hand blind, its cards as a stack"},
    "peek": {"seat": "the revealer of Peek: it sees every hand this hand"},
    "rapid_fire": {"seat": "the revealer of Rapid Fire: it leads every trick this hand"},
    "advantage": {
        "seat": "the seat holding this hand's dealer advantage (Full Deck)",
        "swaps": "the swaps it may make, 1 or 2",
    },
}
