"""FOURBID cards: OceanLife cards as small ints, the catalogue and position map as data.

OceanLife cards (B1) are codes ``0 .. N-1`` into the catalogue below: code
``c`` has set ``CARD_SET[c]`` (``-1`` for a wild) and point value
``CARD_VALUE[c]``. With the assumed catalogue, ``c = 6 * set + value - 1``
for the 48 set cards (Set1 1 = 0 ... Set8 6 = 47) and 48, 49, 50 are the
three wilds. Indicator cards are not codes: a player's board is the count
of Indicators played (0-4), the next one is always that count + 1 (B3).

The set names and values are in the Tactics & Examples Booklet, which is
not public: every entry carries a ``source`` so a user who owns the cards
can correct ``SETS`` / ``WILDS`` here and re-run (bump ``rules_version``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class OceanSet:
    """One OceanLife set: its name, the point values of its cards, and where they come from."""

    name: str
    values: tuple[int, ...]
    source: str


@dataclass(frozen=True)
class Wild:
    name: str
    source: str


_ASSUMED_SET = "assumed (B1): booklet not public; values 1-6"
#: B1: 8 sets of 6 (sheet: "8 sets of 6, plus 3 wild cards"); names and values assumed.
SETS: tuple[OceanSet, ...] = tuple(OceanSet(f"Set{k}", (1, 2, 3, 4, 5, 6), _ASSUMED_SET) for k in range(1, 9))
#: B1: 3 wilds worth 0 (sheet: "they can count as belonging to any set, but they have no point value").
WILDS: tuple[Wild, ...] = tuple(Wild(f"Wild#{k}", "sheet (seed 004, Wild Cards)") for k in range(1, 4))

HAND = 8  # B2: 4 OceanLife + 4 Indicators
DEALT = 4  # B2
INDICATORS = 4
WIDTH = 12  # hand buffer width: at most 8 OceanLife + 1 acquired


def catalogue() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """``(card_set, card_value, names)``: int64 arrays over card codes and the card names."""
    cset: list[int] = []
    cval: list[int] = []
    names: list[str] = []
    for k, s in enumerate(SETS):
        for v in s.values:
            cset.append(k)
            cval.append(v)
            names.append(f"{s.name} {v}")
    for w in WILDS:
        cset.append(-1)
        cval.append(0)  # B10: wilds are worth 0 whatever is printed
        names.append(w.name)
    if len(cset) < 4 * HAND + 3:
        raise ValueError(f"the OceanLife catalogue has {len(cset)} cards; FOURBID needs at least {4 * HAND + 3}")
    return np.array(cset, np.int64), np.array(cval, np.int64), tuple(names)


CARD_SET, CARD_VALUE, CARD_NAMES = catalogue()
N_CARDS = len(CARD_NAMES)
N_SETS = len(SETS)
SET_NAMES = tuple(s.name for s in SETS)
_CODES = {n.lower(): i for i, n in enumerate(CARD_NAMES)}


def card_name(code: int) -> str:
    """'Set3 5' for a set card, 'Wild#1' for a wild; 'none' for -1."""
    return CARD_NAMES[code] if 0 <= code < N_CARDS else "none"


def card_code(name: str) -> int:
    """The code of a card name as :func:`card_name` writes it (case-insensitive)."""
    try:
        return _CODES[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown OceanLife card {name!r}; e.g. 'Set1 6' or 'Wild#2'") from None


def codes(names: str | list[str]) -> list[int]:
    """Codes of a comma-separated string or a list of card names."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    return [card_code(n) for n in names]


#: B13: Player Position Map, assumed (the rules reference); row g-1 gives the players (1-4) at
#: positions A, B, C, D in game g of a tournament; rows cycle after 12.
POSITION_MAP_SOURCE = "assumed (B13): the printed map is not public"
POSITION_MAP: tuple[tuple[int, int, int, int], ...] = (
    (1, 2, 3, 4),
    (2, 4, 1, 3),
    (3, 1, 4, 2),
    (4, 3, 2, 1),
    (2, 3, 4, 1),
    (4, 1, 3, 2),
    (1, 4, 2, 3),
    (3, 2, 1, 4),
    (1, 2, 4, 3),
    (4, 3, 1, 2),
    (3, 4, 2, 1),
    (2, 1, 3, 4),
)


def position_map() -> np.ndarray:
    """int64[12, 4]: player index (0-based, P1 = 0) seated at position A..D (seat 0..3) per game row."""
    return np.array(POSITION_MAP, np.int64) - 1
