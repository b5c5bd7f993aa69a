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
import re
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
    for i, a in enumerate(out):  # two parameters setting one key: the later would overwrite the earlier
        for b in out[i + 1:]:
            both = [k for k in a.keys if any(_same_target(k, q) for q in b.keys)]
            if both:
                raise ScenarioError(f"{where}.{a.name} and {where}.{b.name} both set {both[0]}; give each key to "
                                    f"one parameter (one parameter may set several keys: keys = [...])")
    return out


def _same_target(a: str, b: str) -> bool:
    """Whether addressed keys ``a`` and ``b`` set the same thing: equal, or ``seats.<param>`` (every
    seat) and ``seat<k>.<param>``."""
    if a == b:
        return True
    (sa, _, pa), (sb, _, pb) = a.partition("."), b.partition(".")
    seats = {sa, sb}
    return pa != "" and pa == pb and len(seats) == 2 and "seats" in seats and all(
        re.fullmatch(r"seats|seat\d+", x) for x in seats)


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
    rest = ",".join(f"{k}={value_text(v)}" for k, v in entry.items() if k != "name")
    return f"{name}({rest})" if rest else name


def value_text(v: Any) -> str:
    """A parameter's value as a scenario writes it: a whole float without its ``.0`` (``6``, ``0.25``)."""
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
            raise ScenarioError(f"{where} lists {len(cfg)} polic{'y' if len(cfg) == 1 else 'ies'}; the field has "
                                f"{others} seat{'' if others == 1 else 's'} (or give one policy, or a mix "
                                f"[{{policy = ..., weight = ...}}, ...])")
        return Field(fixed=tuple(cfg), keep=False)
    raise ScenarioError(f"{where} = {cfg!r} must be a policy, a list of policies (one per other seat) or a mix "
                        f"[{{policy = ..., weight = ...}}, ...]")


def check_field(base: sc.Scenario, field: Field, where: str) -> None:
    """Each policy of the field resolves (a typo is named at its key, with a guess)."""
    from cardsim.errors import CardsimError
    from cardsim.games import get_game
    from cardsim.policies import resolve_seat

    if field.keep:
        return
    game = get_game(base.game)
    entries = field.fixed if field.fixed is not None else field.options
    mix = field.fixed is None and isinstance(base.raw.get("search", {}).get("field"), list)
    for i, e in enumerate(entries):
        at = f"{where}[{i}].policy" if mix else f"{where}[{i}]" if field.fixed is not None else where
        try:
            resolve_seat(game, e, 0, base.path.parent if base.path else None, where=at)
        except CardsimError as exc:  # an unknown policy or plug-in file: named at its key too
            if str(exc).startswith(at):
                raise
            raise ScenarioError(f"{at}: {exc}") from None


def seatings(base: sc.Scenario, raw: dict[str, Any], tuned: list[int], field: Field
             ) -> list[tuple[list[Any], float]]:
    """The seat lists a candidate plays (before rotation), each with its weight."""
    players = base.setup.players
    seats = derive.seat_list(raw, players)
    others = [i for i in range(players) if i not in tuned]
    if field.keep:
        return [(seats, 1.0)]
    if field.fixed is not None:
        out = [e if e is not None else base.setup.seats[i].name for i, e in enumerate(seats)]
        for i, e in zip(others, field.fixed, strict=True):
            out[i] = e
        return [(out, 1.0)]
    # a seat the scenario leaves to the default policy (no [seats]) plays it beside a field's seats
    seats = [e if e is not None else base.setup.seats[i].name for i, e in enumerate(seats)]
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


# -- checks at load: a parameter's range against what its keys accept ----------------------------
_SEAT_PARAM = re.compile(r"^seat(\d+)\.(\w+)$")


def _range_text(p: Param) -> str:
    """A range as the scenario writes it: ``[0, 5]``, ``[0.0, 5.0]``, ``{ low = 1, high = 15, step = 2 }``."""
    if p.step is None and not p.log:
        return f"[{p.low!r}, {p.high!r}]"
    extra = f", step = {p.step!r}" if p.step is not None else ", log = true"
    return f"{{ low = {p.low!r}, high = {p.high!r}{extra} }}"


def _drawn(p: Param, limit: int) -> list[int]:
    """The first ``limit`` integers an integer range can draw (Optuna: low, low + step, ... up to high)."""
    step = 1 if p.log or p.step is None else int(p.step)
    return list(itertools.islice(range(int(p.low), int(p.high) + 1, step), limit))


def _seat_targets(key: str, players: int) -> list[tuple[int, str]]:
    """The (seat, parameter) pairs a ``seat<k>.<param>`` or ``seats.<param>`` key sets (none for a policy)."""
    m = _SEAT_PARAM.match(key)
    if m and m.group(2) != "policy":
        return [(int(m.group(1)), m.group(2))] if int(m.group(1)) < players else []
    if key.startswith("seats.") and key != "seats.policy":
        return [(s, key[6:]) for s in range(players)]
    return []


