"""The plug-in manual: what each decision's arguments mean, per game (``docs/plugins.md``).

Each game package documents its decisions in ``plugin_api.py`` (``ARGS``:
decision -> {argument: meaning}, ``RETURNS``: decision -> what to return).
``cardsim games GAME`` prints them, and :func:`render` writes the manual
page (``python -m cardsim.plugin_docs > docs/plugins.md``; a test checks the
committed page is up to date).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from cardsim.games import game_names, get_game
from cardsim.games.base import Game

INTRO = """\
# Plug-in policies

A plug-in is a Python file with one `@numba.njit` function per decision point of a game, named
`<name>_<decision>`, plus an optional dict `<name>_params` of parameter names and default numbers.
A scenario names it `"path/to/file.py:name"` (a relative path from the scenario file's folder, else from the current folder), alone or as
a table that overrides parameters (`{name = "mine.py:cautious", top = 10}`):

```python
# mine.py
import numba

cautious_params = {"top": 8.0}          # params[0] in every decision, 8 unless the scenario says otherwise

@numba.njit
def cautious_call(hand, pos, point, seat, dealer, rnd, params, rng):
    strong = 0
    for i in range(5):
        strong += pos[hand[i]] < params[0]
    return 1 if strong >= 3 else 0
```

- **Arguments** are positional and must be exactly the ones listed below for the game and decision,
  in that order (their meanings are below too, and in `cardsim games GAME`). Arrays are numpy
  arrays, passed read-only: a write into one does not compile (one line naming it) except where a
  decision says so (FUBNUB's `swap` fills `out`; `rng` is the seat's stream); copy one to change it.
- **Answers** are ints (a bool counts as 0 or 1): a decision returning a float or a tuple does not
  compile (a 0.5 would have been truncated to 0).
- **Randomness**: draw only from `rng`, the seat's own stream (`from cardsim.rng import randint,
  uniform`; `randint(rng, n)` is 0..n-1), so games stay reproducible from the seed. A plug-in whose
  functions call `np.random` or `random` is refused (numba seeds those per process: the same seed
  would play other games).
- **Optional decisions** (FUBNUB Full Deck's `steal`, `pick`, `keep`, `peek`) may be left out; the
  table below says what a seat does then.
- **Helpers**: the file may import modules from its own folder; they count as part of the plug-in.
- **Illegal answers** stop the run with one line naming the seat, the decision, the value and what
  was legal (exit 2).
- **Bounds**: `params` holds the plug-in's own parameters only (its `<name>_params` dict's, in order),
  and the decision functions run bounds-checked: an index past the end of an array (`params[1]` with
  one parameter) stops the run with one line (exit 2).

## Runs, caching and errors

- A run's identity covers each plug-in's **content** (its file and the modules it imports from its
  folder), not its path: edit a plug-in and `cardsim run` plays new games in a new run directory
  (and refuses to extend the old one with `--out`, naming the plug-in that changed); the same holds
  for the runs of `compare`, `sweep` and `rate`.
- The first run of a set of plug-ins compiles the game's kernel with them (`compiling ... (first run
  only)` on stderr, 15-40 s); the compiled kernel is cached under the numba cache, keyed by the
  plug-ins' content, so later processes start at once.
- A plug-in that raises prints one line, `error: plug-in mine.py, function cautious_card, line 12
  raised ValueError: ...`, and a plug-in numba cannot compile (a wrong signature, an unsupported
  operation) one line with the file, function, line and the first useful line of numba's message;
  both exit with code 2. `cardsim --debug run ...` prints the whole traceback or typing message too.
"""


def decision_docs(game: Game) -> tuple[Mapping[str, Mapping[str, str]], Mapping[str, str]]:
    """(decision -> {argument: meaning}, decision -> what it returns) of ``game``."""
    api = importlib.import_module(f"{type(game).__module__.rsplit('.', 1)[0]}.plugin_api")
    return api.ARGS, api.RETURNS


def _cell(text: str) -> str:
    """``text`` for a Markdown table cell."""
    return text.replace("|", "/").replace("<", "&lt;").replace(">", "&gt;")


def render() -> str:
    """The whole ``docs/plugins.md``."""
    out = [INTRO]
    for name in game_names():
        g = get_game(name)
        args, returns = decision_docs(g)
        out.append(f"## {g.title} (`{g.name}`)\n")
        doc = importlib.import_module(f"{type(g).__module__.rsplit('.', 1)[0]}.plugin_api").__doc__ or ""
        out.append(" ".join(doc.split("\n\n", 1)[1].split()) + "\n" if "\n\n" in doc else "")
        for d, sig in {**g.decisions, **g.optional_decisions}.items():
            opt = (f" *Optional; left out: {g.optional_fallbacks[d][0]}.*" if d in g.optional_decisions else "")
            out.append(f"### `<name>_{d}({sig})`\n\nReturns {_cell(returns[d])}.{opt}\n")
            out.append("| argument | meaning |\n| --- | --- |")
            out.extend(f"| `{a}` | {_cell(m)} |" for a, m in args[d].items())
            out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(render(), end="")
