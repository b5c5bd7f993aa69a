"""The knob matrix (issue 18): every game, every variant, every knob, each allowed value.

Derived from each ``Game.knobs``, so a new knob is covered without editing this file:

- a ``bool`` knob takes both values, a ``choice`` knob every choice, an ``int`` / ``float`` range
  its two ends and its middle (the nearest odd value for an ``odd`` knob), a ``names`` knob the
  empty list, each name alone and every name at once;
- each value is played alone (the other knobs at their defaults), at the variant's default number
  of players, and every variant also plays a few combinations: every knob at its first value,
  every knob at its last, and seeded random draws of every knob at once, at the variant's fewest
  and most players.

A knob kind this file cannot derive values for raises :class:`NoMatrixEntry` (and a test fails)
until it gets an entry in :data:`VALUES`. Some values need a companion to be playable at all
(:data:`COMPANIONS`: a one-card point deck needs ``point_cards = 1``); a value the game rejects
even so (``ScenarioError`` from ``build_setup``, e.g. a second Esteemed Elder) is a cell whose
expected outcome is that clean error.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from cardsim.errors import ScenarioError
from cardsim.games import game_names, get_game
from cardsim.games.base import Game, Knob
from cardsim.scenario import build_setup

#: (game, knob) -> the values to play, for knobs the generic rules cannot cover
VALUES: dict[tuple[str, str], Callable[[Knob], list[Any]]] = {}


def _largest_odd_at_most(n: int) -> int:
    return max(1, n if n % 2 else n - 1)


#: (game, knob) -> the values combinations draw from, for knobs whose far ends multiply a unit's
#: length when combined (a tournament of 1000 wins of games to 1,000,000 points would not end);
#: each value is still played alone
COMBO_VALUES: dict[tuple[str, str], list[Any]] = {
    ("fourbid", "target"): [1, 30, 72],
    ("fourbid", "max_hands"): [1, 20, 1000],
    ("fourbid", "tournament_wins"): [1, 2, 3],
    ("fourbid", "max_games"): [1, 5, 100],
}

#: (game, knob) -> the other knobs a value needs, given the variant and the value, to be playable
#: (or, for a tournament nobody can win, to end in a few games)
COMPANIONS: dict[tuple[str, str], Callable[[str, Any], dict[str, Any]]] = {
    # F11: a game uses k cards of the point deck (k odd): a short deck needs a short game
    ("fubnub", "point_deck"): lambda var, v: {"point_cards": _largest_odd_at_most(len(v))} if len(v) < 15 else {},
    # a tournament must allow as many games as the wins it asks for; hundreds of games to 72
    # between random players run to hundreds of thousands of hands, so they are games to 10
    ("fourbid", "tournament_wins"): lambda var, v: {"max_games": v, "target": 10} if v > 100 else {},
    # games to a target nobody reaches in max_hands (1000) end unfinished: a tournament of them is
    # cut at max_games; three of them show it
    ("fourbid", "target"): lambda var, v: {"max_games": 3} if var == "tournament" and v > 10_000 else {},
}

#: units a cell plays, per game and variant ("*": any variant), in the CI matrix and the slow one
UNITS: dict[tuple[str, str], tuple[int, int]] = {
    ("fubnub", "*"): (40, 400),
    ("turtle", "*"): (60, 600),
    ("gubs", "*"): (25, 250),
    ("fourbid", "hand"): (40, 400),
    ("fourbid", "game"): (6, 60),
    ("fourbid", "tournament"): (1, 3),
}


class NoMatrixEntry(KeyError):
    """A knob whose values the matrix cannot derive: give it an entry in :data:`VALUES`."""


def knob_values(game: Game, knob: Knob) -> list[Any]:
    """The values of ``knob`` the matrix plays (see the module docstring)."""
    if (game.name, knob.name) in VALUES:
        return VALUES[game.name, knob.name](knob)
    if knob.kind == "bool":
        return [False, True]
    if knob.kind == "choice":
        return list(knob.choices)
    if knob.kind == "names":
        return [[], *[[c] for c in knob.choices], list(knob.choices)]
    if knob.kind in ("int", "float") and knob.lo is not None and knob.hi is not None:
        lo, hi = knob.lo, knob.hi
        if knob.kind == "float":
            return [float(lo), (lo + hi) / 2, float(hi)]
        lo, hi = int(lo), int(hi)
        mid = (lo + hi) // 2
        if knob.odd:
            lo, hi = lo + (lo % 2 == 0), hi - (hi % 2 == 0)
            mid += mid % 2 == 0
        return sorted({lo, mid, hi})
    raise NoMatrixEntry(f"{game.name}: knob {knob.name} ({knob.kind}, range {knob.lo}..{knob.hi}) has no "
                        f"matrix entry: add one to tests/knob_matrix.VALUES")


@dataclass(frozen=True)
class Cell:
    """One set-up of the matrix: a variant, its players and the knobs set (others at defaults)."""

    game: str
    variant: str
    players: int
    rules: tuple[tuple[str, Any], ...]
    label: str

    @property
    def id(self) -> str:
        return f"{self.game}-{self.variant}-{self.players}p-{self.label}"

    def rules_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.rules}

    def units(self, slow: bool = False) -> int:
        n = UNITS.get((self.game, self.variant)) or UNITS[self.game, "*"]
        return n[1] if slow else n[0]


def _freeze(rules: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in rules.items()))


def _with_companions(game: str, variant: str, rules: dict[str, Any]) -> dict[str, Any]:
    out = dict(rules)
    for k, v in rules.items():
        if (game, k) in COMPANIONS:
            out.update({c: cv for c, cv in COMPANIONS[game, k](variant, v).items() if c not in rules})
    return out


def _label(rules: dict[str, Any]) -> str:
    def short(v: Any) -> str:
        if isinstance(v, list):
            return "[" + ",".join(map(str, v)) + "]" if len(v) <= 1 else f"[{len(v)} names]"
        return str(v)

    return ",".join(f"{k}={short(v)}" for k, v in rules.items())


def cells(game_name: str, combos: int = 3, seed: int = 18) -> Iterator[Cell]:
    """Every cell of one game: per variant, the defaults, each knob value alone, then the
    combinations (``combos`` random ones)."""
    game = get_game(game_name)
    rng = random.Random(f"{seed}-{game_name}")
    for v in game.variants:
        knobs = game.knobs_for(v.name)
        alone = {k.name: knob_values(game, k) for k in knobs}
        values = {k: COMBO_VALUES.get((game.name, k), vals) for k, vals in alone.items()}
        yield Cell(game.name, v.name, v.default_players, (), "defaults")
        for k in knobs:
            for val in alone[k.name]:
                rules = _with_companions(game.name, v.name, {k.name: val})
                yield Cell(game.name, v.name, v.default_players, _freeze(rules), _label({k.name: val}))
        if not knobs:
            continue
        extremes = [("first", {k: vals[0] for k, vals in values.items()}),
                    ("last", {k: vals[-1] for k, vals in values.items()})]
        draws = [(f"random{i}", {k: rng.choice(vals) for k, vals in values.items()}) for i in range(combos)]
        for i, (name, rules) in enumerate(extremes + draws):
            players = (v.min_players, v.max_players)[i % 2]
            rules, reset = _playable(game, v.name, players, rules)
            label = f"combo-{name}" + (f"(defaults: {','.join(reset)})" if reset else "")
            yield Cell(game.name, v.name, players, _freeze(rules), label)


def _playable(game: Game, variant: str, players: int, rules: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A combination the game accepts (a combination's values may contradict each other): while
    ``build_setup`` refuses it, the first knob its error names goes back to its default. Returns
    the rules (companions added) and the knobs put back."""
    reset: list[str] = []
    rules = dict(rules)
    while True:
        full = _with_companions(game.name, variant, rules)
        try:
            build_setup(game, variant, players, None, full)
            return full, reset
        except ScenarioError as exc:
            named = [k for k in re.findall(r"rules\.(\w+)", str(exc)) if k in rules]
            if not named:
                raise AssertionError(f"{game.name} {variant}: {exc}") from None
            del rules[named[0]]
            reset.append(named[0])


def all_cells(combos: int = 3) -> list[Cell]:
    return [c for g in game_names() for c in cells(g, combos)]


def seat_policies(game: Game, players: int) -> list[str]:
    """A table mixing every built-in policy, ``random`` first (the most decisions explored)."""
    names = [p.name for p in game.policies]
    names = ["random", *[n for n in names if n != "random"]]
    return [names[i % len(names)] for i in range(players)]
