"""Gubs cards: the catalogue as data, small-int codes and the kernel's state layout.

Cards are small ints inside (one code per card *name*; copies of a name are
interchangeable), names outside. The catalogue (G1) carries, per
name, its type, count, effect id and ``source``:

- ``"sheet"``: the effect is printed in the rule sheets (seeds 002/003, card texts);
- ``"faq"``: the effect is settled by the FAQ (seed 003);
- ``"reference"``: the effect comes from the rules reference's table (G1) without a sheet text;
- ``"assumed"``: not found in any public source; the rules reference reading (after the
  public GUBS_agent engine) is used and a knob or the count knobs can change it.

Counts all come from G1 (GUBS_agent's catalogue, agreeing with
reviews): ``count_source = "reference"``. A scenario changes counts with the
``remove_cards`` / ``add_cards`` knobs (each entry removes or adds one copy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# -- card types ------------------------------------------------------------------------
T_GUB, T_BARRICADE, T_TRAP, T_HAZARD, T_TOOL, T_INTERRUPT, T_WILD, T_EVENT, T_LETTER = range(9)
TYPE_NAMES = ("Gub", "Barricade", "Trap", "Hazard", "Tool", "Interrupt", "Wild", "Event", "Letter")

# -- card codes (one per name) ------------------------------------------------------------
(GUB, ELDER, MUSHROOM, TOAD, MOTH, SPOUT, RING1, RING2, RING3,
 LURE, SUPERLURE, CYCLONE, LIGHTNING, THIEF, BEETLE,
 SPEAR, FLUTE, SCOUT, RETREAT, CURE,
 FEATHER, BLINDFOLD, FLOPBOAT, CRICKET,
 FLOOD, PLAGUE, ALCHEMY, MERCHANT, WASPS,
 LETTER_G, LETTER_U, LETTER_B) = range(32)
NK = 32


@dataclass(frozen=True)
class CardSpec:
    """One card name of the catalogue."""

    code: int
    name: str
    type: int
    count: int
    effect: str
    source: str
    text: str
    count_source: str = "reference"

    @property
    def type_name(self) -> str:
        return TYPE_NAMES[self.type]


_S, _F, _R, _A = "sheet", "faq", "reference", "assumed"

CATALOGUE: tuple[CardSpec, ...] = (
    CardSpec(GUB, "Gub", T_GUB, 13, "gub", _S,
             "enters play Free on its owner's side; scores when Free or Protected (sheet)"),
    CardSpec(ELDER, "Esteemed Elder", T_GUB, 1, "elder", _F,
             "a Gub immune to every card but Lightning; never Protected, never taken by Age-Old Cure; "
             "wins ties (FAQ 5, sheet)"),
    CardSpec(MUSHROOM, "Mushroom", T_BARRICADE, 7, "protect_or_unmush", _S,
             "protect your Gub, or force any Mushroom in play to be discarded (card text, seed 003)"),
    CardSpec(TOAD, "Toad Rider", T_BARRICADE, 4, "protect_or_unbar", _A,
             "protect your Gub; assumed: or destroy any Barricade in play (knob toad_rider_destroys)"),
    CardSpec(MOTH, "Velvet Moth", T_BARRICADE, 2, "protect", _R, "protect your Gub"),
    CardSpec(SPOUT, "Sud Spout", T_TRAP, 4, "spout", _R,
             "trap an opponent's Free Gub where it sits (FAQ 6, 8)"),
    CardSpec(RING1, "Single Ring", T_TRAP, 1, "ring", _S,
             "trap exactly one Free Gub beneath this Ring on your side (card text, seed 003)"),
    CardSpec(RING2, "Double Ring", T_TRAP, 1, "ring", _S, "trap two Free Gubs beneath this Ring on your side"),
    CardSpec(RING3, "Triple Ring", T_TRAP, 1, "ring", _S, "trap three Free Gubs beneath this Ring on your side"),
    CardSpec(LURE, "Lure", T_HAZARD, 7, "lure", _A, "assumed: move one Free Gub of an opponent to your side"),
    CardSpec(SUPERLURE, "Super Lure", T_HAZARD, 2, "super_lure", _A,
             "assumed: take all Free and Protected Gubs of one opponent (knob stolen_barricades)"),
    CardSpec(CYCLONE, "Cyclone", T_HAZARD, 1, "cyclone", _S,
             "target player's Barricades are destroyed; Gubs are not affected (card text, seed 003)"),
    CardSpec(LIGHTNING, "Lightning", T_HAZARD, 1, "lightning", _F,
             "destroy the Esteemed Elder (FAQ 5); assumed: or discard an opponent's hand (knob lightning_hand)"),
    CardSpec(THIEF, "Smahl Thief", T_HAZARD, 1, "thief", _F,
             "steal an opponent's Gub; stolen from under a Sud Spout, the Spout is discarded (FAQ 8)"),
    CardSpec(BEETLE, "Omen Beetle", T_HAZARD, 1, "beetle", _S,
             "all Mushrooms in play are discarded with the Gubs behind them (card text, seed 003)"),
    CardSpec(SPEAR, "Spear", T_TOOL, 4, "spear", _F,
             "destroy a Sud Spout (the Gub stays where it is, Free: FAQ 6) or a Barricade"),
    CardSpec(FLUTE, "Haki Flute", T_TOOL, 2, "flute", _S,
             "shatter a Ring; its Gubs go into play on your side (card text, seed 003)"),
    CardSpec(SCOUT, "Scout", T_TOOL, 1, "scout", _A, "assumed: look at the top 3 cards of the deck or at one hand"),
    CardSpec(RETREAT, "Retreat", T_TOOL, 1, "retreat", _F,
             "take all cards in play on your side (even opponents' cards) back into your hand (FAQ 10)"),
    CardSpec(CURE, "Age-Old Cure", T_TOOL, 2, "cure", _F,
             "take a card from the discard pile (never the Elder, FAQ 5); or discard it to keep your hand "
             "when the Gargok Plague is drawn (FAQ 9)"),
    CardSpec(FEATHER, "Feather", T_INTERRUPT, 2, "feather", _S,
             "cancel any Hazard or Trap card when it is played (card text, seed 003)"),
    CardSpec(BLINDFOLD, "Blindfold", T_INTERRUPT, 1, "blindfold", _A, "assumed: cancel a Lure or Super Lure"),
    CardSpec(FLOPBOAT, "Flop Boat", T_INTERRUPT, 1, "flop_boat", _F,
             "send a drawn Event back into the deck before it acts, a Letter too, even the last (FAQ 7)"),
    CardSpec(CRICKET, "Cricket Song", T_WILD, 1, "cricket", _F,
             "acts as any Hazard, Tool or Interrupt, then is discarded; never an Event, Gub, Barricade "
             "or Trap (FAQ 3)"),
    CardSpec(FLOOD, "Flash Flood", T_EVENT, 1, "flood", _R, "every Free (unprotected) Gub in play is discarded"),
    CardSpec(PLAGUE, "Gargok Plague", T_EVENT, 1, "plague", _F,
             "hands are shuffled into the deck and new hands drawn; discarding an Age-Old Cure keeps "
             "a hand (FAQ 9)"),
    CardSpec(ALCHEMY, "Dangerous Alchemy", T_EVENT, 1, "alchemy", _A,
             "assumed (GUBS_agent): the drawing player discards every card in play on their side; "
             "the Elder is immune"),
    CardSpec(MERCHANT, "Traveling Merchant", T_EVENT, 1, "merchant", _A,
             "assumed (GUBS_agent): every player keeps one card of their hand and passes the rest "
             "to the next player in turn order"),
    CardSpec(WASPS, "Rumor of Wasps", T_EVENT, 1, "wasps", _A,
             "assumed (GUBS_agent): every Toad Rider in play and the Gub it protects are shuffled "
             "into the deck"),
    CardSpec(LETTER_G, "G", T_LETTER, 1, "letter", _S, "a Letter (an Event): set aside face up; the third ends the game"),
    CardSpec(LETTER_U, "U", T_LETTER, 1, "letter", _S, "a Letter (an Event): set aside face up; the third ends the game"),
    CardSpec(LETTER_B, "B", T_LETTER, 1, "letter", _S, "a Letter (an Event): set aside face up; the third ends the game"),
)
assert [c.code for c in CATALOGUE] == list(range(NK))

CARD_NAMES: tuple[str, ...] = tuple(c.name for c in CATALOGUE)
ASSUMED_EVENTS: tuple[str, ...] = ("Dangerous Alchemy", "Traveling Merchant", "Rumor of Wasps")
STANDARD_COUNTS = np.array([c.count for c in CATALOGUE], dtype=np.int32)
CARD_TYPE = np.array([c.type for c in CATALOGUE], dtype=np.int32)
#: names the count knobs may name (the Letters are fixed: the game ends on the third)
COUNTABLE: tuple[str, ...] = tuple(c.name for c in CATALOGUE if c.type != T_LETTER)
MAX_COPIES = 24  # per name, after add_cards
MAX_GUBS = 30  # Gub + Elder cards, the slot table size
MAX_RINGS = 8  # Ring cards in total
DECK_MAX = 160  # every card of the deck


def card_code(name: str) -> int:
    """The code of a card name as the sheet writes it (``"Age-Old Cure"``, ``"G"``)."""
    try:
        return CARD_NAMES.index(name)
    except ValueError:
        raise KeyError(f"unknown Gubs card {name!r}") from None


def card_name(code: int) -> str:
    return CARD_NAMES[code] if 0 <= code < NK else f"?{code}"


def deck_counts(remove: tuple[str, ...] = (), add: tuple[str, ...] = (), assumed_events: bool = True) -> np.ndarray:
    """int32[NK]: copies of each card in the game after the count knobs (unvalidated)."""
    c = STANDARD_COUNTS.copy()
    if not assumed_events:
        for n in ASSUMED_EVENTS:
            c[card_code(n)] = 0
    for n in remove:
        c[card_code(n)] -= 1
    for n in add:
        c[card_code(n)] += 1
    return c


# -- action ops (the ``acts`` rows a policy chooses from) ---------------------------------
# acts[i] = (op, card, tseat, tslot, aux): ``card`` is the card played from hand (the card
# itself, or Cricket Song acting as the op's card).
(OP_STOP, OP_GUB, OP_PROTECT, OP_UNMUSH, OP_UNBAR, OP_SPOUT, OP_RING, OP_LURE, OP_SLURE, OP_CYCLONE,
 OP_LIGHT_ELDER, OP_LIGHT_HAND, OP_THIEF, OP_BEETLE, OP_SPEAR_SPOUT, OP_SPEAR_BAR, OP_FLUTE,
 OP_SCOUT_DECK, OP_SCOUT_HAND, OP_RETREAT, OP_CURE) = range(21)
NOPS = 21
OP_NAMES = ("stop", "gub", "protect", "discard_mushroom", "destroy_barricade", "trap", "ring", "lure",
            "super_lure", "cyclone", "lightning_elder", "lightning_hand", "steal", "omen_beetle",
            "spear_spout", "spear_barricade", "flute", "scout_deck", "scout_hand", "retreat", "cure")
#: the card an op acts as (Cricket Song takes this card's effect)
OP_AS = np.array([-1, GUB, MUSHROOM, MUSHROOM, TOAD, SPOUT, RING1, LURE, SUPERLURE, CYCLONE, LIGHTNING,
                  LIGHTNING, THIEF, BEETLE, SPEAR, SPEAR, FLUTE, SCOUT, SCOUT, RETREAT, CURE], dtype=np.int32)
#: 1 for ops that open an interrupt window (a Hazard or a Trap is played, G4)
OP_WINDOW = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=np.int32)
ACT_W = 5
#: rows of the legal-play buffer: a list holds at most 693 rows (6 seats, 30 Gubs, 8 Rings, every
#: knob at its widest; tests/test_gubs_rules.py counts them), and ``engine.addc`` writes one row
#: past the list
MAX_ACTS = 1024

# -- respond / pick contexts ------------------------------------------------------------
CTX_PLAY, CTX_EVENT, CTX_PLAGUE = 0, 1, 2
CTX_NAMES = ("play", "event", "plague")
PICK_DISCARD, PICK_KEEP = 0, 1
PICK_NAMES = ("discard", "keep")
ANN_W = 8  # ann = (ctx, op, card, actor, tseat, tslot, aux, as_card)

# -- knob codes ---------------------------------------------------------------------------
(K_STACK, K_TOAD, K_LHAND, K_STOLEN, K_THIEF_TO, K_THIEF_ANY, K_RING_EXACT, K_CURE_ANY, K_REDRAW,
 K_PSHUFFLE, K_HAND_LIMIT, K_HAND_SIZE, K_MAX_TURNS, K_LETTERS, K_MAX_PLAYS) = range(15)
NKNOB = 15
STOLEN_RETURN, STOLEN_DISCARD, STOLEN_MOVE = 0, 1, 2
REDRAW_SAME, REDRAW_THREE, REDRAW_NONE = 0, 1, 2
LETTERS_THIRDS, LETTERS_SHUFFLED = 0, 1

# -- public state layout (``pub``: int32[P_SIZE]) -------------------------------------------
# Everything every player can see: seats' sides of the table, the discard pile, hand sizes,
# Letters out, the deck size. Policies read it; hands and the deck order are elsewhere.
MAXS = 6
#: the row of the ``hand`` array (int32[MAXS + 1, NK]) that holds each seat's mask of the card
#: kinds in its hand: bit k of ``hand[HMASK, s]`` is set when ``hand[s, k] > 0``
HMASK = MAXS
P_NP, P_TURN, P_CUR, P_LETTERS, P_DECKN, P_ELDER, P_ELDER_SLOT, P_NRINGS = 0, 1, 2, 3, 4, 5, 6, 7
P_MUSH_ALL, P_BAR_ALL, P_FLOPPED, P_OVER, P_PROT_ALL, P_SPOUT_ALL, P_FREE_ALL, P_RINGED_ALL = 8, 9, 10, 11, 12, 13, 14, 15
P_HI = 16  # slots in use are below this index (a high-water mark)
P_HANDN = 17  # + seat: cards in hand
P_SKIP = P_HANDN + MAXS  # + seat: 1 when the seat skipped its last draw (G3)
P_SCORE = P_SKIP + MAXS  # + seat: Free + Protected Gubs on the seat's side (G5)
P_FREE = P_SCORE + MAXS  # + seat: Free Gubs (no Barricade, no Trap, not the Elder)
P_PROT = P_FREE + MAXS  # + seat: Protected Gubs
P_SPOUTED = P_PROT + MAXS  # + seat: Gubs under a Sud Spout
P_RINGED = P_SPOUTED + MAXS  # + seat: Gubs beneath the seat's Rings
P_BARS = P_RINGED + MAXS  # + seat: Barricade cards on the seat's side
P_MUSH = P_BARS + MAXS  # + seat: Mushrooms on the seat's side
P_MUSHGUBS = P_MUSH + MAXS  # + seat: Gubs behind at least one Mushroom
P_TOADGUBS = P_MUSHGUBS + MAXS  # + seat: Gubs behind at least one Toad Rider
P_RINGS_ON = P_TOADGUBS + MAXS  # + seat: Rings on the seat's side
P_DISC = P_RINGS_ON + MAXS  # + card: copies in the discard pile
P_ASIDE = P_DISC + NK  # + 0..2: Letters set aside (G, U, B)
P_SIDE = P_ASIDE + 4  # + slot: side of the Gub in slot (-1: slot empty)
P_ELD = P_SIDE + MAX_GUBS  # + slot: 1 for the Elder
P_TRAP = P_ELD + MAX_GUBS  # + slot: 0 none, 1 Sud Spout, 2 + r beneath Ring r
P_BM = P_TRAP + MAX_GUBS  # + slot: Mushrooms on it
P_BT = P_BM + MAX_GUBS  # + slot: Toad Riders on it
P_BV = P_BT + MAX_GUBS  # + slot: Velvet Moths on it
P_RSIDE = P_BV + MAX_GUBS  # + ring: side (-1: unused)
P_RKIND = P_RSIDE + MAX_RINGS  # + ring: card code
P_RN = P_RKIND + MAX_RINGS  # + ring: Gubs beneath it
P_FREE_SLOTS = P_RN + MAX_RINGS  # + seat: the seat's Free Gubs' slots as a bitmask (bit i: slot i)
P_SPOUT_SLOTS = P_FREE_SLOTS + MAXS  # + seat: the slots of the seat's Gubs under a Sud Spout, a bitmask
P_PROT_SLOTS = P_SPOUT_SLOTS + MAXS  # + seat: the slots of the seat's Protected Gubs, a bitmask
P_SIZE = P_PROT_SLOTS + MAXS
TRAP_SPOUT = 1
TRAP_RING0 = 2

# -- private state (``priv``: int32[V_SIZE]) ------------------------------------------------
V_PEND = 0  # + card: cards in transit (played and waiting for the interrupt window)
V_SCOUT_N = V_PEND + NK  # + seat: deck size when the seat scouted the deck (0: none)
V_SCOUT_VER = V_SCOUT_N + MAXS  # + seat: deck version then
V_DECK_VER = V_SCOUT_VER + MAXS  # bumped by every insertion or shuffle
V_SKIPS, V_INTERRUPTS, V_EVENTS, V_PLAYCAPS = V_DECK_VER + 1, V_DECK_VER + 2, V_DECK_VER + 3, V_DECK_VER + 4
V_SIZE = V_DECK_VER + 5

# -- trace event kinds ----------------------------------------------------------------------
# (the names and fields they decode to: ``trace_schema.py``)
(EV_START, EV_DEAL, EV_REDEAL, EV_TURN, EV_DRAW, EV_SKIP, EV_ASK, EV_ANSWER, EV_PASS, EV_CANCEL, EV_FLOP,
 EV_EVENT, EV_LETTER, EV_PLAY, EV_MOVE, EV_TO_DISCARD, EV_TO_HAND, EV_TO_DECK, EV_TRAPPED, EV_FREED, EV_SAVE,
 EV_KEEP, EV_SEEN, EV_DISCARD, EV_SCORE, EV_END, EV_SHUFFLE, EV_DECK, EV_PROTECTED, EV_GUB_IN, EV_RING_IN,
 EV_CARDS) = range(1, 33)
#: cards per EV_CARDS row (the rows after an EV_DECK or EV_SHUFFLE row list the deck, top first)
CARDS_PER_ROW = 5
# places a card leaves (EV_TO_DISCARD / EV_TO_HAND / EV_TO_DECK ``from``)
FROM_PLAY, FROM_HAND, FROM_DISCARD, FROM_PEND, FROM_DECK = 0, 1, 2, 3, 4
FROM_NAMES = ("play", "hand", "discard", "played", "deck")
# tie breaks (G5)
TB_NONE, TB_ELDER, TB_HAND, TB_SHARED, TB_UNFINISHED = 0, 1, 2, 3, 4
TB_NAMES = ("none", "elder", "hand", "shared", "unfinished")

# -- game-table columns (int32 matrix ``gout``) ---------------------------------------------
(G_WINNER, G_WINNERS, G_TURNS, G_TB, G_FLOPPED, G_SKIPS, G_INTERRUPTS, G_EVENTS, G_DECK, G_ELDER,
 G_FINISHED, G_PLAYCAPS) = range(12)
G_SCORE = 12  # + seat
G_HAND = 18  # + seat: cards in hand at the end
NG = 24
