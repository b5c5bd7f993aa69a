"""Empirical game analysis (issue 16): which strategy to play when everyone chooses.

``[meta]`` lists a population of strategies (policies, parameter sets,
best responses found by search). Every *profile* (a multiset of
strategies, one per side: a seat, or a team in FUBNUB's team game) is
played on the same deals in every seat rotation, which gives the payoff
table: each member's mean result with its interval (deals are the
clusters). The symmetric meta-game is then solved:

- a symmetric Nash mixture: with two sides a linear program (scipy's
  ``linprog``: the game is constant-sum); with more sides, replicator
  dynamics refined on their support and checked (no pure strategy gains
  against the mixture by more than 1e-9 on the table);
- alpha-rank (Omidshafiei et al. 2019), single population of ``m`` players
  with selection intensity ``alpha``: the stationary share of each strategy
  under mutation and fixation;
- each strategy's exploitability: what the best strategy of the
  population gains against a field of it (against the mixture: drawn from
  it), the best response picked on the table's deals and its gain
  re-played on held-out deals, with a paired 95% interval;
- iterated best response (``rounds``): search a best response to the
  current mixture (``[meta.search]``, the engine of ``cardsim search``),
  and if it gains more than ``margin`` with confidence (held-out lower
  bound above the margin), add it, re-play the new profiles and re-solve.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean, first_repeat
from cardsim.output import Output
from cardsim.report.numbers import many, share_digits, side_digits
from cardsim.studies import derive, space
from cardsim.studies.evaluate import (
    Estimate,
    Evaluator,
    Lineup,
    Seating,
    gain_estimate,
    keys_for,
    rotations,
    share_estimate,
)

#: where a held-out gain lies: two strategies' shares of a deal's wins differ by -1 to +1 (its interval is
#: bounded, :func:`cardsim.studies.evaluate.gain_estimate`: never zero width where every deal gave the same gain)
GAIN_BOUNDS = (-1.0, 1.0)

#: the fewest deals per profile (and held-out deals) a meta-game may play: see plan()
MIN_DEALS = 800
KEYS = ("strategies", "deals", "heldout", "rounds", "margin", "search", "alpha", "population", "chunk", "bootstrap")
SEARCH_KEYS = ("policy", "params", "budget", "sampler", "rung", "eta", "rungs", "prune_z", "startup", "batch",
               "heldout", "contrasts")


def _num(x: float) -> str:
    """A bound as a person reads it: ``100,000,000``, not ``1e+08``; ``0.5`` as is."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def sides_of(setup) -> list[list[int]]:
    """The sides of a table: FUBNUB's traditional game has two teams (seats 0+2, 1+3, F4);
    elsewhere every seat plays for itself."""
    if setup.game == "fubnub" and setup.variant == "traditional":
        return [[0, 2], [1, 3]]
    return [[s] for s in range(setup.players)]


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    labels: list[str]
    entries: list[Any]
    sides: list[list[int]]
    deals: int
    heldout: int
    rounds: int
    margin: float
    search: dict[str, Any] | None
    alpha: float
    population: int
    chunk: int
    bootstrap: int = 200


