"""The one-line answers of `cardsim run` / `cardsim report` on constructed tables (no simulation).

A claim about which of several rows differ (seats, cards) must hold for all the rows at once
(Bonferroni over them), and a number picked as the largest of k carries its simultaneous interval.
Each fair table here is one on which the pointwise rule the answers used before made a claim."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from cardsim.report import numbers as N
from cardsim.scenario import from_dict
from cardsim.stats import bonferroni_z, mean_table, rate_table, wilson, wilson_at


def _setup(game: str, **scenario):
    policy = {"fourbid": "collector", "turtle": "eager", "fubnub": "random", "gubs": "random"}[game]
    return from_dict({"scenario": {"name": "x", "game": game, "games": 1, **scenario},
                      "seats": {"policy": policy}}).setup


def _winners(counts: list[int], seed: int = 0) -> np.ndarray:
    """A winner a game, seat s winning exactly ``counts[s]`` games, in a shuffled order."""
    w = np.repeat(np.arange(len(counts)), counts).astype(np.int8)
    return np.random.default_rng(seed).permutation(w)


# -- the helpers ---------------------------------------------------------------------------------------
def test_bonferroni_z_and_wilson_at_keep_the_effective_size():
    assert bonferroni_z(1) == pytest.approx(1.959964, abs=1e-5)
    assert bonferroni_z(4) == pytest.approx(2.497705, abs=1e-5)  # the normal's 1 - 0.05 / 8 quantile
    t = pl.DataFrame({"n": [1000, 400], "rate": [0.3, 0.5], "deff": [2.0, 0.8]})
    out = wilson_at(t, bonferroni_z(2))
    # deff 2: Wilson at 500 trials; deff below 1 never narrows it (400 trials)
    assert (out["sim_lo"][0], out["sim_hi"][0]) == pytest.approx(wilson(150, 500, bonferroni_z(2)))
    assert (out["sim_lo"][1], out["sim_hi"][1]) == pytest.approx(wilson(200, 400, bonferroni_z(2)))
    # at z = 1.96 it is the table's own interval
    frame = pl.DataFrame({"game": np.repeat(np.arange(300), 3), "x": np.arange(900) % 7 < 3})
    own = rate_table(frame.with_columns(g=pl.lit(0)), ["g"], "x")
    again = wilson_at(own, bonferroni_z(1))
    assert again["sim_lo"][0] == pytest.approx(own["lo"][0]) and again["sim_hi"][0] == pytest.approx(own["hi"][0])


# -- B1: seats against the fair share ------------------------------------------------------------------
def _fourbid_tables(counts: list[int]) -> dict[str, pl.LazyFrame]:
    n = sum(counts)
    g = np.repeat(np.arange(n), 2)
    rng = np.random.default_rng(5)
    hands = pl.DataFrame({"game": g, "out": rng.integers(0, 4, g.size).astype(np.int8),
                          **{f"net_s{s}": rng.normal(s, 4, g.size) for s in range(4)}})
    return {"hands": hands.lazy(), "games": pl.DataFrame({"game": np.arange(n), "winner": _winners(counts)}).lazy()}


def test_fourbid_headline_claims_a_seat_only_with_simultaneous_intervals():
    from cardsim.games.fourbid import game as G

    s = _setup("fourbid", variant="game")
    # seat 0: 25.65% of 20,000 games; its pointwise Wilson interval (25.05-26.26%) leaves 25% out and the
    # headline said "seat 0 differs detectably"; the interval over the four seats at once (24.9-26.4%) does not
    fair = [5130, 4960, 4950, 4960]
    assert wilson(5130, 20_000)[0] > 0.25  # the old, pointwise rule would have claimed it
    words = G.headline(_fourbid_tables(fair), s)
    assert "no seat differs detectably from the fair share of 25%" in words
    assert "95% intervals simultaneous over the 4 seats" in words
    slo, shi = wilson(5130, 20_000, bonferroni_z(4))
    assert f"seat 0 (collector) {N.pct(5130 / 20_000)} ({100 * slo:.1f}-{100 * shi:.1f}%)" in words
    unfair = [5600, 4900, 4900, 4600]  # 28% and 23%: off 25% at once; 24.5% is not
    assert "seats 0 and 3 differ detectably from the fair share of 25%" in G.headline(_fourbid_tables(unfair), s)


def test_fourbid_headline_gives_net_points_their_intervals():
    from cardsim.games.fourbid import game as G

    s = _setup("fourbid", variant="game")
    tables = _fourbid_tables([500, 500, 500, 500])
    words = G.headline(tables, s)
    hands = tables["hands"].collect()
    long = pl.concat([hands.select("game", pl.lit(k).alias("seat"), pl.col(f"net_s{k}").alias("net")) for k in range(4)])
    net = mean_table(long, "net", ["seat"]).sort("seat")
    assert "Net points per played hand (95% CI each, clustered by game)" in words
    for r in net.iter_rows(named=True):
        assert f"seat {r['seat']} (collector) {G._net(r)}" in words
        assert "(" in G._net(r) and "n/a" not in G._net(r)
    assert "no hand was cut at the turn cap" in words
    # cut hands: their share with its interval, clustered by game (hands of a game share its table)
    cut = {"hands": tables["hands"].with_columns(out=pl.when(pl.col("game") % 10 == 0).then(-1).otherwise(pl.col("out"))
                                                 .cast(pl.Int8)), "games": tables["games"]}
    r = rate_table(cut["hands"].with_columns(x=pl.lit(0), c=pl.col("out") < 0), ["x"], "c").row(0, named=True)
    assert r["k"] == 400 and r["lo"] < 0.1 < r["hi"]
    assert (f"400 of 4,000 hands were cut at the turn cap (B14), 10.0% (95% CI clustered by game "
            f"{100 * r['lo']:.1f}-{100 * r['hi']:.1f}%)") in G.headline(cut, s)


def _turtle_tables(counts: list[int]) -> dict[str, pl.LazyFrame]:
    n, p = sum(counts), len(counts)
    games = pl.DataFrame({"game": np.arange(n), "winner": _winners(counts), "turns": np.full(n, 10, np.int16),
                          **{c: np.zeros(n, np.int16) for c in ("eliminated", "restarts", "redeals", "shuffles")},
                          "ended_by": ["turtle"] * n, **{f"reveals_s{k}": np.zeros(n, np.int16) for k in range(p)}})
    return {"games": games.lazy()}


def test_turtle_headline_claims_a_seat_only_with_simultaneous_intervals():
    from cardsim.games.turtle.game import GAME

    s = _setup("turtle", players=4)
    fair = [5130, 4960, 4950, 4960]  # the best seat's pointwise interval leaves 25% out: "0.6 points above"
    words = GAME.headline(_turtle_tables(fair), s)
    # no seat is named first where none differs detectably: the highest rate is the sample's
    assert words.startswith("No seat differs detectably from the fair share of 25.0% over 20,000 finished games (seat "
                            "0 25.7% (24.9-26.4%)"), words
    assert "most often" not in words
    assert "above the fair share" not in words and "95% intervals simultaneous over the 4 seats" in words
    unfair = GAME.headline(_turtle_tables([5600, 4900, 4900, 4600]), s)  # a seat below is a finding too
    assert ("seats 0 (+3.0 percentage points) and 3 (-2.0 percentage points) differ detectably from the fair "
            "share of 25.0%") in unfair and unfair.startswith("Seat 0 (eager) wins most often")


def test_royal_sole_win_differences_allow_for_the_estimated_fair_share():
    from cardsim.games.fubnub.game import sole_win_differences

    n, wins = 20_000, [4620, 4500, 4460, 4420]  # 2,000 ties: the fair share is 22.5%
    fair = sum(wins) / n / 4
    assert wilson(wins[0], n)[0] > fair  # the old rule: seat 0's pointwise interval against the fair share, taken as known
    d = sole_win_differences(wins, n)
    assert d[0][0] == pytest.approx(wins[0] / n - fair)
    assert all(lo <= 0 <= hi for _, lo, hi in d)
    # the same intervals from the games themselves: each game's x_s - mean_t x_t, its mean +- z se
    x = np.zeros((n, 4))
    x[np.arange(sum(wins)), np.repeat(np.arange(4), wins)] = 1
    dev = x - x.mean(axis=1, keepdims=True)
    se = dev.std(axis=0, ddof=1) / math.sqrt(n)
    z = bonferroni_z(4, n - 1)
    for k in range(4):
        assert d[k][1] == pytest.approx(dev[:, k].mean() - z * se[k], abs=1e-12)
        assert d[k][2] == pytest.approx(dev[:, k].mean() + z * se[k], abs=1e-12)
    unfair = sole_win_differences([5400, 4200, 4200, 4200], n)
    assert unfair[0][1] > 0 and all(hi < 0 for _, _, hi in unfair[1:])  # 27% and 21% against 22.5%


def test_royal_headline_on_a_fair_table_names_no_seat():
    from cardsim.games.fubnub.game import GAME

    s = _setup("fubnub", variant="battle_royal", players=4)
    n = 20_000
    winner = np.concatenate([_winners([4620, 4500, 4460, 4420]), np.full(2000, -1, np.int8)])
    pts = np.zeros((n, 4), np.int16)
    pts[winner >= 0, winner[winner >= 0]] = 5
    pts[winner < 0, :2] = 5
    games = pl.DataFrame({"game": np.arange(n), "winner": winner, "tie": winner < 0, "unfinished": np.zeros(n, bool),
                          "hands": np.full(n, 3, np.int16), "limbo_left": np.zeros(n, np.int16),
                          "discarded": np.zeros(n, np.int16), **{f"points_s{k}": pts[:, k] for k in range(4)}})
    hands = pl.DataFrame({"game": np.arange(n), "action_card": pl.Series([None] * n, dtype=pl.String),
                          "tie": np.zeros(n, bool), "winner": np.zeros(n, np.int8), "limbo": np.zeros(n, np.int8)})
    words = GAME.headline({"games": games.lazy(), "hands": hands.lazy()}, s)
    assert "no seat differs detectably from the fair share of sole wins, 22.5%" in words
    assert "95% intervals simultaneous over the 4 seats" in words


# -- B2: Full Deck's action cards -----------------------------------------------------------------------
def _reveals(rates: dict[str, float], per: int = 1000, seed: int = 0) -> dict[str, pl.LazyFrame]:
    """``per`` reveals of each card, exactly ``rates[card] * per`` of them won by the revealer, two
    reveals a game."""
    rng = np.random.default_rng(seed)
    cards_, won = [], []
    for c, r in rates.items():
        cards_ += [c] * per
        won += list(rng.permutation(np.arange(per) < round(r * per)))
    order = rng.permutation(len(cards_))
    cards_, won = np.array(cards_)[order], np.array(won)[order]
    g = np.arange(cards_.size) // 2
    rev = rng.integers(0, 4, cards_.size).astype(np.int8)
    winner = np.where(won, rev, (rev + 1) % 4).astype(np.int8)
    return {"hands": pl.DataFrame({"game": g, "action_card": cards_, "revealer": rev, "winner": winner}).lazy()}


def test_action_card_answer_names_a_card_only_off_zero_against_the_other_cards():
    from cardsim.games.fubnub.game import action_card_answer, action_card_differences
    from cardsim.games.turtle.cards import ACTION_NAMES

    names = [c for c in ACTION_NAMES if c != "Turtle"][:30]
    rates = dict.fromkeys(names, 0.25) | {names[0]: 0.285}
    tables = _reveals(rates)
    # the old rule: the card's pointwise Wilson interval (25.8-31.4%) leaves the pooled 25.1% out
    pooled = (285 + 250 * 29) / 30_000
    assert wilson(285, 1000)[0] > pooled
    words = action_card_answer(tables)
    assert "helps most" not in words and "hurts most" not in words
    # the rate leaves the Turtle's reveals out, and says so (the summary's table has them)
    assert words.startswith(" After any action card other than the Turtle (which ends the game unplayed) its "
                            "revealer wins the hand's point card")
    with_turtle = action_card_answer({"hands": pl.concat([tables["hands"], _reveals({"Turtle": 0.0}, 500)["hands"]])})
    assert with_turtle == words  # the Turtle's reveals change nothing it says
    assert (f"no card is detectably different from the other cards' reveals (the largest observed difference, "
            f"{names[0]}: +3.5 percentage points (simultaneous 95% CI over the 30 cards") in words
    d = action_card_differences(tables)
    assert d.height == 30 and d["diff"][0] == pytest.approx(0.285 - 0.25)
    assert d["rest_rate"][0] == pytest.approx(0.25)
    clear = action_card_answer(_reveals(rates | {names[0]: 0.40, names[1]: 0.12}))
    assert f"{names[0]} helps most, +15.4 percentage points" in clear  # 40% against 7,120 of 29,000
    assert f"{names[1]} hurts most, -13.5 percentage points" in clear


def test_full_deck_figure_shows_the_answers_simultaneous_differences():
    """The report's figure and table read the answer's comparison (each card against the other cards'
    reveals, Bonferroni over the cards), not pointwise intervals against the pooled rate."""
    from cardsim.games.fubnub.game import action_card_differences, figures_full_deck
    from cardsim.games.turtle.cards import ACTION_NAMES

    names = [c for c in ACTION_NAMES if c != "Turtle"][:30]
    tables = _reveals(dict.fromkeys(names, 0.25) | {names[0]: 0.285})
    [(title, [(caption, fig)], [(what, diffs), _])] = figures_full_deck(tables)
    assert title == "Action cards" and "all 30 cards at once" in caption and "simultaneous" in what
    want = action_card_differences(tables).rename({"diff": "lift", "lo": "lo_simultaneous", "hi": "hi_simultaneous"})
    assert diffs.equals(want)
    ax = fig.axes[0]
    assert "simultaneous 95% intervals over the 30 cards" in ax.get_xlabel()
    # no card is off 0 here: every interval plotted crosses the zero line
    assert (diffs["lo_simultaneous"] < 0).all() and (diffs["hi_simultaneous"] > 0).all()


# -- B6: the extremes of a table carry their simultaneous intervals -------------------------------------
def test_fubnub_headline_point_card_extremes_have_simultaneous_intervals():
    from cardsim.games.fubnub import cards
    from cardsim.games.fubnub.game import GAME

    s = _setup("fubnub")
    kinds = list(cards.KIND_NAMES)
    rng = np.random.default_rng(2)
    n_games, per = 2000, 5
    g = np.repeat(np.arange(n_games), per)
    point = rng.choice(kinds, g.size)
    caller = rng.integers(0, 4, g.size).astype(np.int8)
    won = rng.random(g.size) < np.where(point == kinds[0], 0.7, 0.6)
    winner = np.where(won, caller % 2, 1 - caller % 2).astype(np.int8)
    hands = pl.DataFrame({"game": g, "caller": caller, "winner": winner,
                          "point_card": pl.Series(point, dtype=pl.Enum(kinds))})
    games = pl.DataFrame({"game": np.arange(n_games), "winner": (np.arange(n_games) % 2).astype(np.int8),
                          "first_dealer": (np.arange(n_games) % 4).astype(np.int8)})
    words = GAME.headline({"hands": hands.lazy(), "games": games.lazy()}, s)
    by = rate_table(hands.with_columns(win=pl.col("winner") == pl.col("caller") % 2), ["point_card"], "win")
    k = by.height
    top = wilson_at(by, bonferroni_z(k)).sort("rate").row(k - 1, named=True)
    assert top["sim_hi"] - top["sim_lo"] > top["hi"] - top["lo"]  # wider than its pointwise interval
    assert (f"to {top['point_card']} {100 * top['rate']:.1f}% ({100 * top['sim_lo']:.1f}-{100 * top['sim_hi']:.1f}%), "
            f"the lowest and highest of {k}, 95% intervals simultaneous over the cards") in words


def test_gubs_headline_largest_lift_has_its_simultaneous_interval():
    from cardsim.games.gubs import cards as C
    from cardsim.games.gubs.game import GAME, card_impact, impact_sums

    s = _setup("gubs", players=3)
    rng = np.random.default_rng(4)
    n = 3000
    names = list(C.CARD_NAMES)
    winner = rng.integers(0, 3, n)
    games = pl.DataFrame({"game": np.arange(n), "finished": np.ones(n, bool),
                          "winners": (1 << winner).astype(np.int16), "turns": np.full(n, 30, np.int32)})
    rows = []
    for gi in range(n):
        for seat in range(3):
            for c in rng.choice(len(names), 6, replace=False):
                # the first card is drawn by the winner more often: an association with winning
                if c == 0 and seat != winner[gi] and rng.random() < 0.7:
                    continue
                rows.append((gi, seat, c))
    a = np.array(rows)
    cards_ = pl.DataFrame({"game": a[:, 0], "seat": a[:, 1].astype(np.int8),
                           "card": pl.Series(np.array(names)[a[:, 2]], dtype=pl.Enum(names)),
                           "drawn": np.ones(len(a), np.int16), "played": np.zeros(len(a), np.int16)})
    tables = {"games": games.lazy(), "cards": cards_.lazy()}
    words = GAME.headline(tables, s)
    impact = card_impact(tables, 3).filter(pl.col("n_drew") >= 30).sort("lift", descending=True)
    k = impact.height
    top = impact.row(0, named=True)
    assert top["card"] == names[0]
    assert f"Seats that draw {names[0]} win {100 * top['lift']:+.1f} percentage points (simultaneous 95% CI over the {k} " \
           f"cards " in words and "(the largest observed gain)" in words
    sim = words.split(f"over the {k} cards ")[1].split(")")[0].split(" to ")
    lo, hi = float(sim[0]) / 100, float(sim[1]) / 100
    assert lo < top["lift_lo"] and hi > top["lift_hi"]  # wider than the pointwise interval of the summary
    # the Bonferroni level's interval: each rate's Wilson interval at 0.05 / k combined (MOVER), which keeps
    # a far level's skew; at least the critical values' ratio wider than the pointwise t interval
    e = impact_sums(tables, 3).lift(names[0], 0.05 / k, mover=True)
    assert (lo, hi) == pytest.approx((e.lo, e.hi), abs=6e-4)
    half = (hi - lo) / 2
    assert half / ((top["lift_hi"] - top["lift_lo"]) / 2) > bonferroni_z(k, n - 1) / bonferroni_z(1, n - 1) - 0.02


def test_lucky_ghost_gains_of_two_players_have_simultaneous_intervals():
    """Two players paired with ghosts: both gains are read at once ("more" where an interval leaves 0
    out), so each interval is Bonferroni at 0.05 / 2; one player keeps the table's pointwise interval."""
    from cardsim.games.fubnub.game import GAME, summarize_ghost
    from cardsim.rng import root_key

    for players, label in ((2, "simultaneous 95% CI over the 2 players"), (1, "95% CI")):
        s = from_dict({"scenario": {"name": "x", "game": "fubnub", "variant": "lucky_ghost", "players": players,
                                    "games": 1}, "seats": {"policy": "partner"}}).setup
        lazy = {k: v.lazy() for k, v in GAME.simulate_chunk(s, root_key(4), 0, 300).items()}
        words = GAME.headline(lazy, s)
        gains = next(f for title, f in summarize_ghost(lazy, s) if title.startswith("Gain"))
        assert gains.height == players
        z = bonferroni_z(players, df=299)
        for r in gains.iter_rows(named=True):
            m, se = r["gain_mean"], r["gain_se"]
            lo, hi = (m - z * se, m + z * se) if players == 2 else (r["gain_lo"], r["gain_hi"])
            assert lo * hi > 0 and m > 0  # a player beats its blind ghost partner
            assert (f"seat {r['seat']} takes {m:.2f} tricks ({label} {lo:.2f}-{hi:.2f}) more a hand than its "
                    f"ghost partner") in words


