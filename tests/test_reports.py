"""Reports read as answers (issue 17): numbers in plain words, tables that fit, no duplicated
tables, no timestamp (``make demo`` leaves ``git status`` clean), pages checked in a browser."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import polars as pl
import pytest

from cardsim import api
from cardsim import report as rep
from cardsim.output import Output, render, text_table
from cardsim.report import check as chk
from cardsim.report import numbers as N
from cardsim.scenario import from_dict

ROOT = Path(__file__).resolve().parents[1]
SMALL = """
[scenario]
name = "small"
game = "fubnub"
games = 400
seed = 2
question = "Does anything favour a team in 400 games?"

[seats]
policy = "partner"

[rules]
point_cards = 5
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("small")
    (d / "small.toml").write_text(SMALL)
    return api.run(d / "small.toml", runs=d / "runs")


# -- numbers ----------------------------------------------------------------------------------
def test_numbers_in_words():
    assert N.count(5028.0) == "5,028"
    assert N.pct(0.5028) == "50.3%" and N.pct(0.0002) == "0.02%" and N.pct(0.0) == "0.0%"
    assert N.pct_ci(0.5028, 0.493, 0.5126) == "50.3% (95% CI 49.3-51.3%)"
    assert N.num_ci(7.73, 6.6, 8.9, "turns") == "7.7 turns (95% CI 6.6-8.9)"
    assert N.num_ci(-8.0123, -8.5904, -7.4342, "turns") == "-8.0 turns (95% CI -8.6 to -7.4)"
    assert N.num_ci(12.446, 12.4078, 12.4842) == "12.45 (95% CI 12.41-12.48)"
    assert N.points(0.028) == "+2.8 percentage points"
    for bad in (math.nan, None, math.inf):
        assert N.pct(bad) == N.num(bad) == N.count(bad) == N.MISSING


def test_columns_formatted_alike():
    f = pl.DataFrame({"seat": [0, 1], "n": [10000, 10000], "k": [5028.0, 4972.0], "rate": [0.5028, 0.4972],
                      "lo": [0.493, 0.4874], "hi": [0.5126, 0.507], "mean": [12.446, 3.5]})
    cells = N.cells(f)
    assert cells["k"] == ["5,028", "4,972"]          # counts as integers, not "5028.0000"
    assert cells["n"] == ["10,000", "10,000"]
    assert cells["rate"] == ["50.3%", "49.7%"] and cells["lo"] == ["49.3%", "48.7%"]
    assert cells["mean"] == ["12.4", "3.5"]
    nan = pl.DataFrame({"x": [math.nan, 0.25]})
    assert N.cells(nan)["x"][0] == N.MISSING


def test_report_tables_merge_intervals_and_turn_wide_rows_on_their_side():
    f = pl.DataFrame({"arm": ["a", "b"], "n": [100, 100], "mean": [43.47, 35.46], "se": [0.26, 0.16],
                      "lo": [42.968, 35.139], "hi": [43.975, 35.78]})
    headers, rows, _ = rep.display(f)
    assert headers == ["arm", "n", "mean", "se", "95% CI"]
    assert rows[0] == ["a", "100", "43.47", "0.260", "42.97-43.98"]
    d = pl.DataFrame({"diff": [-8.01], "lo": [-8.59], "hi": [-7.43]})
    assert rep.display(d)[1][0] == ["-8.0", "-8.6 to -7.4"]
    wide = pl.DataFrame({f"c{i}": [i] for i in range(8)})
    assert "<table class='kv'>" in rep.html_table(wide)


def test_metric_rows_keep_their_own_units():
    f = pl.DataFrame({"metric": ["unfinished rate", "duration", "dealer advantage"], "value": [0.0, 12.446, 0.0275],
                      "lo": [0.0, 12.408, 0.0177], "hi": [0.0004, 12.484, 0.0373], "n": [10000] * 3})
    _headers, rows, _ = rep.display(f)
    assert rows[0][1:3] == ["0.0%", "0.0%-0.04%"]
    assert rows[1][1:3] == ["12.45", "12.41-12.48"] and rows[2][1] == "2.8%"
    # every game as long (FUBNUB Solo: 15 hands): no interval, the value to 3 digits, not "15.0000"
    alike = pl.DataFrame({"metric": ["duration"], "value": [15.0], "lo": [None], "hi": [None], "n": [20000]},
                         schema_overrides={"lo": pl.Float64, "hi": pl.Float64})
    assert rep.display(alike)[1][0][1:3] == ["15.0", "n/a"]


