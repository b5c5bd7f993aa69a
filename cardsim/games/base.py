"""The face every game implements (DESIGN "Layout"; STYLE habit 1).

The runner, analysis, reports and CLI know a game only through a
:class:`Game` object: its name, variants, rule knobs, policies, output
tables and a handful of methods. Adding a game touches nothing outside
``cardsim/games/`` but one line in ``cardsim/games/__init__.py``.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from cardsim.errors import ScenarioError, allowed_list, did_you_mean, said


@dataclass(frozen=True)
class Knob:
    """One rule knob: a documented default and the values allowed.

    ``kind`` is one of ``int``, ``float``, ``bool``, ``choice`` (one of
    ``choices``) or ``names`` (a list of names, each in ``choices``: e.g.
    action cards to remove). ``odd`` asks for an odd int. ``variants``
    lists the variants the knob applies to (empty: all).
    """

    name: str
    default: Any
    help: str
    kind: str = "int"
    choices: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    odd: bool = False
    variants: tuple[str, ...] = ()

    def allowed(self) -> str:
        if self.kind in ("choice", "names"):
            return allowed_list(self.choices)
        if self.kind == "bool":
            return "true or false"
        lo = "-inf" if self.lo is None else _fmt(self.lo)
        hi = "inf" if self.hi is None else _fmt(self.hi)
        rng = f"{self.kind} in [{lo}, {hi}]"
        return rng + (", odd" if self.odd else "")

    def validate(self, value: Any, where: str) -> Any:
        """Return the value normalised, or raise :class:`ScenarioError` naming ``where``."""
        bad = f"{said(where, repr(value))} is not allowed; allowed: {self.allowed()}"
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ScenarioError(bad)
            return value
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise ScenarioError(bad + did_you_mean(str(value), self.choices))
            return value
        if self.kind == "names":
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ScenarioError(f"{where} must be a list of names; allowed names: {self.allowed()}")
            for v in value:
                if v not in self.choices:
                    raise ScenarioError(
                        f"{where}: unknown name {v!r}{did_you_mean(v, self.choices)}; allowed: {self.allowed()}"
                    )
            return tuple(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScenarioError(bad)
        if self.kind == "int":
            if isinstance(value, float) and not value.is_integer():
                raise ScenarioError(bad)
            value = int(value)
        else:
            value = float(value)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise ScenarioError(bad)
        if self.odd and value % 2 == 0:
            raise ScenarioError(bad)
        return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@dataclass(frozen=True)
class Variant:
    name: str
    help: str
    min_players: int
    max_players: int
    default_players: int


@dataclass(frozen=True)
class Domain:
    """The values a policy parameter accepts: one of ``values`` (a flag, a choice), or a number in
    ``[low, high]`` (either end open when None), an integer when ``integer``. Whatever the kernel
    reads a parameter as (a flag as ``> 0.5``, a count with ``>=``), a value outside its domain is a
    typo or a misreading, never a setting: :func:`cardsim.policies.resolve_seat` refuses it."""

    values: tuple[int, ...] = ()
    low: float | None = None
    high: float | None = None
    integer: bool = False

    def accepts(self, v: float) -> bool:
        if self.values:
            return v in self.values
        if self.integer and not float(v).is_integer():
            return False
        return (self.low is None or v >= self.low) and (self.high is None or v <= self.high)

    def describe(self) -> str:
        """``0 or 1``, ``0, 1 or 2``, ``an integer >= 0``, ``an integer in [0, 3]``, ``any number``."""
        if self.values:
            vals = [str(v) for v in self.values]
            return ", ".join(vals[:-1]) + f" or {vals[-1]}"
        kind = "an integer" if self.integer else "a number"
        if self.low is not None and self.high is not None:
            return f"{kind} in [{self.low:g}, {self.high:g}]"
        if self.low is not None:
            return f"{kind} >= {self.low:g}"
        if self.high is not None:
            return f"{kind} <= {self.high:g}"
        return "any integer" if self.integer else "any number"


#: a switch read as on when 1 (``> 0.5`` in the kernels)
FLAG = Domain(values=(0, 1))
#: a count or a position among cards: 0, 1, 2, ...
COUNT = Domain(low=0, integer=True)
#: a threshold or a cost compared with numbers the game computes: any real number
NUMBER = Domain()


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: its dispatch id, documentation, named parameters with their defaults, and
    each parameter's :class:`Domain` (``domains``: (name, domain) pairs; a parameter not named
    there accepts any number)."""

    name: str
    pid: int
    help: str
    params: tuple[tuple[str, float], ...] = ()
    domains: tuple[tuple[str, Domain], ...] = ()

    def param_names(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.params)

    def domain(self, param: str) -> Domain:
        return dict(self.domains).get(param, NUMBER)


@dataclass(frozen=True)
class SeatPolicy:
    """The policy one seat plays: name as written, dispatch id, parameter vector.

    ``plugin`` is ``"path.py:name"`` for a user plug-in (``pid`` is then
    assigned by :mod:`cardsim.policies` above the built-in ids).
    """

    name: str
    pid: int
    params: tuple[float, ...] = ()
    param_names: tuple[str, ...] = ()
    plugin: str | None = None


