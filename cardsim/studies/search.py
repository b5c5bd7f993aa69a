"""Tactic and rule-design search (issue 16): which parameters win, by how much, how sure.

``[search]`` names free parameters (:mod:`cardsim.studies.space`), an
objective and a budget in games. An Optuna sampler (TPE by default;
CMA-ES, random or quasi-random) proposes candidates; each candidate is
*raced* on common random numbers: rung ``k`` plays deals
``[0, rung x eta^k)`` of the search stream in every seat rotation, and
after each rung the candidate is dropped when Optuna's successive-halving
pruner ranks it out of the top ``1/eta`` of its rung, or when its paired
difference against the incumbent (the best candidate that finished the
top rung; at first the baseline) is clearly negative (upper 1-sided
``prune_z`` bound below 0). A candidate that finishes the top rung ahead
of the incumbent on the same deals becomes the incumbent.

The winner's curse: the final tactic, the baseline and the runner-up are
re-played on a held-out stream of deals the search never saw; the report
gives the held-out paired gain over the baseline and over the runner-up,
each with its 95% interval, next to the in-search estimate. Which
parameters matter: PED-ANOVA importance over the first rung of every
trial (Optuna), and paired one-at-a-time contrasts around the best point
on the held-out deals, with intervals.

The study lives in an Optuna journal file in the run folder; a search
killed with ``kill -9`` resumes where it stopped, and ends where an
uninterrupted one does: the journal records each batch's candidates once
proposed and its outcome before its trials are told, a resumed search
finishes a batch whose outcome was recorded and races a recorded batch
again with the same candidates (:func:`_recover`), and the sampler is
re-seeded from (seed, the candidate's place) before every proposal, so an
unrecorded batch is proposed again as it was.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import zlib
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean
from cardsim.output import Output
from cardsim.report.numbers import many, share_digits, side_digits
from cardsim.results import sole_holder
from cardsim.stats import simultaneous_means
from cardsim.studies import derive, space
from cardsim.studies.evaluate import (
    Estimate,
    Evaluator,
    Lineup,
    Timing,
    estimate,
    gain_estimate,
    games_of,
    keys_for,
    share_estimate,
)

KEYS = ("params", "objective", "goal", "band", "field", "tuned", "focus", "budget", "heldout", "sampler", "rung",
        "eta", "rungs", "chunk", "prune_z", "contrasts", "startup", "storage", "batch")
OBJECTIVES = ("win", "length", "length_in", "first", "dealer")
SAMPLERS = ("tpe", "cmaes", "random", "qmc")
GOAL_DEFAULT = {"win": "max", "length": "min", "length_in": "max", "first": "zero", "dealer": "zero"}


@dataclass(frozen=True)
class Plan:
    base: sc.Scenario
    params: list[space.Param]
    objective: str
    goal: str | float          # "max", "min" or a target value ("zero" is 0.0)
    band: tuple[float, float]
    field: space.Field
    tuned: list[int]
    focus: int
    budget: int                # games the search may play
    heldout: int               # held-out deals (each in every seating)
    sampler: str
    rung: int                  # deals of the first rung
    eta: int
    rungs: int
    chunk: int
    prune_z: float
    contrasts: bool
    startup: int
    storage: str | None
    batch: int                 # candidates proposed and raced together
    baseline: dict[str, Any]   # the base scenario's value of each parameter (None: outside the space)

    @property
    def top(self) -> int:
        return self.rung * self.eta ** (self.rungs - 1)

    def full_race(self) -> int:
        """Games one candidate's full race costs at most: the baseline's, or more where a ``players``
        parameter gives more distinct seatings."""
        worst = games_of([self.lineup({}, "baseline")], self.top)
        for prm in self.params:
            if "players" in prm.keys:
                for v in prm.values or range(int(prm.low), int(prm.high) + 1):
                    try:
                        worst = max(worst, games_of([self.lineup({prm.name: v}, f"players {v}")], self.top))
                    except ScenarioError:
                        continue
        return worst

    def steps(self) -> list[int]:
        return [self.rung * self.eta ** k for k in range(self.rungs)]

    def lineup(self, values: Mapping[str, Any], label: str = "candidate") -> Lineup:
        raw = space.apply(self.base, self.params, values, f"search candidate {label}")
        return space.lineup(self.base, raw, self.tuned, self.field, self.focus, self.objective, self.band,
                            rotate=True, label=label)

    def estimate(self, values: np.ndarray) -> Estimate:
        """A candidate's objective from its per-deal values: a win or a share of games in the band is
        a share in [0, 1], with :func:`share_estimate`'s interval (a t interval covered 91-92% at a rare
        share, and read 0.0-0.0% where no deal scored); an advantage or a length, +- t SE."""
        return share_estimate(values) if self.objective in ("win", "length_in") else estimate(values)

    def gain_bounds(self) -> tuple[float, float] | None:
        """Where a per-deal gain of one candidate over another lies (:meth:`Race.paired`), for the held-out
        gains' bounded interval (:func:`gain_estimate`): a win or a share of games in the band is in [0, 1],
        an advantage (first, dealer: a seat's win minus the seats' mean) in [-1, 1], so a gain to max or min
        is within the value's range either side of 0; to a target ``t``, each side's distance ``|v - t|``
        is at most ``max(t - low, high - t)``, and the gain at most twice that. A length has no bound: None
        (the t interval)."""
        if self.objective not in SHARE_OBJECTIVES:
            return None
        low, high = (0.0, 1.0) if self.objective in ("win", "length_in") else (-1.0, 1.0)
        if self.goal in ("max", "min"):
            return (low - high, high - low)
        t = float(self.goal)
        r = 2 * max(t - low, high - t, 0.0)
        return (-r, r)

    def score(self, mean: float) -> float:
        """The objective to maximise from a mean per-deal value."""
        if self.goal == "max":
            return mean
        if self.goal == "min":
            return -mean
        return -abs(mean - float(self.goal))

    def tuned_entry(self, values: Mapping[str, Any]) -> Any:
        """The tuned seat's policy as a scenario writes it (None when no seat parameter is searched)."""
        if not any(not k.startswith("rules.") and k not in ("players", "variant") for p in self.params
                   for k in p.keys):
            return None
        raw = space.apply(self.base, self.params, values, "best")
        return space.full_entry(self.base, derive.seat_list(raw, self.base.setup.players)[self.focus], self.focus)

    def rules_of(self, values: Mapping[str, Any]) -> dict[str, Any]:
        return {k[6:]: values[p.name] for p in self.params for k in p.keys if k.startswith("rules.")}

    def entry(self, c: Candidate) -> Any:
        """A candidate as a scenario writes it: the tuned seat's policy, or the searched rules."""
        return self.tuned_entry(c.setting) or {"rules": self.rules_of(c.values)}

    def identity(self) -> str:
        """What the search's trials depend on: the run folder's name carries it. A budget other than the
        scenario's (``--budget``) is part of it: the batches proposed depend on the budget left, so a search
        run again with a larger budget went on from the smaller one's journal and could end elsewhere than
        a search given that budget from the start."""
        search = {**self.base.raw.get("search", {}), "budget": self.budget}  # the scenario's unless --budget
        blob = json.dumps({"scenario": self.base.identity(), "search": search, "seed": self.base.seed},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


def plan(base: sc.Scenario) -> Plan:
    """Validate ``[search]``."""
    cfg = derive.section(base, "search", KEYS, "params to tune, an objective, a budget")
    players = base.setup.players
    focus = _int(cfg, "focus", 0, 0, players - 1)
    tuned = cfg.get("tuned", [focus])
    if (not isinstance(tuned, list) or not tuned or len(set(map(repr, tuned))) != len(tuned)
            or not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < players for t in tuned)):
        raise ScenarioError(f"search.tuned = {tuned!r} must list distinct seats 0-{players - 1} (the seats that "
                            f"play the tuned policy; default [focus])")
    if "focus" not in cfg:
        focus = tuned[0]
    if focus not in tuned:
        raise ScenarioError(f"search.focus = {focus} must be one of search.tuned = {tuned}")
    from cardsim.studies.meta import sides_of

    teams = [side for side in sides_of(base.setup) if len(side) > 1]
    if teams and sum(any(t in side for t in tuned) for side in teams) > 1:
        # the tuned policy then plays against itself and the objective (the focus seat's team) gains on one
        # side what it loses on the other; the answer said "against partner at every other seat"
        raise ScenarioError(f"search.tuned = {tuned}: seats of opposing teams "
                            f"({', '.join('+'.join(map(str, side)) for side in teams)}) would play the tuned policy "
                            f"against itself; tune the seats of one team (e.g. {teams[0]})")
    params = space.parse_params(cfg.get("params"), "search.params", tuned)
    objective = cfg.get("objective", "win")
    if objective not in OBJECTIVES:
        raise ScenarioError(f"search.objective = {objective!r}; allowed: {allowed_list(OBJECTIVES)}")
    goal = cfg.get("goal", GOAL_DEFAULT[objective])
    if goal == "zero":
        goal = 0.0
    if not (goal in ("max", "min") or (isinstance(goal, int | float) and not isinstance(goal, bool)
                                        and math.isfinite(goal))):  # nan, inf: a whole search on a nan objective
        raise ScenarioError(f"search.goal = {goal!r}; allowed: max, min, zero or a target number")
    band = cfg.get("band", [0, 0])
    if objective == "length_in":
        if "band" not in cfg:
            raise ScenarioError("search.band is required for objective = \"length_in\": the game lengths that "
                                "count, band = [low, high] (e.g. band = [10, 30], in hands or turns)")
        if (not isinstance(band, list) or len(band) != 2
                or not all(isinstance(x, int | float) and not isinstance(x, bool) and not math.isnan(x) for x in band)
                or band[0] > band[1]):
            raise ScenarioError(f"search.band = {band!r} must be [low, high] (game lengths, low <= high) for "
                                f"objective = \"length_in\"")
        if band[1] < 0:  # no game lasts fewer than 0 turns: every candidate would score 0 and "nothing beat" it
            raise ScenarioError(f"search.band = {band!r} holds no game length (lengths are 0 or more, in hands or "
                                f"turns); give [low, high] with high >= 0, e.g. band = [10, 30]")
    elif "band" in cfg:
        raise ScenarioError("search.band only applies to objective = \"length_in\"")
    others = players - len(tuned)
    fld = space.parse_field(cfg.get("field"), "search.field", others)
    if not fld.keep and others == 0:
        raise ScenarioError("search.field: every seat is tuned, there is no field")
    sampler = cfg.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise ScenarioError(f"search.sampler = {sampler!r}{did_you_mean(str(sampler), SAMPLERS)}; "
                            f"allowed: {allowed_list(SAMPLERS)}")
    chunk = _int(cfg, "chunk", 1000, 10, 10**7)
    rung = _int(cfg, "rung", 2000, 1, 10**8)
    if rung % chunk and rung > chunk:
        raise ScenarioError(f"search.rung = {rung} must be a multiple of search.chunk = {chunk}")
    chunk = min(chunk, rung)
    eta = _int(cfg, "eta", 3, 2, 10)
    rungs = _int(cfg, "rungs", 3, 1, 8)
    budget = _int(cfg, "budget", 0, 1, 10**11) if "budget" in cfg else None
    if budget is None:
        raise ScenarioError("missing key search.budget (games the search may play, e.g. budget = 2000000)")
    heldout = _int(cfg, "heldout", 10000, 10, 10**8)
    prune_z = cfg.get("prune_z", 1.0)
    if not isinstance(prune_z, int | float) or isinstance(prune_z, bool) or not 0 <= prune_z <= 5:
        raise ScenarioError(f"search.prune_z = {prune_z!r} must be a number in [0, 5]")
    contrasts = cfg.get("contrasts", True)
    if not isinstance(contrasts, bool):
        raise ScenarioError(f"search.contrasts = {contrasts!r} must be true or false")
    startup = _int(cfg, "startup", 10, 1, 10**4)
    storage = cfg.get("storage")
    if storage is not None and not isinstance(storage, str):
        raise ScenarioError(f"search.storage = {storage!r} must be a journal file path or a database URL")
    batch = _int(cfg, "batch", 4, 1, 256)
    space.check_field(base, fld, "search.field")  # a typo in the field, or seats to tune that have no policy,
    space.check_seats(base, params, "search.params")  # before the baseline's seats are built from them
    p = Plan(base, params, objective, goal, (float(band[0]), float(band[1])), fld, list(tuned), focus, budget,
             heldout, sampler, rung, eta, rungs, chunk, float(prune_z), contrasts, startup, storage, batch, {})
    baseline = {}
    for prm in params:
        v = space.current(base, prm)
        baseline[prm.name] = v if v is not None and prm.contains(v) else None
    p = Plan(**{**p.__dict__, "baseline": baseline})
    p.lineup({}, "baseline")  # every seating of the baseline validates
    space.check_ranges(base, params, "search.params")  # every value a range draws: its type, odd, a few values
    lows = {prm.name: (prm.values[0] if prm.values else prm.low) for prm in params}
    p.lineup(lows, "low end")  # and one corner of the space
    for prm in params:  # and every end and listed value of each parameter: a policy parameter's domain
        for v in (prm.values or (prm.high,)):
            p.lineup({prm.name: v}, f"{prm.name} = {v}")
    check_budget(p, "search.budget =")
    return p


