"""Derived scenarios: arms of a comparison, points of a sweep, seat rotations.

Each derived scenario is an ordinary scenario (validated, with its own run
directory and hash), built from the base scenario's TOML with some keys
replaced, so everything the runner does (resume, extend, Dask) applies.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Mapping
from typing import Any

from cardsim import scenario as sc
from cardsim.errors import ScenarioError, allowed_list, did_you_mean

DERIVED_DROP = ("compare", "sweep", "ratings", "cards", "report", "search", "meta")


def base_raw(base: sc.Scenario) -> dict[str, Any]:
    raw = copy.deepcopy(dict(base.raw))
    for k in DERIVED_DROP:
        raw.pop(k, None)
    raw.setdefault("seats", {})
    raw.setdefault("rules", {})
    raw["scenario"]["games"] = base.games
    raw["scenario"]["seed"] = base.seed
    return raw


def check_entry(entry: Any, where: str) -> None:
    """A policy entry of a study (``ratings.policies``, ``meta.strategies``) is a name or a table
    with a string ``name``: labelling ``1`` or ``{name = 3}`` stopped with a Python traceback."""
    if isinstance(entry, str) or (isinstance(entry, Mapping) and isinstance(entry.get("name"), str)):
        return
    raise ScenarioError(f"{where} = {entry!r} must be a policy name or a table {{name = ..., <param> = ...}}, "
                        f"e.g. \"greedy\" or {{name = \"tactician\", call_need = 3}}")


def played(base: sc.Scenario, entry: Any) -> str:
    """What a policy entry (a name, or a table with ``name`` and parameters) plays: its policy (a
    plug-in by its file) and every parameter, defaults included, so "greedy", ``{name = "greedy"}`` and
    the defaults written out compare equal; the entry as written when it does not resolve (building its
    scenario says why)."""
    import json

    from cardsim.games import get_game
    from cardsim.policies import resolve_seat

    try:
        seat = resolve_seat(get_game(base.game), entry, 0, base.path.parent if base.path else None)
    except ScenarioError:
        return json.dumps(entry, sort_keys=True, default=str)
    return json.dumps([seat.plugin or seat.name, list(seat.params)])


def seat_list(raw: Mapping[str, Any], players: int) -> list[Any]:
    seats = raw.get("seats", {})
    if "policies" in seats:
        return list(seats["policies"])
    return [seats.get("policy", None)] * players


def set_policies(raw: dict[str, Any], policies: list[Any]) -> None:
    raw["seats"].pop("policy", None)
    if all(p is None for p in policies):
        raw["seats"].pop("policies", None)
    else:
        raw["seats"]["policies"] = policies


def rotate(policies: list[Any], r: int) -> list[Any]:
    """Seat ``(i + r) % n`` plays what seat ``i`` played: every policy visits every seat."""
    n = len(policies)
    out = [None] * n
    for i, p in enumerate(policies):
        out[(i + r) % n] = p
    return out


def build(base: sc.Scenario, raw: dict[str, Any], name: str) -> sc.Scenario:
    name = re.sub(r"[^A-Za-z0-9_.=+-]", "_", name)
    if len(name) > sc.NAME_MAX:  # a long arm name or sweep point: cut, and kept apart by a hash of the whole
        name = f"{name[:sc.NAME_MAX - 9]}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"
    raw["scenario"]["name"] = name
    return sc.from_dict(raw, name=raw["scenario"]["name"],
                        base_dir=base.path.parent if base.path else None, path=None)


_SEAT_KEY = re.compile(r"^seat(\d+)\.(\w+)$")


def apply_key(raw: dict[str, Any], players: int, key: str, value: Any, where: str) -> None:
    """Set one addressed key: ``rules.<knob>``, ``seat<k>.<param>``, ``seats.<param>``, ``players``,
    ``variant``, ``policy`` (every seat) or ``seat<k>.policy``."""
    if key.startswith("rules."):
        raw["rules"][key[6:]] = value
        return
    if key in ("players", "variant"):
        raw["scenario"][key] = value
        if key == "players" and "policies" in raw["seats"]:
            pol = raw["seats"]["policies"]
            # a count the scenario can take (a list or 10**12 players, refused by sc.from_dict, raised a
            # TypeError or a MemoryError here)
            if len(set(map(repr, pol))) == 1 and type(value) is int and 1 <= value <= 64:
                raw["seats"]["policies"] = [pol[0]] * value
        return
    if key == "policy":
        set_policies(raw, [value] * players)
        return
    m = _SEAT_KEY.match(key)
    if key.startswith("seats.") or m:
        pol = seat_list(raw, players)
        targets = range(players) if key.startswith("seats.") else [int(m.group(1))]
        param = key.split(".", 1)[1]
        for t in targets:
            if t >= len(pol):
                raise ScenarioError(f"{where}: {key} names seat {t}, but there are {len(pol)} seats")
            entry = pol[t]
            if param == "policy":
                pol[t] = value
                continue
            if entry is None:
                raise ScenarioError(f"{where}: {key} needs [seats] policies to name seat {t}'s policy")
            entry = {"name": entry} if isinstance(entry, str) else dict(entry)
            entry[param] = value
            pol[t] = entry
        set_policies(raw, pol)
        return
    raise ScenarioError(f"{where}: unknown key {key!r}; use {KEY_FORMS}")


#: the forms of an addressed key (sweeps, searches)
KEY_FORMS = "rules.<knob>, seat<k>.<param>, seats.<param>, seat<k>.policy, policy, players or variant"


def is_key(key: str) -> bool:
    """Whether ``key`` has one of the forms :func:`apply_key` sets (what it names is checked there)."""
    return (key.startswith(("rules.", "seats.")) and len(key) > 6) or key in ("players", "variant", "policy") \
        or bool(_SEAT_KEY.match(key))


def no_section(base: sc.Scenario, name: str, what: str) -> ScenarioError:
    """The error of a study command given a scenario without its section (``what`` says what it holds),
    naming the command that plays the study the scenario does hold (it said only what was missing)."""
    other = next((k for k in base.raw if k in sc.STUDY_SECTIONS and k != name), None)
    command = {"ratings": "rate"}.get(other, other)
    where = f" {base.path}" if base.path else ""
    hint = (f"; it has a [{other}] section, which `cardsim {command}{where}` plays" if other else
            f"; it has no study section, and `cardsim run{where}` plays it")
    return ScenarioError(f"{base.name}: no [{name}] section ({what}){hint}")


def section(base: sc.Scenario, name: str, keys: tuple[str, ...], what: str) -> Mapping[str, Any]:
    """The scenario's ``[name]`` table, checked to exist (``what`` says what it holds) and to use
    only ``keys``: one error line naming the key, a guess and what is allowed."""
    cfg = base.raw.get(name)
    if not cfg:
        raise no_section(base, name, what)
    for k in cfg:
        if k not in keys:
            raise ScenarioError(f"unknown key {name}.{k}{did_you_mean(k, keys)}; allowed: {allowed_list(keys)}")
    return cfg
