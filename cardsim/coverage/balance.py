"""Coverage of the balance interval (cardsim.metrics.balance_interval: picks the best and worst seat from the data)."""

from __future__ import annotations

import numpy as np

from cardsim.coverage import Coverage, _kernels, case
from cardsim.metrics import BALANCE_MIN_GAMES, balance_interval, seat_test

#: normal draws for the max-T critical value (the reports use 200,000; fewer keep the suite quick)
DRAWS = 5_000


def _shared(rng: np.random.Generator, n: int, probs: list[float], share: float) -> np.ndarray:
    """Games x seats win shares: one winner drawn from ``probs``; with chance ``share`` the winner shares
    the win with the next seat (1/2 each)."""
    k = len(probs)
    win = rng.choice(k, size=n, p=probs)
    w = np.zeros((n, k))
    w[np.arange(n), win] = 1.0
    s = rng.random(n) < share
    w[s, win[s]] = 0.5
    w[s, (win[s] + 1) % k] += 0.5
    return w


@case("balance", replicates=1000)
def balance(replicates: int, seed: int) -> list[Coverage]:
    """Fair and unfair 4-seat games (the truth is 1 - (max - min) of the true seat rates), with shared wins,
    and two-team games (team mates' results identical)."""
    rng = np.random.default_rng(seed)
    out = []
    cases = [("fair 4 seats", [0.25] * 4, 0.0, 1.0), ("fair 4 seats, 20% shared wins", [0.25] * 4, 0.2, 1.0),
             ("unfair 4 seats (0.30/0.25/0.25/0.20)", [0.3, 0.25, 0.25, 0.2], 0.0, 0.9)]
    for label, probs, share, truth in cases:
        for n in (1000, 10000):
            hit = 0
            for _ in range(replicates):
                _, lo, hi, _ = balance_interval(_shared(rng, n, probs, share), draws=DRAWS)
                hit += lo <= truth <= hi
            out.append(Coverage("balance", f"simulated {label}, {n:,} games", 0.95, replicates, hit))
    hit = 0
    for _ in range(replicates):
        t0 = (rng.random(2000) < 0.5).astype(float)
        w = np.column_stack([t0, 1 - t0, t0, 1 - t0])
        _, lo, hi, _ = balance_interval(w, draws=DRAWS)
        hit += lo <= 1.0 <= hi
    out.append(Coverage("balance", "simulated fair two-team game, 2,000 games", 0.95, replicates, hit))
    # the fewest finished games the interval is given from (below, the balance row has none)
    for label, probs, share, truth in cases:
        hit = 0
        for _ in range(replicates):
            _, lo, hi, _ = balance_interval(_shared(rng, BALANCE_MIN_GAMES, probs, share), draws=DRAWS)
            hit += lo <= truth <= hi
        out.append(Coverage("balance", f"simulated {label}, {BALANCE_MIN_GAMES:,} games", 0.95, replicates, hit))
    return out


@case("equal seat win rates", replicates=4000)
def equal_seats(replicates: int, seed: int) -> list[Coverage]:
    """The balance table's p-value that every seat wins equally often (:func:`cardsim.metrics.seat_test`,
    given from 100 finished games) on fair seats: the share of runs with p >= 0.05 (nominal 95%). Four
    seats, with and without shared wins, three seats, and a two-team game (team mates' results
    identical), at 100 (the fewest it is given from) and 1,000 games; FUBNUB's in case "balance, FUBNUB"."""
    rng = np.random.default_rng(seed)
    out = []
    for label, probs, share in (("fair 4 seats", [0.25] * 4, 0.0), ("fair 4 seats, 20% shared wins", [0.25] * 4, 0.2),
                                ("fair 3 seats", [1 / 3] * 3, 0.0), ("fair two-team game", [0.5] * 2, 0.0)):
        for n in (BALANCE_MIN_GAMES, 1000):
            quiet = 0
            for _ in range(replicates):
                w = _shared(rng, n, probs, share)
                if label.startswith("fair two-team"):
                    w = np.column_stack([w[:, 0], w[:, 1], w[:, 0], w[:, 1]])
                quiet += not seat_test(w)[2] < 0.05
            out.append(Coverage("equal seat win rates: no false difference (p >= 0.05)", f"simulated {label}, "
                                f"{n:,} games", 0.95, replicates, quiet))
    return out


@case("first-player advantage", replicates=2000)
def first_player_advantage(replicates: int, seed: int, ns: tuple[int, ...] = (10, 30, 100, 1000)) -> list[Coverage]:
    """The balance table's first-player advantage (the first seat's win minus the mean seat's, a game:
    -1/4 or +3/4 with four seats and one winner; its row in :func:`cardsim.metrics.outcome_metrics`,
    whose interval :func:`cardsim.metrics.advantage_row` gives): a fair first seat, one that wins 45% of
    games, and one that wins 5% (mostly -1/4: the t interval it had covered 39% at 10 games); its ends cut
    to the range the games allow (-1/4 to 3/4). ``ns``: the games."""
    from cardsim.metrics import advantage_range, advantage_row

    rng = np.random.default_rng(seed)
    out = []
    for p0 in (0.25, 0.45, 0.05):
        probs = [p0] + [(1 - p0) / 3] * 3
        for n in ns:
            hit = 0
            for _ in range(replicates):
                w = _shared(rng, n, probs, 0.0)
                row = advantage_row("first-player advantage", w[:, 0] - w.mean(axis=1), "",
                                    advantage_range(w.sum(axis=1), np.full(n, w.shape[1], np.float64)))
                hit += row["lo"] <= p0 - 0.25 <= row["hi"]
            out.append(Coverage("balance metric: first-player advantage (bounded mean)",
                                f"first seat wins {p0:.0%} of 4-seat games, {n:,} games", 0.95, replicates, hit))
    return out


@case("first-player advantage, a few games", replicates=2000)
def first_player_advantage_few(replicates: int, seed: int) -> list[Coverage]:
    """The first-player advantage of :func:`first_player_advantage` at 3 and 5 games: ``cardsim run
    --balance`` prints it at any number of games (that case's rows start at 10)."""
    return first_player_advantage(replicates, seed, (3, 5))


@case("balance, FUBNUB", replicates=500)
def balance_fubnub(replicates: int, seed: int) -> list[Coverage]:
    """FUBNUB with four partner players: every seat wins half its games (balance 1) by team symmetry; the
    balance interval and the equal-seats test on the same games."""
    hit = quiet = 0
    for r in range(replicates):
        tables = _kernels.play("fubnub", seed * 100_003 + r, 1000, "partner")
        oc = _kernels.outcomes("fubnub", tables, "partner").drop_nulls("win")
        w = oc.pivot(on="seat", index="game", values="win").sort("game").drop("game").to_numpy().astype(float)
        _, lo, hi, _ = balance_interval(w, draws=DRAWS)
        hit += lo <= 1.0 <= hi
        quiet += not seat_test(w)[2] < 0.05
    return [Coverage("balance", "FUBNUB partner x4 (truth 1 by team symmetry), 1,000 games", 0.95, replicates, hit),
            Coverage("equal seat win rates: no false difference (p >= 0.05)",
                     "FUBNUB partner x4 (every seat wins half its games), 1,000 games", 0.95, replicates, quiet)]