def least_budget(p: Plan) -> int:
    """The fewest games a search can answer with: the baseline's full race and one candidate's."""
    return games_of([p.lineup({}, "baseline")], p.top) + p.full_race()


def check_budget(p: Plan, what: str) -> None:
    """Refuse a budget below :func:`least_budget` (``what`` names where it was set)."""
    least = least_budget(p)
    if p.budget < least:
        raise ScenarioError(f"{what} {p.budget:,} games is below the least a search needs, {least:,} games (the "
                            f"baseline's full race and one candidate's, {p.top:,} deals x seatings each); raise it or "
                            f"lower search.rung / search.rungs")


def _int(cfg: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    v = cfg.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ScenarioError(f"search.{key} = {v!r} must be an integer in [{lo}, {hi:,}]")
    return v


# -- results -------------------------------------------------------------------------------
@dataclass
class Candidate:
    values: dict[str, Any]             # each parameter's value (the baseline's: as the scenario writes it)
    label: str
    insearch: Estimate | None = None   # value on the search deals (the top rung)
    heldout: Estimate | None = None    # value on the held-out deals
    baseline: bool = False             # the scenario as written (its values may lie outside the space)
    same_as_best: bool = False         # the runner-up: every held-out deal gave it the best's result

    @property
    def setting(self) -> dict[str, Any]:
        """What to set on the base scenario to play this candidate (nothing for the baseline)."""
        return {} if self.baseline else self.values


@dataclass
class SearchResult:
    plan: Plan
    best: Candidate
    baseline: Candidate
    runner_up: Candidate | None
    gain: dict[str, Estimate]          # held-out paired gains: "baseline", "runner-up"; and "in search"
    trials: pl.DataFrame
    importance: pl.DataFrame
    contrasts: pl.DataFrame
    timing: Timing
    games: int                         # games the search played (budget accounting)
    heldout_games: int
    folder: Path | None = None
    notes: list[str] = field(default_factory=list)


# -- the search ------------------------------------------------------------------------
def _sampler(p: Plan, seed: int, k: int):
    """The sampler that proposes the ``k``-th candidate (failed trials of a killed run not counted),
    seeded from (seed, k) so a resumed search proposes what the uninterrupted one would have."""
    import optuna

    own = zlib.crc32(f"{seed}:{k}".encode())
    if p.sampler == "tpe":
        return optuna.samplers.TPESampler(seed=own, multivariate=True, n_startup_trials=p.startup,
                                          constant_liar=True)
    if p.sampler == "cmaes":
        return _cmaes(p, own, k)
    if p.sampler == "qmc":
        return _qmc(seed, k, own)
    return optuna.samplers.RandomSampler(seed=own)


def _cmaes(p: Plan, seed: int, k: int):
    """Optuna's CMA-ES, drawing its point for the ``k``-th candidate as it would for trial number ``k``
    (it seeds each draw with the trial number, which a killed run's failed trials would shift)."""
    import copy

    import optuna

    class PlacedCmaEs(optuna.samplers.CmaEsSampler):
        def sample_relative(self, study, trial, search_space):
            placed = copy.copy(trial)
            placed.number = k
            return super().sample_relative(study, placed, search_space)

    return PlacedCmaEs(seed=seed, n_startup_trials=p.startup, warn_independent_sampling=False)


def _qmc(seed: int, k: int, own: int):
    """Optuna's scrambled Sobol sampler with one scramble for the whole search (from ``seed``) and the
    ``k``-th point of the sequence for the ``k``-th candidate. Optuna numbers the points with a counter
    in the study, which a killed run would have advanced, and re-seeding it per candidate would give a
    new scramble each time, i.e. plain random points. Before a first trial is told (Optuna reads the
    space from it) the candidate is drawn at random, from ``own``."""
    import warnings

    import optuna

    class PlacedQMC(optuna.samplers.QMCSampler):
        def _find_sample_id(self, *args, **kwargs):  # the point's place: the candidate's
            return k

    with warnings.catch_warnings():  # "QMCSampler is experimental": a note for Optuna's users, not ours
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return PlacedQMC(seed=zlib.crc32(f"{seed}:qmc".encode()), scramble=True, warn_independent_sampling=False,
                         independent_sampler=optuna.samplers.RandomSampler(seed=own))


def _journal(p: Plan, folder: Path | None) -> Path | None:
    """The journal file: ``search.storage`` when it names a file, else ``journal.log`` in the run
    folder; ``None`` for a database URL or an in-memory search."""
    if p.storage and "://" in p.storage:
        return None
    return Path(p.storage) if p.storage else (folder / "journal.log" if folder else None)


def _storage(p: Plan, folder: Path | None):
    """The Optuna storage: the journal file in the run folder (or ``search.storage``)."""
    import optuna
    from optuna.storages.journal import JournalFileBackend, JournalStorage

    path = _journal(p, folder)
    if path is None and p.storage:
        try:
            return optuna.storages.RDBStorage(p.storage)
        except Exception as exc:  # no driver, a dialect SQLAlchemy does not know, a database it cannot reach
            why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ScenarioError(f"search.storage = {p.storage!r}: cannot open this database ({why}); give a journal "
                                f"file path, or the URL of a database you can reach, with its driver installed") from None
    if path is None:
        return optuna.storages.InMemoryStorage()
    path.parent.mkdir(parents=True, exist_ok=True)
    _repair(path)
    try:
        _lines_read(path)
        return JournalStorage(JournalFileBackend(str(path)))  # replays the journal
    except Exception as exc:  # bytes that are not Optuna's lines: a UnicodeDecodeError or AssertionError traceback
        why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise ScenarioError(f"the search journal {path} does not read ({type(exc).__name__}{': ' + why if why else ''}): "
                            f"it was damaged, or is not a journal this search wrote; move it away (the same command "
                            f"then starts the search afresh), or give search.storage another file") from None


def _lines_read(path: Path) -> None:
    """Raise if a line of the journal is not JSON. Optuna's replay passes over a last line that does not
    decode (it raises only once a line follows it), so a journal whose last line was damaged opened, had
    the study's first line appended after the damage, and then failed in a JSONDecodeError traceback."""
    if not path.exists():  # a new search: Optuna creates it
        return
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                json.loads(line)
            except json.JSONDecodeError as exc:  # "Expecting value at line 12" of the journal, not of the line
                exc.args = (f"{exc.msg} at line {number}",)
                raise


@contextmanager
def _sole(path: Path | None):
    """Hold a journal for this process while it searches. A second search on the same journal would
    take the first one's running trials for a kill's and fail them, so it is refused up front, in one
    line. The lock (``flock``) goes with the process, so a killed search leaves nothing to clean."""
    if path is None:
        yield
        return
    if path.is_dir():
        raise ScenarioError(f"the search journal {path} is a folder; give search.storage the journal's file path "
                            f"(e.g. {path / 'journal.log'}) or a database URL")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        owner = open(path.with_name(path.name + ".owner"), "a+")  # held below, to the end of the search
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot write the search journal there ({exc.strerror}); choose a journal file "
                            f"(search.storage) or a --runs folder you can write to") from None
    def busy(who: str) -> ScenarioError:
        return ScenarioError(f"{path}: another cardsim search is working on this journal{who}; wait for it to finish, "
                             f"or give this one another runs folder")

    with owner as f, sole_holder(f, busy):
        # Optuna's own lock on the journal (a symlink) outlives a kill -9 that fell while it was held,
        # and Optuna waits 30 s, with warnings, before breaking it; holding the journal, we know it is stale
        stale = path.with_name(path.name + ".lock")
        if stale.is_symlink() or stale.exists():
            stale.unlink()
        yield


