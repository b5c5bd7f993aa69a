"""Reports: ``reports/<name>/index.html`` (self-contained) and ``report.md`` (DESIGN step 7).

A report carries the question, a one-sentence answer with its interval, the run (game, seats,
rules, seed, rules version, cardsim version), figures with error bars, and the tables. Every game
gets the seat and length sections from its outcome table; a game adds its own sections through
``Game.figures`` and its answer through ``Game.headline``. Studies (compare, sweep, rate, ...)
render their sections in :mod:`cardsim.report.studies`.

Reports read as answers: numbers are written by :mod:`cardsim.report.numbers` (counts as
integers, shares as percentages, intervals as one "95% CI" column); a table shown once is not
shown again; a wide one-row table is turned on its side to fit the page. A report holds no
timestamp, so writing the same run twice gives the same files (``make demo`` leaves ``git status``
clean).
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from cardsim import __version__
from cardsim.games import get_game
from cardsim.report import numbers as N


@dataclass
class Section:
    title: str
    text: str = ""
    figures: list[tuple[str, bytes]] = field(default_factory=list)  # (caption, png)
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)


def _save(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``; a write that fails (a full disk) names the file, which ``Path.write_bytes``
    left out of its error, so the CLI's line said "cannot write a file" instead of the report's folder."""
    try:
        path.write_bytes(data)
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