def plan(base: sc.Scenario) -> Plan:
    cfg = derive.section(base, "meta", KEYS, "strategies of the population")
    strat = cfg.get("strategies")
    if not isinstance(strat, list) or len(strat) < 2:
        raise ScenarioError("meta.strategies must list at least two strategies (policies, tables "
                            "{name = ..., <param> = ...}, or {label = ..., policy = ...})")
    labels, entries = [], []
    for i, e in enumerate(strat):
        if isinstance(e, Mapping) and "policy" in e:
            extra = set(e) - {"label", "policy"}
            if extra:
                raise ScenarioError(f"meta.strategies[{i}]: unknown key {sorted(extra)[0]!r}; allowed: label, policy")
            derive.check_entry(e["policy"], f"meta.strategies[{i}].policy")
            lab = e.get("label", space.policy_name(e["policy"]))
            if not isinstance(lab, str) or not lab:
                raise ScenarioError(f"meta.strategies[{i}].label must be a non-empty string")
            if lab == "Nash mixture" or re.fullmatch(r"response \d+", lab):
                # the names the answer gives the mixture and the best responses: a strategy of that label took
                # the mixture's row of the exploitability table and JSON (its own figures silently lost)
                raise ScenarioError(f"meta.strategies[{i}].label = {lab!r} is the name the meta-game gives "
                                    f"{'the Nash mixture' if lab == 'Nash mixture' else 'a best response'}; "
                                    f"choose another label")
            labels.append(lab)
            entries.append(e["policy"])
        else:
            if isinstance(e, Mapping) and "label" in e:
                raise ScenarioError(f"meta.strategies[{i}] has a label but no policy; write {{label = ..., policy = ...}}")
            derive.check_entry(e, f"meta.strategies[{i}]")
            labels.append(space.policy_name(e))
            entries.append(e)
    if (twice := first_repeat(labels)) is not None:
        i, j = twice
        raise ScenarioError(f"meta.strategies[{i}] and [{j}] have the same label {labels[j]!r}; give each "
                            f"a label = \"...\"")
    same = [derive.played(base, e) for e in entries]
    for i, key in enumerate(same):
        if key in same[:i]:
            raise ScenarioError(f"meta.strategies: {labels[same.index(key)]} and {labels[i]} play the same (the same "
                                "policy and parameters, defaults included); list each strategy once")
    sides = sides_of(base.setup)
    if len(sides) < 2:
        raise ScenarioError(f"meta needs at least two sides; {base.game} {base.setup.variant} with "
                            f"{base.setup.players} player(s) has one")

    def num(key: str, default: float, lo: float, hi: float, integer: bool = True) -> Any:
        v = cfg.get(key, default)
        ok = isinstance(v, int) if integer else isinstance(v, int | float)
        if isinstance(v, bool) or not ok or not lo <= v <= hi:
            kind = "an integer" if integer else "a number"
            raise ScenarioError(f"meta.{key} = {v!r} must be {kind} in [{_num(lo)}, {_num(hi)}]")
        return v

    # below MIN_DEALS deals the intervals of the payoff entries and of exploitability cover less than
    # 95% (the coverage suite: exploitability 92.5-93.5% at 50-200 deals, 93.8-94.2% at 400, 95.4% at 800)
    deals = num("deals", 2000, MIN_DEALS, 10**8)
    chunk = min(num("chunk", 1000, 10, 10**7), deals)
    srch = cfg.get("search")
    if srch is not None:
        if not isinstance(srch, Mapping):
            raise ScenarioError("[meta.search] must be a table (policy, params, budget, ...)")
        for k in srch:
            if k not in SEARCH_KEYS:
                raise ScenarioError(f"unknown key meta.search.{k}{did_you_mean(k, SEARCH_KEYS)}; "
                                    f"allowed: {allowed_list(SEARCH_KEYS)}")
        for k in ("policy", "params", "budget"):
            if k not in srch:
                raise ScenarioError(f"missing key meta.search.{k} (the best-response search needs policy, params "
                                    f"and budget)")
    rounds = num("rounds", 1 if srch is not None else 0, 0, 20)
    if rounds and srch is None:
        raise ScenarioError("meta.rounds > 0 needs a [meta.search] table (what a best response may tune)")
    p = Plan(base, labels, entries, sides, deals, num("heldout", deals, MIN_DEALS, 10**8), rounds,
             float(num("margin", 0.005, 0, 1, integer=False)), dict(srch) if srch else None,
             float(num("alpha", 50.0, 0.0, 1e4, integer=False)), num("population", 50, 2, 10**4), chunk,
             num("bootstrap", 200, 0, 10**4))
    for i in range(len(labels)):  # every strategy seats
        profile_lineups(p, p.entries, (i,) * len(sides))
    if srch is not None:  # the search's space and keys are checked now, not after the payoff table
        try:
            _response_plan(p, [(entries[0], 1.0)], 1)
        except ScenarioError as e:  # named as the user wrote them: meta.search.*
            raise ScenarioError(re.sub(r"(?<![\w.-])search\.", "meta.search.", str(e))) from None
    return p


# -- profiles -------------------------------------------------------------------------------
def profile_lineups(p: Plan, entries: list[Any], profile: tuple[int, ...]) -> dict[int, Lineup]:
    """Each member's lineup in a profile (strategy indices, sorted): side ``j`` plays
    ``entries[profile[j]]``; a member's value is the mean over its sides' seats and the rotations."""
    players = p.base.setup.players
    seats: list[Any] = [None] * players
    holders: dict[int, list[int]] = {}
    for side, strat in zip(p.sides, profile, strict=True):
        for s in side:
            seats[s] = entries[strat]
            holders.setdefault(strat, []).append(s)
    out = {}
    for strat, hs in holders.items():
        sts = []
        for rot, reads in rotations(seats, {s: 1.0 / len(hs) for s in hs}):
            raw = derive.base_raw(p.base)
            derive.set_policies(raw, rot)
            try:
                s = derive.build(p.base, raw, f"{p.base.name}-meta")
            except ScenarioError as exc:
                raise ScenarioError(f"meta strategy {strat}: {exc}") from None
            sts.append(Seating(s.setup, tuple(sorted(reads.items()))))
        out[strat] = Lineup(tuple(sts), "win")
    return out


def profiles(n: int, k: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(n), k))


def multinomial(m: tuple[int, ...], x: np.ndarray) -> float:
    """Probability that ``len(m)`` independent draws from ``x`` give the multiset ``m``."""
    w = math.factorial(len(m))
    for j in set(m):
        c = m.count(j)
        w = w / math.factorial(c) * x[j] ** c
    return float(w)


class Table:
    """Per-deal payoffs ``v[profile][member]`` on one stream of deals (the profiles played so far)."""

    def __init__(self, p: Plan, ev: Evaluator, key: int, deals: int):
        self.p, self.ev, self.key, self.deals = p, ev, key, deals
        self.v: dict[tuple[int, ...], dict[int, np.ndarray]] = {}

    def fill(self, entries: list[Any], profs: list[tuple[int, ...]]) -> None:
        todo = [pr for pr in profs if pr not in self.v]
        lus = {pr: profile_lineups(self.p, entries, pr) for pr in todo}
        flat = [(pr, i, lu) for pr in todo for i, lu in lus[pr].items()]
        vals = self.ev.evaluate([lu for _, _, lu in flat], self.key, 0, self.deals)
        for (pr, i, _), v in zip(flat, vals, strict=True):
            self.v.setdefault(pr, {})[i] = v

    def mean(self) -> dict[tuple[int, ...], dict[int, float]]:
        return {pr: {i: float(v.mean()) for i, v in d.items()} for pr, d in self.v.items()}

    def against(self, i: int, x: np.ndarray, k: int) -> np.ndarray:
        """Per-deal value of strategy ``i`` against ``k - 1`` opponents drawn from ``x``."""
        tot = np.zeros(self.deals)
        for m in itertools.combinations_with_replacement(np.flatnonzero(x > SUPPORT).tolist(), k - 1):
            w = multinomial(m, x)
            tot += w * self.v[tuple(sorted((*m, i)))][i]
        return tot

    def needed(self, strategies: list[int], support: list[int], k: int) -> list[tuple[int, ...]]:
        return sorted({tuple(sorted((*m, i))) for i in strategies
                       for m in itertools.combinations_with_replacement(support, k - 1)})


