"""The ``cardsim`` command line: parses, calls the library, prints (STYLE habit 11).

Every user error (a bad scenario, an unknown policy, a corrupt run
directory) ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

import functools
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from cardsim.errors import CardsimError
from cardsim.output import Format as OutFormat
from cardsim.output import Output, emit

app = typer.Typer(
    name="cardsim",
    help="Monte Carlo strategy analysis for FUBNUB, Bad Bad Turtle, Gubs and FOURBID.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


#: ``--format`` of the commands that answer a question (cardsim.output)
FORMAT = typer.Option("--format", "-f", help="table for people; json or csv for programs")


def user_errors(fn):
    """Turn :class:`CardsimError` into one line on stderr and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CardsimError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def _progress(label: str):
    """A rich progress bar as a ``(done, total)`` callback, and the context that shows it."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   transient=False, disable=not sys.stderr.isatty(), console=Console(stderr=True))
    task = bar.add_task(label, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return bar, update


def _parse_rules(rules: list[str] | None) -> dict[str, Any]:
    import tomllib

    out: dict[str, Any] = {}
    for r in rules or []:
        if "=" not in r:
            raise CardsimError(f"--rule {r!r} must look like name=value (a TOML value, e.g. point_cards=7)")
        k, v = r.split("=", 1)
        try:
            out[k.strip()] = tomllib.loads(f"x = {v}")["x"]
        except tomllib.TOMLDecodeError:
            out[k.strip()] = v
    return out


# -- games ------------------------------------------------------------------------
@app.command()
@user_errors
def games(
    game: Annotated[str | None, typer.Argument(help="show one game only")] = None,
) -> None:
    """List games, variants, rule knobs (with defaults), policies and output tables."""
    from cardsim.games import game_names, get_game

    for name in [game] if game else game_names():
        g = get_game(name)
        typer.echo(f"{g.name}: {g.title} (rules version {g.rules_version})")
        typer.echo("  variants:")
        for v in g.variants:
            typer.echo(f"    {v.name:<14} {v.min_players}-{v.max_players} players (default {v.default_players}): {v.help}")
        typer.echo("  knobs ([rules]):")
        for k in g.knobs:
            d = list(k.default) if isinstance(k.default, tuple) else k.default
            only = f" [variants: {', '.join(k.variants)}]" if k.variants else ""
            typer.echo(f"    {k.name} = {json.dumps(d)}  ({k.allowed()}){only}\n        {k.help}")
        typer.echo("  policies:")
        for p in g.policies:
            params = ", ".join(f"{n}={v:g}" for n, v in p.params)
            typer.echo(f"    {p.name}{f' ({params})' if params else ''}: {p.help}")
        typer.echo("  plug-in decisions (define <name>_<decision> with @numba.njit):")
        for d, args in g.decisions.items():
            typer.echo(f"    {d}({args})")
        for d, args in g.optional_decisions.items():
            typer.echo(f"    {d}({args})  [optional; left out: {g.optional_fallbacks[d][0]}]")
        typer.echo("  tables: " + ", ".join(f"{t} ({len(c)} columns)" for t, c in g.columns.items()))
        typer.echo("")


# -- run --------------------------------------------------------------------------
@app.command()
@user_errors
def run(
    scenario: Annotated[Path, typer.Argument(help="scenario TOML file")],
    games: Annotated[int | None, typer.Option("--games", "-n", help="games to play (overrides the scenario)")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")] = None,
    out: Annotated[Path | None, typer.Option(help="run directory (default: RUNS/<name>-<hash>)")] = None,
    runs: Annotated[Path, typer.Option(help="parent of default run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads (results do not depend on it)")] = None,
    debug: Annotated[bool, typer.Option(help="check card conservation at every step (slow)")] = False,
    until: Annotated[str | None, typer.Option(help="stop when an estimate is this precise, e.g. 'winrate_s0 +-0.002' "
                                                   "(anytime-valid; --games is the cap)")] = None,
    balance: Annotated[bool, typer.Option(help="also print the balance metrics")] = False,
    backend: Annotated[str | None, typer.Option(help="local (threads, default) or dask")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="workers of a local Dask cluster")] = None,
    scheduler: Annotated[str | None, typer.Option(help="address of a Dask scheduler, e.g. tcp://host:8786")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Run a scenario (resuming or extending its run directory) and print the summary."""
    from cardsim import api

    s = api.load(scenario, games, seed)
    be = api.make_backend(s, backend, workers, scheduler)
    bar, update = _progress(f"{s.name}: games")
    try:
        with bar:
            result = api.run(s, out=out, runs=runs, threads=threads, progress=update, debug=debug, until=until,
                             backend=be)
    finally:
        if be is not None:
            be.close()
    s = result.scenario
    emit(Output(f"{s.name}: {s.games:,} games of {s.game} ({s.setup.variant}), seed {s.seed}, "
                f"run directory {result.path}",
                result.summary() + ([("Balance metrics", result.balance())] if balance else []),
                notes=[result.stop] if result.stop else [],
                fields={"run_dir": str(result.path), "games": s.games, "seed": s.seed}), fmt)


