"""Traces that stand alone: a ``header`` event before each game's events, streaming in batches,
and replay from a header.

A game's trace (``Game.trace``) lists what happened; the header says how to play that game again:
the game, variant and players, every knob's value, each seat's policy with its parameters (a
plug-in by its ``/absolute/path.py:name`` reference and a hash of its content), the root seed, the
game's index and the rules and cardsim versions. :func:`replay` rebuilds the set-up from a header alone and plays the game
again, event for event. ``cardsim trace`` and the golden traces (``make golden``) print
:func:`traced`, which plays any range of games in bounded batches, so memory stays flat however
many games are traced.
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cardsim

if TYPE_CHECKING:
    from cardsim.games.base import Game, Setup

#: the header's fields (every game; docs/traces.md and the schema test read this)
HEADER: dict[str, str] = {
    "game_name": "the game (`cardsim games` lists them)",
    "variant": "the variant played",
    "players": "players at the table (ghosts not counted)",
    "rules": "every knob of the variant with its value, {knob: value} (lists for list knobs)",
    "seats": "one entry per seat (FOURBID tournament: per player P1..P4), in seat order: {\"policy\": a built-in "
             "name or a plug-in's \"/absolute/path.py:name\", \"params\": {parameter: value}, every parameter "
             "of the policy}; a plug-in's entry also has \"source\", a hash of its content (the file and the "
             "modules it imports from its folder), so a replay after an edit is refused",
    "seed": "the root seed (`--seed`)",
    "rules_version": "the game's rules version (bumped whenever its games change)",
    "cardsim_version": "the cardsim version that wrote the trace",
}


def schema(game_name: str) -> dict[str, dict[str, str]]:
    """Every event a trace of the game holds (``event`` and ``game`` aside), name -> {field: meaning}:
    the ``header`` and the game's ``trace_schema.EVENTS``."""
    module = importlib.import_module(f"cardsim.games.{game_name}.trace_schema")
    return {"header": HEADER, **module.EVENTS}


def header(game: Game, setup: Setup, seed: int, index: int) -> dict[str, Any]:
    """The ``header`` event of game ``index``: everything :func:`replay` needs."""
    from cardsim.policies import plugin_source_key

    d = setup.describe()
    for seat, desc in zip(setup.seats, d["seats"], strict=True):
        if seat.plugin:
            desc["source"] = plugin_source_key(seat.plugin.rsplit(":", 1)[0])
    return {"event": "header", "game": index, "game_name": game.name, "variant": d["variant"],
            "players": d["players"], "rules": d["rules"], "seats": d["seats"], "seed": seed,
            "rules_version": game.rules_version, "cardsim_version": cardsim.__version__}


def traced(game: Game, setup: Setup, seed: int, start: int, count: int,
           batch: int | None = None) -> Iterator[dict[str, Any]]:
    """The events of games ``start .. start+count-1`` with root seed ``seed``, each game's
    ``header`` first. Games are played ``batch`` at a time (default ``game.trace_batch``) and
    yielded as they come, so memory does not grow with ``count``."""
    from cardsim.rng import root_key

    key = root_key(seed)
    step = max(1, batch or game.trace_batch)
    head = header(game, setup, seed, start)  # once: a plug-in's source is hashed from its files
    for lo in range(start, start + count, step):
        n = min(step, start + count - lo)
        events = game.trace(setup, key, lo, n)
        i = 0
        for g in range(lo, lo + n):
            yield {**head, "game": g, "seats": copy.deepcopy(head["seats"])}
            while i < len(events) and events[i]["game"] == g:
                yield events[i]
                i += 1
        if i != len(events):
            raise RuntimeError(f"{game.name}: trace events out of game order at event {i} "
                               f"(game {events[i]['game']}) in games {lo}..{lo + n - 1}")


def describe(game: Game, event: Mapping[str, Any]) -> str:
    """One line of text for an event of ``game``'s trace, its header included."""
    if event.get("event") != "header":
        return game.describe_event(event)
    rules = ", ".join(f"{k}={json.dumps(v)}" for k, v in event["rules"].items())
    seats = ", ".join(s["policy"] + (f"({', '.join(f'{k}={v:g}' for k, v in s['params'].items())})"
                                     if s["params"] else "") for s in event["seats"])
    return (f"=== {event['game_name']} {event['variant']}, {event['players']} players, seed {event['seed']}, "
            f"game {event['game']} (rules version {event['rules_version']}, cardsim {event['cardsim_version']}); "
            f"rules: {rules}; seats: {seats}")


def setup_from_header(head: Mapping[str, Any]) -> tuple[Game, Setup]:
    """The game and the set-up a ``header`` event describes (validated as a scenario is)."""
    from cardsim.errors import ScenarioError
    from cardsim.games import get_game
    from cardsim.scenario import build_setup

    if head.get("event") != "header":
        raise ScenarioError(f"not a trace header: event = {head.get('event')!r}")
    game = get_game(head["game_name"])
    if head["rules_version"] != game.rules_version:
        raise ScenarioError(f"the trace was written under {game.name} rules version {head['rules_version']}; "
                            f"this cardsim plays rules version {game.rules_version}, so its games differ")
    seats = [{"name": s["policy"], **s["params"]} for s in head["seats"]]
    setup = build_setup(game, head["variant"], head["players"], seats, head["rules"])
    now = header(game, setup, int(head["seed"]), int(head["game"]))["seats"]
    for i, (then, seat) in enumerate(zip(head["seats"], now, strict=True)):
        if "source" in then and then["source"] != seat.get("source"):
            raise ScenarioError(f"seat {i}'s plug-in {Path(then['policy'].rsplit(':', 1)[0]).name} has changed since "
                                f"the trace was written (source {then['source']} then, {seat.get('source')} now): "
                                f"its replay would play other games")
    return game, setup


def replay(head: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Play the game a ``header`` event describes again: its header and events, as traced."""
    game, setup = setup_from_header(head)
    return list(traced(game, setup, int(head["seed"]), int(head["game"]), 1))