def check_seats(base: sc.Scenario, params: list[Param], where: str) -> None:
    """A seat parameter searched on a seat whose policy the scenario does not name (no ``[seats]``):
    say so, and what to write (with the parameter's typo, when no policy of the game has it)."""
    from cardsim.games import get_game

    if any(k == "policy" or k.endswith(".policy") for p in params for k in p.keys):
        return
    seats = derive.seat_list(derive.base_raw(base), base.setup.players)
    game = get_game(base.game)
    for p in params:
        for seat, param in (t for k in p.keys for t in _seat_targets(k, len(seats))):
            if seats[seat] is not None:
                continue
            having = [s.name for s in game.policies if param in s.param_names()]
            every = sorted({n for s in game.policies for n in s.param_names()})
            if not having:
                close = did_you_mean(param, every)
                guess = close[len(" (did you mean '"):-len("'?)")] if close else ""
                having = [s.name for s in game.policies if guess in s.param_names()] if guess else []
                typo = f"no {game.name} policy has a parameter {param!r}{close}, and "
            else:
                typo = ""
            example = having[0] if having else game.default_policy
            raise ScenarioError(
                f"{where}.{p.name}: {typo}the scenario has no [seats] section, so seat {seat} plays the default "
                f"{game.default_policy!r} and the search has no policy to set {param!r} on; name the tuned seats' "
                f"policy in [seats], e.g. policy = \"{example}\" (every seat; search.field sets the others), or "
                f"policies = [...] (one per seat)")


def check_ranges(base: sc.Scenario, params: list[Param], where: str) -> None:
    """Every value a range can draw must be one its keys accept: integer ends for an integer parameter
    (or knob), and every integer in between for a parameter that takes a few values or an odd knob.
    The ends and listed values are built as candidates by the caller; this names the range.

    Where the variant is searched too, a knob's range is checked against the knob in every variant
    listed that has it (and ``players`` against each variant's seats); where a seat's policy is
    searched, a parameter's range against every listed policy that has the parameter (a policy
    without it is refused when its candidate is built, naming the parameter). Plug-in policies
    declare no parameter domains: their values are theirs to check."""
    from cardsim.games import get_game

    game = get_game(base.game)
    known = {v.name for v in game.variants}
    variants = [v for v in _searched(params, ("variant",)) or [base.setup.variant] if v in known]  # typos: later
    seats = derive.seat_list(derive.base_raw(base), base.setup.players)
    for p in params:
        if p.values:
            continue
        for key in p.keys:
            if key.startswith("rules."):
                for variant in variants:
                    knobs = {k.name: k for k in game.knobs_for(variant)}
                    if key[6:] not in knobs:
                        continue  # a typo or a knob of another variant: the candidates' check names it
                    kn = knobs[key[6:]]
                    if kn.kind in ("bool", "choice", "names"):
                        raise ScenarioError(f"{where}.{p.name} = {_range_text(p)} is a range of numbers, but {key} "
                                            f"takes {kn.allowed()}; list the values to try: {{ values = [...] }}")
                    _check_range(p, where, kn.kind == "int", (), kn.odd, kn.lo, kn.hi, kn.allowed(),
                                 key + (f" (variant {variant})" if len(variants) > 1 else ""))
            elif key == "players":
                for variant in variants:
                    var = game.variant(variant)
                    lo, hi = var.min_players, var.max_players
                    _check_range(p, where, True, (), False, lo, hi, f"an integer in [{lo}, {hi}] ({game.name} "
                                 f"{var.name})", key)
            for seat, param in _seat_targets(key, len(seats)):
                searched = _searched(params, (f"seat{seat}.policy", "seats.policy", "policy"))
                for entry in searched or [seats[seat]]:
                    name = entry if isinstance(entry, str) else entry.get("name") if isinstance(entry, Mapping) else None
                    if not isinstance(name, str) or ":" in name or name not in [s.name for s in game.policies]:
                        continue  # no seat policy (check_seats), a plug-in (any number) or a typo (the baseline's)
                    spec = game.policy(name)
                    if param not in spec.param_names():
                        continue  # a typo, or a searched policy without it: the candidates' check names it
                    d = spec.domain(param)
                    _check_range(p, where, d.integer or bool(d.values), d.values, False, d.low, d.high, d.describe(),
                                 f"seat{seat}.{param} (policy {name!r} parameter {param})")


def _searched(params: list[Param], keys: tuple[str, ...]) -> list[Any]:
    """The values listed for parameters that set one of ``keys`` (a searched variant or policy)."""
    return [v for p in params if set(p.keys) & set(keys) for v in (p.values or ())]


def _check_range(p: Param, where: str, integer: bool, values: tuple[int, ...], odd: bool, lo: float | None,
                 hi: float | None, allowed: str, what: str) -> None:
    """Refuse a range ``p`` that draws a value the key ``what`` does not take (``allowed`` says what it takes)."""
    head = f"{where}.{p.name} = {_range_text(p)}"
    if integer and not p.integer:
        ends = f"[{math.ceil(p.low)}, {math.floor(p.high)}]" if math.ceil(p.low) <= math.floor(p.high) else ""
        raise ScenarioError(f"{head} draws any number from {p.low:g} to {p.high:g}, but {what} takes {allowed}; "
                            f"write the ends as integers" + (f": {ends}" if ends else "") +
                            " (or list the values: { values = [...] })")
    if values:
        drawn = _drawn(p, len(values) + 1)
        bad = next((v for v in drawn if v not in values), None)
        if bad is not None:
            fit = [v for v in values if p.low <= v <= p.high]
            raise ScenarioError(f"{head} draws {what} = {bad}, which is not allowed; allowed: {allowed}; "
                                f"list the values to try instead: {{ values = {fit or list(values)} }}")
    if odd and p.integer:
        even = next((v for v in _drawn(p, 2) if v % 2 == 0), None)
        if even is not None:
            first = int(p.low) + (1 - int(p.low) % 2)
            raise ScenarioError(f"{head} draws {what} = {even}, but it takes odd values only ({allowed}); "
                                f"step through the odd values: {{ low = {first}, high = {int(p.high)}, "
                                f"step = 2 }}")
    for end in (p.low, p.high):
        if (lo is not None and end < lo) or (hi is not None and end > hi):
            raise ScenarioError(f"{head} reaches {what} = {end!r}, which is not allowed; allowed: {allowed}")