# -- trace ------------------------------------------------------------------------
class Format(StrEnum):
    text = "text"
    jsonl = "jsonl"


@app.command()
@user_errors
def trace(
    game: Annotated[str, typer.Argument(help="game name (cardsim games)")],
    seed: Annotated[int, typer.Option(help="root seed")] = 0,
    policy: Annotated[list[str] | None, typer.Option("--policy", "-p",
                      help="policy per seat (repeat), or one for all seats")] = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, max=1000, help="games to trace")] = 1,
    start: Annotated[int, typer.Option(min=0, help="first game index (the same game as in a run)")] = 0,
    variant: Annotated[str | None, typer.Option(help="variant (default: the game's first)")] = None,
    players: Annotated[int | None, typer.Option(help="number of players")] = None,
    rule: Annotated[list[str] | None, typer.Option("--rule", "-r", help="knob as name=value (repeat)")] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="text for people, jsonl for programs")] = Format.text,
) -> None:
    """Print games move by move, from the same kernel as the fast runs."""
    from cardsim.games import get_game
    from cardsim.rng import root_key
    from cardsim.scenario import build_setup

    g = get_game(game)
    pols: Any = None
    if policy:
        pols = policy[0] if len(policy) == 1 else list(policy)
    setup = build_setup(g, variant, players, pols, _parse_rules(rule), base_dir=Path.cwd())
    for e in g.trace(setup, root_key(seed), start, games):
        typer.echo(json.dumps(e) if fmt == Format.jsonl else g.describe_event(e))