def test_measure_rows_keep_their_own_units():
    """cardsim cards' effects mix a length in turns and rates in one table: each row in its unit."""
    f = pl.DataFrame({"card": ["Toad", "Toad"], "measure": ["length", "focus seat win rate"],
                      "full_deck": [80.123, 0.5012], "changed": [78.9, 0.5321], "effect": [-1.223, 0.0309],
                      "lo": [-1.9, 0.021], "hi": [-0.55, 0.0408], "p": [0.0004, 0.0001]})
    c = N.cells(f)
    assert c["effect"] == ["-1.2", "3.1%"] and c["lo"] == ["-1.9", "2.1%"] and c["full_deck"][1] == "50.1%"


def test_measure_rows_keep_each_end_on_its_side_of_zero():
    """`cardsim cards scenarios/turtle_cards.toml -n 200`: Skip's length effect, 95% CI -0.14 to +14.4 turns
    (p 0.054), and Rhyme's, +0.04 to +13.7 (p 0.049), both printed lo "0" (the row's 0 decimals), one
    interval holding 0 and the other not; and a changed deck's edge of +0.03% printed "0.0%"."""
    f = pl.DataFrame({"card": ["Skip", "Rhyme", "Clean Up", "Share"],
                      "measure": ["length", "length", "length", "first-player advantage"],
                      "changed": [46.44, 46.19, 40.0, 0.065], "changed_lo": [40.96, 40.92, 35.6, 0.0003198],
                      "changed_hi": [52.65, 52.04, 45.1, 0.133], "effect": [7.105, 6.855, 0.61, 0.05],
                      "lo": [-0.1354, 0.0376, -5.2, -0.0459], "hi": [14.417, 13.668, 6.9, 0.145]})
    c = N.cells(f)
    assert c["lo"][:3] == ["-0.1", "0.04", "-5"] and c["effect"][:3] == ["7.1", "6.86", "1"], c
    assert c["changed_lo"][3] == "0.03%" and c["lo"][3] == "-4.59%", c


def test_an_estimate_takes_the_decimals_of_its_interval():
    """A length sweep's vs_best printed 3.52 beside vs_best_lo -4 and vs_best_hi 11, a length search's
    gain 0.71 beside -4 and 6 and heldout 46.8 beside 43 and 51, a rating's held-out log_odds 0.575 beside
    0.33 and 0.82: the estimate to 3 significant digits, its interval's ends to the decimals they justify."""
    sweep = pl.DataFrame({"point": ["a", "b"], "vs_best": [3.5247, 0.0], "vs_best_lo": [-4.12, 0.0],
                          "vs_best_hi": [11.17, 0.0]})
    assert N.cells(sweep)["vs_best"] == ["4", "0"]
    search = pl.DataFrame({"param": ["p"], "gain": [0.7133], "lo": [-4.41], "hi": [5.83]})
    assert N.cells(search)["gain"] == ["1"]
    held = pl.DataFrame({"candidate": ["best"], "in_search": [40.9], "heldout": [46.77], "lo": [42.56], "hi": [50.97]})
    assert N.cells(held)["heldout"] == ["47"] and N.cells(held)["lo"] == ["43"]
    rate = pl.DataFrame({"best": ["t"], "log_odds": [0.5754], "lo": [0.3312], "hi": [0.8196]})
    assert N.cells(rate)["log_odds"] == ["0.58"] and N.cells(rate)["lo"] == ["0.33"]


