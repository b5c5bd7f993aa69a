"""``docs/traces.md``: what ``cardsim trace --format jsonl`` prints, generated from the header's
fields (:data:`cardsim.tracing.HEADER`) and each game's ``trace_schema.EVENTS``."""

from __future__ import annotations

import importlib

from cardsim.games import game_names, get_game
from cardsim.tracing import HEADER

INTRO = """\
# Trace events

`cardsim trace GAME --format jsonl` prints one JSON object per line, one per event, in the order
things happen at the table. Every event has `event` (its name, the headings below) and `game` (the
game's index in the run, the same game as rows `game` of the tables; in FOURBID the unit's index:
a hand, a game or a tournament). The other fields are listed below for every event of every game;
a field marked *(optional)* is present in only some events of that name, as its meaning says.
Seats are seat numbers 0..players-1 unless a meaning says otherwise, and cards are named as the
rule sheets write them. Where a field lists cards, its meaning gives their order.

Each game's events start with a `header` event, so a trace alone is enough to play a game
again and check it: `cardsim.tracing.replay(header)` rebuilds the set-up from the header and
returns the same events.

```python
import json
from cardsim.tracing import replay

events = [json.loads(line) for line in open("trace.jsonl")]   # cardsim trace ... --format jsonl
again = replay(events[0])          # the first game's header: that game played again
assert again == events[: len(again)]
```

This page is generated from `cardsim/tracing.py` and `cardsim/games/<game>/trace_schema.py`
(`python -m cardsim.docs traces`); a test checks every event of real traces of every game
against them (an unknown event, an unknown field or a missing field fails).
"""


def _table(fields: dict[str, str]) -> list[str]:
    rows = ["| field | meaning |", "| --- | --- |"]
    for name, meaning in fields.items():
        text = meaning.replace("|", "\\|")
        if text.startswith("(optional) "):
            text = "*(optional)* " + text[len("(optional) "):]
        rows.append(f"| `{name}` | {text} |")
    return rows


def _doc(module) -> str:
    """The schema module's docstring after its first line, as one Markdown paragraph."""
    body = (module.__doc__ or "").split("\n\n", 1)
    return " ".join(body[-1].split()).replace("``", "`") if len(body) > 1 else ""


def render() -> str:
    """The whole page."""
    out = [INTRO, "## Contents", "", "- [The header (every game)](#the-header-every-game)"]
    games = [get_game(n) for n in game_names()]
    for g in games:
        out.append(f"- [{g.title} (`{g.name}`)](#{_anchor(f'{g.title} ({g.name})')})")
    out += ["", "## The header (every game)", "",
            "The first event of every game's trace (`\"event\": \"header\"`, with `game` the game's index):", ""]
    out += _table(HEADER)
    for g in games:
        module = importlib.import_module(f"cardsim.games.{g.name}.trace_schema")
        out += ["", f"## {g.title} (`{g.name}`)", ""]
        intro = _doc(module)
        if intro:
            out += [intro, ""]
        out.append("Events: " + ", ".join(f"[`{e}`](#{_anchor(g.name + '-' + e)})" for e in module.EVENTS) + ".")
        for event, fields in module.EVENTS.items():
            out += ["", f"### {g.name}: `{event}`", ""]
            out += _table(fields) if fields else ["(no fields but `event` and `game`)"]
    return "\n".join(out) + "\n"


def _anchor(title: str) -> str:
    """GitHub's anchor for a heading."""
    keep = "".join(c for c in title.lower().replace(" ", "-") if c.isalnum() or c in "-_")
    return keep