# -- bench ------------------------------------------------------------------------
@app.command()
@user_errors
def bench(
    game: Annotated[list[str] | None, typer.Argument(help="games to bench (default: all)")] = None,
    count: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per timed repetition")] = None,
    interp: Annotated[int | None, typer.Option(min=1, help="games for the interpreted run")] = None,
    markdown: Annotated[bool, typer.Option(help="print a Markdown table (for the README)")] = False,
    variants: Annotated[bool, typer.Option("--variants", help="bench every variant, not only the first")] = False,
    memory: Annotated[int | None, typer.Option(help="also run this many FUBNUB hands through `cardsim run` and "
                                                    "report its peak resident memory (make bench: 100000000)")] = None,
) -> None:
    """Units per second: full kernel vs the same kernel interpreted vs a minimal kernel."""
    from cardsim.bench import bench as run_bench
    from cardsim.games import game_names, get_game

    if memory:
        from cardsim.bench import memory as run_memory

        m = run_memory(memory)
        typer.echo(f"memory: {m.hands:,} FUBNUB hands ({m.games:,} games) through `cardsim run` in {m.seconds:,.0f} s "
                   f"({m.hands / m.seconds:,.0f} hands/s end to end, parquet included): peak resident "
                   f"{m.peak_rss_mib:,.0f} MiB")

    names = game or game_names()
    for n in names:
        get_game(n)
    jobs = [(n, v.name) for n in names for v in (get_game(n).variants if variants else get_game(n).variants[:1])]
    if markdown:
        typer.echo("| game | variant | unit | full kernel /s | with tables /s | interpreted /s | minimal /s | "
                   "full / interpreted | full / minimal | pairs' range |")
        typer.echo("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, v in jobs:
        r = run_bench(n, count, interp, v)
        spread = f"{min(r.ratios):.2f}-{max(r.ratios):.2f}"
        if markdown:
            typer.echo(f"| {r.game} | {r.variant} | {r.unit} | {r.full:,.0f} | {r.tables:,.0f} | {r.interpreted:,.0f} | "
                       f"{r.minimal:,.0f} | {r.vs_interpreted:,.0f}x | {r.vs_minimal:.2f} | {spread} |")
        else:
            typer.echo(f"{r.game} {r.variant}: {r.full:,.0f} {r.unit}s/s full kernel ({r.tables:,.0f}/s with tables), "
                       f"{r.interpreted:,.0f}/s interpreted, {r.minimal:,.0f}/s minimal kernel; "
                       f"full/interpreted = {r.vs_interpreted:,.0f}x, full/minimal = {r.vs_minimal:.2f} "
                       f"(median of {len(r.ratios)} back-to-back pairs, {spread})")


# -- studies ----------------------------------------------------------------------
def _study(kind: str, scenario: Path, games: int | None, runs: Path, threads: int | None, fmt: OutFormat) -> None:
    from cardsim import api
    from cardsim.studies import compare as cmp
    from cardsim.studies import rate as rt
    from cardsim.studies import sweep as sw

    s = api.load(scenario)
    fn = {"compare": api.compare, "sweep": api.sweep, "ratings": api.rate}[kind]
    mod = {"compare": cmp, "sweep": sw, "ratings": rt}[kind]
    bar, update = _progress(f"{s.name}: games")
    with bar:
        res = fn(s, games=games, runs=runs, threads=threads, progress=update)
    emit(mod.output(res), fmt)


@app.command()
@user_errors
def compare(
    scenario: Annotated[Path, typer.Argument(help="scenario with a [compare] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per arm and rotation (cap in decide mode)")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Paired comparison of arms on the same deals, with seat rotation."""
    _study("compare", scenario, games, runs, threads, fmt)


@app.command()
@user_errors
def sweep(
    scenario: Annotated[Path, typer.Argument(help="scenario with a [sweep] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per point")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """One row per grid point, with intervals."""
    _study("sweep", scenario, games, runs, threads, fmt)


@app.command()
@user_errors
def rate(
    scenario: Annotated[Path, typer.Argument(help="scenario with a [ratings] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per pair and rotation")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Rate policies by a round robin or gauntlet (Bradley-Terry, with intervals)."""
    _study("ratings", scenario, games, runs, threads, fmt)


def _scale_study(kind: str, scenario: Path, size: int | None, seed: int | None, runs: Path, threads: int | None,
                 backend: str | None, workers: int | None, scheduler: str | None, fmt: OutFormat) -> None:
    """``search`` and ``meta``: in-memory evaluation on local threads or a Dask cluster."""
    import importlib

    from cardsim import api

    mod = importlib.import_module(f"cardsim.studies.{kind}")
    s = api.load(scenario, seed=seed)
    be = api.make_backend(s, backend, workers, scheduler)
    bar, update = _progress(f"{s.name}: {'search games' if kind == 'search' else 'profiles'}")
    try:
        with bar:
            if kind == "search":
                res = api.search(s, budget=size, runs=runs, threads=threads, progress=update, backend=be)
            else:
                res = api.meta(s, games=size, runs=runs, threads=threads, progress=update, backend=be)
    finally:
        if be is not None:
            be.close()
    emit(mod.output(res), fmt)


Seed = Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")]
Threads = Annotated[int | None, typer.Option(min=1, help="local threads (results do not depend on it)")]
BackendOpt = Annotated[str | None, typer.Option(help="local (threads, default) or dask")]
Workers = Annotated[int | None, typer.Option(min=1, help="workers of a local Dask cluster")]
Scheduler = Annotated[str | None, typer.Option(help="address of a Dask scheduler, e.g. tcp://host:8786")]


@app.command()
@user_errors
def search(
    scenario: Annotated[Path, typer.Argument(help="scenario with a search section")],
    budget: Annotated[int | None, typer.Option("--budget", "-n", min=1, help="games the search may play "
                                               "(overrides search.budget)")] = None,
    seed: Seed = None,
    runs: Annotated[Path, typer.Option(help="parent of the search folder (its journal makes it resumable)")]
    = Path("runs"),
    threads: Threads = None,
    backend: BackendOpt = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Search a policy's parameters or the rules for the best objective, raced on the same deals,
    and check the winner on held-out deals."""
    _scale_study("search", scenario, budget, seed, runs, threads, backend, workers, scheduler, fmt)


@app.command()
@user_errors
def meta(
    scenario: Annotated[Path, typer.Argument(help="scenario with a meta section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="deals per profile "
                                              "(overrides meta.deals)")] = None,
    seed: Seed = None,
    runs: Annotated[Path, typer.Option(help="parent of the best-response searches' folders")] = Path("runs"),
    threads: Threads = None,
    backend: BackendOpt = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Empirical game analysis: payoff table, Nash mixture, alpha-rank, exploitability and iterated
    best response over a population of strategies."""
    _scale_study("meta", scenario, games, seed, runs, threads, backend, workers, scheduler, fmt)


# -- report -----------------------------------------------------------------------
@app.command()
@user_errors
def report(
    source: Annotated[Path, typer.Argument(help="a scenario TOML (run or resumed first) or a run directory")],
    out: Annotated[Path, typer.Option(help="reports folder; the report goes to OUT/<name>/")] = Path("reports"),
    runs: Annotated[Path, typer.Option(help="parent of default run directories")] = Path("runs"),
    games: Annotated[int | None, typer.Option("--games", "-n", help="games (overrides the scenario)")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
) -> None:
    """Write reports/<name>/index.html (self-contained) and report.md for a scenario or a run."""
    from cardsim import api
    from cardsim import report as rep

    if source.is_dir():
        path = rep.write(api.open_run(source), out)
    else:
        s = api.load(source, games)
        kind = next((k for k in ("compare", "sweep", "ratings", "search", "meta") if k in s.raw), None)
        bar, update = _progress(f"{s.name}: games")
        with bar:
            if kind is None:
                path = rep.write(api.run(s, runs=runs, threads=threads, progress=update), out)
            elif kind in ("search", "meta"):
                study = api.search if kind == "search" else api.meta
                res = study(s, runs=runs, threads=threads, progress=update)
                path = rep.build_study(s, kind, res).write(out)
            else:
                study = {"compare": api.compare, "sweep": api.sweep, "ratings": api.rate}[kind]
                res = study(s, runs=runs, threads=threads, progress=update)
                path = rep.build_study(s, kind, res).write(out)
    typer.echo(f"report written to {path / 'index.html'} and {path / 'report.md'}")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
