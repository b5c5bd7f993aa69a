"""The Python API; the CLI is a thin layer over these functions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cardsim import scenario as sc
from cardsim.errors import RunDirError
from cardsim.games import get_game
from cardsim.results import RunDir
from cardsim.runner import Progress, default_run_dir, execute, plan


@dataclass
class Result:
    """A finished run: its directory, scenario and tables (lazy polars)."""

    scenario: sc.Scenario
    rundir: RunDir

    @property
    def path(self) -> Path:
        return self.rundir.path

    @property
    def tables(self) -> dict[str, pl.LazyFrame]:
        """Each table of the run, restricted to this scenario's games."""
        chunks = [c.index for c in plan(self.scenario.games, self.scenario.chunk)]
        game = get_game(self.scenario.game)
        return {t: self.rundir.scan(t, chunks) for t in game.columns}

    def summary(self) -> list[tuple[str, pl.DataFrame]]:
        """The game's summary tables, each with n and 95% intervals."""
        return get_game(self.scenario.game).summarize(self.tables, self.scenario.setup)

    def outcomes(self) -> pl.LazyFrame:
        """One row per (game, seat): win (1, 1/k shared, 0; null unfinished) and length."""
        return get_game(self.scenario.game).outcomes(self.tables, self.scenario.setup)


def open_run(path: str | Path) -> Result:
    """The :class:`Result` of an existing run directory (its scenario comes from the manifest)."""
    rd = RunDir(path)
    m = rd.read_manifest()
    try:
        s = sc.from_dict(m["scenario"], name=m.get("name", "run"))
    except sc.ScenarioError as exc:
        raise RunDirError(f"{rd.manifest_path}: its scenario no longer validates: {exc}") from None
    s = s.with_options(games=max(1, int(m.get("games", s.games))))
    if s.hash() != m["hash"]:
        raise RunDirError(f"{rd.path} was made by another rules version or cardsim (hash {m['hash']}, now {s.hash()})")
    return Result(s, rd)


def load(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None) -> sc.Scenario:
    s = scenario if isinstance(scenario, sc.Scenario) else sc.load(scenario)
    return s.with_options(games=games, seed=seed)


def run(scenario: str | Path | sc.Scenario, games: int | None = None, seed: int | None = None,
        out: str | Path | None = None, runs: str | Path = "runs", threads: int | None = None,
        progress: Progress | None = None, debug: bool = False) -> Result:
    """Run (or resume, or extend) a scenario and return its :class:`Result`.

    ``out`` is the run directory (default ``runs/<name>-<hash>``). Finished
    chunks already in it are reused, so calling ``run`` twice costs nothing.
    """
    s = load(scenario, games, seed)
    path = Path(out) if out is not None else default_run_dir(s, runs)
    rd = execute(s, path, threads=threads, progress=progress, debug=debug)
    return Result(s, rd)