# -- terminal tables ---------------------------------------------------------------------------
def test_a_command_names_its_share_columns():
    """A study's ``mean`` or ``diff`` of a win share reads as a percentage on the terminal (the
    command says which columns hold shares); JSON keeps the raw value; a length stays a number."""
    arms = pl.DataFrame({"arm": ["a", "b"], "n": [100, 100], "mean": [0.518, 0.381], "se": [0.0021, 0.0025],
                         "lo": [0.513, 0.376], "hi": [0.522, 0.386]})
    out = Output("answer", [("Arms", arms)], shares={"Arms": ("mean", "se", "lo", "hi")})
    text = render(out, width=120)
    assert "51.8%" in text and "37.6%" in text and "0.518" not in text
    assert '"mean": 0.518' in render(out, "json")
    assert "0.518" in render(Output("answer", [("Arms", arms)]), width=120)  # a mean of unknown unit


def test_wide_table_fits_80_columns_without_splitting_numbers():
    cols = {"seat0.call_need": [1, 2, 3, 4], "seat2.call_need": [1, 2, 3, 4], "games": [500] * 4}
    for s in range(4):
        cols |= {f"winrate_s{s}": [0.386, 0.524, 0.652, 0.642], f"lo_s{s}": [0.344, 0.48, 0.609, 0.599],
                 f"hi_s{s}": [0.429, 0.567, 0.692, 0.683]}
    cols |= {"length_mean": [12.252, 12.438, 12.65, 12.49], "length_se": [0.0905, 0.0865, 0.0836, 0.0834],
             "unfinished": [0.0] * 4}
    frame = pl.DataFrame(cols)
    text = render(Output("answer", [("Sweep", frame)]), width=80)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    for value in ("38.6%", "65.2%", "12.25", "0.0905"):
        assert value in text  # whole, on one line
    assert text.count("seat0.call_need") >= 2  # the key columns repeat in every block
    assert "0.3860" not in text and "12.\n" not in text


def test_terminal_counts_are_integers():
    frame = pl.DataFrame({"team": [0, 1], "n": [10000, 10000], "k": [5028.0, 4972.0]})
    assert "5,028" in text_table(frame) and "5028.0" not in text_table(frame)


def test_fractional_wins_print_as_such():
    """Gubs' win table showed `wins 264` beside `rate 26.5%` (264.5 wins: a shared win counts 1/k)."""
    frame = pl.DataFrame({"seat": [0, 1], "n": [1000, 1000], "wins": [264.5, 260.0], "rate": [0.2645, 0.26]})
    assert "264.5" in text_table(frame) and "260.0" in text_table(frame)
    quarters = pl.DataFrame({"card": ["a", "b"], "wins_drew": [928.25, 72.0], "wins_not": [71.75, 928.0]})
    assert "928.25" in text_table(quarters) and "71.75" in text_table(quarters)
    thirds = pl.DataFrame({"seat": [0], "k": [5028 + 1 / 3]})
    assert "5,028.33" in text_table(thirds)
    assert "5,028" in text_table(pl.DataFrame({"seat": [0], "k": [5028.0]}))  # whole wins stay integers


# -- the run report ----------------------------------------------------------------------------
def test_run_report_reads_as_an_answer(small, tmp_path):
    out = rep.write(small, tmp_path)
    md = (out / "report.md").read_text()
    html = (out / "index.html").read_text()
    assert "games per game" not in md and "made" not in md.split("## Run")[1].split("##")[0]
    assert re.search(r"\*\*Answer\.\*\* .*% \(95% CI", md)
    # its tables of many rows say how they handle multiplicity (pointwise intervals)
    assert "**Intervals.** Each interval is a 95% interval for its own row (pointwise)" in md
    assert "<b>Intervals.</b> Each interval is a 95% interval for its own row (pointwise)" in html
    assert "A game lasts" in md and "hands (95% CI" in md
    assert not re.search(r"\d\.0000\b", md)  # no "5028.0000"
    assert "nan" not in md.lower().replace("natural", "")
    for heading in (r"^## (.+)$", r"^\*\*(.+)\*\*$"):
        titles = re.findall(heading, md, re.M)
        assert len(titles) == len(set(titles)), titles
    assert chk.check_html(out / "index.html") == []
    assert html.count("<figure>") >= 3


