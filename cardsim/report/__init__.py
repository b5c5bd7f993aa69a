"""Reports: ``reports/<name>/index.html`` (self-contained) and ``report.md`` (DESIGN step 7).

A report carries the question, the scenario, a one-sentence answer with
its interval, figures with error bars, the summary tables, and the rules
version, seed and cardsim version that produced them. Every game gets the
seat and length charts from its outcome table; a game adds its own charts
through ``Game.figures`` and its headline through ``Game.headline``.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from cardsim import __version__
from cardsim.games import get_game
from cardsim.report import figures as F
from cardsim.stats import seat_table


@dataclass
class Section:
    title: str
    text: str = ""
    figures: list[tuple[str, bytes]] = field(default_factory=list)  # (caption, png)
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)


@dataclass
class Report:
    name: str
    title: str
    question: str
    answer: str
    meta: dict[str, str]
    scenario_text: str
    sections: list[Section]

    def write(self, out_dir: str | Path) -> Path:
        """Write ``index.html``, ``report.md`` and the PNGs the Markdown links to; returns the folder."""
        out = Path(out_dir) / self.name
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("fig-*.png"):
            old.unlink()
        n = 0
        md = [f"# {self.title}", "", f"**Question.** {self.question}", "", f"**Answer.** {self.answer}", ""]
        body = [f"<h1>{esc(self.title)}</h1>", f"<p class='q'><b>Question.</b> {esc(self.question)}</p>",
                f"<p class='a'><b>Answer.</b> {esc(self.answer)}</p>", "<h2>Run</h2>", html_kv(self.meta)]
        md += ["## Run", "", md_table(pl.DataFrame({"": list(self.meta), "value": list(self.meta.values())})), ""]
        for sec in self.sections:
            md += [f"## {sec.title}", ""]
            body.append(f"<h2>{esc(sec.title)}</h2>")
            if sec.text:
                md += [sec.text, ""]
                body.append(f"<p>{esc(sec.text)}</p>")
            for caption, png in sec.figures:
                n += 1
                fname = f"fig-{n:02d}.png"
                (out / fname).write_bytes(png)
                md += [f"![{caption}]({fname})", "", f"*{caption}*", ""]
                b64 = base64.b64encode(png).decode()
                body.append(f"<figure><img alt='{esc(caption)}' src='data:image/png;base64,{b64}'/>"
                            f"<figcaption>{esc(caption)}</figcaption></figure>")
            for title, frame in sec.tables:
                md += [f"**{title}**", "", md_table(frame), ""]
                body.append(f"<h3>{esc(title)}</h3>{html_table(frame)}")
        md += ["## Scenario", "", "```toml", self.scenario_text.strip(), "```", ""]
        body.append(f"<h2>Scenario</h2><pre>{esc(self.scenario_text)}</pre>")
        (out / "report.md").write_text("\n".join(md))
        (out / "index.html").write_text(PAGE.format(title=esc(self.title), body="\n".join(body)))
        return out


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 60em; margin: 2em auto;
       padding: 0 1em; color: #222; line-height: 1.45; }}
h1 {{ border-bottom: 2px solid #3b6ea5; }} h2 {{ margin-top: 2em; color: #3b6ea5; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }}
th {{ background: #eef3f8; }} td:first-child, th:first-child {{ text-align: left; }}
figure {{ margin: 1em 0; }} figcaption {{ font-size: 0.85em; color: #555; }}
pre {{ background: #f6f6f6; padding: 1em; overflow-x: auto; }} .a {{ font-size: 1.1em; }}
</style></head><body>
{body}
</body></html>
"""


def esc(s: object) -> str:
    return html.escape(str(s))


def fmt(v: object) -> str:
    if isinstance(v, float):
        if v != v:
            return "nan"
        return f"{v:.4f}" if abs(v) < 100 else f"{v:,.1f}"
    if isinstance(v, list):
        return ", ".join(fmt(x) for x in v)
    return str(v)


def md_table(frame: pl.DataFrame) -> str:
    cols = frame.columns
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(" --- " for _ in cols) + "|"]
    for row in frame.iter_rows():
        lines.append("| " + " | ".join(fmt(v).replace("|", "/") for v in row) + " |")
    return "\n".join(lines)


def html_table(frame: pl.DataFrame) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td>{esc(fmt(v))}</td>" for v in row) + "</tr>" for row in frame.iter_rows())
    return f"<table><tr>{head}</tr>{rows}</table>"


def html_kv(meta: dict[str, str]) -> str:
    return "<table>" + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in meta.items()) + "</table>"


def pct(rate: float, lo: float, hi: float) -> str:
    return f"{100 * rate:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%)"