def _repair(path: Path) -> None:
    """Cut a journal's torn last line (a kill -9 mid-append), so new lines start clean."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        cut = data.rfind(b"\n") + 1
        with open(path, "r+b") as f:
            f.truncate(cut)


#: journal keys (study attributes): ``batch:<i>`` the trial numbers of the i-th batch, recorded once
#: asked; ``told`` the last batch's outcome, recorded before its trials are told one by one
BATCH, TOLD = "batch:", "told"


def _tell(study, number: int, state: int, value: float, games: int, play: str) -> None:
    """Finish a raced trial: its games and fingerprint, then its state (a pruned trial has no value)."""
    from optuna.trial import TrialState

    trial_id = study._storage.get_trial_id_from_study_id_trial_number(study._study_id, number)
    study._storage.set_trial_user_attr(trial_id, "run", {"games": games, "play": play})
    st = TrialState(state)
    study.tell(number, value if st == TrialState.COMPLETE else None, state=st)


def _recover(study) -> tuple[list[tuple[int, list[tuple[dict[str, Any], dict[str, Any]]]]], int]:
    """Bring a journal a kill left behind back to the end of a batch. Returns the batches to play
    again in order, (index, [(parameters, the sampler's notes on the trial)]), and the index of the
    next new batch.

    A batch whose outcome was recorded is told to the end from the record. A recorded batch none of
    whose trials was told is played again with the same candidates (the uninterrupted search raced
    exactly these together, against the same incumbent). Every trial left running or waiting is
    marked failed: those of an unrecorded batch are proposed again by the sampler, which proposes
    the same ones (it is seeded from the candidate's place, and sees the same history)."""
    from optuna.trial import TrialState

    told = study.user_attrs.get(TOLD)
    if told:
        state = {t.number: t.state for t in study.get_trials(deepcopy=False)}
        for num, outcome in told["trials"].items():
            if state[int(num)] == TrialState.RUNNING:
                _tell(study, int(num), *outcome)
    trials = {t.number: t for t in study.get_trials(deepcopy=False)}
    finished = (TrialState.COMPLETE, TrialState.PRUNED)
    batches = sorted((int(k[len(BATCH):]), v) for k, v in study.user_attrs.items() if k.startswith(BATCH))
    pending = [(b, [(dict(trials[n].params), _sampler_notes(trials[n])) for n in nums]) for b, nums in batches
               if not all(trials[n].state in finished for n in nums)]
    for t in trials.values():
        if t.state in (TrialState.RUNNING, TrialState.WAITING):
            study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
    return pending, (batches[-1][0] + 1 if batches else 0)


def _sampler_notes(trial) -> dict[str, Any]:
    """What the sampler wrote on a trial when it proposed it (CMA-ES: its generation and state), to
    copy onto the trial that plays the same candidate again: an enqueued candidate is not proposed,
    so the sampler would not write them, and would count its generation differently."""
    return {k: v for k, v in trial.system_attrs.items() if k != "fixed_params" and not k.startswith("completed_rung_")}


class _Pruner:
    """Successive halving over the trials of this search as it would have run uninterrupted: a
    killed run's failed trials are left out (their rung values would count twice once the same
    candidate is raced again)."""

    def __init__(self, inner):
        self.inner = inner

    def prune(self, study, trial) -> bool:
        return self.inner.prune(_Unfailed(study), trial)


class _Unfailed:
    """A study seen without its failed trials (for :class:`_Pruner`)."""

    def __init__(self, study):
        self._study = study

    def get_trials(self, deepcopy: bool = True, states=None):
        from optuna.trial import TrialState

        return [t for t in self._study.get_trials(deepcopy=deepcopy, states=states) if t.state != TrialState.FAIL]

    def __getattr__(self, name: str):
        return getattr(self._study, name)


def folder_for(p: Plan, runs: str | Path) -> Path:
    return Path(runs) / f"{p.base.name}-search-{p.identity()}"


class Race:
    """The race of candidates against the incumbent, on the search deals."""

    def __init__(self, p: Plan, ev: Evaluator, key: int):
        self.p = p
        self.ev = ev
        self.key = key
        self._lineups: dict[str, Lineup] = {}

    def lineup(self, values: Mapping[str, Any]) -> Lineup:
        k = json.dumps(values, sort_keys=True, default=str)
        if k not in self._lineups:
            self._lineups[k] = self.p.lineup(values)
        return self._lineups[k]

    def values(self, values: Mapping[str, Any], deals: int) -> np.ndarray:
        return self.ev.evaluate([self.lineup(values)], self.key, 0, deals)[0]

    def start(self, values: Mapping[str, Any], deals: int):
        return self.ev.start([self.lineup(values)], self.key, 0, deals)

    def paired(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per-deal gain of ``a`` over ``b`` in objective units (:func:`paired_gain`)."""
        return paired_gain(a, b, self.p.goal)


def paired_gain(a: np.ndarray, b: np.ndarray, goal: str | float) -> np.ndarray:
    """Per-deal gain of values ``a`` over ``b`` (the same deals) toward ``goal``: ``a - b`` to max, ``b - a``
    to min; to a target ``t``, the gain in distance ``|mean b - t| - |mean a - t|`` linearised with each
    side's sign estimated from its mean, ``sb (b - t) - sa (a - t)`` (a side whose sign is misread, near
    the target, is off by at most twice its distance to it; coverage case "search held-out gain to a
    target")."""
    if goal == "max":
        return a - b
    if goal == "min":
        return b - a
    t = float(goal)
    sa, sb = np.sign(a.mean() - t) or 1.0, np.sign(b.mean() - t) or 1.0
    return sb * (b - t) - sa * (a - t)


def with_budget(p: Plan, budget: int | None) -> Plan:
    """``p`` with ``--budget`` (None: as it is): the plan :func:`run` searches, whose budget names its
    folder (:meth:`Plan.identity`), so the CLI's Ctrl-C line names the journal the search writes."""
    return p if budget is None else Plan(**{**p.__dict__, "budget": budget})


def run(base: sc.Scenario, ev: Evaluator, runs: str | Path | None = "runs", progress: Callable[[int, int], None] |
        None = None, budget: int | None = None, plan_: Plan | None = None) -> SearchResult:
    """Search, then re-play the winner on held-out deals. ``runs`` holds the run folder (its journal
    makes the search resumable); ``None`` keeps everything in memory. ``plan_`` replaces the plan
    of ``base``'s ``[search]`` (meta's best responses adjust its field)."""
    p = with_budget(plan_ or plan(base), budget)
    if budget is not None:
        check_budget(p, "--budget")
    folder = folder_for(p, runs) if runs is not None else None
    with _sole(_journal(p, folder)):
        # a meta-game's best response (``plan_``) whose games never finish is a response that gains nothing:
        # the meta-game goes on without it (it refuses a payoff table in which no game finished itself)
        return _search(base, ev, p, folder, progress, refuse_unfinished=plan_ is None)


def _search(base: sc.Scenario, ev: Evaluator, p: Plan, folder: Path | None,
            progress: Callable[[int, int], None] | None, refuse_unfinished: bool = True) -> SearchResult:
    import optuna
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    t0, c0 = time.perf_counter(), time.process_time()
    keys = keys_for(base.seed)
    storage = _storage(p, folder)
    study = optuna.create_study(storage=storage, study_name="search", direction="maximize", load_if_exists=True)
    if study.user_attrs.get("identity") not in (None, p.identity()):
        if p.storage:  # the journal is search.storage's, wherever --runs points: another runs folder did not help
            raise ScenarioError(f"search.storage = {p.storage!r} holds another search's journal; give search.storage "
                                f"a journal of its own (another file or database), or remove it to keep the "
                                f"journal in the search's run folder")
        raise ScenarioError(f"{folder}: the journal belongs to another search (choose another runs folder)")
    study.set_user_attr("identity", p.identity())
    pruner = _Pruner(optuna.pruners.SuccessiveHalvingPruner(min_resource=p.rung, reduction_factor=p.eta,
                                                            min_early_stopping_rate=0))
    race = Race(p, ev, keys["search"])
    pending, fresh = _recover(study)  # the batches a kill left unfinished, to play again; the next new one
    base_vals = {k: v for k, v in p.baseline.items() if v is not None}
    done = [t for t in study.get_trials(deepcopy=False) if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    if len(base_vals) == len(p.params) and not done and not pending:
        study.enqueue_trial(base_vals, user_attrs={"baseline": True})
    baseline_v = race.values({}, p.top)  # the base scenario as it is: the first incumbent
    used = games_of([race.lineup({})], p.top) + sum(int(t.user_attrs.get("run", {}).get("games", 0)) for t in done)
    if progress:
        progress(min(used, p.budget), p.budget)
    dists = {prm.name: prm.distribution() for prm in p.params}

    def ask_batch(reserved: int = 0) -> tuple[int, list]:
        """The next batch and its index: a batch a kill left unfinished, with the same candidates, or
        as many new candidates as ``batch`` whose full races fit in the budget left after ``used``
        and ``reserved`` (the worst case of the batch still playing), so the search never plays
        more games than its budget. The batch is recorded in the journal once asked."""
        nonlocal fresh
        if pending:
            b, again = pending.pop(0)
            for prm, _ in again:
                study.enqueue_trial(prm, skip_if_exists=False)
            out = [study.ask(dists) for _ in again]
            for t, (_, notes) in zip(out, again, strict=True):
                for key, value in notes.items():
                    study._storage.set_trial_system_attr(t._trial_id, key, value)
        else:
            b, out = fresh, []
            for _ in range(min(p.batch, max(0, p.budget - used - reserved) // full)):
                # the candidate's place (a killed run's failed trials not counted) seeds the sampler
                k = sum(1 for t in study.get_trials(deepcopy=False)
                        if t.state not in (TrialState.FAIL, TrialState.WAITING))
                study.sampler = _sampler(p, base.seed, k)
                out.append(study.ask(dists))
            fresh += bool(out)
        if out:
            study.set_user_attr(f"{BATCH}{b}", [t.number for t in out])
        return b, out

    study.pruner = pruner
    full = p.full_race()
    b, cur = ask_batch()
    cur_played = bool(cur)
    while cur:
        inc_vals, inc_v = _incumbent(study, race, p, baseline_v)
        handles = {t.number: race.start(t.params, p.rung) for t in cur}
        # propose the next batch while this one plays (only what the budget surely allows)
        b_nxt, nxt = ask_batch(len(cur) * full)
        alive, cost, last, fp = list(cur), {}, {}, {}
        state = {t.number: TrialState.COMPLETE for t in cur}
        for k, deals in enumerate(p.steps()):
            survivors = []
            for t in alive:  # in trial order: each decision sees the reports before it
                v = handles[t.number].result()[0]
                cost[t.number] = games_of([race.lineup(t.params)], deals)
                last[t.number] = p.score(float(v.mean()))
                fp[t.number] = _fingerprint(v)
                t.report(last[t.number], deals)
                e = estimate(race.paired(v, inc_v[:deals]))
                worse = e.n > 1 and e.mean + p.prune_z * e.se < 0
                if k == p.rungs - 1:
                    continue
                if worse or t.should_prune():
                    state[t.number] = TrialState.PRUNED
                else:
                    handles[t.number] = race.start(t.params, p.steps()[k + 1])
                    survivors.append(t)
            alive = survivors
        # the batch's outcome in one journal line first: a kill among the tells below is finished
        # from it on resume (the candidates after the kill must not see the ones told before it)
        outcome = {str(t.number): [int(state[t.number]), last[t.number], cost[t.number], fp[t.number]] for t in cur}
        study.set_user_attr(TOLD, {"batch": b, "trials": outcome})
        for t in cur:
            _tell(study, t.number, *outcome[str(t.number)])
            used += cost[t.number]
        new_inc = _incumbent_params(study, p, baseline_v)
        keep = [race.lineup({}), race.lineup(new_inc), race.lineup(inc_vals)]
        race.ev.forget([race.lineup(t.params) for t in cur], keep=keep)
        if progress:
            progress(min(used, p.budget), p.budget)
        b, cur = (b_nxt, nxt) if nxt else ask_batch()
    # the search's own time, summed over the sessions that ran it (a resumed search adds to it)
    search_seconds = float(study.user_attrs.get("seconds", 0.0))
    earlier = bool(done) and not cur_played  # every candidate was raced in an earlier session
    if not earlier:
        search_seconds += time.perf_counter() - t0
        study.set_user_attr("seconds", search_seconds)
    res = _finish(p, study, race, keys, baseline_v, used, folder, refuse_unfinished)
    res.timing.wall = time.perf_counter() - t0
    res.timing.cpu = time.process_time() - c0
    res.notes.append(timing_note(res.timing, used, search_seconds, earlier, contrasts=bool(res.contrasts.height)))
    if p.contrasts and not steps_measured(p):
        res.notes.append(f"No one-step table: a length's steps get max-T intervals, whose coverage is measured from "
                         f"{STEP_MIN_DEALS} held-out deals (search.heldout = {p.heldout:,}); hold out at least "
                         f"{STEP_MIN_DEALS} to see them.")
    return res


def timing_note(t: Timing, used: int, search_seconds: float, earlier: bool = False, contrasts: bool = True) -> str:
    """``earlier``: the search's games were played in an earlier session (``search_seconds`` is theirs);
    ``contrasts``: one-step contrasts were played (not with search.contrasts = false)."""
    cpu = "" if t.remote else f", {100 * t.cpu_share:.0f}% of the CPU time"
    took = f"in {search_seconds:,.0f} s" if search_seconds > 0 else ""
    if earlier:
        took = f"(played in an earlier session{', ' + took if took else ''})"
    return (f"search: {used:,} games {took}; this session played {t.games:,} games (held-out re-play"
            f"{' and contrasts' if contrasts else ''} included) in {t.wall:,.0f} s, the {t.workers} worker{'s' if t.workers != 1 else ''} playing {100 * t.busy:.0f}% of "
            f"that time{cpu}")


def _incumbent_params(study, p: Plan, baseline_v: np.ndarray) -> dict[str, Any]:
    """The best candidate that finished the top rung ahead of the baseline (ties: the earliest);
    ``{}`` is the baseline."""
    from optuna.trial import TrialState

    best = None
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if best is None or t.value > best.value:
            best = t
    if best is None or best.value <= p.score(float(baseline_v.mean())):
        return {}
    return dict(best.params)


def _incumbent(study, race: Race, p: Plan, baseline_v: np.ndarray) -> tuple[dict[str, Any], np.ndarray]:
    """The incumbent's parameters and its values on the top rung's deals."""
    vals = _incumbent_params(study, p, baseline_v)
    return vals, (race.values(vals, p.top) if vals else baseline_v)


def _finish(p: Plan, study, race: Race, keys: dict[str, int], baseline_v: np.ndarray, used: int,
            folder: Path | None, refuse_unfinished: bool = True) -> SearchResult:
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    if refuse_unfinished:
        _refuse_unfinished(p, race, trials, baseline_v, folder)
    complete = sorted((t for t in trials if t.state == TrialState.COMPLETE), key=lambda t: (-t.value, t.number))
    inc_vals, inc_v = _incumbent(study, race, p, baseline_v)
    written = {prm.name: space.current(p.base, prm) for prm in p.params}
    base_c = Candidate(written, "baseline", p.estimate(baseline_v), baseline=True)
    best_c = Candidate(inc_vals or dict(written), "best" if inc_vals else "baseline (nothing beat it)",
                       p.estimate(inc_v), baseline=not inc_vals)
    runner = None  # the best finisher that plays differently from the best (other games, not only other numbers)
    same = {_fingerprint(inc_v), _fingerprint(baseline_v)}
    for t in complete:
        if t.user_attrs.get("run", {}).get("play") not in same:
            runner = Candidate(dict(t.params), "runner-up", p.estimate(race.values(t.params, p.top)))
            break
    if runner is None:  # no other finisher: the pruned candidate that went furthest and plays differently
        first = {_fingerprint(inc_v[: p.rung]), _fingerprint(baseline_v[: p.rung])}
        pruned = sorted((t for t in trials if t.state == TrialState.PRUNED and t.intermediate_values
                         and t.user_attrs.get("run", {}).get("play") not in first | same),
                        key=lambda t: (-max(t.intermediate_values), -t.intermediate_values[max(t.intermediate_values)]))
        if pruned:
            runner = Candidate(dict(pruned[0].params), "runner-up (pruned)", None)
    gain: dict[str, Estimate] = {"in search": estimate(race.paired(inc_v, baseline_v))}
    # held-out: fresh deals for the best, the baseline and the runner-up
    lus = {"best": race.lineup(inc_vals), "baseline": race.lineup({})}
    if runner is not None:
        lus["runner-up"] = race.lineup(runner.values)
    hv = dict(zip(lus, race.ev.evaluate(list(lus.values()), keys["heldout"], 0, p.heldout), strict=True))
    best_c.heldout = p.estimate(hv["best"])
    base_c.heldout = p.estimate(hv["baseline"])
    # a share's gain is bounded: its interval never has zero width, whatever the deals (gain_estimate)
    gain["baseline"] = gain_estimate(race.paired(hv["best"], hv["baseline"]), p.gain_bounds())
    if runner is not None:
        runner.heldout = p.estimate(hv["runner-up"])
        runner.same_as_best = bool(np.array_equal(hv["best"], hv["runner-up"]))
        gain["runner-up"] = gain_estimate(race.paired(hv["best"], hv["runner-up"]), p.gain_bounds())
    heldout_games = games_of(list(lus.values()), p.heldout)
    contrasts = _contrasts(p, race, best_c.values if inc_vals else base_vals_full(p), hv["best"], keys["heldout"])
    rows = []
    played = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)]
    for i, t in enumerate(sorted(played, key=lambda t: t.number)):  # numbered without a killed run's failed trial
        iv = t.intermediate_values
        reached = max(iv) if iv else 0
        rows.append({"trial": i, "state": "finished" if t.state == TrialState.COMPLETE else "pruned",
                     "deals": reached, "objective": iv.get(reached, float("nan")),
                     **{prm.name: t.params.get(prm.name) for prm in p.params}})
    table = pl.DataFrame(rows) if rows else pl.DataFrame()
    return SearchResult(p, best_c, base_c, runner, gain, table, _importance(p, trials), contrasts, race.ev.timing,
                        used, heldout_games, folder)


def _refuse_unfinished(p: Plan, race: Race, trials: list, baseline_v: np.ndarray, folder: Path | None) -> None:
    """Refuse a search of a win measure in which no game finished: every game was cut at the game's cap, an
    unfinished game is lost by all, and every candidate scored as the baseline (a win rate of 0 everywhere;
    its "best" and held-out gain said nothing). Games of candidates raced in an earlier session are judged
    by their scores (each equal to the baseline's), this session's by the games themselves."""
    t = race.ev.timing
    base = p.score(float(baseline_v.mean()))
    scores = [v for tr in trials for v in tr.intermediate_values.values()]
    if p.objective == "length_in" and p.goal == "max":
        # no game in the band, the baseline's or any candidate's (a band past the game's cap, or below its
        # shortest game): every candidate scored 0, and the answer said "Nothing beat the baseline ... 0.0%"
        if baseline_v.size and not baseline_v.any() and all(v == base for v in scores) and t.games + t.loaded:
            from cardsim.studies.compare import LENGTH_UNITS

            unit = LENGTH_UNITS.get(p.base.game, "turns")
            kept = f" (the games played are kept in {folder})" if folder is not None else ""
            raise ScenarioError(f"no game of the search lasted {p.band[0]:g} to {p.band[1]:g} {unit} (search.band), "
                                f"the baseline's or any candidate's: every candidate scored 0, so there is nothing "
                                f"to choose; give a band the game's lengths reach and run it again{kept}")
        return
    if race.lineup({}).metric not in ("win", "first", "dealer"):
        return
    if t.finished or not t.games + t.loaded or any(v != base for v in scores):
        return
    kept = f" (the games played are kept in {folder})" if folder is not None else ""
    raise ScenarioError(f"no game of the search finished ({t.games + t.loaded:,} games this session, the "
                        f"baseline's and every candidate's): every game was cut at the game's cap, so no "
                        f"candidate won one and there is nothing to choose; raise the cap ([rules]) and run it "
                        f"again{kept}")


def _fingerprint(v: np.ndarray) -> str:
    """Identifies the games a candidate played: equal values on every deal, equal fingerprint."""
    return f"{v.size}:{zlib.crc32(np.ascontiguousarray(v, np.float64).tobytes()):08x}"


def base_vals_full(p: Plan) -> dict[str, Any]:
    return {k: v for k, v in p.baseline.items() if v is not None}


def _contrasts(p: Plan, race: Race, best: dict[str, Any], best_v: np.ndarray, key: int) -> pl.DataFrame:
    """One parameter moved one step from the best point, on the held-out deals, paired with the best, with
    95% intervals that hold for every step at once (:func:`step_intervals`)."""
    cols = {"param": pl.String, "value": pl.String, "gain": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
            "deals": pl.Int64, "same_games": pl.Boolean}
    if not p.contrasts or len(best) < len(p.params) or not steps_measured(p):
        return pl.DataFrame(schema=cols)
    pts: list[tuple[str, Any, dict[str, Any]]] = []
    for prm in p.params:
        for v in prm.neighbours(best[prm.name]):
            pts.append((prm.name, v, {**best, prm.name: v}))
    if not pts:
        return pl.DataFrame(schema=cols)
    vals = race.ev.evaluate([race.lineup(x) for _, _, x in pts], key, 0, p.heldout)
    # the answer names the steps whose interval is off 0, so the intervals hold for every step at once
    sim = step_intervals([race.paired(vv, best_v) for vv in vals], p.gain_bounds())
    rows = []
    for j, ((name, v, _), vv) in enumerate(zip(pts, vals, strict=True)):
        rows.append({"param": name, "value": space.value_text(v), "gain": float(sim["mean"][j]), "lo": float(sim["lo"][j]),
                     "hi": float(sim["hi"][j]), "deals": int(vv.size), "same_games": bool(np.array_equal(vv, best_v))})
    return pl.DataFrame(rows, schema=cols)


def step_intervals(gains: list[np.ndarray], bounds: tuple[float, float] | None) -> dict[str, np.ndarray]:
    """The one-step contrasts' means and 95% intervals that hold for every step at once, from each step's
    per-deal gains over the best (the same deals). A gain that is bounded (a win, a share: ``bounds``,
    :meth:`Plan.gain_bounds`) gets the bounded interval of :func:`gain_estimate` at Bonferroni's level
    0.05 / steps: a step changes the best's games on some deals only, so its gains are mostly 0 with a
    few bounded values, where max-T's mean +- c SE missed their skew and read a step that changed none of
    the sample's deals with zero width (all steps held at once in 21.8% of runs of 10 held-out deals,
    48.5-58.0% of 30, 86.4-93.6% of 100). An unbounded gain (a length): max-T
    (:func:`cardsim.stats.simultaneous_means`)."""
    if bounds is None:
        sim = simultaneous_means(np.column_stack(gains))
        return {k: sim[k] for k in ("mean", "lo", "hi")}
    ests = [gain_estimate(g, bounds, family=len(gains)) for g in gains]
    return {"mean": np.array([e.mean for e in ests]), "lo": np.array([e.lo for e in ests]),
            "hi": np.array([e.hi for e in ests])}


#: a length's one-step contrasts (max-T) are printed from this many held-out deals, where their coverage is
#: measured (94.0-94.8% at 250 and 2,000 deals; on a win's gains max-T held 86.4-93.6% at 100, 21.8% at 10)
STEP_MIN_DEALS = 250


def steps_measured(p: Plan) -> bool:
    """The one-step table's intervals have a measured coverage at this search's held-out deals: a win's or a
    share's at any number (bounded), a length's (max-T) from :data:`STEP_MIN_DEALS`."""
    return p.gain_bounds() is not None or p.heldout >= STEP_MIN_DEALS


def step_method(p: Plan) -> str:
    """How :func:`step_intervals` makes the steps' intervals hold at once, in words."""
    return "Bonferroni over the steps, each bounded" if p.gain_bounds() is not None else "max-T"


def _importance(p: Plan, trials) -> pl.DataFrame:
    """PED-ANOVA importance of each parameter over every trial's first-rung objective."""
    import optuna
    from optuna.trial import TrialState

    cols = {"param": pl.String, "importance": pl.Float64}
    first = [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED) and p.rung in t.intermediate_values]
    if len(first) < 10 or len(p.params) < 2:
        return pl.DataFrame(schema=cols)
    tmp = optuna.create_study(direction="maximize")
    tmp.add_trials([optuna.trial.create_trial(params=t.params, distributions=t.distributions,
                                              value=t.intermediate_values[p.rung]) for t in first])
    import warnings

    try:
        # trials that all score alike (a band no game reaches): Optuna warned on stderr "Target and region
        # quantiles select the same set of trials. Parameter importances will be equal." and the table
        # ranked parameters by equal figures; no ranking then
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            imp = optuna.importance.get_param_importances(
                tmp, evaluator=optuna.importance.PedAnovaImportanceEvaluator(), normalize=True)
    except (RuntimeError, ValueError):
        return pl.DataFrame(schema=cols)
    if any("importances will be equal" in str(w.message) for w in said):
        return pl.DataFrame(schema=cols)
    return pl.DataFrame([{"param": k, "importance": float(v)} for k, v in imp.items()], schema=cols)


# -- what it says ------------------------------------------------------------------------
UNITS = {"win": "win rate", "length": "game length", "length_in": "share of games in the length band",
         "first": "first-player advantage", "dealer": "dealer advantage"}
#: objectives that are shares (or differences of shares): shown as percentages and points
SHARE_OBJECTIVES = ("win", "length_in", "first", "dealer")


def _digits(p: Plan, lo: float | None, hi: float | None, ref: float | None = None) -> int:
    """Decimals of an interval (and its estimate) in the answer: one for a share or a difference of shares in
    points, two otherwise, more where those print the ends alike (a very large number of deals: the decimals
    the half-width justifies, :func:`cardsim.report.numbers.share_digits`) or, with ``ref`` (0 for a
    difference), round an end onto it: -0.21 to -0.04 points, not -0.2 to -0.0 (:func:`side_digits`)."""
    share = p.objective in SHARE_OBJECTIVES
    if lo is None or hi is None:
        return 1 if share else 2
    d = share_digits([lo], [hi]) if share else share_digits([lo / 100], [hi / 100], 2)
    return d if ref is None else side_digits(lo, hi, ref, d, scale=100.0 if share else 1.0)


def _val(p: Plan, x: float, lo: float | None = None, hi: float | None = None) -> str:
    """A value, to the decimals of its interval ``lo``-``hi`` when given (:func:`_digits`)."""
    d = _digits(p, lo, hi)
    if p.objective in SHARE_OBJECTIVES:
        return f"{100 * x:.{d}f}%"
    return f"{x:.{d}f}"


def _pts(p: Plan, x: float, digits: int | None = None, lo: float | None = None, hi: float | None = None) -> str:
    """A difference, to ``digits`` (shares) or the decimals of its interval ``lo``-``hi`` (:func:`_digits`)."""
    if p.objective in SHARE_OBJECTIVES:
        return f"{100 * x:+.{_digits(p, lo, hi, 0.0) if digits is None else digits}f} points"
    return f"{x:+.{_digits(p, lo, hi, 0.0)}f}"


def _ci(p: Plan, lo: float, hi: float, diff: bool = False, digits: int | None = None) -> str:
    """An interval as the answer gives it: ``29.0-30.3%`` for a share, ``+3.6 to +4.1 points`` for a
    difference of shares, ``12.30-12.95`` / ``+0.10 to +0.40`` otherwise; ``digits`` (of a share; one more
    otherwise), by default :func:`_digits` (more where the ends would print alike)."""
    share = p.objective in SHARE_OBJECTIVES
    sign = "+" if diff else ""
    d = _digits(p, lo, hi, 0.0 if diff else None) if digits is None else digits if share else digits + 1
    f = (lambda x: f"{100 * x:{sign}.{d}f}") if share else (lambda x: f"{x:{sign}.{d}f}")
    a, b = f(lo), f(hi)
    text = f"{a} to {b}" if diff or a.startswith("-") or b.startswith("-") else f"{a}-{b}"
    return text + ((" points" if diff else "%") if share else "")


def _val_ci(p: Plan, e: Estimate, label: str = "95% CI ") -> str:
    """An estimate with its interval, to the decimals the interval needs: ``30.1% (95% CI 29.0-31.2%)``."""
    return f"{_val(p, e.mean, e.lo, e.hi)} ({label}{_ci(p, e.lo, e.hi)})"


def short_names(p: Plan) -> dict[str, str]:
    """Parameter names without their ``seat0.`` / ``tuned.`` / ``rules.`` prefix where that leaves
    them distinct."""
    short = {prm.name: prm.name.split(".", 1)[-1] for prm in p.params}
    return short if len(set(short.values())) == len(short) else {k: k for k in short}


def describe(p: Plan, values: Mapping[str, Any]) -> str:
    names = short_names(p)
    return ", ".join(f"{names.get(k, k)} {space.value_text(v)}" for k, v in values.items() if v is not None)


def headline(res: SearchResult) -> str:
    p = res.plan
    g = res.gain["baseline"]
    b, base = res.best, res.baseline
    what = UNITS[p.objective]
    tried = res.trials.height
    if not tried:
        return (f"No candidate was tried: the budget of {p.budget:,} games ended with the baseline's race "
                f"({describe(p, base.values)}); on {p.heldout:,} held-out deals its {what} is "
                f"{_val_ci(p, base.heldout)}.{_better_neighbour(res, 'But moving')}")
    others = sum(1 for r in res.trials.iter_rows(named=True)
                 if any(r.get(prm.name) != base.values.get(prm.name) for prm in p.params))
    if not others and not res.best.label.startswith("best"):  # the first trial is the baseline's own values
        return (f"No candidate other than the baseline was tried: the budget of {p.budget:,} games allowed "
                f"{tried:,} trial{'s' if tried != 1 else ''}, and the first trial is the baseline's own values "
                f"({describe(p, base.values)}); raise the budget to try others. On {p.heldout:,} held-out deals "
                f"its {what} is {_val_ci(p, base.heldout)}.{_better_neighbour(res, 'But moving')}")
    distinct = res.trials.select([prm.name for prm in p.params]).unique().height
    again = f", {distinct:,} distinct" if distinct < tried else ""  # a small space: the sampler repeats itself
    if not res.best.label.startswith("best"):
        return (f"Nothing beat the baseline ({describe(p, base.values)}) within {res.games:,} games ({tried:,} "
                f"candidate{'s' if tried != 1 else ''} tried{again}); on "
                f"{p.heldout:,} held-out deals its {what} is {_val_ci(p, base.heldout)}.{_better_neighbour(res, 'But moving')}")
    sure = ("the 95% interval is above 0" if g.lo > 0 else "the 95% interval includes 0: not a sure gain"
            if g.hi > 0 else "it is worse on held-out deals")
    against = f" against {p.field.label()}" if p.objective == "win" else ""
    from cardsim.studies.meta import sides_of

    mates = [s for side in sides_of(p.base.setup) if p.focus in side for s in side if s not in p.tuned]
    if against and mates:  # a teammate left to the field plays with the tuned seats, not against them
        against = (f" with {p.field.label()} (the focus seat's teammate, seat {', '.join(map(str, mates))}, "
                   f"among them)")
    if p.goal in ("max", "min"):
        change = (f"{what} {_val_ci(p, b.heldout, '')} against {_val_ci(p, base.heldout, '')} for the baseline, "
                  f"95% CI each: {_pts(p, g.mean, lo=g.lo, hi=g.hi)} (95% CI {_ci(p, g.lo, g.hi, diff=True)}; {sure})")
    else:
        # the gain in distance to the target, with its interval (case "search held-out gain to a target"): the
        # values alone read as if "best" were closer to it, which the interval may not show
        change = (f"{what} {_val_ci(p, b.heldout)} against {_val_ci(p, base.heldout)} for the baseline, target "
                  f"{_val(p, float(p.goal))}: {_pts(p, g.mean, lo=g.lo, hi=g.hi).lstrip('+')} closer to it "
                  f"(95% CI {_ci(p, g.lo, g.hi, diff=True)}; {sure})")
    matter = _runner_up_sentence(res) + _steps_sentence(res)
    if res.contrasts.height:
        matter += _better_neighbour(res, "But moving" if matter else "Moving")
    tries = f" ({tried:,} candidates tried{again})" if again else ""
    return (f"Best found{against}: {describe(p, b.values)}{tries}. On {p.heldout:,} held-out deals never used by the "
            f"search, {change}.{matter}")


def _runner_up_sentence(res: SearchResult) -> str:
    """What the held-out re-play says of the runner-up, where it does not show the best ahead of it (its
    paired interval reaches 0 or lies below it); '' where the best is detectably ahead, or no runner-up
    finished. The answer named the best alone while the table beside it could show the runner-up as good,
    or better, on the same held-out deals."""
    g, r = res.gain.get("runner-up"), res.runner_up
    if g is None or r is None or not (math.isfinite(g.lo) and math.isfinite(g.hi)) or g.lo > 0:
        return ""
    p = res.plan
    ci = f"{_pts(p, g.mean, lo=g.lo, hi=g.hi)}, 95% CI {_ci(p, g.lo, g.hi, diff=True)}"
    if r.same_as_best:  # it played differently on the search deals only
        return (f" The runner-up ({describe(p, r.values)}) gives every held-out deal the best's result (best - "
                f"runner-up {ci}): what sets it apart from the best changes no game there.")
    if g.hi < 0:
        return (f" On the same held-out deals the runner-up ({describe(p, r.values)}) does better (best - runner-up "
                f"{ci}): the search's pick is not the best candidate it re-played.")
    return (f" The runner-up ({describe(p, r.values)}) is not detectably behind it on the same held-out deals (best "
            f"- runner-up {ci}).")


def _steps_sentence(res: SearchResult, most: int = 4) -> str:
    """What the one-step contrasts say, step by step (``round2_need 2 -> 1``), from their simultaneous
    intervals: the steps that cost (interval below 0, with the cost and its interval), the steps that are
    not detectably different from the best (interval across 0: the range of their intervals is given,
    never "changes little", which no interval across 0 shows without a stated margin) and the steps that
    change no game on the held-out deals; '' without contrasts. The steps that gain: :func:`_better_neighbour`."""
    p = res.plan
    t = res.contrasts
    if not t.height:
        return ""
    names = short_names(p)
    best = res.best.values

    def step(r: dict[str, Any]) -> str:
        return f"{names[r['param']]} {space.value_text(best.get(r['param']))} -> {r['value']}"

    def grouped(rows: list[dict[str, Any]]) -> str:  # call_top 8 -> 7 or 9, call_need 5 -> 4
        by: dict[str, list[str]] = {}
        for r in rows:
            by.setdefault(r["param"], []).append(r["value"])
        parts = [f"{names[k]} {space.value_text(best.get(k))} -> {' or '.join(v)}" for k, v in by.items()]
        if len(parts) <= most + 1:  # "and 1 other parameter" would hide the one it could name
            return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        more = len(parts) - most
        return ", ".join(parts[:most]) + f" and {more} other parameters"

    rows = list(t.iter_rows(named=True))
    costs = sorted((r for r in rows if r["hi"] < 0), key=lambda r: r["gain"])
    unclear = [r for r in rows if r["lo"] <= 0 <= r["hi"] and not r["same_games"]]
    same = [r for r in rows if r["same_games"]]
    steps = f"{t.height} step{'s' if t.height > 1 else ''}"
    out = ""
    if costs:
        items = []
        shown = costs if len(costs) <= most + 1 else costs[:most]  # every cost is named, the largest with its interval
        for r in shown:
            d = _digits(p, r["lo"], r["hi"], 0.0)
            items.append(f"{step(r)}, {_pts(p, -r['gain'], d).lstrip('+')} "
                         f"({_ci(p, r['lo'], r['hi'], diff=True, digits=d)})")
        rest = costs[len(shown):]
        if rest:
            lo, hi = min(r["lo"] for r in rest), max(r["hi"] for r in rest)
            items.append(f"{len(rest)} smaller costs, {grouped(rest)} (their intervals within "
                         f"{_ci(p, lo, hi, diff=True)})")
        listed = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
        out += f" One step from the best costs, with simultaneous 95% intervals over the {steps}: {listed}."
    if unclear:
        lo, hi = min(r["lo"] for r in unclear), max(r["hi"] for r in unclear)
        if len(unclear) == 1:
            out += (f" The step {grouped(unclear)} is not detectably different from the best (its simultaneous "
                    f"95% interval over the {steps}: {_ci(p, lo, hi, diff=True)}).")
        else:
            out += (f" The steps {grouped(unclear)} are not detectably different from the best (their simultaneous "
                    f"95% intervals over the {steps} lie within {_ci(p, lo, hi, diff=True)}).")
    if same:
        out += f" Moving {grouped(same)} changes no game on the held-out deals."
    return out


def _better_neighbour(res: SearchResult, lead: str) -> str:
    """A sentence when one step from the best gains on the held-out deals (its 95% interval above 0):
    the best found is then not a local optimum, which changes the answer; else ''."""
    p = res.plan
    if not res.contrasts.height:
        return ""
    better = res.contrasts.filter(pl.col("lo") > 0).sort("gain", descending=True)
    if not better.height:
        return ""
    r = better.row(0, named=True)
    d = 2 if r["hi"] < 0.01 else 1  # a gain under a point keeps its second decimal
    if p.objective in SHARE_OBJECTIVES:  # and more where those print the interval's ends alike
        d = side_digits(r["lo"], r["hi"], 0.0, max(d, share_digits([r["lo"]], [r["hi"]], d)))
    return (f" {lead} {short_names(p)[r['param']]} to {r['value']} gains {_pts(p, r['gain'], d)} more (95% CI "
            f"{_ci(p, r['lo'], r['hi'], diff=True, digits=d)}, simultaneous over the {many(res.contrasts.height, 'step')}) on the "
            f"held-out deals: the best found is not a local optimum, "
            f"and a longer search may gain more.")


def heldout_table(res: SearchResult) -> pl.DataFrame:
    rows = []
    p = res.plan
    for name, cand in (("best", res.best), ("baseline", res.baseline), ("runner-up", res.runner_up)):
        if cand is None:
            continue
        if name == "runner-up":  # "runner-up (pruned)": no finisher played differently; its in_search is blank
            name = cand.label
        rows.append({"candidate": name, "params": describe(p, cand.values),
                     "in_search": cand.insearch.mean if cand.insearch else None,
                     "heldout": cand.heldout.mean if cand.heldout else None,
                     "lo": cand.heldout.lo if cand.heldout else None, "hi": cand.heldout.hi if cand.heldout else None})
    return pl.DataFrame(rows)


def gains_table(res: SearchResult) -> pl.DataFrame:
    p = res.plan
    rows = []
    for vs, e in res.gain.items():
        held = vs != "in search"  # the in-search gain is chosen on its own deals: an estimate, no interval
        rows.append({"comparison": f"best - {vs}" if held else "best - baseline (search deals, optimistic)",
                     "deals": p.heldout if held else e.n, "gain": e.mean, "lo": e.lo if held else None,
                     "hi": e.hi if held else None, "held_out": held})
    return pl.DataFrame(rows, schema={"comparison": pl.String, "deals": pl.Int64, "gain": pl.Float64,
                                      "lo": pl.Float64, "hi": pl.Float64, "held_out": pl.Boolean})


def params_table(res: SearchResult) -> pl.DataFrame:
    p = res.plan
    return pl.DataFrame([{"param": prm.name, "keys": ", ".join(prm.keys),
                          "space": (", ".join(space.value_text(v) for v in prm.values) if prm.values else
                                    f"{space.value_text(prm.low)} to {space.value_text(prm.high)}"),
                          "baseline": space.value_text(res.baseline.values.get(prm.name)),
                          "best": space.value_text(res.best.values.get(prm.name))} for prm in p.params])


#: how a search's intervals handle multiplicity (under the answer and in the report)
INTERVALS = ("The best was chosen on the search deals and is measured on held-out deals it never saw: each held-out "
             "gain and objective is a 95% interval for its own comparison. A one-step table's intervals hold for "
             "all its steps at once ({method}), so the steps the answer names are not picked by chance.")

def intervals(res: SearchResult) -> str:
    """:data:`INTERVALS`, without its sentence on the one-step table where there is none (search.contrasts =
    false, or no step to take)."""
    if not res.contrasts.height:
        return INTERVALS.split(" A one-step table's")[0]
    return INTERVALS.format(method=step_method(res.plan))


ESTIMATES = ("Top trials: the objective on the search deals each trial reached, the race's own estimates, picked by "
             "these values, so the top ones read high; they are given no interval (the held-out tables are the "
             "measurements), nor is the Candidates table's in_search, the same figure of the candidates it picked. Parameter importance (PED-ANOVA) is a ranking aid with no interval; the one-step "
             "contrasts measure a parameter's effect on held-out deals.")


def output(res: SearchResult) -> Output:
    """What ``cardsim search`` prints; JSON adds ``best``, ``baseline``, ``heldout``."""
    p = res.plan
    g = res.gain["baseline"]
    fields: dict[str, Any] = {
        "best": p.entry(res.best),
        "baseline": p.entry(res.baseline),
        "best_params": dict(res.best.values),
        "objective": {"name": p.objective, "goal": p.goal, "field": p.field.label()},
        "heldout": {"diff": g.mean, "lo": g.lo, "hi": g.hi, "deals": p.heldout, "games": res.heldout_games,
                    "best": res.best.heldout.mean, "best_lo": res.best.heldout.lo, "best_hi": res.best.heldout.hi,
                    "baseline": res.baseline.heldout.mean, "baseline_lo": res.baseline.heldout.lo,
                    "baseline_hi": res.baseline.heldout.hi},
        # chosen on these very deals, so optimistic: no interval (the held-out gain is the measurement)
        "insearch": {"diff": res.gain["in search"].mean, "deals": res.gain["in search"].n, "interval": None,
                     "note": "the best's gain on the search deals that chose it: optimistic, so no interval; "
                             "read heldout"},
        "games": res.games, "trials": res.trials.height,
        "timing": {"wall_s": res.timing.wall, "play_s": res.timing.play, "workers": res.timing.workers,
                   "busy": res.timing.busy, "cpu_s": res.timing.cpu, "play_cpu_s": res.timing.play_cpu,
                   "cpu_share": res.timing.cpu_share},
    }
    if "runner-up" in res.gain:
        r = res.gain["runner-up"]
        fields["heldout_runner_up"] = {"diff": r.mean, "lo": r.lo, "hi": r.hi, "deals": p.heldout,
                                       "params": dict(res.runner_up.values),
                                       "same_games": res.runner_up.same_as_best}
    if res.folder is not None:
        fields["folder"] = str(res.folder)
    tables = [("Held-out gain (paired, 95% CI)", gains_table(res)),
              ("Candidates: objective on the search and held-out deals", heldout_table(res)),
              ("Parameters", params_table(res))]
    if res.contrasts.height:
        tables.append(("One step from the best (held-out, paired gain vs the best; 95% intervals that hold for "
                       + ("its one step)" if res.contrasts.height == 1 else
                          f"all {res.contrasts.height} steps at once, {step_method(p)})"), res.contrasts))
    if res.importance.height:
        tables.append(("Parameter importance (PED-ANOVA over the first rung)", res.importance))
    if res.trials.height:  # (none when the budget ended with the baseline's race)
        tables.append(("Top trials", res.trials.sort(["deals", "objective", "trial"],
                                                      descending=[True, True, False]).head(10)))
    shares = {}
    if p.objective in SHARE_OBJECTIVES:  # objective values and gains: percentages on the terminal
        shares = {title: ("gain", "lo", "hi", "in_search", "heldout", "objective") for title, _t in tables}
    return Output(headline(res), tables, notes=[*res.notes, intervals(res), ESTIMATES], fields=fields, shares=shares)