def test_report_game_length_agrees_with_the_answer(tmp_path, monkeypatch):
    """Turtle's answer gave its length a count's interval (43.43 turns, 95% CI 43.20-43.65) and the report's
    Game length section the plain one (43.21-43.65): both read the count's now."""
    from cardsim import stats

    calls = []
    real = stats.mean_exprs

    def spy(col, prefix="", count=False):
        calls.append((col, count))
        return real(col, prefix, count)

    s = from_dict({"scenario": {"name": "tl", "game": "turtle", "variant": "full", "players": 4, "games": 300,
                                "seed": 5}, "seats": {"policy": "eager"}})
    res = api.run(s, runs=tmp_path / "runs")
    monkeypatch.setattr(stats, "mean_exprs", spy)
    md = (rep.write(res, tmp_path / "reports") / "report.md").read_text()
    assert ("length", True) in calls and ("length", False) not in calls
    said = re.findall(r"A game lasts ([\d.]+ turns \(95% CI [\d.]+-[\d.]+\))", md)
    assert len(said) == 2 and said[0] == said[1], said


def test_no_table_is_shown_twice(small, tmp_path):
    report = rep.build(small)
    frames = [f for s in report.sections for _t, f in s.tables]
    for i, a in enumerate(frames):
        for b in frames[i + 1:]:
            assert not (a.shape == b.shape and a.columns == b.columns and a.equals(b))


def test_writing_a_report_twice_gives_the_same_bytes(small, tmp_path):
    a = rep.write(small, tmp_path / "a")
    b = rep.write(small, tmp_path / "b")
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted(p.name for p in b.iterdir()) and "index.html" in files
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def strip_images(html: str) -> str:
    return re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:image/png;base64,...", html)


@pytest.mark.slow
def test_make_demo_leaves_git_status_clean(tmp_path):
    """``make demo`` writes exactly the committed demo report (its figures depend only on the
    matplotlib version; the text and the tables must match byte for byte)."""
    res = api.run(ROOT / "scenarios" / "fubnub.toml", runs=tmp_path / "runs")
    out = rep.write(res, tmp_path / "reports")
    committed = ROOT / "reports" / "fubnub"
    again = "the committed demo report is stale: run `make demo` and commit reports/fubnub"
    assert (out / "report.md").read_text() == (committed / "report.md").read_text(), again
    assert strip_images((out / "index.html").read_text()) == strip_images((committed / "index.html").read_text()), again
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in committed.iterdir()), again


