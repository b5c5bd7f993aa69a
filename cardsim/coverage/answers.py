"""Coverage of the answers' claims about several rows at once: the seats' win rates with Wilson
intervals at the Bonferroni level (FOURBID's and Turtle's answers: which seats differ from the fair
share), the sole-win differences of FUBNUB's Battle Royal, and Full Deck's action cards against the
other cards' reveals. Each interval family must hold at once (every row's truth inside its interval)
in at least 95% of runs."""

from __future__ import annotations

import numpy as np
import polars as pl

from cardsim.coverage import Coverage, case
from cardsim.stats import bonferroni_z, rate_difference, rate_table, wilson, wilson_at


@case("answer: seats and cards at once", replicates=1000)
def answer_families(replicates: int, seed: int) -> list[Coverage]:
    """Fair and unfair seats (one winner a game), a Battle Royal table with ties, and action cards that
    do nothing (their revealer wins a hand's point card with chance 1/4 whatever the card)."""
    from cardsim.games.fubnub.game import action_card_differences, sole_win_differences
    from cardsim.games.turtle.cards import ACTION_NAMES

    rng = np.random.default_rng(seed)
    out = []
    for p, games in (((0.25,) * 4, 2000), ((0.31, 0.23, 0.23, 0.23), 2000), ((0.25,) * 4, 20000)):
        out.append(_seats(rng, p, games, replicates))
    share = [0.3, 0.2, 0.2, 0.2, 0.1]  # four seats' sole wins and a tie
    for games in (300, 3000):
        hit = 0
        truth = np.array(share[:4]) - sum(share[:4]) / 4
        for _ in range(replicates):
            w = rng.choice(5, games, p=share)
            d = sole_win_differences([int((w == s).sum()) for s in range(4)], games)
            hit += all(lo <= x <= hi for (_, lo, hi), x in zip(d, truth, strict=True))
        out.append(Coverage("answer: sole wins minus the seats' mean (t, Bonferroni over 4)",
                            f"sole wins 0.3/0.2/0.2/0.2, ties 0.1, {games:,} games", 0.95, replicates, hit))
    cards = [c for c in ACTION_NAMES if c != "Turtle"]
    games, hit = 3000, 0
    reps = max(1, replicates // 4)  # each replicate compares 30 cards
    for _ in range(reps):
        g = np.repeat(np.arange(games), 2)
        hands = pl.DataFrame({"game": g, "action_card": rng.choice(cards, g.size),
                              "revealer": rng.integers(0, 4, g.size).astype(np.int8),
                              "winner": rng.integers(0, 4, g.size).astype(np.int8)})
        d = action_card_differences({"hands": hands.lazy()})
        hit += bool(((d["lo"] <= 0) & (d["hi"] >= 0)).all())
    out.append(Coverage(f"answer: action cards minus the other cards (clustered, Bonferroni over {len(cards)})",
                        f"no card does anything, {games:,} games of 2 reveals", 0.95, reps, hit))
    out += _gubs_lifts(rng, reps)
    return out


def _gubs_lifts(rng: np.random.Generator, reps: int, k: int = 20) -> list[Coverage]:
    """Gubs' answer names the cards whose drawers win most and least more often than the rest: the
    lift (drew vs not, clustered by game, Wilson by MOVER) of each of ``k`` cards at level 0.05 / k.
    Here no card does anything (truth 0 for each), four seats, one winner a game, and card j is drawn
    by a seat with chance from 5% to 60%, so the family mixes rare and common cards."""
    q = np.linspace(0.05, 0.6, k)
    out = []
    for games in (500, 3000):
        hit = 0
        for _ in range(reps):
            won = rng.integers(0, 4, games)
            ok = True
            for j in range(k):
                flags = rng.random((games, 4)) < q[j]
                e = rate_difference(flags[np.arange(games), won].astype(np.float64), flags.sum(axis=1).astype(np.float64),
                                    np.ones(games), np.full(games, 4.0), alpha=0.05 / k, mover=True)
                ok = ok and e.lo <= 0 <= e.hi
            hit += ok
        out.append(Coverage(f"answer: Gubs' card lifts, drew vs not (clustered, Bonferroni over {k})",
                            f"no card does anything, drawn by 5-60% of seats, {games:,} games", 0.95, reps, hit))
    return out


@case("answer: seats' win rates, a few games", replicates=4000)
def seats_few(replicates: int, seed: int) -> list[Coverage]:
    """:func:`answer_families`' seats' win rates (Wilson at level 0.05 / 4, every seat's truth inside at
    once) at 10, 30 and 100 games: the answers read them at any number of games (those rows start at
    2,000)."""
    rng = np.random.default_rng(seed)
    return [_seats(rng, p, games, replicates) for p in ((0.25,) * 4, (0.31, 0.23, 0.23, 0.23)) for games in (10, 30, 100)]


def _seats(rng: np.random.Generator, p: tuple[float, ...], games: int, replicates: int) -> Coverage:
    """Four seats' win rates (one winner a game, chances ``p``) over ``games`` games, Wilson at level 0.05 / 4
    as the answers read them: the share of replicates with every seat's truth inside at once."""
    hit = 0
    for _ in range(replicates):
        w = rng.choice(4, games, p=p)
        t = rate_table(pl.DataFrame({"seat": np.repeat(np.arange(4), games), "win": np.tile(w, 4) == np.repeat(
            np.arange(4), games)}), ["seat"], "win", cluster=None)
        t = wilson_at(t, bonferroni_z(4))
        hit += all(lo <= q <= hi for lo, hi, q in zip(t["sim_lo"], t["sim_hi"], p, strict=True))
    return Coverage("answer: seats' win rates (Wilson, Bonferroni over 4)",
                    f"win chances {'/'.join(f'{q:g}' for q in p)}, {games:,} games", 0.95, replicates, hit)


@case("answer: FUBNUB's point cards", replicates=1000)
def point_cards(replicates: int, seed: int) -> list[Coverage]:
    """FUBNUB's answer quotes the lowest and highest of the 13 point cards' calling-team win rates with
    Wilson intervals at level 0.05 / 13 at the effective size of the summary's rate clustered by game
    (:meth:`FubnubGame.headline`: ``rate_query`` by point card, then ``wilson_at``); every card's truth
    inside at once. Each game plays 8 + Poisson(5) hands, each with a point card drawn at random; the
    calling team wins with the card's chance (0.54 to 0.66) plus the game's effect, U(-0.1, 0.1) (truth:
    the card's chance)."""
    rng = np.random.default_rng(seed)
    chance = np.linspace(0.54, 0.66, 13)
    out = []
    for games in (30, 300, 3000):
        hit = 0
        for _ in range(replicates):
            g = np.repeat(np.arange(games), 8 + rng.poisson(5, games))
            card = rng.integers(0, 13, g.size)
            win = rng.random(g.size) < chance[card] + rng.uniform(-0.1, 0.1, games)[g]
            t = rate_table(pl.DataFrame({"game": g, "point_card": card, "win": win}), ["point_card"], "win")
            t = wilson_at(t, bonferroni_z(t.height))
            hit += all(lo <= chance[c] <= hi for c, lo, hi in zip(t["point_card"], t["sim_lo"], t["sim_hi"],
                                                                  strict=True)) and t.height == 13
        out.append(Coverage("answer: FUBNUB's point cards (clustered Wilson, Bonferroni over 13)",
                            f"calling team's chances 0.54-0.66 by card, game effect U(-0.1, 0.1), 8 + Poisson(5) "
                            f"hands a game, {games:,} games", 0.95, replicates, hit))
    return out


@case("answer: a sweep's seat at every point", replicates=1000)
def sweep_fair_share(replicates: int, seed: int) -> list[Coverage]:
    """A sweep over player counts (2 to 6, each point its own games): the metric seat's win rate at every
    point with its Wilson interval at the Bonferroni level over the 5 points
    (:func:`cardsim.studies.sweep.fair_share_intervals`); every point's truth inside at once."""
    rng = np.random.default_rng(seed)
    out = []
    for truth, label in (([1 / k for k in range(2, 7)], "fair shares 1/2-1/6"),
                         ([0.52, 0.32, 0.26, 0.19, 0.17], "0.52/0.32/0.26/0.19/0.17")):
        for games in (400, 20000):
            z, hit = bonferroni_z(len(truth)), 0
            for _ in range(replicates):
                wins = rng.binomial(games, truth)
                hit += all(lo <= q <= hi for q, (lo, hi) in zip(truth, (wilson(w, games, z) for w in wins),
                                                                  strict=True))
            out.append(Coverage("answer: a sweep's seat 0 at every point (Wilson, Bonferroni over 5)",
                                f"win chances {label}, {games:,} games a point", 0.95, replicates, hit))
    return out


@case("answer: Lucky Ghost's two gains", replicates=1000)
def ghost_gains(replicates: int, seed: int) -> list[Coverage]:
    """Lucky Ghost with two players (seats 0 and 1, their ghost partners 2 and 3): the answer reads each
    player's gain over its ghost, tricks a played hand (seat - partner), clustered by game, at level
    0.05 / 2 (:func:`cardsim.games.fubnub.game.headline_ghost`: the mean and clustered SE of the summary's
    gain rows, :func:`cardsim.games.fubnub.game.summarize_ghost`'s query, with Student's t at the Bonferroni
    level); both truths inside at once. Each game draws its seats' chances
    of a trick from a Dirichlet around (0.3, 0.28, 0.2, 0.22) (a game effect), plays 4 + Poisson(6)
    hands of 5 tricks; truth 5 x (0.3 - 0.2) = 0.5 and 5 x (0.28 - 0.22) = 0.3 tricks a hand."""
    from cardsim.stats import CLUSTERS, collect_all, mean_query

    base = np.array([0.3, 0.28, 0.2, 0.22])
    truth = {0: 5 * (base[0] - base[2]), 1: 5 * (base[1] - base[3])}
    rng = np.random.default_rng(seed)
    out = []
    for conc in (20.0, 200.0):
        for games in (30, 300, 3000):
            hit = 0
            for _ in range(replicates):
                hands = 4 + rng.poisson(6, games)
                g = np.repeat(np.arange(games), hands)
                p = rng.dirichlet(conc * base, games)[g]
                # 5 tricks a hand, each to a seat with the game's chances
                t = (rng.random((g.size, 5, 1)) > np.cumsum(p, axis=1)[:, None, :]).sum(axis=2)
                tricks = np.stack([(t == s).sum(axis=1) for s in range(4)], axis=1).astype(np.int8)
                frame = pl.DataFrame({"game": g, **{f"tricks_s{s}": tricks[:, s] for s in range(4)}})
                # the summary's gain rows (summarize_ghost's query), then the answer's level over the two
                rows = [r | {"seat": s} for s, q in enumerate(collect_all([
                    mean_query(frame, pl.col(f"tricks_s{s}").cast(pl.Int32) - pl.col(f"tricks_s{s + 2}"),
                               prefix="gain_") for s in (0, 1)])) for r in q.iter_rows(named=True)]
                z = bonferroni_z(len(rows), df=max(1, min(games, CLUSTERS) - 1))
                hit += all(r["gain_mean"] - z * r["gain_se"] <= truth[r["seat"]] <= r["gain_mean"] + z * r["gain_se"]
                           for r in rows)
            out.append(Coverage("answer: Lucky Ghost's two gains over their ghosts (clustered t, Bonferroni over 2)",
                                f"tricks a hand, game effect Dirichlet({conc:g} x chances), 4 + Poisson(6) hands a "
                                f"game, {games:,} games", 0.95, replicates, hit))
    return out


@case("answer: Turtle's card lifts", replicates=4000)
def turtle_lifts(replicates: int, seed: int) -> list[Coverage]:
    """Turtle's report reads its action cards as a ranking (its figure "Which action cards help the player
    who reveals them"): each card's lift, the revealing seat's win rate minus the win rate behind a number
    card, clustered by game, Wilson by MOVER at level 0.05 / k over the k cards it draws
    (:func:`cardsim.games.turtle.game.card_lifts` with ``mover``, as :meth:`TurtleGame.figures`). Here no
    card does anything (truth 0 for each): four seats, a winner drawn at random, each seat reveals
    Poisson(6) number cards a game and each of the 29 action cards (not the turtle or the gecko) Poisson
    of 0.02 to 0.8; every card's interval must hold 0 at once."""
    from cardsim.games.turtle.cards import ACTION_NAMES
    from cardsim.games.turtle.game import CARD_ENUM, card_lifts

    cards = [c for c in ACTION_NAMES if c not in ("Turtle", "Eliminated")]
    lam = np.linspace(0.02, 0.8, len(cards))
    rng = np.random.default_rng(seed)
    reps = max(1, replicates // 4)  # each replicate compares 29 cards
    out = []
    for games in (200, 2000):
        hit = 0
        for _ in range(reps):
            winner = rng.integers(0, 4, games)
            act = rng.poisson(lam, (games, 4, len(cards)))  # reveals of each card by each seat
            g, s, c = np.nonzero(act)
            times = act[g, s, c]
            g, s, c = np.repeat(g, times), np.repeat(s, times), np.repeat(c, times)
            reveals = pl.DataFrame({"card": pl.Series([cards[i] for i in c], dtype=CARD_ENUM), "game": g,
                                    "won": s == winner[g]})
            every = rng.poisson(6, (games, 4)) + act.sum(axis=2)
            finished = pl.DataFrame({"game": np.arange(games), "winner": winner,
                                     **{f"reveals_s{k}": every[:, k] for k in range(4)}})
            k = reveals["card"].n_unique()
            _, t = card_lifts(finished, reveals, 4, alpha=0.05 / k, mover=True)
            hit += bool(((t["lift_lo"] <= 0) & (t["lift_hi"] >= 0)).all())
        out.append(Coverage(f"answer: Turtle's card lifts, revealer vs number cards (clustered, Bonferroni over "
                            f"{len(cards)})", f"no card does anything, each revealed Poisson(0.02-0.8) times a seat, "
                            f"{games:,} games", 0.95, reps, hit))
    return out
