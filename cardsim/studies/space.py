"""Search spaces and lineups: what ``[search]`` tunes and how a candidate is seated.

A parameter is addressed as sweeps address keys (``seat0.first_at``,
``seats.call_need``, ``rules.point_cards``, ``tuned.<param>`` for every
tuned seat), with a range or a list::

    params = { "seat0.first_at" = [3, 8],                  # int range (both ends int)
               "seat0.cost_top" = [0.0, 8.0],              # float range
               "seat0.cost_base" = { low = 0, high = 20, step = 1 },
               "rules.variant_rule" = { values = ["a", "b"] },            # a list: categorical
               call_need = { keys = ["seat0.call_need", "seat2.call_need"], low = 1, high = 5 } }

The *field* is what the other seats play: the base scenario's seats, one
policy (every other seat), a list (the other seats in order after the
tuned one) or a weighted mix (each other seat an independent draw; every
multiset of draws is played with its multinomial weight, so the mix is
evaluated exactly, not sampled). Every seating is played in every seat
rotation, so the tuned policy takes every seat equally.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean
from cardsim.studies import derive
from cardsim.studies.evaluate import Lineup, Seating, rotations

RANGE_KEYS = ("low", "high", "step", "log", "values", "keys")


@dataclass(frozen=True)
class Param:
    """One search dimension: ``name``, the addressed ``keys`` it sets, and its domain
    (``values`` for a list, else ``low``/``high`` with ``step``/``log``; ``integer`` for ints)."""

    name: str
    keys: tuple[str, ...]
    low: float | None = None
    high: float | None = None
    step: float | None = None
    log: bool = False
    integer: bool = False
    values: tuple[Any, ...] = ()

    def distribution(self):
        import optuna.distributions as d

        if self.values:
            return d.CategoricalDistribution(list(self.values))
        if self.integer:
            return d.IntDistribution(int(self.low), int(self.high), log=self.log, step=int(self.step or 1))
        return d.FloatDistribution(self.low, self.high, log=self.log, step=self.step)

    def contains(self, v: Any) -> bool:
        if self.values:
            return v in self.values
        if isinstance(v, bool) or not isinstance(v, int | float):
            return False
        if self.integer and float(v) != int(v):
            return False
        return self.low <= v <= self.high

    def neighbours(self, v: Any) -> list[Any]:
        """The values one step away from ``v`` (a list's other values when it has at most four,
        else its neighbours in list order; ranges: one step, or a tenth of the range, each way)."""
        if self.values:
            vals = list(self.values)
            if len(vals) <= 4:
                return [x for x in vals if x != v]
            i = vals.index(v)
            return [vals[j] for j in (i - 1, i + 1) if 0 <= j < len(vals)]
        if self.integer:
            st = int(self.step or 1)
            return [x for x in (int(v) - st, int(v) + st) if self.low <= x <= self.high]
        if self.log:
            f = (self.high / self.low) ** 0.1
            return [x for x in (v / f, v * f) if self.low <= x <= self.high]
        st = self.step or (self.high - self.low) / 10
        return [round(x, 12) for x in (v - st, v + st) if self.low - 1e-12 <= x <= self.high + 1e-12]


def parse_params(cfg: Any, where: str, tuned: list[int]) -> list[Param]:
    if not isinstance(cfg, Mapping) or not cfg:
        raise ScenarioError(f"{where} must be a table of parameters, e.g. {{ \"seat0.first_at\" = [3, 8] }}")
    out = []
    for name, spec in cfg.items():
        w = f"{where}.{name}"
        keys: list[str] = [name]
        if isinstance(spec, list):
            if len(spec) != 2 or not all(_num(x) for x in spec):
                raise ScenarioError(f"{w} = {spec!r}: a range is [low, high] (two numbers); for a list of values "
                                    f"write {{ values = [...] }}")
            spec = {"low": spec[0], "high": spec[1]}
        if not isinstance(spec, Mapping):
            raise ScenarioError(f"{w} = {spec!r} must be [low, high], {{ low = ..., high = ... }} or {{ values = [...] }}")
        for k in spec:
            if k not in RANGE_KEYS:
                raise ScenarioError(f"unknown key {w}.{k}{did_you_mean(k, RANGE_KEYS)}; allowed: {allowed_list(RANGE_KEYS)}")
        if "keys" in spec:
            keys = spec["keys"]
            if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
                raise ScenarioError(f"{w}.keys must be a non-empty list of addressed keys (e.g. \"seat0.call_need\")")
        for k in keys:
            if not derive.is_key(k) and not (k.startswith("tuned.") and len(k) > 6):
                raise ScenarioError(f"{w}: unknown key {k!r}; use tuned.<param> (the tuned seats), "
                                    f"{derive.KEY_FORMS}")
        keys = [k2 for k in keys for k2 in _expand(k, tuned)]
        if "values" in spec:
            vals = spec["values"]
            if set(spec) - {"values", "keys"}:
                raise ScenarioError(f"{w}: give either values = [...] or low/high, not both")
            if not isinstance(vals, list) or len(vals) < 2 or len({json.dumps(v) for v in vals}) != len(vals):
                raise ScenarioError(f"{w}.values must list at least two distinct values")
            if not all(isinstance(v, str | int | float | bool) for v in vals):
                raise ScenarioError(f"{w}.values must be numbers, strings or booleans")
            out.append(Param(name, tuple(keys), values=tuple(vals)))
            continue
        if "low" not in spec or "high" not in spec:
            raise ScenarioError(f"{w} needs low and high (or values = [...])")
        lo, hi, step, log = spec["low"], spec["high"], spec.get("step"), spec.get("log", False)
        if not (_num(lo) and _num(hi)) or not lo < hi:
            raise ScenarioError(f"{w}: low = {lo!r} and high = {hi!r} must be numbers with low < high")
        if step is not None and (not _num(step) or step <= 0):
            raise ScenarioError(f"{w}.step = {step!r} must be a positive number")
        if not isinstance(log, bool):
            raise ScenarioError(f"{w}.log = {log!r} must be true or false")
        if log and (lo <= 0 or step is not None):
            raise ScenarioError(f"{w}: log = true needs low > 0 and no step")
        integer = all(isinstance(x, int) for x in (lo, hi)) and (step is None or isinstance(step, int))
        out.append(Param(name, tuple(keys), float(lo) if not integer else lo, float(hi) if not integer else hi,
                         step, log, integer))
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ScenarioError(f"{where} names a parameter twice")
    return out


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _expand(key: str, tuned: list[int]) -> list[str]:
    if key.startswith("tuned."):
        return [f"seat{s}.{key[6:]}" for s in tuned]
    return [key]


def policy_name(entry: Any) -> str:
    """A short label of a seat policy entry (``bidder(first_at=6,...)``)."""
    if entry is None:
        return "default"
    if isinstance(entry, str):
        return entry
    name = str(entry.get("name", "?"))
    rest = ",".join(f"{k}={_fmt(v)}" for k, v in entry.items() if k != "name")
    return f"{name}({rest})" if rest else name


def _fmt(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def full_entry(base: sc.Scenario, entry: Any, seat: int) -> dict[str, Any]:
    """A seat entry with every parameter written out (what a scenario writes to reproduce it)."""
    from cardsim.games import get_game
    from cardsim.policies import resolve_seat

    game = get_game(base.game)
    sp = resolve_seat(game, entry, seat, base.path.parent if base.path else None)
    out: dict[str, Any] = {"name": sp.name}
    ints = entry if isinstance(entry, Mapping) else {}
    for n, v in zip(sp.param_names, sp.params, strict=True):
        given = ints.get(n)
        out[n] = given if given is not None else (int(v) if float(v).is_integer() else v)
    return out


# -- fields -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    """The other seats: ``options`` (seat entries) with ``weights``; ``fixed`` is a list of entries
    for the other seats in order (one option of weight 1), ``None`` keeps the base scenario's."""

    options: tuple[Any, ...] = ()
    weights: tuple[float, ...] = ()
    fixed: tuple[Any, ...] | None = None
    keep: bool = True
    #: seats drawn together (a team plays one draw of the mix); None: every other seat alone
    groups: tuple[tuple[int, ...], ...] | None = None

    def label(self) -> str:
        if self.keep:
            return "the scenario's other seats"
        if self.fixed is not None:
            return ", ".join(policy_name(e) for e in self.fixed)
        if len(self.options) == 1:
            return f"{policy_name(self.options[0])} at every other seat"
        return "a mix of " + ", ".join(f"{policy_name(o)} ({w:.0%})"
                                       for o, w in zip(self.options, self.weights, strict=True))