@pytest.mark.parametrize("game", ["gubs", "turtle"])
def test_card_figures_read_simultaneous_intervals(game):
    """A forest of ~30 cards is read as a ranking: its intervals hold for every card at once (pointwise
    ones put about one card in twenty off 0 by chance); the table beside it stays pointwise and says so."""
    from cardsim.games import get_game
    from cardsim.rng import root_key

    g = get_game(game)
    s = from_dict({"scenario": {"name": "x", "game": game, "players": 4, "games": 1},
                   "seats": {"policy": "random"}}).setup
    lazy = {k: v.lazy() for k, v in g.simulate_chunk(s, root_key(3), 0, 300).items()}
    [(_title, [(caption, fig)], [(what, table)])] = g.figures(lazy, s)
    label = fig.axes[0].get_xlabel()
    k = int(label.split("over the ")[1].split(" cards")[0])
    assert "simultaneous 95% intervals" in label and f"hold for all {k} cards at once" in caption
    assert "pointwise" in what and k <= table.height
    # the plotted bars are wider than the table's pointwise intervals
    _, _caps, (bars,) = fig.axes[0].containers[0]
    widths = [abs(seg[1][0] - seg[0][0]) for seg in bars.get_segments()]
    pointwise = table.filter(pl.col("lift_lo").is_finite()).select((pl.col("lift_hi") - pl.col("lift_lo")).max()).item()
    assert max(widths) > pointwise


def test_gubs_starting_seat_reads_as_the_balance_tables_first_player_advantage(tmp_path):
    """The answer's starting-seat interval is the balance table's first-player advantage plus the fair share
    (a finished game's win shares sum to 1): the answer gave Wilson's interval of the rate, and at the edge
    the two disagreed (33.5-46.9% against a fair 33.3%, while the table's advantage read -0.1 to +13.7)."""
    from cardsim import api
    from cardsim.games.gubs.game import GAME

    p = tmp_path / "g.toml"
    p.write_text('[scenario]\nname = "g"\ngame = "gubs"\nplayers = 3\ngames = 150\nseed = 5\n'
                 '[seats]\npolicy = "random"\n')
    res = api.run(p, out=tmp_path / "run", threads=1)
    adv = res.balance().filter(pl.col("metric") == "first-player advantage").row(0, named=True)
    words = GAME.headline(res.tables, res.scenario.setup)
    fair = 1 / 3
    want = N.pct_ci(adv["value"] + fair, adv["lo"] + fair, adv["hi"] + fair, ref=fair)
    assert words.startswith(f"With 3 players the starting seat wins {want} of {adv['n']:,} finished games"), words