class Game:
    """The symmetric meta-game of mean payoffs ``ubar`` (``n`` strategies, ``k`` sides) in arrays:
    ``u[i, c]`` is strategy ``i``'s payoff against the ``c``-th multiset of ``k - 1`` opponents, and
    a mixture ``x`` draws multiset ``c`` with probability ``coef[c] * prod_j x_j ** counts[c, j]``."""

    def __init__(self, ubar: Mapping[tuple[int, ...], Mapping[int, float]], n: int, k: int):
        combos = list(itertools.combinations_with_replacement(range(n), k - 1))
        self.n, self.k = n, k
        self.counts = np.zeros((len(combos), n))
        for c, m in enumerate(combos):
            for j in m:
                self.counts[c, j] += 1
        self.coef = np.array([multinomial(m, np.ones(n)) for m in combos])
        self.u = np.array([[ubar[tuple(sorted((*m, i)))][i] for m in combos] for i in range(n)])

    def payoff(self, x: np.ndarray) -> np.ndarray:
        """Expected payoff of each pure strategy against ``k - 1`` opponents drawn from ``x``."""
        return self.u @ (self.coef * np.prod(x[None, :] ** self.counts, axis=1))


def _game(ubar, n: int, k: int) -> Game:
    return ubar if isinstance(ubar, Game) else Game(ubar, n, k)


def payoff(ubar: Mapping[tuple[int, ...], Mapping[int, float]] | Game, x: np.ndarray, k: int) -> np.ndarray:
    """Expected payoff of each pure strategy against ``k - 1`` opponents drawn from ``x``."""
    return _game(ubar, x.size, k).payoff(x)


# -- solvers ------------------------------------------------------------------------------
def regret(ubar, x: np.ndarray, k: int) -> float:
    f = _game(ubar, x.size, k).payoff(x)
    return float(f.max() - x @ f)


SUPPORT = 1e-9  # weights below this are dropped from a solved mixture


def _clean(x: np.ndarray) -> np.ndarray:
    y = np.where(x > SUPPORT, x, 0.0)
    return y / y.sum()


def nash(ubar, n: int, k: int, tol: float = 1e-9) -> np.ndarray:
    """A symmetric Nash mixture (weights below ``SUPPORT`` dropped); see :func:`_nash`."""
    return _clean(_nash(ubar, n, k, tol))


def _nash(ubar, n: int, k: int, tol: float = 1e-9) -> np.ndarray:
    """A symmetric Nash mixture of the symmetric ``k``-side game with mean payoffs ``ubar``.

    Two sides: a linear program. More: replicator dynamics from the uniform mixture; if they do
    not settle on an equilibrium (they may cycle), support enumeration, smallest supports first,
    solving "every strategy of the support earns the same" from a few fixed starting points;
    the first mixture no pure strategy beats by more than ``tol`` is returned (one always exists,
    Nash 1951), else the one with the least regret."""
    if k == 2:
        return _nash_lp(ubar, n)
    ubar = _game(ubar, n, k)  # the table in arrays once, for the many payoffs below
    x = _replicator(ubar, n, k)
    best, best_r = x, regret(ubar, x, k)
    if best_r <= tol:
        return x
    rng = np.random.default_rng(0)
    for size in range(1, n + 1):
        for sup in itertools.combinations(range(n), size):
            starts = [np.full(size, 1.0 / size), x[list(sup)] + 1e-3, *rng.dirichlet(np.ones(size), 4)]
            for s0 in starts[: 1 if size == 1 else None]:
                y = _indifferent(ubar, n, k, list(sup), s0)
                if y is None:
                    continue
                r = regret(ubar, y, k)
                if r < best_r:
                    best, best_r = y, r
                if r <= tol:
                    return y
    return best


def _nash_lp(ubar, n: int) -> np.ndarray:
    """Two sides: maximise the guaranteed payoff (the game is constant-sum: each game has one
    winning side), which gives a symmetric equilibrium."""
    from scipy.optimize import linprog

    a = _game(ubar, n, 2).u  # a[i, j]: i against j
    # variables: x (n), v; maximise v s.t. sum_i x_i a[i, j] >= v for every j
    c = np.zeros(n + 1)
    c[-1] = -1
    a_ub = np.hstack([-a.T, np.ones((n, 1))])
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=np.hstack([np.ones((1, n)), [[0]]]), b_eq=[1],
                  bounds=[(0, None)] * n + [(None, None)], method="highs")
    x = np.clip(res.x[:n], 0, None)
    return x / x.sum()