def parse_field(cfg: Any, where: str, others: int) -> Field:
    if cfg is None:
        return Field()
    if isinstance(cfg, str) or (isinstance(cfg, Mapping) and "name" in cfg):
        return Field((cfg,), (1.0,), keep=False)
    if isinstance(cfg, list) and cfg and all(isinstance(x, Mapping) and "policy" in x for x in cfg):
        opts, ws = [], []
        for i, x in enumerate(cfg):
            for k in x:
                if k not in ("policy", "weight"):
                    raise ScenarioError(f"unknown key {where}[{i}].{k}; allowed: policy, weight")
            w = x.get("weight", 1.0)
            if not _num(w) or w <= 0:
                raise ScenarioError(f"{where}[{i}].weight = {w!r} must be a positive number")
            opts.append(x["policy"])
            ws.append(float(w))
        tot = sum(ws)
        return Field(tuple(opts), tuple(w / tot for w in ws), keep=False)
    if isinstance(cfg, list):
        if len(cfg) != others:
            raise ScenarioError(f"{where} lists {len(cfg)} policies; the field has {others} seats (or give one "
                                f"policy, or a mix [{{policy = ..., weight = ...}}, ...])")
        return Field(fixed=tuple(cfg), keep=False)
    raise ScenarioError(f"{where} = {cfg!r} must be a policy, a list of policies (one per other seat) or a mix "
                        f"[{{policy = ..., weight = ...}}, ...]")


