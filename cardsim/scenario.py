"""Scenario files: TOML -> a validated :class:`Scenario` (DESIGN step 1).

Every key is checked before anything runs; a bad file raises
:class:`~cardsim.errors.ScenarioError` with one line naming the key, the
bad value and what is allowed (unknown keys get a "did you mean").

Shape::

    [scenario]
    name = "fubnub-partner"   # optional, default: the file's stem
    game = "fubnub"           # required
    variant = "traditional"   # optional, default: the game's first variant
    players = 4               # optional, default: from [seats] or the variant
    games = 100000            # required: games to play
    seed = 1                  # optional, default 0
    chunk = 20000             # optional: games per chunk (a task)
    question = "..."          # optional: the question the report answers

    [seats]
    policies = ["partner", {name = "bold", call_at = 2}, "mine.py:cautious", "partner"]
    # or: policy = "partner"  (every seat)

    [rules]                   # the game's knobs (``cardsim games``)
    point_cards = 15
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardsim.errors import ScenarioError, allowed_list, did_you_mean, said, unlookable
from cardsim.games import get_game
from cardsim.games.base import Game, Setup
from cardsim.policies import plugin_source_key, resolve_seat

SECTIONS: dict[str, tuple[str, ...]] = {
    "scenario": ("name", "game", "variant", "players", "games", "seed", "chunk", "question",
                 "until", "backend", "workers", "scheduler"),
    "seats": ("policies", "policy"),
    "rules": (),  # checked against the game's knobs
    "compare": ("arms", "rotate", "metric", "decide", "alpha", "focus"),
    "ratings": ("policies", "mode", "reference"),
    "sweep": ("grid", "points", "metric", "best"),
    "cards": ("cards", "change", "focus", "rotate", "correction"),
    "search": (),  # checked by cardsim.studies.search
    "meta": (),  # checked by cardsim.studies.meta
    "report": ("title",),
}
MAX_GAMES = 10**10


@dataclass(frozen=True)
class Scenario:
    """A validated scenario. ``raw`` keeps the parsed TOML for extensions
    (``[compare]``, ``[sweep]``) that validate their own sections."""

    name: str
    game: str
    setup: Setup
    games: int
    seed: int
    chunk: int
    question: str = ""
    path: Path | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    def identity(self) -> dict[str, Any]:
        """What the results depend on (not ``games`` or ``chunk``: more games extend a run).

        A plug-in seat counts by its file name, function and content (the file and what it
        imports from its folder), not by its path: an edited plug-in is another scenario."""
        setup = self.setup.describe()
        for seat, desc in zip(self.setup.seats, setup["seats"], strict=True):
            if seat.plugin:
                path, fn = seat.plugin.rsplit(":", 1)
                desc["policy"] = f"{Path(path).name}:{fn}"
                desc["source"] = plugin_source_key(path)
        return {"setup": setup, "seed": self.seed, "rules_version": get_game(self.game).rules_version}

    def hash(self) -> str:
        from cardsim.results import identity_hash

        return identity_hash(self.identity())

    def with_options(self, games: int | None = None, seed: int | None = None, chunk: int | None = None) -> Scenario:
        """A copy with ``games`` / ``seed`` / ``chunk`` overridden (CLI ``--games`` / ``--seed``, a run
        directory's own chunking); ``raw`` says the same, so the copy of the scenario a run
        directory's manifest keeps is the scenario that was played."""
        kw = dict(self.__dict__)
        if games is not None:
            kw["games"] = _check_int("--games", games, 1, MAX_GAMES)
        if seed is not None:
            kw["seed"] = _check_int("--seed", seed, 0, 2**63 - 1)
        if chunk is not None:
            kw["chunk"] = _check_int("chunk", chunk, 1, 10**8)
        if isinstance(self.raw.get("scenario"), Mapping):
            section = dict(self.raw["scenario"])
            for key in ("games", "seed", "chunk"):
                if key in section or kw[key] != getattr(self, key):
                    section[key] = kw[key]
            kw["raw"] = {**self.raw, "scenario": section}
        return Scenario(**kw)


def load(path: str | Path) -> Scenario:
    """Read and validate a scenario file."""
    path = Path(path)
    if (why := unlookable(path)) is not None:  # a name too long for the system: path.exists() raised
        raise ScenarioError(f"scenario file {why}")
    if not path.exists():
        raise ScenarioError(f"scenario file {path} does not exist")
    if path.is_dir():
        raise ScenarioError(f"{path} is a directory; a scenario file (.toml) is expected")
    try:
        text = path.read_bytes().decode("utf-8-sig")  # a byte-order mark (Windows editors write one) is not TOML
        raw = tomllib.loads(text)
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file (a TOML scenario is expected)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: malformed TOML: {exc}") from None
    return from_dict(raw, name=path.stem, base_dir=path.parent, path=path)


#: the sections of a study: a scenario holds at most one (each command plays its own)
STUDY_SECTIONS = ("compare", "sweep", "ratings", "cards", "search", "meta")


def from_dict(raw: Mapping[str, Any], name: str = "scenario", base_dir: Path | None = None,
              path: Path | None = None, one_study: bool = True) -> Scenario:
    """Validate a parsed scenario (the TOML as nested dicts). ``one_study=False`` lets two study
    sections through (a run directory's manifest written before they were refused). numpy scalars
    (a sweep's ``np.arange``, a frame's values) are taken as the Python values TOML gives."""
    if not isinstance(raw, Mapping):  # a list was an AttributeError ('list' object has no attribute 'items')
        raise ScenarioError(f"a scenario is a dict of the TOML's tables ({{'scenario': {{'game': ..., 'games': ...}}, "
                            f"...}}), not {type(raw).__name__}")
    raw = _plain(raw)
    for section, body in raw.items():
        if section not in SECTIONS:
            raise ScenarioError(f"unknown section [{section}]{did_you_mean(section, SECTIONS)}; "
                                f"allowed: {allowed_list('[' + s + ']' for s in SECTIONS)}")
        if not isinstance(body, Mapping):
            raise ScenarioError(f"[{section}] must be a table")
        if section in ("rules", "search", "meta"):
            continue
        for key in body:
            if key not in SECTIONS[section]:
                raise ScenarioError(f"unknown key {section}.{key}{did_you_mean(key, SECTIONS[section])}; "
                                    f"allowed: {allowed_list(SECTIONS[section])}")
    studies = [f"[{k}]" for k in raw if k in STUDY_SECTIONS]
    if one_study and len(studies) > 1:
        raise ScenarioError(f"the scenario has {len(studies)} study sections, {allowed_list(studies)}, but a scenario "
                            f"holds one study (each command plays its own, `cardsim report` only the first): keep one, "
                            f"and put the other in a scenario file of its own")
    sc = raw.get("scenario")
    if sc is None:
        raise ScenarioError("missing section [scenario] (with at least game = ... and games = ...)")
    if "game" not in sc:
        raise ScenarioError("missing key scenario.game")
    if not isinstance(sc["game"], str):
        raise ScenarioError(f"scenario.game = {sc['game']!r} must be a string")
    game = get_game(sc["game"])
    if "games" not in sc:
        raise ScenarioError("missing key scenario.games (how many games to play)")
    games = _check_int("scenario.games", sc["games"], 1, MAX_GAMES)
    seed = _check_int("scenario.seed", sc.get("seed", 0), 0, 2**63 - 1)
    chunk = _check_int("scenario.chunk", sc.get("chunk", game.default_chunk), 1, 10**8)
    nm = check_name(sc.get("name", name), "scenario.name" if "name" in sc else "scenario.name (default: the file name)")
    question = sc.get("question", "")
    if not isinstance(question, str):
        raise ScenarioError(f"scenario.question = {question!r} must be a string")
    title = raw.get("report", {}).get("title", "")
    if not isinstance(title, str):
        raise ScenarioError(f"report.title = {title!r} must be a string (the report's heading)")
    seats = raw.get("seats", {})
    setup = build_setup(game, sc.get("variant"), sc.get("players"), seats.get("policies", seats.get("policy")),
                        raw.get("rules", {}), base_dir, both="policies" in seats and "policy" in seats)
    return Scenario(name=nm, game=game.name, setup=setup, games=games, seed=seed, chunk=chunk,
                    question=question, path=path, raw=_absolute_plugins(raw, setup))


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars as Python ones (``np.int64(4)`` read "must be an integer", and a
    manifest could not be written as JSON), in dicts, lists and tuples alike; anything else as it is."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


#: the longest scenario name, in bytes of UTF-8: it names folders (``runs/<name>-search-<hash>``, a
#: comparison's ``<name>-<arm>-r1-<hash>``), and a file name holds 255 bytes at most
NAME_MAX = 120


def check_name(nm: Any, where: str = "scenario.name") -> str:
    """A scenario name fit to name the run and report folders: ``runs/<name>-<hash>/`` and
    ``OUT/<name>/`` (a name ``..`` wrote its report into the folder above OUT, over its files)."""
    if (not isinstance(nm, str) or not nm or nm in (".", "..")
            or any(c in "/\\" or c.isspace() or not c.isprintable() for c in nm)):
        raise ScenarioError(f"{where} = {nm!r} must be a non-empty string without spaces, slashes or control "
                            f"characters, and not '.' or '..' (it names the run and report folders)")
    if len(nm.encode()) > NAME_MAX:
        raise ScenarioError(f"{where} = {nm[:40]!r}... is {len(nm.encode())} bytes long; allowed: at most "
                            f"{NAME_MAX} (it names the run and report folders)")
    return nm


def _absolute_plugins(raw: Mapping[str, Any], setup: Setup) -> Mapping[str, Any]:
    """``raw`` with each ``[seats]`` plug-in named by its absolute ``/path/file.py:name``, so the copy
    of the scenario a run directory's manifest keeps resolves from any folder (``cardsim report RUN_DIR``)."""
    seats = raw.get("seats", {})
    if not setup.plugins or not isinstance(seats, Mapping):
        return raw

    def absolute(entry: Any, seat: int) -> Any:
        ref = setup.seats[seat].plugin
        if ref is None:
            return entry
        return {**entry, "name": ref} if isinstance(entry, Mapping) else ref

    new = dict(seats)
    if isinstance(seats.get("policies"), list | tuple):
        new["policies"] = [absolute(e, i) for i, e in enumerate(seats["policies"])]
    elif "policy" in seats:
        new["policy"] = absolute(seats["policy"], 0)
    return {**raw, "seats": new}


def build_setup(game: Game | str, variant: str | None = None, players: int | None = None,
                policies: str | Sequence[Any] | None = None, rules: Mapping[str, Any] | None = None,
                base_dir: Path | None = None, both: bool = False, players_key: str = "scenario.players",
                policies_key: str = "seats.policies", policy_key: str = "seats.policy",
                variant_key: str = "scenario.variant") -> Setup:
    """Validate and resolve a game set-up (also the entry point for tests and the API). ``players_key``,
    ``policies_key``, ``policy_key`` and ``variant_key`` name where the player count, the seat policies
    (one a seat), the one policy of every seat and the variant came from, as errors name them (``cardsim
    trace``'s ``--players``, ``--policy`` and ``--variant``): a seat's entry is ``<policies_key>[<seat>]``,
    or ``<policies_key> (seat <seat>)`` for a command-line option (a key starting ``--``), and the one
    policy ``<policy_key>``."""
    if isinstance(game, str):
        game = get_game(game)
    if both:
        raise ScenarioError("give either seats.policies (one per seat) or seats.policy (all seats), not both")
    if variant is not None and not isinstance(variant, str):  # before the lookup, which said "is not a variant"
        raise ScenarioError(f"{variant_key} = {variant!r} must be a string; allowed: "
                            f"{allowed_list([v.name for v in game.variants])}")
    var = game.variant(variant if variant is not None else game.variants[0].name, variant_key)
    if isinstance(policies, list | tuple):
        entries = list(policies)
        if not entries:
            raise ScenarioError("seats.policies is empty; give one policy per seat")
        if players is None:
            players = len(entries)
            if not (isinstance(players, int) and var.min_players <= players <= var.max_players):
                raise ScenarioError(f"{players} seat policies given (seats.policies, or --policy repeated), but "
                                    f"{game.name} {var.name} takes {players_range(var)}: "
                                    f"give one policy per player, or one for them all")
    elif policies is None or isinstance(policies, str | Mapping):
        entries = None
    else:
        raise ScenarioError(f"seats.policies = {policies!r} must be a list of policy names")
    if players is None:
        players = var.default_players
    players = _check_int(players_key, players, var.min_players, var.max_players,
                         f"{game.name} {var.name} takes {players_range(var)}")
    if entries is None:
        entries = [policies if policies is not None else game.default_policy] * players
        wheres = [policy_key] * players  # one entry for every seat: its error names it as written
    else:
        wheres = [f"{policies_key} (seat {i})" if policies_key.startswith("--") else f"{policies_key}[{i}]"
                  for i in range(players)]
    if len(entries) != players:
        raise ScenarioError(f"{policies_key} has {len(entries)} entries but {said(players_key, str(players))}; give one "
                            f"per seat")
    plugins: list[str] = []
    seats = tuple(resolve_seat(game, e, i, base_dir, plugins, w) for i, (e, w) in enumerate(zip(entries, wheres,
                                                                                                 strict=False)))
    rules = dict(rules or {})
    knobs = game.knobs_for(var.name)
    known = {k.name: k for k in knobs}
    every = {k.name for k in game.knobs}
    values: dict[str, Any] = {}
    for key, value in rules.items():
        if key not in known:
            if key in every:
                raise ScenarioError(f"rules.{key} does not apply to variant {var.name!r}; "
                                    f"its knobs: {allowed_list(known) or 'none'}")
            raise ScenarioError(f"unknown knob rules.{key}{did_you_mean(key, every)}; "
                                f"allowed for {game.name} {var.name}: {allowed_list(known) or 'none'}")
        values[key] = known[key].validate(value, f"rules.{key}")
        if isinstance(values[key], float) and not math.isfinite(values[key]):  # nan passes every range check
            raise ScenarioError(f"rules.{key} = {value!r} is not allowed; allowed: {known[key].allowed()}")
    for k in knobs:
        values.setdefault(k.name, k.default if not isinstance(k.default, list) else tuple(k.default))
    setup = Setup(game=game.name, variant=var.name, players=players, knobs=values, seats=seats,
                  plugins=tuple(plugins))
    game.check_setup(setup)
    return setup


def players_range(var: Any) -> str:
    """A variant's player counts in words: ``2-6 players``, ``4 players`` (not ``4-4``), ``1 player``."""
    lo, hi = var.min_players, var.max_players
    return f"{lo}-{hi} players" if lo != hi else f"{lo} player{'s' if lo != 1 else ''}"


def _check_int(where: str, value: Any, lo: int, hi: int, why: str = "") -> int:
    """``value`` as an int in [lo, hi], else one line naming ``where`` (a range of one value reads as it:
    "allowed: 4", not "4-4")."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"{said(where, repr(value))} must be an integer " + (f"in [{lo}, {hi}]" if lo != hi else
                                                                               f"({lo})"))
    if not lo <= value <= hi:
        raise ScenarioError(f"{said(where, str(value))} is out of range; allowed: {lo if lo == hi else f'{lo}-{hi}'}"
                            + (f" ({why})" if why else ""))
    return value
