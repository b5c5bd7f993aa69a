"""Every event of a Gubs trace (``cardsim trace gubs --format jsonl``) and its fields.

``EVENTS``: event name -> {field: meaning}; every event also has ``event`` and ``game``.
Seats are seat numbers 0..players-1 (seat 0 takes the first turn) unless a meaning says
otherwise. Cards are named as the rule sheet writes them (``"Age-Old Cure"``, ``"G"``).

Two ids let a checker follow what is in play:

- a **slot** (0..29) is a Gub in play, from the moment it enters play (``start_gub``,
  ``gub_in_play``) until it leaves (a ``to_discard``, ``to_hand`` or ``to_deck`` of that Gub
  card ``from`` play with that ``slot``); it keeps its slot when it changes sides
  (``gub_moved``). Barricades and a Sud Spout sit on a slot. A Gub entering play takes the
  lowest free slot, so slots are reused;
- a **ring** (0..7) is a Ring card in play, from ``ring_in_play`` until it leaves play
  (``to_discard`` / ``to_hand`` of the Ring card with that ``ring``); the Gubs beneath it
  are the slots ``trapped`` with that ``ring`` and not ``freed`` since.

Every card that changes place has an event: ``deal`` and ``draw`` take the top card of the
deck; ``to_deck``, ``to_hand`` and ``to_discard`` name where a card goes and where it comes
from; ``gub_in_play``, ``protected``, ``trapped`` (a Sud Spout) and ``ring_in_play`` put a
card into play. Four events move their own card to the discard pile, as their meanings say:
``interrupt`` (the answering card), ``cancelled`` (the cancelled card), ``plague_save`` and
``discard``. A deck ``depth`` counts the cards above the card (0 = the top).
"""

from __future__ import annotations

_DEPTH = "cards above it in the deck once it is in (0 = on top)"
_SLOT_FROM = ("(optional) for a card from play: the slot of the Gub it is or sat on (a Barricade, "
              "a Sud Spout); absent for a Ring card, which has ``ring``")
_RING_FROM = "(optional) for a Ring card from play: its ring id"