# -- the browser check -------------------------------------------------------------------------
def _png(color="white", size=(200, 120)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def test_figures_draw_rows_without_an_interval():
    """`cardsim report fourbid.toml -n 1` (and gubs_cards.toml) ended in a traceback, "TypeError:
    unsupported operand type(s) for -: 'float' and 'NoneType'": a mean clustered by game has no interval
    at 1 game, which polars gives as None, and the forest plot subtracted it."""
    from cardsim.report import figures as F

    png = F.png_bytes(F.forest(["0", "1", "2"], [5.8, None, 3.2], [None, None, 1.0], [None, None, 4.0],
                               "Net points per hand", "points"))
    assert png.startswith(b"\x89PNG")
    png = F.png_bytes(F.curve([1, 2, 3], [0.5, None, 0.4], [None, None, 0.3], [0.7, None, 0.5], "Win rate",
                              "point", "win rate"))
    assert png.startswith(b"\x89PNG")


def test_html_check_finds_blank_and_broken_figures(tmp_path):
    import base64

    page = tmp_path / "index.html"
    good = rep.Report("x", "T", "Q?", "An answer long enough.", {}, "", [
        rep.Section("S", figures=[("blank", _png()), ("broken", _png("red")[:60])])])
    good.write(tmp_path)
    page = tmp_path / "x" / "index.html"
    problems = chk.check_html(page)
    assert any("figure 1 is blank" in p for p in problems) and any("figure 2 does not decode" in p for p in problems)
    page.write_text(page.read_text().replace("An answer long enough.", ""))
    assert "no answer" in chk.check_html(page)
    assert base64  # imported for the reader: figures are base64 PNGs


@pytest.mark.skipif(chk.find_browser() is None, reason="no Chromium: the browser check runs in make report")
def test_report_in_headless_chromium(small, tmp_path):
    out = rep.write(small, tmp_path / "reports")
    assert chk.check(out / "index.html", tmp_path / "shots", chk.find_browser()) == []
    assert (tmp_path / "shots" / "small.png").stat().st_size > 10_000
    blank = tmp_path / "blank" / "index.html"
    blank.parent.mkdir()
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    problems = chk.check(blank, tmp_path / "shots", chk.find_browser())
    assert any("screenshot" in p and "blank" in p for p in problems), problems


# -- committed reports are the code's -----------------------------------------------------------
#: each committed report is played small here: a run, compare, sweep, rating or card study on 1,500 games;
#: a search or meta-game on a small budget (rungs of 200 deals, 150,000 games, 2,000 or 800 held-out deals;
#: a meta-game from its first two strategies), which writes the sections, tables and columns of the full one
SMALL_SEARCH = {"budget": 150_000, "rung": 200, "heldout": 2_000}


def _committed_reports() -> list[str]:
    """The scenarios that have a committed report."""
    import tomllib

    return [path.stem for path in sorted((ROOT / "scenarios").glob("*.toml"))
            if (ROOT / "reports" / tomllib.loads(path.read_text())["scenario"]["name"] / "report.md").exists()]


def _shape(md: str) -> list[str]:
    """A report's headings, table titles and table headers with every number blanked: what changes
    when the code adds, drops or renames a table, a column or a section, and not with the data."""
    lines = md.split("## Scenario")[0].splitlines()
    keep = [line for i, line in enumerate(lines) if line.startswith(("#", "**"))
            or (i + 1 < len(lines) and lines[i + 1].startswith("| ---"))]
    return [re.sub(r"\d[\d,.]*", "#", line.split(".**")[0]) for line in keep]


def _small(s):
    """The scenario with its search or meta-game shrunk to :data:`SMALL_SEARCH` (a meta-game: 800 deals a
    profile, its first two strategies, its rounds of best response kept)."""
    raw = json.loads(json.dumps(dict(s.raw)))
    if "search" in raw:
        raw["search"].update(SMALL_SEARCH)
    if "meta" in raw:
        raw["meta"].update(deals=800, heldout=800, strategies=raw["meta"]["strategies"][:2])
        if "search" in raw["meta"]:
            raw["meta"]["search"].update(SMALL_SEARCH)
    return from_dict(raw, name=s.name, base_dir=s.path.parent)


@pytest.mark.slow
@pytest.mark.parametrize("name", _committed_reports())
def test_committed_reports_have_the_codes_tables(name, tmp_path):
    """Each committed report has the sections, tables and columns the code writes today, from 1,500
    games of its scenario (a search or meta-game: a small budget): a report made before a table
    gained a column or a row read stale (Turtle's lift without its interval, Lucky Ghost's misdeal rate
    without one, searches made before the one-step intervals became simultaneous)."""
    from cardsim.cli import STUDIES

    s = api.load(ROOT / "scenarios" / f"{name}.toml", games=1_500)
    kind = next((k for k in STUDIES if k in s.raw), None)
    if kind is None:
        path = rep.write(api.run(s, runs=tmp_path / "runs"), tmp_path / "reports")
    elif kind in ("search", "meta"):
        s = _small(s)
        res = api.search(s, runs=None) if kind == "search" else api.meta(s, runs=None)
        path = rep.build_study(s, kind, res).write(tmp_path / "reports")
    else:
        study = {"compare": api.compare, "sweep": api.sweep, "ratings": api.rate, "cards": api.cards}[kind]
        path = rep.build_study(s, kind, study(s, runs=tmp_path / "runs")).write(tmp_path / "reports")
    committed = (ROOT / "reports" / s.name / "report.md").read_text()
    stale = f"reports/{s.name} is stale: run `cardsim report scenarios/{name}.toml` and commit it"
    assert _shape((path / "report.md").read_text()) == _shape(committed), stale


@pytest.mark.parametrize(("lo", "hi", "decimals"), [(-0.0003, 0.0005, 2), (-0.02, 0.05, 1), (0.0, 0.4, 1)])
def test_points_axis_has_as_many_decimals_as_its_ticks_need(lo, hi, decimals):
    """Held-out gains a few hundredths of a point wide read +0.01, +0.02, ..., not +0.0 five times."""
    from cardsim.report.figures import plt
    from cardsim.report.search import _pct_axis

    fig, ax = plt.subplots()
    ax.set_xlim(lo, hi)
    _pct_axis(ax)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    plt.close(fig)
    assert len(set(labels)) == len(labels)
    assert all(len(x.split(".")[1]) == decimals for x in labels if "." in x)


def test_search_report_is_the_same_when_written_twice(tmp_path):
    """A search report holds no time (wall and CPU times vary from run to run; the command prints
    them), so the same search writes the same report and `make report` leaves git status clean."""
    from tests.test_search import SMALL, scenario

    s = scenario({**SMALL, "params": {"seat0.first_at": [4, 7], "seat0.next_at": [2, 5]}})
    pages = [rep.build_study(s, "search", api.search(s, runs=None)).write(tmp_path / str(i)) / "report.md"
             for i in range(2)]
    assert pages[0].read_text() == pages[1].read_text()
    assert " s;" not in pages[0].read_text() and "leaves them out" in pages[0].read_text()


@pytest.mark.parametrize("ref", [None, 0.25])
def test_rate_dots_without_any_interval_draws_without_a_warning(ref):
    """`cardsim report turtle.toml --games 1` printed numpy's "RuntimeWarning: All-NaN slice encountered":
    a seat chart whose every row has no interval (no finished game)."""
    import warnings

    from cardsim.report import figures as F

    nan = float("nan")
    frame = pl.DataFrame({"seat": [0, 1], "rate": [nan, nan], "lo": [nan, nan], "hi": [nan, nan]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = F.rate_dots(frame, "seat", "Win rate by seat", "seat", ref=ref)
        lo, hi = fig.axes[0].get_ylim()
        F.png_bytes(fig)
    assert math.isfinite(lo) and math.isfinite(hi) and lo < (ref if ref is not None else 0.5) < hi
    some = pl.DataFrame({"seat": [0, 1], "rate": [0.4, nan], "lo": [0.3, nan], "hi": [0.5, nan]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, hi = F.rate_dots(some, "seat", "t", "seat").axes[0].get_ylim()
    assert lo < 0.3 and hi > 0.5


def test_generic_answer_reads_simultaneous_intervals_and_says_which_seats_differ():
    """A game without its own headline: the answer picks the highest and lowest seat from the rows, so it
    quotes intervals simultaneous over the seats (Bonferroni), not each seat's own Wilson interval, and says
    which seats differ from the fair share; an equal-looking spread is not called a difference."""
    from cardsim.stats import seat_table

    games = 400
    win = {0: 0.30, 1: 0.24, 2: 0.24, 3: 0.22}  # seat 0 won 120 of 400: its own interval leaves out 25%
    rows = [{"game": g, "seat": s, "win": float(g < win[s] * games)} for s in win for g in range(games)]
    seats = seat_table(pl.DataFrame(rows))
    words = rep.seat_answer(seats, games, 4, 0.25)
    own = seats.filter(pl.col("seat") == 0).row(0, named=True)
    assert own["lo"] > 0.25  # pointwise, seat 0 looks above its fair share
    assert "intervals simultaneous over the 4 seats" in words and "seat 0's win rate reads highest" in words
    assert f"{100 * own['lo']:.1f}-" not in words  # not the pointwise interval
    assert "no seat differs detectably from the fair share of 25.0%" in words


def test_sweep_section_of_one_point_is_singular(tmp_path):
    """`cardsim report` of a sweep of one point wrote "1 points, each on the same deals"."""
    from cardsim.report.studies import sweep_section

    s = from_dict({"scenario": {"name": "one", "game": "fubnub", "games": 40, "chunk": 20},
                   "seats": {"policies": ["tactician", "partner", "tactician", "partner"]},
                   "sweep": {"points": [{"seat0.call_need": 1}]}})
    text = sweep_section(api.sweep(s, runs=tmp_path / "runs")).text
    assert text.startswith("1 point; metric: seat 0's win rate (winrate_s0 in the tables)."), text


def test_report_of_one_game_is_singular(tmp_path):
    """`cardsim report scenarios/fubnub.toml -n 1` wrote "Every one of the 1 games lasts 13 hands." and
    "Hands per game (1 games)"."""
    s = from_dict({"scenario": {"name": "g1", "game": "fubnub", "games": 1},
                   "seats": {"policy": "partner"}})
    text = (rep.write(api.run(s, runs=tmp_path / "runs"), tmp_path / "reports") / "report.md").read_text()
    assert re.search(r"The one game lasts \d+ hands\.", text) and "(1 game)" in text, text
    assert "1 games" not in text, text


def test_a_sweeps_p_best_is_a_share_of_draws_not_a_p_value():
    """p_best (the share of resampled draws in which a point is best) was printed as a p-value: 0 of the
    draws read "< 0.001", which says some did; a p-value column keeps that form."""
    frame = pl.DataFrame({"p_best": [0.0, 0.0004, 0.9996, None], "p": [0.0, 0.0004, 0.5, None]})
    assert N.column(frame, "p_best") == ["0.000", "< 0.001", "> 0.999", ""]
    assert N.column(frame, "p") == ["< 0.001", "< 0.001", "0.500", ""]


def test_wide_table_blocks_repeat_the_keys_that_name_a_row():
    """A meta-game's payoff table with long profiles: its second block repeated only `strategy`, the same on
    several rows, so its rows could not be told apart; `profile` is repeated too when `strategy` alone
    leaves rows alike (and only then)."""
    profile = ["collector, tuned-bidder-with-a-long-name, collector-long, " + s for s in ("a", "b", "a", "b")]
    frame = pl.DataFrame({"strategy": ["x", "x", "y", "y"], "profile": profile, "win_rate": [0.3, 0.2, 0.25, 0.4],
                          "lo": [0.28, 0.18, 0.23, 0.38], "hi": [0.32, 0.22, 0.27, 0.42],
                          "deals": [2000] * 4, "games": [8000] * 4, "note": ["a long note " * 3] * 4})
    text = text_table(frame, width=120)
    blocks = text.split("\n\n")
    assert len(blocks) > 1 and all(b.splitlines()[0].split()[:2] == ["strategy", "profile"] for b in blocks)
    unique = frame.with_columns(pl.Series("strategy", ["w", "x", "y", "z"]))
    assert all(b.splitlines()[0].split()[1] != "profile" for b in text_table(unique, width=120).split("\n\n")[1:])


def test_a_report_of_a_run_directory_fences_its_scenario_as_json(tmp_path):
    """A report of a run directory (or of a scenario built in Python) shows the scenario as its manifest
    holds it, in JSON; report.md fenced that JSON as ```toml. A scenario file keeps its ```toml fence."""
    raw = {"scenario": {"name": "fence", "game": "fubnub", "games": 20, "seed": 1}, "seats": {"policy": "partner"},
           "rules": {"point_cards": 1}}
    res = api.run(from_dict(raw), runs=tmp_path / "runs")
    md = (rep.write(api.open_run(res.path), tmp_path / "a") / "report.md").read_text()
    scen = md.split("## Scenario", 1)[1]
    assert "```json\n{" in scen and "```toml" not in scen
    path = tmp_path / "fence.toml"
    path.write_text('[scenario]\ngame = "fubnub"\ngames = 20\n\n[rules]\npoint_cards = 1\n')
    md = (rep.write(api.run(path, runs=tmp_path / "runs"), tmp_path / "b") / "report.md").read_text()
    assert "```toml\n[scenario]" in md.split("## Scenario", 1)[1]
