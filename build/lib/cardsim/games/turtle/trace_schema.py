"""Bad, Bad, Turtle trace events (``cardsim trace turtle --format jsonl``), field by field.

``EVENTS`` maps each event name to {field: meaning}; every event also has
``event`` and ``game`` (the global game index). Seats are seat numbers
0..players-1 (seat 0 deals, seat 1 plays first, T3). Cards are named as the
sheet writes them (``"Gold 6"``, ``"Pick a Player"``); piles are listed top
first. A field present only in some events of a name has a meaning starting
with ``"(optional) "``.

With these events a checker can follow every card: each deal and redeal names
every stack top first, a shuffled stack (Do Over, Slow Down) is named again,
discards and reveals name their card, and every other move (Clean Up, Refund,
stack swaps, held cards) follows from the rules.
"""

from __future__ import annotations

_ANSWERS = ("overrule_card (Never Happened overrules the card in question), overrule_held (Never Happened "
            "overrules the No Way or Shield last played on it), discard (No Way), shield (Shield)")

EVENTS: dict[str, dict[str, str]] = {
    "start": {
        "dealer": "seat that deals (always 0, T3)",
        "players": "seats at the table",
        "cards": "cards in the deck (55 less the removed action cards)",
    },
    "deal": {
        "seat": "seat dealt to; one deal event per seat still in the game, in dealing order (clockwise from "
                "the seat that plays first or next)",
        "cards": "how many cards the seat got",
        "reason": "initial (the first deal, T3) or the redeal's reason: gecko (T5), empty_stack (T6), shuffle "
                  "(Shuffle), restart (Restart Game)",
        "stack_cards": "the seat's whole new stack, top of the stack first (the top card is the last one dealt "
                       "to it and the first it discards)",
    },
    "turn": {
        "seat": "seat whose turn it is",
        "turn": "turn number, 1-based (skipped and Second Chance turns count, T9)",
        "stack": "cards in the seat's stack at the start of the turn",
        "second_chance": "true for the extra turn a Second Chance gives (next-player effects wait for the next "
                         "ordinary turn)",
        "direction": "play direction: clockwise (to the left, seat + 1) or counter-clockwise",
    },
    "skip": {
        "seat": "seat whose turn is skipped (the turn still counts)",
        "reason": "Skip (the card), declined (did not perform, T7) or unable (could not perform: the p_perform "
                  "draw failed)",
    },
    "perform": {
        "seat": "seat asked to perform (T7)",
        "card": "the performance card (Dance, Rhyme, ...)",
        "able": "the p_perform draw let the seat perform",
        "performed": "the seat performed (false: the turn is skipped)",
    },
    "discard": {
        "seat": "seat discarding (T4): the top card of its stack goes onto its discard pile",
        "card": "the card discarded",
        "stack": "cards left in the seat's stack after this discard",
    },
    "reveal": {
        "seat": "seat revealing onto its reveal pile",
        "card": "the card revealed",
        "from": "stack (its top card) or discard pile (its top card: No Trash, Recycle Bonus)",
    },
    "effect": {
        "seat": "seat the action card acts for (its revealer, or a Shield's target)",
        "card": "the action card carried out (the Turtle, the gecko and held cards have their own events: win, "
                "eliminated, hold)",
        "moved": "(optional) Clean Up: revealed cards turned over onto the discard pile; Do Over: revealed cards "
                 "put back into the stack",
        "stack": "(optional) Do Over: cards in the stack after the reshuffle",
        "stack_cards": "(optional) Do Over: the reshuffled stack, top of the stack first",
        "second_reveal": "(optional) Double Dip / Recycle Bonus: another card is revealed (false: the stack or "
                         "discard pile was empty)",
        "card_back": "(optional) Refund: the card taken from the discard pile back into the stack (null: the "
                     "discard pile was empty)",
        "to": "(optional) Refund: top or bottom of the stack (knob refund_to); Stack Swap Left / Right: left "
              "or right, the side every stack goes to",
        "known": "(optional) Peek: stack cards the seat now knows, top down, until its next turn",
        "picked": "(optional) Pick a Player: the seat that plays next",
        "direction": "(optional) Reverse Direction: the new play direction",
    },
    "next_effect": {
        "seat": "seat taking the turn a next-player card acts on (the next ordinary turn)",
        "card": "No Trash, Partial Play, Rapid Fire, No Reveal or Slow Down",
        "moved": "(optional) Slow Down: reveal-pile cards shuffled into the stack",
        "stack_cards": "(optional) Slow Down: the shuffled stack, top of the stack first",
        "discards": "(optional) No Trash: cards in the seat's discard pile (0: nothing to reveal)",
    },
    "hold": {
        "seat": "seat that revealed a held card and sets it aside (T8)",
        "card": "Never Happened, No Way or Shield",
    },
    "pass": {
        "seat": "seat asked in a held-card window that passed. A window opens after each action-card reveal; "
                "seats with a legal answer are asked from the seat the card acts on, in the play direction, "
                "round after round until a round passes with no play (RULES_NOTES, Held cards); every ask is "
                "one pass or play_held event",
        "on": "the action card in question",
        "on_seat": "seat that card acts on at this point",
        "options": "the answers the seat could have given besides passing: " + _ANSWERS,
        "targets": "(optional) seats a Shield could have forced the card onto (when shield is an option)",
    },
    "play_held": {
        "seat": "seat asked in a held-card window that played a held card",
        "card": "the held card played: Never Happened, No Way or Shield",
        "answer": "what it did: " + _ANSWERS,
        "on": "the card answered: the action card in question, or for overrule_held the No Way or Shield "
              "overruled",
        "on_seat": "seat the action card acted on when the held card was played",
        "target": "(optional) shield: the seat the card is forced onto",
        "held_by": "(optional) overrule_held: seat that played the No Way or Shield being overruled",
        "options": "the answers the seat could have given besides passing: " + _ANSWERS,
        "targets": "(optional) seats a Shield could have forced the card onto (when shield is an option)",
    },
    "cancel": {
        "seat": "seat whose action card does not act after the window",
        "card": "the action card stopped",
        "by": "Never Happened (overruled; it stays on the reveal pile) or No Way (it went to the discard pile)",
    },
    "eliminated": {
        "seat": "seat that revealed the gecko (or had it forced onto it) and is out (T5)",
        "order": "elimination order, 1 = first out",
    },
    "redeal": {
        "reason": "gecko (T5), empty_stack (T6), shuffle (Shuffle) or restart (Restart Game)",
        "cards": "cards shuffled and dealt (the deal events that follow name each new stack)",
        "first": "seat dealt first: the seat that plays next",
    },
    "win": {
        "seat": "seat that wins",
        "by": "turtle (revealed the Turtle, T5) or last_player (last player standing, T5)",
    },
    "cap": {
        "turns": "turns played when the game was cut at max_turns (unfinished, T9)",
    },
    "end": {
        "winner": "seat that won, -1 when the game was cut",
        "ended_by": "turtle, last_player or cap",
        "turns": "turns played",
    },
}
