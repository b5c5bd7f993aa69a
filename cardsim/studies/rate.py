"""Policy ratings: a round robin or gauntlet on shared deals, ranked by a Luce choice model.

``[ratings]``: ``policies`` (names or tables, as in ``[seats]``), ``mode``
(``round_robin`` or ``gauntlet``) and ``reference`` (the policy rated 0;
the gauntlet's opponent; default the first).

**Tables.** A pair (A, B) plays every *distinct* seating that seat rotation
gives of A, B, A, B, ... and, with an odd number of seats, of B, A, B, ...
too: with 4 seats that is ABAB and BABA (rotating by 2 gives the same table
again, and a table played twice would count its games twice); with 3 seats
the six tables ABA, AAB, BAA, BAB, BBA, ABB, so each policy holds the extra
seat equally often. Every table plays the same deals (game ``g`` deals the
same cards everywhere), so all results of deal ``g`` form one cluster.

**Model.** A Luce choice model of who wins (Bradley-Terry when two sides
meet, its top-1 Plackett-Luce form when several seats play for themselves):
in a table where policy A has ``m_A`` competitors (seats in a free-for-all,
one side in a team game) the chance that A's side wins is ``m_A exp(theta_A)
/ (m_A exp(theta_A) + m_B exp(theta_B))``. So ``theta_A - theta_B`` is the
log-odds that one A seat beats one B seat, whatever the table, and two
policies that play alike have equal strengths however many seats each holds.
A shared win counts 1/k to each of the k winners. Strengths are fitted by
maximum likelihood with the ``reference`` at 0; intervals use the sandwich
variance clustered by deal (the same deal in every table and pair is one
cluster) and Student's t with deals - 1 degrees of freedom; with fewer than
10 deals, or where the clustered variance is 0, the larger of it and the
model-based variance (``Fit.half``). A pair's predicted win rate (the Pairs
table) takes the interval of its strength difference, its ends transformed
(``Fit.diff_half``). The fit is checked pair by pair (deviance, and a Rao-Scott corrected
chi-square test of the pairs' win rates against the model's, clustered by deal: :func:`_fit_test`),
and a policy that never lost (or never won) against the others gets "unbounded", not a number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError
from cardsim.output import Output
from cardsim.report.numbers import pct, side_digits
from cardsim.stats import floor_p, share_ci, t95
from cardsim.studies import derive

#: the fitted strengths are exact to this (Newton steps stop below 1e-12)
TOL = 1e-9


def _name(entry: Any) -> str:
    """A policy's label: ``greedy``, ``tactician(call_need=3)``; ``{name = "greedy"}`` is ``greedy`` (it was
    ``greedy()``, so ``reference = "greedy"`` was not in the list)."""
    if isinstance(entry, str):
        return entry
    params = ",".join(f"{k}={v}" for k, v in entry.items() if k != "name")
    return f"{entry['name']}({params})" if params else entry["name"]


def seatings(players: int) -> list[tuple[int, ...]]:
    """The distinct tables of a pair: 0 marks policy A's seats, 1 policy B's. Every rotation of
    A, B, A, B, ... and, when ``players`` is odd, of B, A, B, ... ; a table that two rotations
    give is listed once."""
    out: list[tuple[int, ...]] = []
    starts = (0, 1) if players % 2 else (0,)
    for first in starts:
        base = [(i + first) % 2 for i in range(players)]
        for r in range(players):
            t = tuple(derive.rotate(base, r))
            if t not in out:
                out.append(t)
    return out


@dataclass(frozen=True)
class Table:
    """One distinct seating of a pair and its scenario."""

    pair: tuple[int, int]
    seats: tuple[int, ...]  # the policy index at each seat
    scenario: sc.Scenario


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    names: list[str]
    pairs: list[tuple[int, int]]
    tables: dict[tuple[int, int], list[Table]]
    reference: int
    policies: list = field(default_factory=list)  # the [ratings] entries, in the order of ``names``


def plan(base: sc.Scenario) -> Plan:
    cfg = derive.section(base, "ratings", ("policies", "mode", "reference"), "policies to rate")
    pols = cfg.get("policies")
    if not isinstance(pols, list) or len(pols) < 2:
        raise ScenarioError("ratings.policies must list at least two policies")
    for i, p in enumerate(pols):
        derive.check_entry(p, f"ratings.policies[{i}]")
    names = [_name(p) for p in pols]
    same = [derive.played(base, p) for p in pols]
    for i, key in enumerate(same):  # "greedy", { name = "greedy" } and its defaults written out are one policy
        if key in same[:i] or names[i] in names[:i]:
            j = same.index(key) if key in same[:i] else names.index(names[i])
            raise ScenarioError(f"ratings.policies lists a policy twice: {names[j]} and {names[i]} play the same "
                                "(the same policy and parameters, defaults included); list each policy once")
    mode = cfg.get("mode", "round_robin")
    if mode not in ("round_robin", "gauntlet"):
        raise ScenarioError(f"ratings.mode = {mode!r}; allowed: round_robin, gauntlet")
    ref_name = cfg.get("reference", names[0])
    if ref_name not in names:
        raise ScenarioError(f"ratings.reference = {ref_name!r} is not in ratings.policies ({', '.join(names)})")
    ref = names.index(ref_name)
    players = base.setup.players
    if players < 2:
        raise ScenarioError(f"ratings need at least 2 players at the table ({base.name} has {players})")
    n = len(pols)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)] if mode == "round_robin" else \
        [(ref, b) for b in range(n) if b != ref]
    tables = {(a, b): pair_tables(base, pols, names, a, b) for a, b in pairs}
    return Plan(base, names, pairs, tables, ref, list(pols))


def pair_tables(base: sc.Scenario, pols: list, names: list[str], a: int, b: int) -> list[Table]:
    """Every distinct seating of policies ``a`` and ``b`` (:func:`seatings`) as a scenario."""
    out = []
    for seat_mask in seatings(base.setup.players):
        seats = tuple(a if m == 0 else b for m in seat_mask)
        raw = derive.base_raw(base)
        derive.set_policies(raw, [pols[i] for i in seats])
        tag = "".join("AB"[m] for m in seat_mask)
        out.append(Table((a, b), seats, derive.build(base, raw, f"{base.name}-{names[a]}-vs-{names[b]}-{tag}")))
    return out


# -- data ---------------------------------------------------------------------------------
@dataclass
class Observations:
    """Every rated game: the table it was played at, its deal, policy A's share of the win, and the
    competitors each side had (``m_a``, ``m_b``)."""

    table: np.ndarray   # int: index into ``pairs`` / ``mult``
    deal: np.ndarray    # int: the game index (the deal)
    share: np.ndarray   # float in [0, 1]: A's share of the win
    pairs: list[tuple[int, int]]   # per table: (A, B) policy indices
    mult: np.ndarray    # float[tables, 2]: competitors of A and of B
    dropped: int = 0    # finished games no rated seat won (a ghost did), left out


def table_shares(out: pl.DataFrame, seats: tuple[int, ...], a: int) -> tuple[np.ndarray, np.ndarray, float, float, int]:
    """From one table's outcomes (``game, seat, win``): deals, A's share of each finished game's
    win, the competitors of A and of B (seats, or 1 each in a team game) and the games left out."""
    fin = out.drop_nulls("win")
    is_a = pl.col("seat").is_in([s for s, p in enumerate(seats) if p == a])
    per = fin.group_by("game").agg(pl.col("win").filter(is_a).sum().alias("wa"), pl.col("win").sum().alias("w")) \
        .sort("game")
    team = bool(per.height) and float(per["w"].max()) > 1 + 1e-9  # a win counted for several seats: teams
    won = per.filter(pl.col("w") > 1e-12)
    share = (won["wa"] / won["w"]).to_numpy().astype(np.float64)
    na = sum(p == a for p in seats)
    ma, mb = (1.0, 1.0) if team else (float(na), float(len(seats) - na))
    return won["game"].to_numpy(), share, ma, mb, per.height - won.height


# -- the model ----------------------------------------------------------------------------
#: below this many deals the clustered variance rests on too few deal sums to stand alone
FEW_DEALS = 10


@dataclass
class Fit:
    theta: np.ndarray          # per policy; +-inf when unbounded, nan when not comparable
    se: np.ndarray             # clustered by deal (0 for the reference); see fit_model for few deals
    se_model: np.ndarray       # from the observed information alone (as if every game were independent)
    status: list[str]
    deviance: float = math.nan
    df: int = 0
    chi2: float = math.nan  # the goodness-of-fit statistic (Rao-Scott corrected, :func:`_fit_test`)
    p: float = math.nan
    pair_rows: list[dict] = field(default_factory=list)
    deals: int = 0             # the clusters
    cov: np.ndarray | None = None        # [policies, policies]: the strengths' clustered covariance (0 off the free)
    cov_model: np.ndarray | None = None  # the same from the observed information alone

    def half(self) -> np.ndarray:
        """Half-widths of the 95% intervals: Student's t with deals - 1 degrees of freedom times ``se``,
        plus TOL (the optimizer stops within it of the maximum, so no interval is narrower)."""
        return t95(max(self.deals - 1, 1)) * self.se + TOL

    def diff_half(self, a: int, b: int) -> float:
        """Half-width of the 95% interval of ``theta[a] - theta[b]`` (the log-odds that one ``a`` seat beats
        one ``b`` seat), as :meth:`half` of one strength: the clustered variance of the difference (both
        strengths' variances and their covariance), below FEW_DEALS deals or where it is 0 the larger of it
        and the model-based one, times Student's t with deals - 1 degrees of freedom, plus TOL. Against the
        reference (0 by definition) it is the other strength's :meth:`half`."""
        if self.cov is None or self.cov_model is None or not (math.isfinite(self.theta[a])
                                                             and math.isfinite(self.theta[b])):
            return math.nan
        v = np.zeros(len(self.theta))
        v[a] += 1.0
        v[b] -= 1.0
        return t95(max(self.deals - 1, 1)) * self.contrast_se(v) + TOL

    def contrast_se(self, v: np.ndarray) -> float:
        """Standard error of ``v @ theta`` (one strength, or a difference): clustered by deal; with fewer
        than FEW_DEALS deals, or where it is 0, the larger of it and the model-based one. With few deals the
        clustered variance is unstable, and 0 when every deal's results balance exactly (2 deals did, by
        chance: a zero-width interval). Coverage of the simulated model at 3 deals went from 66-79% (normal
        quantile, clustered alone) to 96-100%."""
        se = math.sqrt(max(float(v @ self.cov @ v), 0.0))
        if self.deals < FEW_DEALS or se == 0:
            se = max(se, math.sqrt(max(float(v @ self.cov_model @ v), 0.0)))
        return se


def _probs(theta: np.ndarray, pairs: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """pi_A per table."""
    ea = mult[:, 0] * np.exp(theta[pairs[:, 0]])
    eb = mult[:, 1] * np.exp(theta[pairs[:, 1]])
    return ea / (ea + eb)


def _newton(free: list[int], n_pol: int, pairs: np.ndarray, mult: np.ndarray, wa: np.ndarray, nt: np.ndarray,
            tol: float = 1e-12) -> np.ndarray:
    theta = np.zeros(n_pol)
    idx = {p: i for i, p in enumerate(free)}
    if not free:
        return theta
    for _ in range(200):
        pi = _probs(theta, pairs, mult)
        g = np.zeros(len(free))
        h = np.zeros((len(free), len(free)))
        for t, (a, b) in enumerate(pairs):
            r = wa[t] - nt[t] * pi[t]
            w = nt[t] * pi[t] * (1 - pi[t])
            for p, sgn in ((a, 1.0), (b, -1.0)):
                if p in idx:
                    g[idx[p]] += sgn * r
                    for q, sq in ((a, 1.0), (b, -1.0)):
                        if q in idx:
                            h[idx[p], idx[q]] += sgn * sq * w
        step = np.linalg.solve(h, g)
        big = np.max(np.abs(step))
        if big > 2:  # damped: log-odds move at most 2 per step
            step *= 2 / big
        theta[free] += step
        if big < tol:
            break
    return theta


def _components(n_pol: int, obs: Observations, used: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Who beat whom at least once: (strongly connected component of each policy, reachability)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, shortest_path

    beat = np.zeros((n_pol, n_pol))
    for t, (a, b) in enumerate(obs.pairs):
        s = obs.share[obs.table == t]
        if s.size:
            beat[a, b] += s.sum()
            beat[b, a] += (1 - s).sum()
    adj = (beat > 1e-12).astype(float)
    _, comp = connected_components(csr_matrix(adj), directed=True, connection="strong")
    reach = np.isfinite(shortest_path(csr_matrix(adj), unweighted=True))
    comp = np.where(np.isin(np.arange(n_pol), used), comp, -1)
    return comp, reach


def fit(names: list[str], wins: np.ndarray, ref: int = 0, iters: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry maximum likelihood from a win matrix (``wins[i, j]``: wins of i over j), with
    ``theta[ref] = 0`` and standard errors from the observed information (every game independent).
    The ratings study itself uses :func:`fit_model`, which clusters by deal."""
    n = len(names)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n) if wins[i, j] + wins[j, i] > 0],
                     dtype=np.int64).reshape(-1, 2)
    nt = np.array([wins[i, j] + wins[j, i] for i, j in pairs], dtype=np.float64)
    wa = np.array([wins[i, j] for i, j in pairs], dtype=np.float64)
    mult = np.ones((len(pairs), 2))
    free = [i for i in range(n) if i != ref]
    theta = _newton(free, n, pairs, mult, wa, nt)
    pi = _probs(theta, pairs, mult)
    info = np.zeros((n, n))
    for (i, j), w in zip(pairs, nt * pi * (1 - pi), strict=True):
        info[i, i] += w
        info[j, j] += w
        info[i, j] -= w
        info[j, i] -= w
    se = np.zeros(n)
    cov = np.linalg.pinv(info[np.ix_(free, free)])
    se[free] = np.sqrt(np.clip(np.diag(cov), 0, None))
    return theta, se


def fit_model(obs: Observations, n_pol: int, ref: int) -> Fit:
    """Maximum likelihood strengths with clustered (sandwich) and model-based standard errors,
    unbounded strengths flagged, and the pair-by-pair goodness of fit."""
    pairs = np.array(obs.pairs, dtype=np.int64).reshape(-1, 2)
    used = sorted({int(x) for x in pairs.ravel()})
    comp, reach = _components(n_pol, obs, used)
    status = ["fitted"] * n_pol
    theta = np.zeros(n_pol)
    keep_pol = [p for p in used if comp[p] == comp[ref]]
    for p in range(n_pol):
        if p in keep_pol:
            continue
        if p not in used:
            theta[p], status[p] = math.nan, "not rated (no games)"
        elif reach[ref, p] and not reach[p, ref]:
            theta[p], status[p] = -math.inf, "unbounded below: never beat the policies above it"
        elif reach[p, ref] and not reach[ref, p]:
            theta[p], status[p] = math.inf, "unbounded above: never lost to the policies below it"
        else:
            theta[p], status[p] = math.nan, "not comparable (no games linking it to the reference)"
    tkeep = np.array([a in keep_pol and b in keep_pol for a, b in obs.pairs], dtype=bool)
    nt = np.bincount(obs.table, minlength=len(obs.pairs)).astype(np.float64)
    wa = np.bincount(obs.table, weights=obs.share, minlength=len(obs.pairs))
    free = [p for p in keep_pol if p != ref]
    sub = np.flatnonzero(tkeep)
    th = _newton(free, n_pol, pairs[sub], obs.mult[sub], wa[sub], nt[sub])
    theta[keep_pol] = th[keep_pol]
    se = np.where(np.isfinite(theta), 0.0, math.nan)
    se_model = se.copy()
    res = Fit(theta, se, se_model, status)
    if not free:
        return res
    # per-observation score on the free strengths, summed by deal (one cluster per deal)
    pi = _probs(np.where(np.isfinite(theta), theta, 0.0), pairs, obs.mult)
    m = np.isin(obs.table, sub)
    t_obs, d_obs, y = obs.table[m], obs.deal[m], obs.share[m]
    resid = y - pi[t_obs]
    fidx = {p: i for i, p in enumerate(free)}
    k = len(free)
    scores = np.zeros((t_obs.size, k))
    info = np.zeros((k, k))
    for t in sub:
        a, b = obs.pairs[t]
        v = np.zeros(k)
        if a in fidx:
            v[fidx[a]] = 1.0
        if b in fidx:
            v[fidx[b]] = -1.0
        sel = t_obs == t
        scores[sel] = resid[sel, None] * v[None, :]
        info += nt[t] * pi[t] * (1 - pi[t]) * np.outer(v, v)
    _, inv = np.unique(d_obs, return_inverse=True)
    g = inv.max() + 1
    per_deal = np.zeros((g, k))
    np.add.at(per_deal, inv, scores)
    meat = per_deal.T @ per_deal * g / max(g - 1, 1)
    bread = np.linalg.pinv(info)
    cov = bread @ meat @ bread
    res.deals = int(g)
    idx = list(fidx)
    res.cov, res.cov_model = np.zeros((n_pol, n_pol)), np.zeros((n_pol, n_pol))
    res.cov[np.ix_(idx, idx)], res.cov_model[np.ix_(idx, idx)] = cov, bread
    for p, i in fidx.items():
        res.se[p] = res.contrast_se(np.eye(n_pol)[p])
        res.se_model[p] = math.sqrt(max(bread[i, i], 0.0))
    _goodness(res, obs, sub, pairs, pi, nt, wa, inv, g, bread, per_deal, fidx, t_obs, resid)
    return res


def _fit_test(r: np.ndarray, cov: np.ndarray, var: np.ndarray, jac: np.ndarray, bread: np.ndarray,
              df: int) -> tuple[float, float]:
    """The goodness-of-fit statistic and p-value of the pairs' residuals ``r`` (observed - predicted wins
    of A), Rao and Scott's second-order corrected chi-square: Pearson's statistic on the ``df`` directions
    the fitted strengths leave free (the residuals' binomial covariance under the model, ``var`` a pair,
    the strengths' fit taken out: ``jac``, ``bread``), divided by the mean generalised design effect (the
    eigenvalues of the clustered covariance ``cov`` against that binomial one) and by 1 + their squared
    coefficient of variation, on ``df`` / (1 + that) degrees of freedom (Satterthwaite's).

    The Wald test it replaces inverted the clustered covariance itself: in a pair whose every deal gave
    the same result (a policy that never won against a much stronger one) that has almost no variance,
    so one win there read as a misfit, and on a true Luce model of five policies it said "do not fit" (p <
    0.01) in 31-42% of runs on 20 deals, 4% on 100 and 50% on 1,000 (200 runs each). Case "rating
    goodness of fit" measures this test: 98.5-100% of true-model runs without the warning (the first-order
    correction alone, the mean design effect: 98.2% at 100 deals)."""
    from scipy.stats import chi2

    model = np.diag(var) - jac @ bread @ jac.T
    w, v = np.linalg.eigh((model + model.T) / 2)
    order = np.argsort(w)[::-1][:df]
    w, v = w[order], v[:, order]
    ok = w > 1e-12 * max(1.0, w.max(initial=0.0))
    if not ok.any():
        return 0.0, 1.0
    basis = v[:, ok] / np.sqrt(w[ok])  # whitens the model's covariance on the free directions
    y = basis.T @ r
    c = basis.T @ ((cov + cov.T) / 2) @ basis
    lam = np.linalg.eigvalsh((c + c.T) / 2)  # the generalised design effects
    deff = float(lam.mean())
    if deff <= 1e-9:  # no spread at all between deals (every deal's results balance, as young Turtle's)
        return 0.0, 1.0
    a2 = float(lam.var()) / deff**2  # Satterthwaite's second-order correction: their spread
    stat = float(y @ y) / deff / (1 + a2)
    return stat, floor_p(float(chi2.sf(stat, int(ok.sum()) / (1 + a2))))


def _goodness(res: Fit, obs: Observations, sub: np.ndarray, pairs: np.ndarray, pi: np.ndarray, nt: np.ndarray,
              wa: np.ndarray, inv: np.ndarray, g: int, bread: np.ndarray, per_deal: np.ndarray,
              fidx: dict[int, int], t_obs: np.ndarray, resid: np.ndarray) -> None:
    """Pair by pair: observed and predicted win rate of A; the deviance over pairs and a test of all
    pairs at once (:func:`_fit_test`), clustered by deal and corrected for the fitted strengths."""
    from scipy.special import expit

    keys = sorted({obs.pairs[t] for t in sub})
    kidx = {p: i for i, p in enumerate(keys)}
    npair = len(keys)
    n_k = np.zeros(npair)
    w_k = np.zeros(npair)
    e_k = np.zeros(npair)
    v_k = np.zeros(npair)  # the binomial variance of the pair's wins of A under the model
    jac = np.zeros((npair, len(fidx)))
    for t in sub:
        a, b = obs.pairs[t]
        i = kidx[(a, b)]
        n_k[i] += nt[t]
        w_k[i] += wa[t]
        e_k[i] += nt[t] * pi[t]
        d = nt[t] * pi[t] * (1 - pi[t])
        v_k[i] += d
        if a in fidx:
            jac[i, fidx[a]] += d
        if b in fidx:
            jac[i, fidx[b]] -= d
    # per deal: each pair's residual (observed - predicted wins of A), plus the change the fitted
    # strengths make (a first-order correction, so the test's covariance is that of the residuals)
    pair_of_obs = np.array([kidx[obs.pairs[t]] for t in t_obs])
    u = np.zeros((g, npair))
    np.add.at(u, (inv, pair_of_obs), resid)
    u -= per_deal @ bread @ jac.T
    r = w_k - e_k
    cov = u.T @ u * g / max(g - 1, 1)
    df = npair - len(fidx)
    dev = 0.0
    for i in range(npair):
        o, e, n = w_k[i], e_k[i], n_k[i]
        for oo, ee in ((o, e), (n - o, n - e)):
            if oo > 0 and ee > 0:
                dev += 2 * oo * math.log(oo / ee)
    res.deviance = dev
    res.df = df
    if df > 0:
        res.chi2, res.p = _fit_test(r, cov, v_k, jac, bread, df)
    for (a, b), i in kidx.items():
        # the prediction is the games-weighted mean over the pair's tables of logistic(d + log(m_A / m_B)),
        # d = theta_a - theta_b: increasing in d, so the ends of d's interval, transformed, bound it
        ts = [t for t in sub if obs.pairs[t] == (a, b)]
        w, off = nt[ts], np.log(obs.mult[ts, 0] / obs.mult[ts, 1])
        d, half = float(res.theta[a] - res.theta[b]), res.diff_half(a, b)

        def predicted(x: float, w: np.ndarray = w, off: np.ndarray = off) -> float:
            return float((w * expit(x + off)).sum() / w.sum()) if w.sum() else math.nan

        res.pair_rows.append({"a": a, "b": b, "predicted": e_k[i] / n_k[i] if n_k[i] else math.nan,
                              "predicted_lo": predicted(d - half), "predicted_hi": predicted(d + half)})


# -- the study ------------------------------------------------------------------------------
@dataclass
class RatingResult:
    plan: Plan
    ratings: pl.DataFrame
    pairs: pl.DataFrame
    fit: pl.DataFrame
    games: int
    warnings: list[str] = field(default_factory=list)
    model: str = ""
    heldout: pl.DataFrame | None = None  # the top policy against the runner-up on fresh deals


def collect_observations(p: Plan, outcomes: Callable[[Table], pl.DataFrame]) -> Observations:
    """Every table's outcomes (``outcomes(table)``: ``game, seat, win``) as one set of observations."""
    t_idx, deals, shares, pairs, mult = [], [], [], [], []
    dropped = 0
    for pair in p.pairs:
        for tab in p.tables[pair]:
            g, s, ma, mb, d = table_shares(outcomes(tab), tab.seats, pair[0])
            t_idx.append(np.full(g.size, len(pairs)))
            deals.append(g)
            shares.append(s)
            pairs.append(pair)
            mult.append((ma, mb))
            dropped += d
    return Observations(np.concatenate(t_idx).astype(np.int64), np.concatenate(deals).astype(np.int64),
                        np.concatenate(shares), pairs, np.array(mult, dtype=np.float64), dropped)


def analyse(p: Plan, obs: Observations, games: int) -> RatingResult:
    n = len(p.names)
    f = fit_model(obs, n, p.reference)
    played = np.zeros(n)
    for t, (a, b) in enumerate(obs.pairs):
        c = float((obs.table == t).sum())
        played[a] += c
        played[b] += c
    lo = f.theta - f.half()
    hi = f.theta + f.half()
    # the reference's strength is 0 by definition, not an estimate: its interval is exactly 0 (the TOL
    # margin of the fitted strengths printed it as -1e-09 to +1e-09)
    if f.theta[p.reference] == 0:  # (a reference without games has no strength: NaN, kept)
        lo[p.reference] = hi[p.reference] = 0.0
    ratings = pl.DataFrame({
        "policy": p.names, "theta": f.theta, "lo": lo, "hi": hi, "se": f.se,
        "se_unclustered": f.se_model, "games": played.astype(np.int64), "status": f.status,
    }).sort(pl.col("theta").fill_nan(None), descending=True, nulls_last=True)  # a NaN (not rated) last
    pred = {(r["a"], r["b"]): r for r in f.pair_rows}
    rows = []
    for pair in p.pairs:
        a, b = pair
        ts = [t for t, q in enumerate(obs.pairs) if q == pair]
        m = np.isin(obs.table, ts)
        est = share_ci(obs.share[m], obs.deal[m])
        rows.append({"a": p.names[a], "b": p.names[b], "tables": len(ts), "games": int(m.sum()),
                     "deals": int(np.unique(obs.deal[m]).size), "a_win_rate": est.value,
                     "a_win_lo": est.lo, "a_win_hi": est.hi,
                     **{k: pred.get(pair, {}).get(c, math.nan) for k, c in (
                         ("predicted_rate", "predicted"), ("predicted_lo", "predicted_lo"),
                         ("predicted_hi", "predicted_hi"))}})
    pairs = pl.DataFrame(rows)
    fit_t = pl.DataFrame([{"model": _model_name(obs), "pairs": len(p.pairs), "free_strengths": int(
        sum(1 for i, s in enumerate(f.status) if s == "fitted" and i != p.reference)),
        "deviance": f.deviance, "df": f.df, "deviance_per_df": f.deviance / f.df if f.df > 0 else math.nan,
        "chi2": f.chi2, "p": f.p}])
    warnings = _warnings(p, f, pairs, obs)
    return RatingResult(p, ratings, pairs, fit_t, games, warnings, _model_name(obs))


def _model_name(obs: Observations) -> str:
    if obs.mult.size and (obs.mult.sum(axis=1) > 2).any():
        return "Luce choice (top-1 Plackett-Luce: each seat a competitor)"
    return "Bradley-Terry (side against side)"


def _warnings(p: Plan, f: Fit, pairs: pl.DataFrame, obs: Observations) -> list[str]:
    out = []
    for i, s in enumerate(f.status):
        if s.startswith("unbounded") or s.startswith("not"):
            out.append(f"{p.names[i]}: {s}; its strength has no finite estimate (separation).")
    rate = {(r["a"], r["b"]): r for r in pairs.iter_rows(named=True)}

    def beats(x: str, y: str) -> bool:
        r = rate.get((x, y))
        if r is not None:
            return r["a_win_lo"] > 0.5
        r = rate.get((y, x))
        return r is not None and r["a_win_hi"] < 0.5

    names = p.names
    for i in range(len(names)):
        for j in range(len(names)):
            for k in range(len(names)):
                if len({i, j, k}) == 3 and i < j and i < k and beats(names[i], names[j]) and \
                        beats(names[j], names[k]) and beats(names[k], names[i]):
                    out.append(f"Not transitive: {names[i]} beats {names[j]}, {names[j]} beats {names[k]}, and "
                               f"{names[k]} beats {names[i]} (each clearly over 50% of games): no strengths can "
                               "rank them.")
    if f.df > 0 and f.p < 0.01:
        def z(r: dict) -> float:  # the pair's departure from the model, in binomial standard errors
            q = r["predicted_rate"]
            return abs(r["a_win_rate"] - q) / math.sqrt(q * (1 - q) / r["games"]) if 0 < q < 1 else -1.0

        worst = max(pairs.iter_rows(named=True), key=z)
        out.append(f"The strengths do not fit the results (goodness of fit p = {f.p:.2g}; deviance {f.deviance:,.0f} "
                   f"on {f.df} df): e.g. {worst['a']} wins {pct(worst['a_win_rate'])} of games against "
                   f"{worst['b']}, where the strengths predict {pct(worst['predicted_rate'])}. Read the pairwise "
                   "table beside the ranking.")
    if obs.dropped:
        out.append(f"{obs.dropped:,} finished games were won by no rated seat (a ghost won) and are left out.")
    return out


def run(base: sc.Scenario, runner: Callable[[sc.Scenario], Any], games: int | None = None) -> RatingResult:
    """Play every distinct table of every pair (``games`` games each), fit the ratings, and play the
    top policy against the runner-up again on fresh deals (:func:`heldout`)."""
    p = plan(base)
    n_games = base.games if games is None else games
    if n_games < 2:  # nothing to play yet: the message comes before any table is played
        where = f"--games {n_games}" if games is not None else f"scenario.games = {n_games}"
        raise ScenarioError(f"{where}: ratings play at least 2 deals per table (their intervals are clustered by "
                            "deal, and one deal gives no spread to measure); allowed: 2 or more")
    obs = collect_observations(p, _outcomes(runner, n_games))
    res = analyse(p, obs, n_games)
    res.heldout = heldout(p, res, runner, n_games)
    return res


def _outcomes(runner: Callable[[sc.Scenario], Any], games: int, seed: int | None = None) -> Callable[[Table], pl.DataFrame]:
    """A table's outcomes (``game, seat, win``) from ``games`` games of its scenario (of ``seed``
    when given), for :func:`collect_observations`."""
    return lambda tab: (runner(tab.scenario.with_options(games=games, seed=seed)).outcomes()
                        .select("game", "seat", "win").collect())


def heldout(p: Plan, res: RatingResult, runner: Callable[[sc.Scenario], Any], games: int) -> pl.DataFrame | None:
    """The ranking picked its top policy from the data, so its lead over the runner-up is re-measured
    on ``games`` deals of a seed the ratings never used (:func:`cardsim.studies.sweep.heldout_seed`):
    every distinct seating of the two, the runner-up's strength the 0 of a fit of those tables alone
    (the log-odds that one top seat beats one runner-up seat) and the top's share of the wins.
    ``None`` when fewer than two policies have a strength."""
    from cardsim.studies.sweep import heldout_seed

    rated = res.ratings.filter(~pl.col("theta").is_nan())
    if rated.height < 2 or not p.policies:
        return None
    top, second = (p.names.index(rated["policy"][i]) for i in (0, 1))
    seed = heldout_seed(p.base.seed)
    tables = pair_tables(p.base, p.policies, p.names, top, second)
    sub = Plan(p.base, p.names, [(top, second)], {(top, second): tables}, second, p.policies)
    obs = collect_observations(sub, _outcomes(runner, games, seed))
    f = fit_model(obs, len(p.names), second)
    est = share_ci(obs.share, obs.deal)
    theta = float(f.theta[top])
    width = float(f.half()[top]) if math.isfinite(theta) else math.nan
    return pl.DataFrame([{
        "best": p.names[top], "runner_up": p.names[second], "seed": seed, "tables": len(tables),
        "games": int(obs.share.size), "deals": int(np.unique(obs.deal).size), "log_odds": theta,
        "lo": theta - width, "hi": theta + width, "best_win_rate": est.value, "best_win_lo": est.lo,
        "best_win_hi": est.hi, "status": f.status[top]}])


def _odds(d: float, digits: int = 1) -> str:
    return f"{100 / (1 + math.exp(-d)):.{digits}f}%"


def _share_ci(row: dict) -> str:
    """The interval of a share of contests against the reference: the model's share is a function of the
    strength difference (the logistic of it), and the reference's strength is 0 by definition, so the
    interval of the difference is the policy's strength interval; its ends, transformed, bound the share."""
    return f"95% CI {_odds(row['lo'])}-{_odds(row['hi'])}, the strength's interval transformed"


def ranking(ratings: pl.DataFrame) -> str:
    """The policies in order of strength; policies unbounded alike (each never beat, or never lost to,
    the others) are tied, as the model cannot order them; those without a strength are named apart."""
    groups: list[tuple[float, list[str]]] = []
    for name, theta in ratings.select("policy", "theta").iter_rows():
        if math.isnan(theta):
            continue
        if groups and math.isinf(theta) and groups[-1][0] == theta:
            groups[-1][1].append(name)
        else:
            groups.append((theta, [name]))
    side = {math.inf: "unbounded above", -math.inf: "unbounded below"}
    order = " > ".join(names[0] if len(names) == 1 else f"{', '.join(names)} (tied: {side[t]})" for t, names in groups)
    unrated = ratings.filter(pl.col("theta").is_nan())["policy"].to_list()
    return order + (f"; not ranked: {', '.join(unrated)}" if unrated else "")


def headline(res: RatingResult) -> str:
    ref = res.plan.names[res.plan.reference]
    r = res.ratings
    pairs = getattr(res, "pairs", None)
    if pairs is not None and pairs.height and "games" in pairs.columns and not pairs["games"].sum():
        # every game cut at a cap: "eager (the reference) rates highest" claimed a ranking no game made
        return (f"No game finished: every game of the {res.games:,} deal{'s' if res.games != 1 else ''} per table "
                f"was cut at the game's cap, so no policy won one and none can be rated; raise the cap to rate "
                f"them.")
    finite = r.filter(pl.col("theta").is_finite())
    order = ranking(r)
    top = r.row(0, named=True)
    if not math.isfinite(top["theta"]):
        lead = f"{top['policy']} never lost: its strength is unbounded"
    elif top["policy"] == ref and finite.height > 1:
        nxt = finite.row(1, named=True)
        lead = (f"{ref} (the reference) rates highest; next is {nxt['policy']} at {nxt['theta']:+.2f} log-odds "
                f"(95% CI {nxt['lo']:+.2f} to {nxt['hi']:+.2f}), winning {_odds(nxt['theta'])} of seat-against-seat "
                f"contests with {ref} ({_share_ci(nxt)})")
    elif top["policy"] == ref:  # it was read against itself: "+0.00 log-odds over partner"
        lead = f"{ref} (the reference) rates highest; no other policy has a finite strength (see the ratings)"
    else:
        # the top is chosen from these very figures, so its own reads high: said so; the held-out re-play
        # (after the ranking) is the measurement of the chosen one
        lead = (f"{top['policy']} rates highest in these games: {top['theta']:+.2f} log-odds over {ref} (95% CI "
                f"{top['lo']:+.2f} to {top['hi']:+.2f}; in-sample, the top chosen from these figures, so it reads "
                f"high), so one of its seats beats one of {ref}'s in {_odds(top['theta'])} of contests "
                f"({_share_ci(top)})")
    warn = ""  # a poor fit is told in the notes (with its p-value and the worst pair), and named here
    if any("transitive" in w for w in res.warnings):
        warn = " The results are not transitive, so no ranking describes them: read the pairwise table."
    elif any(w.startswith("The strengths do not fit") for w in res.warnings):
        warn = (" The strengths fit the results poorly (see the notes), so the figures above are the model's: "
                "read the pairwise table beside them.")
    # the ranking orders point estimates whose intervals may overlap: said so, as the notes say it
    return (f"{lead}. Ranking by the estimates (their order is not tested, place by place): {order} "
            f"({res.games:,} deal{'s' if res.games != 1 else ''} per table, each distinct seating once; intervals "
            f"clustered by deal).{warn}{_heldout_words(res.heldout)}")


def _heldout_words(h: pl.DataFrame | None) -> str:
    """The held-out re-play of the top policy against the runner-up, in words."""
    if h is None or not h.height:
        return ""
    r = h.row(0, named=True)
    where = f" On {r['deals']:,} fresh deals (a seed the ratings never used), {r['best']}"
    if math.isnan(r["log_odds"]):  # no finished game the two could be rated on
        return f"{where} and {r['runner_up']} (the runner-up) finished no game a rated seat won."
    if not math.isfinite(r["log_odds"]):
        return f"{where} {'never lost to' if r['log_odds'] > 0 else 'never beat'} {r['runner_up']} (the runner-up)."
    # "stays ahead" judges the share against an even contest: each end keeps its side of 50% (50.02%, not 50.0%)
    d = side_digits(*(1 / (1 + math.exp(-x)) for x in (r["lo"], r["hi"])), 0.5)
    odds = (f"one of its seats beats one of {r['runner_up']}'s (the runner-up) in {_odds(r['log_odds'], d)} of "
            f"contests (95% CI {_odds(r['lo'], d)}-{_odds(r['hi'], d)}, from the rating model; its seats' raw share of the wins "
            f"{100 * r['best_win_rate']:.1f}%, 95% CI {100 * r['best_win_lo']:.1f}%-{100 * r['best_win_hi']:.1f}%)")
    if r["lo"] > 0:
        return f"{where} stays ahead: {odds}."
    return f"{where} is not detectably ahead: {odds}."


#: how the ratings' intervals handle multiplicity (under the answer and in the report)
INTERVALS = ("Each strength's and each pair's interval is a 95% interval for its own row (pointwise): the "
             "ranking orders the point estimates, and of its places only the top one is tested, by re-playing the "
             "top policy against the runner-up on fresh deals.")


def output(res: RatingResult) -> Output:
    """What ``cardsim rate`` prints."""
    tables = [("Ratings", res.ratings), ("Pairs", res.pairs), ("Fit", res.fit)]
    if res.heldout is not None:
        tables.append(("Held-out: the top policy against the runner-up on fresh deals", res.heldout))
    return Output(headline(res), tables,
                  notes=[*res.warnings, INTERVALS], fields={"model": res.model})