@dataclass
class Report:
    name: str
    title: str
    question: str
    answer: str
    meta: dict[str, str]
    scenario_text: str
    sections: list[Section]
    intervals: str = ""  # how the report's intervals handle multiplicity (a run's: cardsim.stats.ROWWISE)

    def write(self, out_dir: str | Path) -> Path:
        """Write ``index.html``, ``report.md`` and the PNGs the Markdown links to; returns the folder."""
        out = Path(out_dir) / self.name
        for folder in (Path(out_dir), out):  # a file there: mkdir's FileExistsError or NotADirectoryError
            if folder.exists() and not folder.is_dir():
                from cardsim.errors import CardsimError

                raise CardsimError(f"{folder} is a file; a report is written into a folder ({out}/index.html): "
                                   f"give another out_dir")
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("fig-*.png"):
            old.unlink()
        n = 0
        md = [f"# {self.title}", "", f"**Question.** {self.question}", "", f"**Answer.** {self.answer}", ""]
        body = [f"<h1>{esc(self.title)}</h1>", f"<p class='q'><b>Question.</b> {esc(self.question)}</p>",
                f"<p class='a'><b>Answer.</b> {esc(self.answer)}</p>"]
        if self.intervals:
            md += [f"**Intervals.** {self.intervals}", ""]
            body.append(f"<p><b>Intervals.</b> {esc(self.intervals)}</p>")
        toc = [s.title for s in self.sections] + ["Run", "Scenario"]
        body.append("<nav>" + " · ".join(f"<a href='#{anchor(t)}'>{esc(t)}</a>" for t in toc) + "</nav>")
        for sec in self.sections:
            md += [f"## {sec.title}", ""]
            body.append(f"<h2 id='{anchor(sec.title)}'>{esc(sec.title)}</h2>")
            if sec.text:
                md += [sec.text, ""]
                body.append(f"<p>{esc(sec.text)}</p>")
            for caption, png in sec.figures:
                n += 1
                fname = f"fig-{n:02d}.png"
                _save(out / fname, png)
                md += [f"![{caption}]({fname})", "", f"*{caption}*", ""]
                b64 = base64.b64encode(png).decode()
                body.append(f"<figure><img alt='{esc(caption)}' src='data:image/png;base64,{b64}'/>"
                            f"<figcaption>{esc(caption)}</figcaption></figure>")
            for title, frame in sec.tables:
                head = title != sec.title  # a table named like its section needs no second heading
                md += ([f"**{title}**", ""] if head else []) + [md_table(frame), ""]
                body.append((f"<h3>{esc(title)}</h3>" if head else "") + html_table(frame))
        md += ["## Run", "", md_kv(self.meta), ""]
        body += [f"<h2 id='{anchor('Run')}'>Run</h2>", html_kv(self.meta)]
        # the scenario file (TOML), or as a run directory's manifest or a scenario built in Python holds it (JSON)
        lang = "json" if self.scenario_text.lstrip().startswith("{") else "toml"
        md += ["## Scenario", "", f"```{lang}", self.scenario_text.strip(), "```", ""]
        body.append(f"<h2 id='{anchor('Scenario')}'>Scenario</h2><pre>{esc(self.scenario_text.strip())}</pre>")
        _save(out / "report.md", "\n".join(md).encode("utf-8"))
        _save(out / "index.html", PAGE.format(title=esc(self.title), body="\n".join(body)).encode("utf-8"))
        return out


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 60em; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }}
h1 {{ border-bottom: 2px solid #3b6ea5; }} h2 {{ margin-top: 2em; color: #3b6ea5; }} h3 {{ font-size: 1em; }}
nav {{ font-size: 0.9em; margin: 1em 0; }} nav a {{ color: #3b6ea5; }}
.t {{ overflow-x: auto; max-width: 100%; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.88em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; }}
th {{ background: #eef3f8; text-align: left; vertical-align: bottom; }}
td.n {{ text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }}
table.kv th {{ width: 11em; vertical-align: top; }} table.kv td {{ text-align: left; }}
figure {{ margin: 1em 0; }} figure img {{ max-width: 100%; height: auto; }}
figcaption {{ font-size: 0.85em; color: #555; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; }} .a {{ font-size: 1.1em; }}
</style></head><body>
{body}
</body></html>
"""


def esc(s: object) -> str:
    return html.escape(str(s))


def anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def fmt(v: object) -> str:
    """One value as a person reads it (a table column is better formatted whole: :func:`display`)."""
    if isinstance(v, float):
        return N.num(v)
    return N.text(v)


# -- tables as a person reads them ---------------------------------------------------------------------
def _ci_name(lo: str) -> str:
    if lo.startswith("sim_lo_"):  # sim_lo_s0: seat 0's interval simultaneous over the rows
        return f"{lo[7:]} simultaneous 95% CI"
    p = re.sub(r"^lo_|_?lo$", "", lo)
    return f"{p} 95% CI" if p else "95% CI"


def display(frame: pl.DataFrame) -> tuple[list[str], list[list[str]], list[bool]]:
    """(headers, rows of cells, numeric flag per column) of ``frame`` for a report: numbers formatted
    alike per column (:func:`cardsim.report.numbers.column`), an estimate and its interval to the
    precision the interval justifies, each interval's bounds merged into one "95% CI" column, and a
    ``metric, value, lo, hi`` table formatted row by row (its rows mix units)."""
    cols = frame.columns
    pairs = N.interval_pairs(cols)
    cells = N.cells(frame)
    his = {hi for _lo, hi in pairs.values()}
    headers, columns, numeric = [], [], []
    for c in cols:
        if c in his:
            continue
        if c in pairs:
            lo, hi = pairs[c]
            headers.append(_ci_name(lo))
            columns.append([N.interval(a, b) for a, b in zip(cells[lo], cells[hi], strict=True)])
            numeric.append(True)
            continue
        headers.append(c)
        columns.append(cells[c])
        numeric.append(frame.schema[c].is_numeric())
    rows = [list(r) for r in zip(*columns, strict=True)] if columns else []
    return headers, rows, numeric


def _on_its_side(headers: list[str], rows: list[list[str]]) -> bool:
    return len(rows) == 1 and len(headers) > 5


def md_table(frame: pl.DataFrame) -> str:
    headers, rows, _numeric = display(frame)
    if _on_its_side(headers, rows):
        return md_kv(dict(zip(headers, rows[0], strict=True)))
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(" ---: " if n else " --- " for n in _numeric) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(v.replace("|", "/") for v in row) + " |")
    return "\n".join(lines)


#: characters of table text that fit the page's width (60em of body, tables at 0.88em, cell padding)
PAGE_CHARS = 110


def html_table(frame: pl.DataFrame) -> str:
    """``frame`` as HTML that fits the page: a wide table is split into blocks of columns, each
    repeating the key columns that name a row (a wide one-row table is turned on its side)."""
    headers, rows, numeric = display(frame)
    if _on_its_side(headers, rows):
        return html_kv(dict(zip(headers, rows[0], strict=True)))
    # a header wraps at its spaces and dots, a text cell at its spaces (about 30 characters wide),
    # a number does not wrap
    widths = [max([max(map(len, re.split(r"[ ._]", h))),
                   *(len(r[i]) if numeric[i] else min(len(r[i]), 30) for r in rows)]) + 3
              for i, h in enumerate(headers)]
    keys = []
    for i, h in enumerate(headers[:3]):
        if h not in frame.columns or frame.schema[h].is_float() or i == len(headers) - 1:
            break
        keys.append(i)
    out = []
    for block in N.blocks(widths, keys, PAGE_CHARS, gap=0):
        idx = keys + block
        head = "".join(f"<th>{esc(headers[i])}</th>" for i in idx)
        body = "".join("<tr>" + "".join(f"<td class='n'>{esc(row[i])}</td>" if numeric[i] else
                                        f"<td>{esc(row[i])}</td>" for i in idx) + "</tr>" for row in rows)
        out.append(f"<div class='t'><table><tr>{head}</tr>{body}</table></div>")
    return "".join(out)


def html_kv(meta: dict[str, str]) -> str:
    return ("<div class='t'><table class='kv'>" + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>"
                                                        for k, v in meta.items()) + "</table></div>")


def md_kv(meta: dict[str, str]) -> str:
    lines = ["|  |  |", "| --- | --- |"]
    lines += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in meta.items()]
    return "\n".join(lines)


def pct(rate: float, lo: float, hi: float) -> str:
    """``50.3% (95% CI 49.3-51.3%)``."""
    return N.pct_ci(rate, lo, hi)


# -- the run report --------------------------------------------------------------------------------------
def standard_sections(result) -> tuple[str, list[Section]]:
    """Seat win rates and game length for any game (through its outcome table)."""
    from cardsim.report import figures as F
    from cardsim.stats import collect, mean_exprs, seat_table

    game = get_game(result.scenario.game)
    setup = result.scenario.setup
    unit = game.length_unit(setup)
    out = result.outcomes()  # lazy: the outcome table (a row per game and seat) is never read whole
    seats = seat_table(out)
    fair = seats["fair"][0] if "fair" in seats.columns else None
    names = {i: s.plugin.rsplit("/", 1)[-1] if s.plugin else s.name for i, s in enumerate(setup.seats)}
    seats = seats.with_columns(policy=pl.col("seat").cast(pl.Int64).replace_strict(names, default="")).select(
        "seat", "policy", pl.exclude("seat", "policy"))
    finished = int(seats["n"].max()) if seats.height else 0
    sec = Section("Win rate by seat", text=(
        f"Each seat's share of the {finished:,} finished games (a win shared by k players counts 1/k); the dashed "
        f"line is the fair share, {N.pct(fair)}, every seat's rate if seats did not matter."
        if fair is not None and N.finite(fair) else ""))
    sec.figures.append((f"Win rate by seat with 95% Wilson intervals ({finished:,} finished games)",
                        F.png_bytes(F.rate_dots(seats, "seat", "Win rate by seat", "seat", ref=fair,
                                                ylabel="win rate (95% interval)"))))
    sec.tables.append(("Win rate by seat", seats.drop("fair", strict=False)))
    # a row per game and seat, every seat (Game.outcomes): seat 0's row gives each game's length, a count
    # (hands or turns), so its interval is a count's, as every game's answer and summary give it (Turtle's
    # answer read 43.20-43.65 beside this section's 43.21-43.65); where every game has the same length
    # (a count the rules fix) the sentence gives no interval
    lengths = collect(out.filter(pl.col("seat") == 0).select("length"))
    m = lengths.select(*mean_exprs("length", count=True), pl.col("length").std().alias("sd"),
                       pl.col("length").min().alias("min"), pl.col("length").max().alias("max")).row(0, named=True)
    if not m["n"]:
        said = "No game was played."
    elif m["min"] == m["max"]:
        said = (f"The one game lasts {N.count(m['min'])} {unit}." if m["n"] == 1 else
                f"Every one of the {m['n']:,} games lasts {N.count(m['min'])} {unit}.")
    else:
        said = (f"A game lasts {N.num_ci(m['mean'], m['lo'], m['hi'], unit)} on average over {m['n']:,} games "
                f"(standard deviation {N.num(m['sd'], 1)}; shortest {N.count(m['min'])}, longest "
                f"{N.count(m['max'])}).")
    length = Section("Game length", text=said)
    length.figures.append((f"{unit.capitalize()} per game ({N.many(m['n'], 'game')})",
                           F.png_bytes(F.histogram(lengths["length"], f"{unit.capitalize()} per game", unit,
                                                   ylabel="games"))))
    return seat_answer(seats, finished, setup.players, fair), [sec, length]


def seat_answer(seats: pl.DataFrame, finished: int, players: int, fair: float | None) -> str:
    """The generic answer (a game without its own headline) from the seats' win rates (:func:`cardsim.stats.
    seat_table`): the highest and lowest rate with 95% intervals simultaneous over the seats (Bonferroni:
    the answer picks them from the rows, so pointwise intervals would overstate them), and which seats
    differ detectably from the fair share. The highest and lowest "read" so: in this sample (the seats'
    Wilson intervals once stood here alone, pointwise, after "wins most often" and "least")."""
    from cardsim.stats import bonferroni_z, wilson_at

    k = seats.height
    t = wilson_at(seats, bonferroni_z(k))
    best = t.sort("rate", descending=True).row(0, named=True)
    worst = t.sort("rate").row(0, named=True)
    head = (f"Over {finished:,} finished games with {players} players, with 95% intervals simultaneous over the {k} "
            f"seats: seat {best['seat']}'s win rate reads highest, {pct(best['rate'], best['sim_lo'], best['sim_hi'])}, "
            f"seat {worst['seat']}'s lowest, {pct(worst['rate'], worst['sim_lo'], worst['sim_hi'])}")
    if fair is None or not N.finite(fair):
        return head + "."
    off = [r for r in t.iter_rows(named=True) if not r["sim_lo"] <= fair <= r["sim_hi"]]
    if not off:
        return head + f"; no seat differs detectably from the fair share of {N.pct(fair)}."
    listed = ", ".join(f"seat {r['seat']} ({N.points(r['rate'] - fair)})" for r in off)
    return head + f"; {listed} differ{'s' if len(off) == 1 else ''} detectably from the fair share of {N.pct(fair)}."


def _dedupe(sections: list[Section]) -> list[Section]:
    """Drop every table equal to one shown before (a game's figure table and its summary table are
    often the same frame), and sections left empty."""
    seen: list[pl.DataFrame] = []
    out = []
    for sec in sections:
        tables = []
        for title, frame in sec.tables:
            if any(frame.shape == f.shape and frame.columns == f.columns and frame.equals(f) for f in seen):
                continue
            seen.append(frame)
            tables.append((title, frame))
        sec.tables = tables
        if sec.text or sec.figures or sec.tables:
            out.append(sec)
    return out


def build(result, title: str | None = None) -> Report:
    """Assemble the report of a finished run (:class:`cardsim.api.Result`)."""
    from cardsim.metrics import balance_table
    from cardsim.report import figures as F

    s = result.scenario
    game = get_game(s.game)
    setup = s.setup
    none = game.none_finished(result.tables, setup)
    if none:  # a report of win rates, lengths and figures over no finished game has nothing to show
        from cardsim.errors import ScenarioError

        raise ScenarioError(f"{result.path}: no report: {none[0].lower()}{none[1:]}")
    answer, sections = standard_sections(result)
    headline = game.headline(result.tables, setup)
    if headline:
        answer = N.one_game_note(headline, s.games)
    for t, figs, tables in game.figures(result.tables, setup):
        sections.append(Section(t, figures=[(c, F.png_bytes(f)) for c, f in figs], tables=tables))
    sections.append(Section("Balance metrics", text=(
        "Evaluation metrics game designers know from Ludii, each with its 95% interval: balance (1 is "
        "perfectly fair), the first player's and the first dealer's advantage over the mean seat (in "
        "percentage points), the game's duration, and, where the game keeps a running score, how "
        "decisive and dramatic it is."),
        tables=[("Balance metrics", balance_table(game, result.tables, setup))]))
    sections.append(Section("More tables", text="The rest of the summary that cardsim run prints.",
                            tables=game.summarize(result.tables, setup)))
    seats = ", ".join(f"{i}: {x['policy']}" + (f" {x['params']}" if x["params"] else "")
                      for i, x in enumerate(setup.describe()["seats"]))
    rules = ", ".join(f"{k} = {N.text(v)}" for k, v in setup.describe()["rules"].items())
    meta = {
        "game": f"{game.title} ({s.game}), variant {setup.variant}, {setup.players} players",
        "seats": seats, "rules": rules or "(none)", "games": f"{s.games:,}", "seed": str(s.seed),
        "rules version": str(game.rules_version), "cardsim version": __version__,
        "run directory": f"{result.path.name} (scenario hash {s.hash()})",
    }
    if getattr(result, "stop", ""):  # an --until run: where and why it stopped
        meta["stopped"] = result.stop
    text = s.path.read_text(encoding="utf-8", errors="replace") if s.path is not None and s.path.exists() else json.dumps(dict(s.raw), indent=1)
    report_title = title or s.raw.get("report", {}).get("title") or f"{game.title}: {s.name}"
    from cardsim.stats import ROWWISE

    return Report(s.name, report_title, s.question or "What does this scenario's run show?", answer, meta, text,
                  _dedupe(sections), intervals=ROWWISE)


#: the studies' kinds (build_study's ``kind``), their modules and the class of their results
STUDIES = {"compare": ("compare", "CompareResult"), "sweep": ("sweep", "SweepResult"),
           "ratings": ("rate", "RatingResult"), "cards": ("cards", "CardsResult"),
           "search": ("search", "SearchResult"), "meta": ("meta", "MetaResult")}


def _study_kind(res: object) -> str | None:
    """The kind of study whose result ``res`` is (None: not a study's result)."""
    return next((k for k, (_, cls) in STUDIES.items()
                 if type(res).__name__ == cls and type(res).__module__ == f"cardsim.studies.{STUDIES[k][0]}"), None)


def write(result, out_dir: str | Path = "reports", title: str | None = None) -> Path:
    """Write the report of a run (its :class:`cardsim.api.Result`, or its run directory's path) under ``out_dir``."""
    from cardsim import api
    from cardsim.errors import ScenarioError

    if isinstance(result, (str, Path)):  # a run directory, as `cardsim report RUN_DIR` takes it
        result = api.open_run(result)
    if not isinstance(result, api.Result):  # an AttributeError on .scenario
        kind = _study_kind(result)
        if kind is not None:
            raise ScenarioError(f"report.write takes a run's Result; a {kind} study's result is reported with "
                                f"cardsim.report.build_study(scenario, {kind!r}, result).write(out_dir)")
        raise ScenarioError(f"report.write takes a run's Result (cardsim.run, cardsim.open_run) or a run "
                            f"directory's path, not {type(result).__name__}")
    return build(result, title).write(out_dir)


def build_study(base, kind: str, res) -> Report:
    """The report of a study (``kind``: compare, sweep, ratings, cards, search, meta)."""
    import importlib

    from cardsim import api
    from cardsim.errors import ScenarioError
    from cardsim.report.search import SECTIONS as SCALE_SECTIONS
    from cardsim.report.studies import SECTIONS

    if kind not in STUDIES:  # a ModuleNotFoundError ('cmpare', 'run')
        hint = "; a run's report: cardsim.report.write(result, out_dir)" if kind == "run" else ""
        raise ScenarioError(f"build_study: kind {kind!r} is not a study; allowed: {', '.join(STUDIES)}{hint}")
    if _study_kind(res) != kind:  # an IndexError or AttributeError deep in the sections
        given = _study_kind(res)
        what = f"a {given} study's result" if given else f"a {type(res).__name__}"
        raise ScenarioError(f"build_study: kind {kind!r} needs the result of cardsim.{'rate' if kind == 'ratings' else kind}"
                            f"(...) ({STUDIES[kind][1]}), and was given {what}")
    if not isinstance(base, api.sc.Scenario):  # a scenario file's path, as the study functions take it
        base = api.load(base)
    mod = importlib.import_module(f"cardsim.studies.{STUDIES[kind][0]}")
    game = get_game(base.game)
    setup = base.setup
    meta = {
        "game": f"{game.title} ({base.game}), variant {setup.variant}, {setup.players} players",
        "study": kind, "games per run": f"{base.games:,}", "seed": str(base.seed),
        "rules version": str(game.rules_version), "cardsim version": __version__,
    }
    text = base.path.read_text(encoding="utf-8", errors="replace") if base.path is not None and base.path.exists() else json.dumps(dict(base.raw), indent=1)
    title = base.raw.get("report", {}).get("title") or f"{game.title}: {base.name}"
    sections = SCALE_SECTIONS[kind](res) if kind in SCALE_SECTIONS else [SECTIONS[kind](res)]
    if kind in SCALE_SECTIONS:  # search and meta play in memory: no run directory, no games per run
        meta.pop("games per run")
    return Report(base.name, title, base.question or f"What does this {kind} show?", mod.headline(res), meta, text,
                  _dedupe(sections), intervals=mod.intervals(res) if hasattr(mod, "intervals") else
                  getattr(mod, "INTERVALS", ""))
