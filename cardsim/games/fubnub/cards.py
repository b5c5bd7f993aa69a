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
    PointCard("Natural", (), (), "assumed (RULES.md F2): no card promoted"),
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


def ranking(kind: str) -> list[str]:
    """The 24 number cards from highest to lowest under point card ``kind`` (F3)."""
    pos = position_table()[KIND_NAMES.index(kind)]
    return [card_name(c) for c in np.argsort(pos)]


def deck_kinds(names: tuple[str, ...]) -> np.ndarray:
    """int64[len(names)]: kind index of each point card in a deck given by names."""
    return np.array([KIND_NAMES.index(n) for n in names], dtype=np.int64)