def standard_sections(result) -> tuple[str, list[Section]]:
    """Seat win rates and game length for any game (through its outcome table)."""
    game = get_game(result.scenario.game)
    setup = result.scenario.setup
    out = result.outcomes().collect()
    seats = seat_table(out)
    fair = seats["fair"][0] if "fair" in seats.columns else None
    sec = Section("Win rate by seat")
    sec.figures.append((f"Win rate by seat with 95% Wilson intervals ({out['game'].n_unique():,} games)",
                        F.png_bytes(F.rate_bars(seats, "seat", "Win rate by seat", "seat", ref=fair))))
    sec.tables.append(("Win rate by seat", seats))
    lengths = out.group_by("game").agg(pl.col("length").first())
    length = Section(f"Game length ({game.unit}s per game)")
    length.figures.append((f"{game.unit.capitalize()}s per game",
                           F.png_bytes(F.histogram(lengths["length"], f"{game.unit}s per game", f"{game.unit}s"))))
    from cardsim.stats import mean_exprs

    length.tables.append((f"{game.unit}s per game", lengths.select(mean_exprs("length"))))
    best = seats.sort("rate", descending=True).row(0, named=True)
    worst = seats.sort("rate").row(0, named=True)
    answer = (f"Seat {best['seat']} wins most often, {pct(best['rate'], best['lo'], best['hi'])}; seat "
              f"{worst['seat']} least, {pct(worst['rate'], worst['lo'], worst['hi'])}, over "
              f"{int(best['n']):,} finished games with {setup.players} players.")
    return answer, [sec, length]


def build(result, title: str | None = None) -> Report:
    """Assemble the report of a finished run (:class:`cardsim.api.Result`)."""
    s = result.scenario
    game = get_game(s.game)
    setup = s.setup
    answer, sections = standard_sections(result)
    headline = game.headline(result.tables, setup)
    if headline:
        answer = headline
    for t, figs, tables in game.figures(result.tables, setup):
        sections.append(Section(t, figures=[(c, F.png_bytes(f)) for c, f in figs], tables=tables))
    from cardsim.metrics import balance_table

    sections.append(Section("Balance metrics", text="Ludii-style evaluation metrics with 95% intervals.",
                            tables=[("Balance metrics", balance_table(game, result.tables, setup))]))
    sections.append(Section("Summary tables", tables=game.summarize(result.tables, setup)))
    seats = ", ".join(f"{i}: {x['policy']}" + (f" {x['params']}" if x["params"] else "")
                      for i, x in enumerate(setup.describe()["seats"]))
    rules = ", ".join(f"{k}={v}" for k, v in setup.describe()["rules"].items())
    meta = {
        "game": f"{game.title} ({s.game}), variant {setup.variant}, {setup.players} players",
        "seats": seats, "rules": rules, "games": f"{s.games:,}", "seed": str(s.seed),
        "rules version": str(game.rules_version), "cardsim version": __version__,
        "run": f"{result.path.name} (scenario hash {s.hash()})",
        "made": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    text = s.path.read_text() if s.path is not None and s.path.exists() else json.dumps(dict(s.raw), indent=1)
    report_title = title or s.raw.get("report", {}).get("title") or f"{game.title}: {s.name}"
    return Report(s.name, report_title, s.question or "What does this scenario's run show?", answer, meta, text,
                  sections)


def write(result, out_dir: str | Path = "reports", title: str | None = None) -> Path:
    return build(result, title).write(out_dir)


def build_study(base, kind: str, res) -> Report:
    """The report of a study (``kind``: compare, sweep, ratings, search, meta)."""
    import importlib

    from cardsim.report.search import SECTIONS as SCALE_SECTIONS
    from cardsim.report.studies import SECTIONS

    mod = importlib.import_module(f"cardsim.studies.{'rate' if kind == 'ratings' else kind}")
    game = get_game(base.game)
    setup = base.setup
    meta = {
        "game": f"{game.title} ({base.game}), variant {setup.variant}, {setup.players} players",
        "study": kind, "games per run": f"{base.games:,}", "seed": str(base.seed),
        "rules version": str(game.rules_version), "cardsim version": __version__,
        "made": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    text = base.path.read_text() if base.path is not None and base.path.exists() else json.dumps(dict(base.raw))
    title = base.raw.get("report", {}).get("title") or f"{game.title}: {base.name}"
    sections = SCALE_SECTIONS[kind](res) if kind in SCALE_SECTIONS else [SECTIONS[kind](res)]
    if kind in SCALE_SECTIONS:  # search and meta play in memory: no run directory, no games per run
        meta.pop("games per run")
    return Report(base.name, title, base.question or f"What does this {kind} show?", mod.headline(res), meta, text,
                  sections)