def _replicator(ubar, n: int, k: int, steps: int = 5000, rate: float = 1.0) -> np.ndarray:
    """Exponential-weights replicator dynamics from the uniform mixture (payoffs are win rates, so a
    rate of 1 moves a mixture by a few percent a step)."""
    x = np.full(n, 1.0 / n)
    g = _game(ubar, n, k)
    for _ in range(steps):
        f = g.payoff(x)
        y = x * np.exp(rate * (f - f.max()))
        y /= y.sum()
        if np.abs(y - x).max() < 1e-12:
            return y
        x = y
    return x


def _indifferent(ubar, n: int, k: int, sup: list[int], s0: np.ndarray) -> np.ndarray | None:
    """Solve 'every strategy of the support earns the same' on that support from ``s0`` (None if
    the solver finds no mixture there)."""
    from scipy.optimize import root

    if len(sup) == 1:
        x = np.zeros(n)
        x[sup[0]] = 1.0
        return x
    s0 = np.clip(np.asarray(s0, float), 1e-3, None)
    s0 /= s0.sum()
    g = _game(ubar, n, k)

    def eqs(z: np.ndarray) -> np.ndarray:
        x = np.zeros(n)
        x[sup] = z
        f = g.payoff(np.clip(x, 0, None))
        return np.concatenate([[z.sum() - 1], f[sup[1:]] - f[sup[0]]])

    r = root(eqs, s0, method="hybr", tol=1e-14)
    if not r.success or (r.x < -1e-9).any():
        return None
    x = np.zeros(n)
    x[sup] = np.clip(r.x, 0, None)
    return x / x.sum()


@functools.cache
def _meetings(m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """For ``j = 1 .. m - 1`` mutants in a population of ``m``: the chance that a mutant's ``k - 1``
    opponents (drawn without replacement from the other ``m - 1``) hold ``q`` mutants (``[j - 1, q]``
    of the first array), and a resident's (the second)."""
    from scipy.stats import hypergeom

    j, q = np.arange(1, m)[:, None], np.arange(k)[None, :]
    return hypergeom.pmf(q, m - 1, j - 1, k - 1), hypergeom.pmf(q, m - 1, j, k - 1)


def alpharank(ubar, n: int, k: int, alpha: float = 50.0, m: int = 50) -> np.ndarray:
    """Single-population alpha-rank: the stationary distribution of the mutation-fixation chain.

    In a population of ``m`` players holding resident ``t``, a mutant ``s`` fixes with the
    Fermi-process probability ``1 / (1 + sum_l prod_{j<=l} exp(-alpha (f_s(j) - f_t(j))))``, where
    ``f_s(j)`` is a mutant's expected payoff with ``j`` mutants in the population (its ``k - 1``
    opponents drawn without replacement from the other ``m - 1`` players)."""
    c = np.zeros((n, n))
    hs, ht = _meetings(m, k)
    for t in range(n):
        for s in range(n):
            if s == t:
                continue
            # with j mutants, a mutant meets q other mutants with probability hs[j - 1, q], a resident ht[j - 1, q]
            us = np.array([ubar[tuple(sorted((s,) * (q + 1) + (t,) * (k - 1 - q)))][s] for q in range(k)])
            ut = np.array([ubar[tuple(sorted((s,) * q + (t,) * (k - q)))][t] for q in range(k)])
            diff = alpha * (hs @ us - ht @ ut)
            logs = np.cumsum(-diff)
            with np.errstate(over="ignore"):
                rho = 1.0 / (1.0 + np.exp(np.clip(logs, None, 700)).sum())
            c[t, s] = rho / (n - 1)
        c[t, t] = 1.0 - c[t].sum()
    w, v = np.linalg.eig(c.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1))])
    pi = np.abs(pi)
    return pi / pi.sum()


# -- the study ------------------------------------------------------------------------------
@dataclass
class Exploit:
    """What the population gains against a strategy or mixture on held-out deals: every other strategy
    of the population re-played against a field of it, with intervals that hold for all of them at
    once (Bonferroni over ``family``). ``by`` is the reply with the largest held-out gain (among those
    whose interval is above 0, when some is: ``detected``), ``gain`` its gain, ``replies`` every one's."""

    by: str
    gain: Estimate | None   # None: no other strategy to re-play (a population of one)
    detected: bool = False  # the reply's simultaneous interval is above 0: it gains against it
    replies: dict[str, Estimate] = field(default_factory=dict)
    family: int = 0         # the intervals that hold at once (the strategies re-played)

    @property
    def exploited_by(self) -> str:
        """The reply that gains (its interval above 0), or ``none``."""
        return self.by if self.detected else "none"


@dataclass
class Round:
    number: int
    mix: dict[str, float]
    response: dict[str, Any]
    gain: Estimate
    added: bool
    label: str


@dataclass
class MetaResult:
    plan: Plan
    labels: list[str]
    entries: list[Any]
    table: pl.DataFrame       # one row per (strategy, profile)
    field: pl.DataFrame       # one strategy against a field of another
    mix: np.ndarray
    alpharank: np.ndarray
    exploit: dict[str, Exploit]   # strategy label (and "Nash mixture") -> exploitability
    rounds: list[Round]
    games: int  # payoff tables and checks, and each best-response search's budgeted games and held-out re-play
    notes: list[str] = field(default_factory=list)
    #: share of the bootstrap's resamples of the deals in which each strategy is in the Nash mixture's
    #: support, and is alpha-rank's first (None: meta.bootstrap = 0)
    support: np.ndarray | None = None
    first: np.ndarray | None = None


