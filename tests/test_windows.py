"""Windows of whole games (cardsim.windows): the summaries that need a game's rows together read a
run a window at a time, so the windows must partition the games exactly, keep the tables aligned,
and refuse rows out of game order."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cardsim import api, windows
from cardsim.games.gubs import game as gubs_game
from cardsim.games.turtle import game as turtle_game
from cardsim.scenario import from_dict


def parts(tmp_path, name: str, frame: pl.DataFrame, cuts: list[int]) -> pl.LazyFrame:
    """``frame`` written as parquet parts split at row indices ``cuts``, scanned as a run's table is."""
    (tmp_path / name).mkdir()
    files = []
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, frame.height], strict=True)):
        f = tmp_path / name / f"part-{i:06d}.parquet"
        frame.slice(a, b - a).write_parquet(f)
        files.append(str(f))
    return pl.scan_parquet(files)


@pytest.mark.parametrize("rows", [1, 3, 7, 1000])
def test_windows_partition_the_games_and_keep_the_tables_aligned(tmp_path, rows):
    rng = np.random.default_rng(rows)
    n = 60
    games = pl.DataFrame({"game": np.arange(n), "x": rng.integers(0, 9, n)})
    per = rng.integers(0, 5, n)  # rows a game in the other table, zero for some (and for the last games)
    per[-3:] = 0
    g = np.repeat(np.arange(n), per)
    other = pl.DataFrame({"game": g, "y": np.arange(g.size)})
    tables = {"games": parts(tmp_path, "games", games, [17, 40]),
              "other": parts(tmp_path, "other", other, [5, int(np.searchsorted(g, 30)) + 1])}
    seen_games, seen_other = [], []
    for w in windows.game_windows(tables, ["games", "other"], {"games": ["x"], "other": ["y"]}, rows=rows):
        lo, hi = w["games"]["game"].min(), w["games"]["game"].max()
        assert w["games"]["game"].to_list() == list(range(lo, hi + 1))  # consecutive, whole games
        assert w["other"]["game"].is_between(lo, hi).all()
        assert w["other"].columns == ["game", "y"]
        seen_games.append(w["games"])
        seen_other.append(w["other"])
    assert pl.concat(seen_games).equals(games)
    assert pl.concat(seen_other).equals(other)  # every row once, in order: no game split between windows


def test_rows_out_of_game_order_are_refused(tmp_path):
    frame = pl.DataFrame({"game": [0, 1, 2, 5, 4, 6], "y": range(6)})
    tables = {"t": parts(tmp_path, "t", frame, [3])}
    with pytest.raises(windows.OrderError, match="not in game order"):
        list(windows.game_windows(tables, ["t"], rows=2))


def test_card_summaries_do_not_depend_on_the_window(tmp_path, monkeypatch):
    """Gubs' card impact and Turtle's card table added up over windows of a few games equal the
    same over one window (sums of partial counts; a game's rows never split)."""
    runs = {}
    for name, game, variant in (("g", "gubs", "standard"), ("t", "turtle", "full")):
        s = from_dict({"scenario": {"name": name, "game": game, "variant": variant, "players": 3, "games": 400,
                                    "seed": 2, "chunk": 150}, "seats": {"policy": "random"}})
        runs[name] = api.run(s, out=tmp_path / name)

    def both():
        # .read: the kept functions would give what the first call computed (kept_for_frames)
        return (gubs_game.impact_table(gubs_game.impact_sums.read(runs["g"].tables, 3)),
                turtle_game.card_section.read(runs["t"].tables, 3)[1])

    wide = both()
    monkeypatch.setattr(gubs_game, "IMPACT_WINDOW", 7)
    monkeypatch.setattr(windows, "WINDOW_ROWS", 13)
    narrow = both()
    for a, b in zip(wide, narrow, strict=True):
        assert a.columns == b.columns and a.height == b.height > 0
        for c in a.columns:
            if a[c].dtype.is_float():
                np.testing.assert_allclose(a[c].to_numpy(), b[c].to_numpy(), rtol=1e-12, equal_nan=True)
            else:
                assert a[c].equals(b[c]), c


def test_card_sums_are_read_once_for_the_same_frames(tmp_path):
    """A Gubs report's answer, figure and summary ask for the same card sums, a Turtle report's figure
    and summary for the same card table (a pass over the run each): a result's tables are made once,
    and the last frames' values are kept."""
    reads = []
    for game, fn, n in (("gubs", gubs_game.impact_sums, 2), ("turtle", turtle_game.card_section, 3)):
        s = from_dict({"scenario": {"name": game, "game": game, "players": n, "games": 300, "seed": 3},
                       "seats": {"policy": "random"}})
        res = api.run(s, out=tmp_path / game)
        assert res.tables is res.tables
        first = fn(res.tables, n)
        assert fn(res.tables, n) is first and fn(dict(res.tables), n) is first  # the same frames
        again = api.Result(res.scenario, res.rundir)  # other frames of the same run: read again, same values
        other = fn(again.tables, n)
        assert other is not first
        reads.append((first, other))
    (g1, g2), (t1, t2) = reads
    assert not g1.n_in.flags.writeable  # kept, so nobody may change it
    assert np.array_equal(g2.n_in, g1.n_in) and np.array_equal(g2.w_all, g1.w_all)
    assert t2[1].equals(t1[1])
