"""FUBNUB cards: number cards as small ints, the point deck as a catalogue.

Number cards (F1): code ``c = (rank - 1) * 4 + colour`` with colours
Red = 0, Purple = 1, Green = 2, Gold = 3, so the natural order is the
order of the codes: Gold 6 (23) is the highest, Red 1 (0) the lowest.

Point cards (F2, F3): each names the number cards it promotes; promoted
cards beat all others, and inside each group the natural order holds. A
card's *strength* under point card ``p`` is ``c + 24 * promoted(p, c)``;
its *position* is how many cards are stronger (0 = the best card).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# the Bad, Bad, Turtle action-card catalogue (T2), shared with that game: numba-free data
from cardsim.games.turtle.cards import ACTION_NAMES, N_ACTION
from cardsim.games.turtle.cards import REMOVABLE as ACTION_REMOVABLE  # noqa: F401  (re-exported)

COLOURS = ("Red", "Purple", "Green", "Gold")  # F1: ascending tie-break order
RANKS = (1, 2, 3, 4, 5, 6)
N_NUMBER = 24
HAND = 5
UNDEALT = 4  # F5: 24 - 4 * 5


def card_name(code: int) -> str:
    """'Gold 6' for 23, 'Red 1' for 0 (the sheet's spelling)."""
    return f"{COLOURS[code % 4]} {code // 4 + 1}"


def card_code(name: str) -> int:
    colour, rank = name.split()
    return (int(rank) - 1) * 4 + COLOURS.index(colour)


@dataclass(frozen=True)
class PointCard:
    name: str
    ranks: tuple[int, ...]  # promoted ranks
    colours: tuple[str, ...]  # promoted colours
    source: str

    def promotes(self, code: int) -> bool:
        return (code // 4 + 1) in self.ranks or COLOURS[code % 4] in self.colours


_SHEET = "sheet (seed 000 examples and the Red 1 note)"
#: The point card kinds (F2). The 15-card deck is ``STANDARD_DECK`` below.
POINT_KINDS: tuple[PointCard, ...] = (
    PointCard("Ones", (1,), (), _SHEET),
    PointCard("Twos", (2,), (), _SHEET),
    PointCard("Threes", (3,), (), _SHEET),
    PointCard("Fours", (4,), (), _SHEET),
    PointCard("Fives", (5,), (), _SHEET),
    PointCard("Sixes", (6,), (), _SHEET),
    PointCard("Odds", (1, 3, 5), (), _SHEET),
    PointCard("Evens", (2, 4, 6), (), _SHEET),
    PointCard("Gold", (), ("Gold",), _SHEET),
    PointCard("Green", (), ("Green",), _SHEET),
    PointCard("Purple", (), ("Purple",), _SHEET),
    PointCard("Red", (), ("Red",), _SHEET),
    PointCard("Natural", (), (), "assumed (F2): no card promoted"),
)
KIND_NAMES = tuple(p.name for p in POINT_KINDS)
#: F2: the 12 named cards plus 3 assumed "Natural" cards; a knob can replace it.
STANDARD_DECK: tuple[str, ...] = (*KIND_NAMES[:12], "Natural", "Natural", "Natural")


def strength_table() -> np.ndarray:
    """int64[kinds, 24]: strength of each number card under each point card kind (F3)."""
    t = np.zeros((len(POINT_KINDS), N_NUMBER), dtype=np.int64)
    for k, p in enumerate(POINT_KINDS):
        for c in range(N_NUMBER):
            t[k, c] = c + N_NUMBER * p.promotes(c)
    return t


def position_table() -> np.ndarray:
    """int64[kinds, 24]: position of each card under each kind (0 = highest card of the hand)."""
    s = strength_table()
    return (s[:, None, :] > s[:, :, None]).sum(axis=2).astype(np.int64)


def order_table() -> np.ndarray:
    """int64[kinds, 24]: the inverse of :func:`position_table`: the card at each position under
    each kind (``order[k, position_table()[k, c]] == c``)."""
    return np.argsort(position_table(), axis=1).astype(np.int64)


def ranking(kind: str) -> list[str]:
    """The 24 number cards from highest to lowest under point card ``kind`` (F3)."""
    pos = position_table()[KIND_NAMES.index(kind)]
    return [card_name(c) for c in np.argsort(pos)]


def deck_kinds(names: tuple[str, ...]) -> np.ndarray:
    """int64[len(names)]: kind index of each point card in a deck given by names."""
    return np.array([KIND_NAMES.index(n) for n in names], dtype=np.int64)


# -- Full Deck (F15): the Bad, Bad, Turtle action cards with their FUBNUB meanings ------------
# The catalogue (names, one card each, T2) is the one Bad, Bad, Turtle uses; this module only
# adds what each card means in FUBNUB's Full Deck mode. Action codes are indices in ACTION_NAMES.

(FX_NONE, FX_SKIP, FX_ELIMINATED, FX_NO_REVEAL, FX_PEEK, FX_DO_OVER, FX_RAPID_FIRE, FX_CLEAN_UP, FX_PICK,
 FX_DOUBLE, FX_NO_ADVANTAGE, FX_REDEAL_SELF, FX_STEAL, FX_RESTART, FX_REVERSE, FX_SHUFFLE, FX_SWAP_LEFT,
 FX_SWAP_RIGHT, FX_TURTLE) = range(19)
EFFECT_NAMES = ("none", "skip", "eliminated", "no_reveal", "peek", "do_over", "rapid_fire", "clean_up",
                "pick_a_player", "double_advantage", "no_advantage", "redeal_self", "steal", "restart",
                "reverse", "shuffle", "swap_left", "swap_right", "turtle")


@dataclass(frozen=True)
class FullDeckMeaning:
    """What an action card does in FUBNUB Full Deck (F15), with the sheet's words."""

    effect: int
    text: str
    source: str


_FD = "sheet (seed 000, FULL DECK MODE)"
_NONE = FullDeckMeaning(FX_NONE, "no FUBNUB meaning on the sheet: no effect", "F15")
#: action card name -> its FUBNUB meaning; cards not listed have none (F15: the performance cards)
FULL_DECK_MEANINGS: dict[str, FullDeckMeaning] = {
    "Skip": FullDeckMeaning(FX_SKIP, "the point card they would have just won is put in limbo and is awarded "
                                     "to the winner of the next hand", _FD),
    "Eliminated": FullDeckMeaning(FX_ELIMINATED, "each player may blindly pick a card from the dealer's hand and "
                                                 "replace it with a card of their choice from their own hand", _FD),
    "No Reveal": FullDeckMeaning(FX_NO_REVEAL, "the player plays the next hand without looking at their cards "
                                               "(ghost mode for this hand)", _FD),
    "Peek": FullDeckMeaning(FX_PEEK, "each player shows their hand to the player who revealed it", _FD),
    "Do Over": FullDeckMeaning(FX_DO_OVER, "the player replaces four of their cards with the four undealt cards", _FD),
    "Rapid Fire": FullDeckMeaning(FX_RAPID_FIRE, "the player starts every trick this hand", _FD),
    "Clean Up": FullDeckMeaning(FX_CLEAN_UP, "the player claims any point cards in limbo", _FD),
    "Pick a Player": FullDeckMeaning(FX_PICK, "the player chooses another player who gets the dealer advantage "
                                              "this hand", _FD),
    **{n: FullDeckMeaning(FX_DOUBLE, "the player gets the double dealer advantage this hand", _FD)
       for n in ("Double Dip", "Recycle Bonus", "Refund")},
    **{n: FullDeckMeaning(FX_NO_ADVANTAGE, "the player gets no dealer advantage this hand", _FD)
       for n in ("No Trash", "Partial Play")},
    **{n: FullDeckMeaning(FX_REDEAL_SELF, "the player shuffles their hand with the undealt cards and deals "
                                          "themself five (they still get the dealer advantage)", _FD)
       for n in ("Second Chance", "Slow Down")},
    **{n: FullDeckMeaning(FX_STEAL, "the player may steal an earned point card from any other player", _FD)
       for n in ("Never Happened", "No Way", "Shield")},
    "Restart Game": FullDeckMeaning(FX_RESTART, "as on the card: all cards shuffled and redealt (a complete "
                                                "redeal of the hand; the action stack is rebuilt)", _FD),
    "Reverse Direction": FullDeckMeaning(FX_REVERSE, "as on the card: play (and the deal) reverse direction", _FD),
    "Shuffle": FullDeckMeaning(FX_SHUFFLE, "as on the card: all hands and undealt cards shuffled and redealt", _FD),
    "Stack Swap Left": FullDeckMeaning(FX_SWAP_LEFT, "as on the card: every player gives their hand to the "
                                                     "player on their left", _FD),
    "Stack Swap Right": FullDeckMeaning(FX_SWAP_RIGHT, "as on the card: every player gives their hand to the "
                                                       "player on their right", _FD),
    "Turtle": FullDeckMeaning(FX_TURTLE, "the game ends; point cards in limbo go to the player who revealed it",
                              _FD),
}


def full_deck_meaning(name: str) -> FullDeckMeaning:
    return FULL_DECK_MEANINGS.get(name, _NONE)


def effect_table() -> np.ndarray:
    """int64[N_ACTION]: the Full Deck effect code (FX_*) of each action code (F15)."""
    return np.array([full_deck_meaning(n).effect for n in ACTION_NAMES], dtype=np.int64)


def action_stack(removed: tuple[str, ...] = ()) -> np.ndarray:
    """int64[m]: the action codes of the Full Deck stack, in catalogue order, minus ``removed``."""
    return np.array([a for a, n in enumerate(ACTION_NAMES) if n not in removed], dtype=np.int64)


assert len(ACTION_NAMES) == N_ACTION == 31
assert set(FULL_DECK_MEANINGS) <= set(ACTION_NAMES)