def run(base: sc.Scenario, ev: Evaluator, runs: str | Path | None = "runs",
        progress: Callable[[int, int], None] | None = None, deals: int | None = None) -> MetaResult:
    import time

    t0, c0 = time.perf_counter(), time.process_time()
    p = plan(base)
    if deals is not None:
        if isinstance(deals, bool) or not isinstance(deals, int) or deals < MIN_DEALS:
            raise ScenarioError(f"--games {deals}: a meta-game plays at least {MIN_DEALS} deals per profile "
                                f"(below that its intervals cover less than 95%); allowed: {MIN_DEALS} or more")
        p = replace(p, deals=deals, heldout=deals, chunk=min(p.chunk, deals))
    keys = keys_for(base.seed)
    k = len(p.sides)
    labels, entries = list(p.labels), list(p.entries)
    table = Table(p, ev, keys["table"], p.deals)
    check = Table(p, ev, keys["check"], p.heldout)
    rounds: list[Round] = []
    # the searches' games as their budgets count them, less what this session played for them: a count
    # that does not depend on whether a search resumed from its journal
    searched = 0
    table.fill(entries, profiles(len(entries), k))
    if not any(np.any(v) for d in table.v.values() for v in d.values()):
        # no strategy won a game: every game was cut at the game's cap (an unfinished game is lost by all), and a
        # Nash mixture and alpha-rank of an all-zero table said nothing true ("its win rate is 0.0%")
        raise ScenarioError(f"no game of the meta-game's payoff table finished ({p.deals:,} deals a profile): every "
                            f"game was cut at the game's cap, so no strategy won one and there is nothing to solve; "
                            f"raise the cap ([rules]) and run it again (the games played are kept)")
    if progress:
        progress(1, p.rounds + 1)
    for r in range(1, p.rounds + 1):
        ubar = table.mean()
        x = nash(ubar, len(entries), k)
        before = ev.timing.games + ev.timing.loaded
        resp, counted = _best_response(p, x, entries, ev, runs, r)
        searched += counted - (ev.timing.games + ev.timing.loaded - before)
        # the response's held-out gain against the mixture, against the mixture's own value
        trial_entries = [*entries, resp]
        j = len(entries)
        sup = np.flatnonzero(x > SUPPORT).tolist()
        check.fill(trial_entries, check.needed([j, *sup], sup, k))
        gain = gain_estimate(check.against(j, _pad(x, j + 1), k) - sum(
            x[i] * check.against(i, _pad(x, j + 1), k) for i in sup), GAIN_BOUNDS)
        label = f"response {r}"
        added = gain.lo > p.margin
        rounds.append(Round(r, {labels[i]: float(x[i]) for i in sup}, resp, gain, added, label))
        if progress:
            progress(r + 1, p.rounds + 1)
        if not added:
            check.v = {pr: d for pr, d in check.v.items() if j not in pr}
            break
        entries.append(resp)
        labels.append(label)
        table.fill(entries, profiles(len(entries), k))
    ubar = table.mean()
    n = len(entries)
    x = nash(ubar, n, k)
    pi = alpharank(ubar, n, k, p.alpha, p.population)
    tb = time.perf_counter()
    support, first = (stability(table.v, n, k, p.alpha, p.population, p.bootstrap, base.seed) if p.bootstrap
                      else (None, None))
    tb = time.perf_counter() - tb
    exploit = _exploitability(p, check, entries, labels, x, k)
    trows, frows = [], []
    for pr, d in sorted(table.v.items()):
        for i, v in d.items():
            e = share_estimate(v, mirror_top(pr, k))
            trows.append({"strategy": labels[i], "profile": " + ".join(labels[s] for s in pr), "win": e.mean,
                          "lo": e.lo, "hi": e.hi, "deals": e.n})
    for i in range(n):
        for jf in range(n):
            pr = tuple(sorted((i,) + (jf,) * (k - 1)))
            e = share_estimate(table.v[pr][i], mirror_top(pr, k))
            frows.append({"strategy": labels[i], "field": labels[jf], "win": e.mean, "lo": e.lo, "hi": e.hi,
                          "fair": 1.0 / k})
    res = MetaResult(p, labels, entries, pl.DataFrame(trows), pl.DataFrame(frows), x, pi, exploit, rounds,
                     ev.timing.games + ev.timing.loaded + searched, support=support, first=first)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    # the searches only where a round ran one; the CPU share only of games this call played (none when every
    # chunk was read back: "0 games played ... (best-response searches included); playing games took 0%")
    res.notes.append(f"{ev.timing.games:,} game{'s' if ev.timing.games != 1 else ''} played in {wall:,.0f} s"
                     + (" (best-response searches included)" if rounds else "")
                     + (f"; playing games took {100 * ev.timing.play_cpu / cpu:.0f}% of the CPU time"
                        if ev.timing.games and not ev.timing.remote and cpu > 0 else ""))
    if p.bootstrap:
        res.notes.append(f"the bootstrap ({p.bootstrap} resamples of the deals, Nash and alpha-rank solved again on "
                         f"each) took {tb:.1f} s")
    if ev.store is not None:
        res.notes.append(f"{ev.timing.loaded:,} games read from the chunks an earlier call kept in {ev.store.folder}"
                         if ev.timing.loaded else f"the games' chunks are kept in {ev.store.folder}: running it "
                         f"again (or `cardsim report`) reads them instead of playing them again")
        if ev.store.failed:
            res.notes.append(f"chunks could not be kept ({ev.store.failed}): running it again plays them again")
    return res