def seatings(base: sc.Scenario, raw: dict[str, Any], tuned: list[int], field: Field
             ) -> list[tuple[list[Any], float]]:
    """The seat lists a candidate plays (before rotation), each with its weight."""
    players = base.setup.players
    seats = derive.seat_list(raw, players)
    others = [i for i in range(players) if i not in tuned]
    if field.keep:
        return [(seats, 1.0)]
    if field.fixed is not None:
        out = list(seats)
        for i, e in zip(others, field.fixed, strict=True):
            out[i] = e
        return [(out, 1.0)]
    res = []
    k = len(field.options)
    groups = field.groups or tuple((i,) for i in others)
    for combo in itertools.combinations_with_replacement(range(k), len(groups)):
        w = math.factorial(len(groups))
        for j in range(k):
            c = combo.count(j)
            w = w / math.factorial(c) * field.weights[j] ** c
        out = list(seats)
        for grp, j in zip(groups, combo, strict=True):
            for i in grp:
                out[i] = field.options[j]
        res.append((out, w))
    return res


def lineup(base: sc.Scenario, raw: dict[str, Any], tuned: list[int], field: Field, focus: int, metric: str,
           band: tuple[float, float] = (0.0, 0.0), rotate: bool = True, label: str = "candidate") -> Lineup:
    """The :class:`Lineup` of a derived raw scenario: each seating in every rotation (or none), the
    focus seat read."""
    out = []
    for seats, w in seatings(base, raw, tuned, field):
        rots = rotations(seats, {focus: 1.0}) if rotate else [(seats, {focus: 1.0})]
        for rot, reads in rots:
            rr = json.loads(json.dumps(raw))
            derive.set_policies(rr, rot)
            try:
                s = derive.build(base, rr, f"{base.name}-{label}")
            except ScenarioError as exc:
                raise ScenarioError(f"{label}: {exc}") from None
            out.append(Seating(s.setup, tuple((seat, w * r) for seat, r in sorted(reads.items()))))
    return Lineup(tuple(out), metric, band)


def apply(base: sc.Scenario, params: list[Param], values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The base scenario's raw TOML with ``values`` set at every parameter's keys."""
    raw = derive.base_raw(base)
    for p in params:
        if p.name not in values:
            continue
        v = values[p.name]
        if isinstance(v, float) and p.integer:
            v = int(v)
        for k in p.keys:
            derive.apply_key(raw, base.setup.players, k, v, where)
    return raw


def current(base: sc.Scenario, p: Param) -> Any:
    """The base scenario's value of a parameter (its first key), or None if it has none."""
    key = p.keys[0]
    setup = base.setup
    if key.startswith("rules."):
        v = setup.knobs.get(key[6:])
    elif key in ("players", "variant"):
        v = getattr(setup, key)
    elif key == "policy":  # every seat's: the baseline has a value when every seat plays the same
        names = {sp.plugin or sp.name for sp in setup.seats}
        return names.pop() if len(names) == 1 else None
    else:
        import re

        m = re.match(r"^seat(\d+)\.(\w+)$", key)
        seat, param = (int(m.group(1)), m.group(2)) if m else (0, key.split(".", 1)[1])
        if seat >= setup.players:
            return None
        sp = setup.seats[seat]
        if param == "policy":
            return sp.plugin or sp.name
        if param not in sp.param_names:
            return None
        v = sp.params[sp.param_names.index(param)]
    if isinstance(v, float) and v.is_integer() and (p.integer or (p.values and int(v) in p.values)):
        v = int(v)
    return v