EVENTS: dict[str, dict[str, str]] = {
    "start_gub": {
        "seat": "seat whose side the Gub starts on (G2: one Gub per player, never the Elder)",
        "card": "the card in play (always Gub)",
        "slot": "the Gub's slot",
    },
    "deck": {
        "cards": "the deck after set-up (the starting Gubs out, the Letters placed, G2), before the "
                 "deal: top of the deck first",
    },
    "deal": {
        "seat": "seat the card is dealt to (set-up, one at a time from seat 0; also the new hands "
                "after the Gargok Plague)",
        "card": "the card, taken from the top of the deck",
    },
    "event_dealt_back": {
        "seat": "seat that was dealt an Event or Letter (G2: it goes back into the deck, the seat "
                "gets the next card); the card's move is the to_deck event (from deck) just before",
        "card": "the Event or Letter",
        "depth": _DEPTH,
    },
    "turn": {
        "seat": "seat whose turn starts",
        "turn": "turn number in the game, from 1 (a round is `players` turns)",
        "letters": "Letters set aside before this turn (0-2)",
        "deck": "cards in the deck at the start of the turn",
    },
    "draw": {
        "seat": "seat that draws (G3)",
        "card": "the card, taken from the top of the deck; an Event or Letter acts at once "
                "(interrupt window, then ``event`` / ``letter`` or ``flop_boat``)",
        "deck_left": "cards left in the deck after the draw",
    },
    "skip_draw": {
        "seat": "seat that does not draw this turn (G3: never two turns running)",
    },
    "interrupt_asked": {
        "seat": "seat asked whether it answers (G4: in turn order from the actor's left; for a "
                "drawn Event the drawer last; only seats holding a card that can answer)",
        "card": "the card announced: the card played (a Hazard or Trap, or Cricket Song acting as "
                "one), the Event or Letter drawn, or Gargok Plague (the save of a hand)",
        "context": "play (a card played), event (an Event or Letter drawn) or plague (an "
                   "Age-Old Cure may save the seat's hand from the Gargok Plague, FAQ 9)",
        "actor": "seat that played or drew the announced card",
        "as": "the card the announced card acts as (itself, or the card Cricket Song acts as); "
              "in the plague context Age-Old Cure (what saves a hand)",
    },
    "interrupt": {
        "seat": "seat that answers; the answering card goes to the discard pile",
        "card": "the card played to answer (Feather, Blindfold, Flop Boat or Cricket Song)",
        "as": "the Interrupt it acts as (Cricket Song answers as Feather in the play context, as "
              "Flop Boat in the event context)",
        "answers": "the card answered (cancelled: see ``cancelled`` or ``flop_boat``)",
        "actor": "seat that played or drew the answered card",
        "context": "play or event (as in ``interrupt_asked``)",
    },
    "interrupt_pass": {
        "seat": "seat that lets the card stand",
        "card": "the card announced",
        "context": "play, event or plague (as in ``interrupt_asked``)",
    },
    "cancelled": {
        "seat": "seat whose played card an Interrupt cancelled; the card goes to the discard pile "
                "without acting",
        "card": "the card cancelled",
        "by": "seat that answered it",
        "op": "what the card was played for (as in ``play``)",
    },
    "flop_boat": {
        "seat": "seat whose Flop Boat (or Cricket Song as one) sent a drawn Event back (FAQ 7); the "
                "card's move is the to_deck event just before",
        "card": "the Event or Letter sent back",
        "depth": _DEPTH,
        "drawer": "seat that drew it",
    },
    "event": {
        "seat": "seat that drew the Event",
        "card": "the Event that acts now (its effects follow; then it goes to the discard pile: "
                "a to_discard from played)",
    },
    "letter": {
        "seat": "seat that drew the Letter",
        "card": "the Letter set aside face up (G, U or B)",
        "letters": "Letters set aside now (1-3; the third ends the game)",
    },
    "play": {
        "seat": "seat that plays a card from its hand (G3)",
        "op": "what the card is played for: gub, protect, discard_mushroom, destroy_barricade, trap "
              "(Sud Spout), ring, lure, super_lure, cyclone, lightning_elder, lightning_hand, steal "
              "(Smahl Thief), omen_beetle, spear_spout, spear_barricade, flute, scout_deck, "
              "scout_hand, retreat, cure",
        "card": "the card played",
        "as": "(optional) when the card is Cricket Song: the card it acts as (FAQ 3)",
        "targets": "(optional) for a ring: Gubs to trap per seat, as {\"seat<k>\": count}",
        "target_seat": "(optional) the seat the play acts on (its own seat for gub, protect, "
                       "retreat); absent for ring, omen_beetle, scout_deck and cure",
        "target_slot": "(optional) the slot the play acts on: the Gub a Barricade protects, a "
                       "Barricade is removed from, a Sud Spout traps, a Lure moves, a Smahl Thief "
                       "steals, Lightning destroys (the Elder); absent when the play acts on no "
                       "single Gub",
        "target_card": "(optional) the Barricade a discard_mushroom, destroy_barricade or "
                       "spear_barricade removes; for cure the card taken from the discard pile",
        "ring": "(optional) for flute: the ring id shattered",
        "target_state": "(optional) for steal: the Gub taken is free, under a sud_spout or "
                        "protected",
    },
    "gub_in_play": {
        "seat": "seat whose side a Gub played from hand enters, Free",
        "card": "Gub or Esteemed Elder",
        "slot": "the Gub's slot",
    },
    "ring_in_play": {
        "seat": "seat whose side the Ring is placed on (the Gubs it traps follow as ``trapped``)",
        "card": "Single Ring, Double Ring or Triple Ring",
        "ring": "the Ring's ring id",
    },
    "gub_moved": {
        "from_seat": "side the Gub leaves",
        "slot": "the Gub's slot (kept)",
        "to_seat": "side the Gub goes to (its Barricades go with it only under stolen_barricades "
                   "= move; otherwise to_hand / to_discard events before this one moved them)",
        "by": "the op that moved it (lure, super_lure, steal, ring, flute)",
    },
    "to_discard": {
        "seat": "whose card: the side it sat on (from play), the hand it leaves (from hand), the "
                "seat that played or drew it (from played)",
        "card": "the card",
        "copies": "copies of it that go",
        "from": "play (a card in play), hand (Lightning on a hand), or played (a Hazard or Tool "
                "after its effect, Cricket Song included; a drawn Event after it acted)",
        "slot": _SLOT_FROM,
        "ring": _RING_FROM,
    },
    "to_hand": {
        "seat": "seat whose hand the card goes into",
        "card": "the card",
        "copies": "copies of it that go",
        "from": "play (Retreat; the Barricades of a Gub taken by Super Lure or Smahl Thief; a Gub "
                "Smahl Thief takes under thief_to = hand), hand (Traveling Merchant: all the "
                "passes happen at once, after every merchant_keep) or discard (Age-Old Cure)",
        "from_seat": "(optional) the side the card was on (from play) or the seat that passed it "
                     "(from hand); absent from the discard pile",
        "slot": _SLOT_FROM,
        "ring": _RING_FROM,
    },
    "to_deck": {
        "seat": "whose card: the seat it was dealt to (from deck: an Event or Letter dealt goes "
                "from the top of the deck straight back into it, G2), the hand it leaves (from "
                "hand: the Gargok Plague), the seat that drew it (from played: a flopped Event), "
                "the side it was on (from play: Rumor of Wasps)",
        "card": "the card",
        "depth": _DEPTH + "; with plague_shuffle = shuffle 0, before the deck_shuffled event",
        "from": "deck, hand, played or play (as in ``seat``)",
        "slot": _SLOT_FROM,
    },
    "trapped": {
        "seat": "side of the Free Gub that is trapped",
        "slot": "the Gub's slot",
        "trap": "Sud Spout (the Spout sits on the Gub; the Gub stays where it is) or the Ring",
        "ring": "(optional) for a Ring: its ring id (the Gub moves beneath it, to the Ring's "
                "side: gub_moved follows)",
        "ring_side": "(optional) for a Ring: the side it is on",
    },
    "freed": {
        "seat": "side of the Gub that is freed",
        "slot": "the Gub's slot",
        "trap": "Sud Spout (destroyed by a Spear, FAQ 6: its to_discard follows) or the Ring a Haki "
                "Flute shatters (its Gubs come to the player's side: gub_moved; the Ring's "
                "to_discard follows them)",
        "ring": "(optional) for a Ring: its ring id",
    },
    "protected": {
        "seat": "seat whose Gub gets the Barricade",
        "slot": "the Gub's slot",
        "card": "the Barricade (Mushroom, Toad Rider, Velvet Moth)",
    },
    "plague_save": {
        "seat": "seat that keeps its hand (FAQ 9); the card goes to the discard pile",
        "card": "the card discarded for it (Age-Old Cure or Cricket Song)",
        "as": "what it acts as (Age-Old Cure)",
    },
    "merchant_keep": {
        "seat": "seat that keeps a card of its hand (Traveling Merchant)",
        "card": "the card kept",
    },
    "scout_seen": {
        "seat": "seat that looks (Scout, or Cricket Song as Scout)",
        "card": "a card seen",
        "where": "deck or \"hand of seat <k>\"",
        "position": "(optional) in the deck: 0 = the top card",
        "copies": "(optional) in a hand: copies of the card there",
    },
    "discard": {
        "seat": "seat that discards down to the hand limit at the end of its turn (G3); the card "
                "goes to the discard pile",
        "card": "the card discarded",
    },
    "score": {
        "seat": "a seat, at the end of the game",
        "score": "Free + Protected Gubs on its side (G5; the Elder counts 1)",
        "hand": "cards in its hand",
        "elder": "the Esteemed Elder is in play on its side",
    },
    "game_end": {
        "winner": "winning seat, or -1 (a shared win or an unfinished game)",
        "winners": "the winning seats (several when the win is shared; empty when unfinished)",
        "tie_break": "the G5 step that decided: none, elder, hand, shared, unfinished",
        "turns": "turns played",
        "letters_flopped": "Letters Flop Boat sent back into the deck",
        "finished": "the third Letter was drawn (false: cut at max_turns)",
    },
    "deck_shuffled": {
        "deck": "cards in the deck, shuffled (plague_shuffle = shuffle, after the Plague's hands went in)",
        "cards": "the deck after the shuffle, top first",
    },
}