def mirror_top(profile: tuple[int, ...], k: int) -> float:
    """The most a deal can give a strategy in ``profile``: 1/k in a mirror profile (every one of the k
    sides the same strategy, whose share of a deal's wins is the deal's wins over the sides), else 1."""
    return 1.0 / k if len(set(profile)) == 1 else 1.0


def stability(values: Mapping[tuple[int, ...], Mapping[int, np.ndarray]], n: int, k: int, alpha: float,
              population: int, replicates: int, seed: int, solve_nash: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """How the answer moves with the deals: ``replicates`` resamples of the deals (with replacement,
    the same deals for every profile, as they were played), the game solved again on each. Returns
    the share of resamples in which each strategy is in the Nash mixture's support (NaN when
    ``solve_nash`` is off) and the share in which it is alpha-rank's first. A stability, not a
    probability of being right: the coverage cases "meta alpha-rank first" (two and three sides) and
    "meta Nash support" measure how often a strategy named at 95% of the resamples is a wrong one,
    and how often it is right."""
    cells = [(pr, i) for pr, d in sorted(values.items()) for i in sorted(d)]
    table = np.stack([values[pr][i] for pr, i in cells])  # cells x deals
    deals = table.shape[1]
    rng = np.random.default_rng([seed, 0x6D657461])  # the seed's own stream ("meta")
    support, first = np.zeros(n), np.zeros(n)
    for _ in range(replicates):
        means = table @ (np.bincount(rng.integers(0, deals, deals), minlength=deals) / deals)
        ub: dict[tuple[int, ...], dict[int, float]] = {}
        for (pr, i), v in zip(cells, means, strict=True):
            ub.setdefault(pr, {})[i] = float(v)
        if solve_nash:
            support += nash(ub, n, k) > SUPPORT
        first += _firsts(alpharank(ub, n, k, alpha, population))
    return (support / replicates if solve_nash else np.full(n, np.nan)), first / replicates


#: stationary masses this close to the largest tie for alpha-rank's first place
TIE = 1e-9


def _firsts(pi: np.ndarray) -> np.ndarray:
    """Alpha-rank's first place as shares: 1 for the strategy of the largest stationary mass, or split evenly
    among the strategies tied for it (alpha = 0, or strategies whose payoffs are alike: argmax named the first
    listed, "first in 100% of the resamples")."""
    top = pi >= pi.max() - TIE
    return top / top.sum()


def _pad(x: np.ndarray, n: int) -> np.ndarray:
    y = np.zeros(n)
    y[: x.size] = x
    return y


def _response_plan(p: Plan, field: list[tuple[Any, float]], r: int) -> tuple[sc.Scenario, Any]:
    """The scenario and plan of best-response round ``r``'s search: ``[meta.search]`` tuning
    the first side against ``field`` (strategy entries and their weights)."""
    from cardsim.studies import search as srch

    cfg = dict(p.search or {})
    raw = derive.base_raw(p.base)
    derive.set_policies(raw, [cfg["policy"]] * p.base.setup.players)
    search_cfg = {k: v for k, v in cfg.items() if k != "policy"}
    search_cfg["tuned"] = list(p.sides[0])
    search_cfg["field"] = [{"policy": e, "weight": float(w)} for e, w in field]
    raw["search"] = search_cfg
    raw["scenario"]["name"] = f"{p.base.name}-response{r}"
    s = sc.from_dict(raw, name=raw["scenario"]["name"], base_dir=p.base.path.parent if p.base.path else None)
    sp = srch.plan(s)
    if len(p.sides[0]) > 1:  # a team answers as a team: each other side is one draw of the mix
        sp = replace(sp, field=replace(sp.field, groups=tuple(tuple(sd) for sd in p.sides[1:])))
    return s, sp


def _best_response(p: Plan, x: np.ndarray, entries: list[Any], ev: Evaluator, runs: str | Path | None,
                   r: int) -> tuple[Any, int]:
    """Search a best response to the mixture ``x`` (the engine of ``cardsim search``); returns it and
    the search's games as its budget counts them (baseline and candidates, whichever session raced
    them) with its held-out re-play."""
    from cardsim.studies import search as srch

    s, sp = _response_plan(p, [(entries[i], x[i]) for i in range(len(entries)) if x[i] > 1e-9], r)
    res = srch.run(s, ev, runs=runs, plan_=sp)
    return sp.tuned_entry(res.best.setting), res.games + res.heldout_games


def _exploitability(p: Plan, check: Table, entries: list[Any], labels: list[str], x: np.ndarray,
                    k: int) -> dict[str, Exploit]:
    """For each pure strategy and the Nash mixture: every other strategy of the population re-played on
    the held-out deals against a field of it (the mixture: every strategy, its support's too), each
    one's per-deal gain over the target's own value, with bounded intervals that hold for all of them
    at once (Bonferroni over the strategies re-played, :func:`gain_estimate`). Nothing is picked on the
    payoff table the Nash mixture was solved on: a claim that no strategy gains is the held-out
    intervals' (a pure Nash was never re-played, and a mixed one's "best reply" was a support member
    picked by floating-point noise)."""
    n = len(entries)
    out: dict[str, Exploit] = {}
    targets = [(labels[s], np.eye(n)[s]) for s in range(n)] + [("Nash mixture", x)]
    for name, mix in targets:
        sup = np.flatnonzero(mix > SUPPORT).tolist()
        pure = len(sup) == 1 and mix[sup[0]] > 1 - SUPPORT
        family = [j for j in range(n) if not (pure and j == sup[0])]  # a strategy gains nothing on itself
        if not family:
            out[name] = Exploit("none", None)
            continue
        check.fill(entries, check.needed(sorted({*family, *sup}), sup, k))
        own = sum(mix[i] * check.against(i, mix, k) for i in sup)
        gains = {labels[j]: gain_estimate(check.against(j, mix, k) - own, GAIN_BOUNDS, len(family)) for j in family}
        detected = {lab: g for lab, g in gains.items() if g.lo > 0}
        pool = detected or gains
        by = max(pool, key=lambda lab: (pool[lab].mean, -labels.index(lab)))
        out[name] = Exploit(by, gains[by], bool(detected), gains, len(family))
    return out


# -- what it says -------------------------------------------------------------------------
def strategies_table(res: MetaResult) -> pl.DataFrame:
    rows = []
    for i, lab in enumerate(res.labels):
        ex = res.exploit[lab]
        rows.append({"strategy": lab, "policy": space.policy_name(res.entries[i]), "nash": float(res.mix[i]),
                     **({"nash_support": float(res.support[i])} if res.support is not None else {}),
                     "alpharank": float(res.alpharank[i]),
                     **({"alpharank_first": float(res.first[i])} if res.first is not None else {}),
                     **_exploit_row(ex)})
    ex = res.exploit["Nash mixture"]
    rows.append({**{c: None for c in rows[0]}, "strategy": "Nash mixture", "policy": "", **_exploit_row(ex)})
    floats = (*STABILITY, "nash", "alpharank", "exploitability", "lo", "hi")
    return pl.DataFrame(rows, schema_overrides={c: pl.Float64 for c in floats if c in rows[0]})


def _exploit_row(ex: Exploit) -> dict[str, Any]:
    """The strategies table's exploitability columns: the reply that gains (``none``: none detectably),
    the reply with the largest held-out gain, its gain and simultaneous interval."""
    return {"exploited_by": ex.exploited_by, "best_reply": ex.by if ex.gain else None,
            "exploitability": ex.gain.mean if ex.gain else None, "lo": ex.gain.lo if ex.gain else None,
            "hi": ex.gain.hi if ex.gain else None}


#: the strategies table's bootstrap columns (:func:`stability`)
STABILITY = ("nash_support", "alpharank_first")


def rounds_table(res: MetaResult) -> pl.DataFrame:
    return pl.DataFrame([{"round": r.number, "mix": ", ".join(f"{k} {v:.0%}" for k, v in r.mix.items()),
                          "response": space.policy_name(r.response), "gain": r.gain.mean, "lo": r.gain.lo,
                          "hi": r.gain.hi, "added": r.added} for r in res.rounds],
                        schema={"round": pl.Int64, "mix": pl.String, "response": pl.String, "gain": pl.Float64,
                                "lo": pl.Float64, "hi": pl.Float64, "added": pl.Boolean})


def _pts(x: float, digits: int = 1) -> str:
    return f"{100 * x:+.{digits}f} points"


def _gain_ci(g: Any, where: str = "", label: str = "95% CI") -> str:
    """A gain in points with its interval: ``+1.2 points{where} (95% CI +0.4 to +2.0 points)``, more decimals
    where one would print the ends alike (:func:`cardsim.report.numbers.share_digits`) or an end onto 0
    (+0.04, not +0.0: :func:`cardsim.report.numbers.side_digits`)."""
    d = side_digits(g.lo, g.hi, 0.0, share_digits([g.lo], [g.hi]))
    return f"{_pts(g.mean, d)}{where} ({label} {100 * g.lo:+.{d}f} to {_pts(g.hi, d)})"


def _exploit_sentence(ex: Exploit) -> str:
    """What the held-out re-play of every strategy against the Nash mixture says: which one gains (its
    simultaneous interval above 0), or that none does detectably, with the interval of the largest gain."""
    if ex.gain is None:
        return "the population has no other strategy to re-play against it"
    g = ex.gain
    d = side_digits(g.lo, g.hi, 0.0, share_digits([g.lo], [g.hi]))  # each end on its side of 0
    sim = (f"simultaneous 95% CI over the {ex.family} strategies re-played" if ex.family > 1 else "95% CI")
    ci = f"{sim}: {100 * g.lo:+.{d}f} to {_pts(g.hi, d)}"
    if ex.detected:
        return f"{ex.by} gains {_pts(g.mean, d)} against it on held-out deals ({ci})"
    if g.hi < 0:
        return (f"on held-out deals every strategy of the population re-played against it does worse than it "
                f"(the closest, {ex.by}, {_pts(g.mean, d)}; {ci})")
    return (f"on held-out deals no strategy of the population gains against it detectably (the largest gain, "
            f"{ex.by}'s, {_pts(g.mean, d)}; {ci})")


def headline(res: MetaResult) -> str:
    mix = [(res.labels[i], res.mix[i]) for i in np.argsort(-res.mix) if res.mix[i] > 0.005]
    if len(mix) == 1:
        eq = f"the meta-game's Nash equilibrium is to play {mix[0][0]}"
    else:
        eq = "the meta-game's Nash mixture is " + ", ".join(f"{lab} {w:.0%}" for lab, w in mix)
    searched = set(res.labels[len(res.plan.labels):])  # the responses the rounds added
    found = [f"{lab} is {space.policy_name(res.entries[res.labels.index(lab)]).replace(',', ', ')}"
             for lab, _w in mix if lab in searched]  # a searched strategy: say what it plays
    if found:
        eq += " (" + "; ".join(found) + ")"
    top = res.labels[int(np.argmax(res.alpharank))]
    sure = _exploit_sentence(res.exploit["Nash mixture"])
    conv = ""
    if res.rounds:
        last = res.rounds[-1]
        g = last.gain
        if not last.added:
            conv = (f" Iterated best response stopped after {many(len(res.rounds), 'round')}: the searched response gains "
                    f"{_gain_ci(g)} against the mixture, "
                    + ("less than the margin with confidence." if g.hi < res.plan.margin else
                       # its interval reaches past the margin: only "not detectably more", never "not more"
                       f"not detectably more than the {100 * res.plan.margin:.1f}-point margin (its interval "
                       "reaches above it, so the mixture is not shown to be within the margin of its best reply)."))
        else:
            each = ("The best-response round" if len(res.rounds) == 1 else
                    f"Each of {len(res.rounds)} best-response rounds")
            conv = f" {each} found a response that gains more than the margin; more rounds may change the answer."
    tied = [res.labels[i] for i in np.flatnonzero(_firsts(res.alpharank))]
    if len(tied) > 1:  # no first to name: argmax named the first listed
        names = ", ".join(tied[:-1]) + f" and {tied[-1]}"
        return (f"Among {len(res.labels)} strategies, {eq}; {sure}. Alpha-rank does not order {names}: they share "
                f"its first place ({100 * res.alpharank.max():.0f}% of the stationary mass each).{conv}")
    steady = ("" if res.first is None else
              f"; first in {100 * res.first[res.labels.index(top)]:.0f}% of {res.plan.bootstrap} resamples of the deals")
    return (f"Among {len(res.labels)} strategies, {eq}; {sure}. Alpha-rank puts {top} first "
            f"({100 * res.alpharank.max():.0f}% of the stationary mass{steady}).{conv}")


#: how the meta-game's intervals handle multiplicity (under the answer and in the report)
INTERVALS = ("Each payoff cell's interval is a 95% interval for its own cell (pointwise): the tables' extreme cells "
             "are not findings on their own. The Nash mixture and alpha-rank come from the payoff table's point "
             "estimates; the answer tests the mixture on held-out deals, where every strategy of the population is "
             "re-played against it, with intervals that hold for all of them at once (Bonferroni), and so is each "
             "strategy's exploitability (every other strategy re-played against a field of it); each best-response "
             "round has one interval of its own. "
             "nash_support and alpharank_first: the share of resamples of the deals (bootstrap, meta.bootstrap) in "
             "which a strategy is in the Nash mixture's support, and is alpha-rank's first: how steady the answer is "
             "under the deals' sampling, not a probability that it is right.")


def output(res: MetaResult) -> Output:
    """What ``cardsim meta`` prints; JSON adds ``mix``, ``alpharank``, ``exploitability``, ``rounds`` and
    (with the bootstrap) ``stability``."""
    exploit = {}
    for name, ex in res.exploit.items():
        exploit[name] = ({"gain": ex.gain.mean, "lo": ex.gain.lo, "hi": ex.gain.hi, "deals": ex.gain.n, "by": ex.by,
                          "detected": ex.detected, "simultaneous": ex.family,
                          "replies": {lab: {"gain": g.mean, "lo": g.lo, "hi": g.hi} for lab, g in ex.replies.items()}}
                         if ex.gain else {"gain": None, "lo": None, "hi": None, "deals": 0, "by": None,
                                          "detected": False, "simultaneous": 0, "replies": {}})
    fields = {
        "mix": {lab: float(w) for lab, w in zip(res.labels, res.mix, strict=True)},
        "alpharank": {lab: float(w) for lab, w in zip(res.labels, res.alpharank, strict=True)},
        "exploitability": exploit,
        "strategies": {lab: e for lab, e in zip(res.labels, res.entries, strict=True)},
        "rounds": [{"round": r.number, "mix": r.mix, "response": r.response, "gain": r.gain.mean, "lo": r.gain.lo,
                    "hi": r.gain.hi, "added": r.added} for r in res.rounds],
        "games": res.games,
    }
    if res.first is not None:  # the bootstrap's shares (meta.bootstrap = 0: no key)
        fields["stability"] = {"resamples": res.plan.bootstrap,
                               "nash_support": {lab: float(w) for lab, w in zip(res.labels, res.support, strict=True)},
                               "alpharank_first": {lab: float(w) for lab, w in zip(res.labels, res.first, strict=True)}}
    tables = [("Strategies: Nash mixture, alpha-rank, exploitability (held-out; 95% CIs that hold for every strategy re-played at once)", strategies_table(res)),
              ("One strategy against a field of another (win rate, 95% CI)", res.field)]
    if res.rounds:
        tables.append(("Iterated best response", rounds_table(res)))
    tables.append(("Payoff table: every profile", res.table))
    # weights, win shares and gains in win share: percentages on the terminal
    shares = {title: ("nash", "alpharank", "exploitability", "win", "gain", "lo", "hi", *STABILITY) for title, _t in tables}
    return Output(headline(res), tables, notes=[*res.notes, INTERVALS],
                  fields=json.loads(json.dumps(fields, default=str)), shares=shares)