@dataclass(frozen=True)
class Setup:
    """A validated game set-up: what a kernel needs, and nothing about I/O."""

    game: str
    variant: str
    players: int
    knobs: Mapping[str, Any]
    seats: tuple[SeatPolicy, ...]
    plugins: tuple[str, ...] = field(default=())

    def knob(self, name: str) -> Any:
        return self.knobs[name]

    def pids(self) -> np.ndarray:
        """int64[seats]: the dispatch id of each seat's policy."""
        return np.array([s.pid for s in self.seats], dtype=np.int64)

    def params(self, width: int = 8) -> np.ndarray:
        """float64[seats, width]: each seat's parameter vector, zero padded."""
        width = max([width] + [len(s.params) for s in self.seats])
        out = np.zeros((len(self.seats), width), dtype=np.float64)
        for i, s in enumerate(self.seats):
            out[i, : len(s.params)] = s.params
        return out

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description (for manifests and reports)."""
        return {
            "game": self.game,
            "variant": self.variant,
            "players": self.players,
            "rules": {k: list(v) if isinstance(v, tuple) else v for k, v in self.knobs.items()},
            "seats": [
                {"policy": s.plugin or s.name, "params": dict(zip(s.param_names, s.params, strict=True))}
                for s in self.seats
            ],
        }


class Game(abc.ABC):
    """The face of one game. Subclasses fill the class attributes and methods.

    Tables: :meth:`simulate_chunk` returns ``{table name: polars frame}``
    for games ``start .. start+count-1``; every table has an Int64 ``game``
    column holding the global game index, so parts of a run concatenate.
    """

    name: str
    title: str
    rules_version: int
    #: what throughput counts ("hand" or "game") and the table with one row per unit
    unit: str
    unit_table: str
    variants: tuple[Variant, ...]
    knobs: tuple[Knob, ...]
    policies: tuple[PolicySpec, ...]
    #: decision point name -> argument list of a plug-in decision function
    decisions: Mapping[str, str]
    #: table name -> {column: description}
    columns: Mapping[str, Mapping[str, str]]
    #: games per chunk by default (a task of 1e5-1e6 units)
    default_chunk: int
    #: dotted module holding the jitted kernels; rebuilt for plug-ins
    kernel_module: str
    #: names of the dispatch functions in ``kernel_module``, one per decision
    dispatchers: Mapping[str, str]
    #: decision points a plug-in *may* define (name -> argument list), for decisions only some
    #: variants ask; their dispatchers in ``kernel_module`` are ``optional_dispatchers``
    optional_decisions: Mapping[str, str] = {}
    optional_dispatchers: Mapping[str, str] = {}
    #: what a plug-in without an optional decision does instead (name -> (description, call)): the
    #: call is a Python expression over the decision's arguments, ``{builtin}`` (the built-in
    #: dispatcher, called with a built-in policy id first) and ``{<decision>}`` (the plug-in's own
    #: function for a required decision)
    optional_fallbacks: Mapping[str, tuple[str, str]] = {}
    #: decision -> arguments the kernel passes a dispatcher after the plug-in's, for the built-in
    #: policies only (facts the kernel holds in a register, which a decision would reload from the
    #: tables); a plug-in's dispatch drops them
    dispatcher_hints: Mapping[str, str] = {}
    #: decisions answered by filling out an array (FUBNUB's swap): what they return is not read;
    #: every other decision returns an int (checked when a plug-in's kernel compiles)
    filled_decisions: tuple[str, ...] = ()
    #: the arguments a plug-in decision may write (its random stream; FUBNUB's swap fills ``out``);
    #: every other array it is passed is read-only
    plugin_writes: tuple[str, ...] = ("rng",)
    #: default seat policy for ``bench`` and ``trace``
    default_policy: str
    #: games per timed repetition in ``cardsim bench``
    bench_count: int = 20000
    #: the minimal kernel plays ``count * minimal_scale`` games when benched
    minimal_scale: int = 1
    #: games traced per kernel call by :meth:`traced` (bounds a trace's memory)
    trace_batch: int = 50

    # -- lookup helpers -------------------------------------------------
    def variant(self, name: str, where: str = "scenario.variant") -> Variant:
        """The variant ``name``; else one line naming ``where`` it was given (a scenario key, or an option
        such as ``--variant``)."""
        for v in self.variants:
            if v.name == name:
                return v
        names = [v.name for v in self.variants]
        raise ScenarioError(
            f"{said(where, repr(name))} is not a variant of {self.name}{did_you_mean(name, names)}; allowed: {allowed_list(names)}"
        )

    def policy(self, name: str) -> PolicySpec:
        for p in self.policies:
            if p.name == name:
                return p
        names = [p.name for p in self.policies]
        raise ScenarioError(
            f"unknown policy {name!r} for {self.name}{did_you_mean(name, names)}; "
            f"allowed: {allowed_list(names)} or 'file.py:name' for a plug-in"
        )

    def knobs_for(self, variant: str) -> tuple[Knob, ...]:
        return tuple(k for k in self.knobs if not k.variants or variant in k.variants)

    def check_setup(self, setup: Setup) -> None:  # noqa: B027 - optional hook
        """Cross-knob checks beyond each knob's own range; raise ScenarioError."""

    # -- the work ---------------------------------------------------------
    @abc.abstractmethod
    def simulate_chunk(
        self, setup: Setup, key: int, start: int, count: int, debug: bool = False
    ) -> dict[str, pl.DataFrame]:
        """Play games ``start..start+count-1`` of stream ``key``; return the tables."""

    @abc.abstractmethod
    def trace(self, setup: Setup, key: int, start: int, count: int) -> list[dict[str, Any]]:
        """The events of games ``start..start+count-1``, one dict each (``event`` names the kind)."""

    def traced(self, setup: Setup, seed: int, start: int, count: int) -> Iterator[dict[str, Any]]:
        """The trace as ``cardsim trace`` prints it: games ``start..start+count-1`` of root seed
        ``seed``, each game's ``header`` event (:mod:`cardsim.tracing`) before its events, played in
        batches of :attr:`trace_batch` games and yielded as they come."""
        from cardsim.tracing import traced

        return traced(self, setup, seed, start, count)

    @abc.abstractmethod
    def describe_event(self, event: Mapping[str, Any]) -> str:
        """One human-readable line for a trace event."""

    @abc.abstractmethod
    def summarize(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, pl.DataFrame]]:
        """Summary tables (title, frame) for ``cardsim run``; every rate with n and a 95% interval."""

    @abc.abstractmethod
    def outcomes(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> pl.LazyFrame:
        """One row per (game, seat): ``game``, ``seat``, ``win`` (1 won, 1/k shared by k, 0 lost,
        null when the game was unfinished) and ``length`` (hands or turns of that game)."""

    def progress(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> tuple[pl.LazyFrame, pl.LazyFrame] | None:
        """Score history for the drama metrics: (``game, step, side, score``; ``game, side`` of the
        winner), or None when the game keeps no running score."""
        return None

    def columns_for(self, variant: str, players: int) -> dict[str, list[str]]:
        """The columns of each table, in order, as :meth:`simulate_chunk` writes them for a
        variant with ``players`` players (``cardsim games`` lists them; a test checks them
        against real tables). Override when a variant or the player count changes them."""
        return {t: list(cols) for t, cols in self.columns.items()}

    def count_table(self, variant: str) -> str:
        """The table with one row per unit a scenario's ``games`` counts in ``variant``: a finished
        chunk's part of it holds as many rows as the chunk's count (how a cut or rewritten part is
        told from a good one when a run directory is read or resumed)."""
        return "games"

    def length_unit(self, setup: Setup) -> str:
        """What the ``length`` of :meth:`outcomes` counts, plural (``hands``, ``turns``)."""
        return f"{self.unit}s"

    def fixed_length(self, setup: Setup) -> bool:
        """Whether the rules of ``setup`` give every game the same ``length`` (FUBNUB without Full Deck's
        action cards plays 15 hands, or max_hands): its mean keeps the t interval, zero width, where a
        length that varies takes a count's interval (never zero width; :func:`cardsim.stats.mean_ci`)."""
        return False

    def headline(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        """The report's one-sentence answer ('' to use the generic seat sentence)."""
        return ""

    def answer(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        """:meth:`headline`, or, when not one game finished (every game cut at a cap), a sentence
        saying so: a win rate over no games has nothing to say, and the headlines assume one."""
        return self.none_finished(tables, setup) or self.headline(tables, setup)

    def none_finished(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> str:
        """'' when a game of the run finished; else a sentence saying that every game was cut at a cap."""
        oc = self.outcomes(tables, setup).select(pl.len().alias("n"), pl.col("win").is_not_null().sum().alias("won"))
        n, won = oc.collect().row(0)
        if not n or won:
            return ""
        caps = [f"rules.{k} = {v:,}" for k, v in setup.knobs.items()
                if k in ("max_hands", "max_turns", "turn_cap", "max_games") and isinstance(v, int)]
        return (f"No game finished: every game was cut at the game's cap ({', '.join(caps)}), so no seat won "
                f"one; raise the cap to see who wins.")

    def figures(self, tables: Mapping[str, pl.LazyFrame], setup: Setup) -> list[tuple[str, list, list]]:
        """Game-specific report sections: (title, [(caption, matplotlib Figure)], [(title, frame)])."""
        return []

    def bench_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        """Units played by the full kernel for ``cardsim bench`` (override to time the kernel alone)."""
        return self.simulate_chunk(setup, key, start, count)[self.unit_table].height

    @abc.abstractmethod
    def minimal_chunk(self, setup: Setup, key: int, start: int, count: int) -> int:
        """The bench baseline: shuffle, deal and resolve with no policy calls; returns units played."""
