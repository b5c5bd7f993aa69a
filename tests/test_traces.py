"""Traces say everything (issue 18): every event of real traces of every game matches its
documented schema, a trace's header alone replays its game event for event, ``cardsim trace``
streams any number of games in bounded batches, and ``docs/traces.md`` is current."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardsim.cli import app
from cardsim.docs import traces as trace_docs
from cardsim.errors import ScenarioError
from cardsim.games import game_names, get_game
from cardsim.policies import plugin_source_key
from cardsim.scenario import build_setup
from cardsim.tracing import HEADER, replay, schema, setup_from_header
from tests.golden_update import GOLDEN, cases
from tests.knob_matrix import all_cells, seat_policies
from tests.plugins import LOWEST, PLUGIN, write_duck

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def check_event(e: dict, events: dict[str, dict[str, str]], where: str) -> None:
    """An event with a documented name, only documented fields, and every required one."""
    name = e.get("event")
    assert name in events, f"{where}: undocumented event {name!r}: {e}"
    fields = events[name]
    extra = set(e) - {"event", "game"} - set(fields)
    assert not extra, f"{where}: event {name!r} has undocumented fields {sorted(extra)}: {e}"
    missing = {f for f, m in fields.items() if not m.startswith("(optional) ")} - set(e)
    assert not missing, f"{where}: event {name!r} lacks {sorted(missing)}: {e}"
    assert isinstance(e["game"], int)


def test_every_game_documents_its_events():
    for g in game_names():
        events = schema(g)
        assert "header" in events and events["header"] is HEADER
        for name, fields in events.items():
            assert fields is not None and all(isinstance(m, str) and m for m in fields.values()), (g, name)
            assert not {"event", "game"} & set(fields), (g, name)


def too_long(cell) -> bool:
    """A FOURBID cell whose one unit traces a million events: a hand cut at a million turns, games
    to a million points, a tournament whose games cannot finish (every hand void at turn_cap 1).
    Its events are those of the shorter cells."""
    r = dict(cell.rules)
    return cell.game == "fourbid" and (
        r.get("turn_cap", 2000) > 2000 or r.get("target", 72) > 1000 or r.get("max_hands", 1000) > 1000
        or r.get("max_games", 100) > 100 or r.get("tournament_wins", 3) > 3
        or (cell.variant == "tournament" and r.get("turn_cap", 2000) < 100))


# traces of real games: one per cell of the knob matrix (its variants, knobs, values and
# combinations) at a table mixing every built-in policy, and the default policy's games
TRACE_CELLS = [c for c in all_cells(combos=3) if not too_long(c)]


@pytest.mark.parametrize("game", game_names())
def test_every_event_of_real_traces_matches_the_schema(game):
    g = get_game(game)
    events = schema(game)
    seen: set[str] = set()
    for cell in (c for c in TRACE_CELLS if c.game == game):
        # FOURBID games and tournaments of random players run to thousands of turns: their events
        # are those of random single hands
        mixed = game != "fourbid" or cell.variant == "hand"
        for pols in ([seat_policies(g, cell.players)] if mixed else []) + [None]:
            try:
                setup = build_setup(g, cell.variant, cell.players, pols, cell.rules_dict())
            except ScenarioError:
                continue
            for e in g.traced(setup, 3, 0, 1 if game == "fourbid" else 2):
                check_event(e, events, cell.id)
                seen.add(e["event"])
    assert "header" in seen


@pytest.mark.parametrize(("game", "variant"), cases(), ids=[f"{g}-{v}" for g, v in cases()])
def test_golden_traces_match_the_schema(game, variant):
    events = schema(game)
    lines = (GOLDEN / f"{game}-{variant}.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["event"] == "header"
    for i, line in enumerate(lines):
        check_event(json.loads(line), events, f"{game}-{variant}.jsonl line {i + 1}")


# -- replay from the header alone ---------------------------------------------------------------
#: (game, variant, CLI options) traced and replayed: non-default knobs, seats and parameters
REPLAYS = [
    ("fubnub", "traditional", ["-p", "greedy", "-p", "tactician", "-p", "random", "-p", "partner",
                               "-r", "point_cards=5", "-r", "fub_dealer=caller_right"]),
    ("fubnub", "lucky_ghost", ["--players", "1", "-p", "random"]),
    ("fubnub", "battle_royal", ["--players", "3", "-r", "tie_rule=last_trick", "-r", "point_cards=7"]),
    ("fubnub", "solo", ["-p", "tactician", "-r", "point_deck=[\"Twos\", \"Odds\", \"Gold\"]", "-r", "point_cards=3"]),
    ("fubnub", "full_deck", ["-p", "partner", "-p", "greedy", "-p", "random", "-p", "tactician",
                             "-r", "advantage=none", "-r", "move_points=true", "-r", "limbo_award=claim",
                             "-r", "remove_actions=[\"Skip\", \"Peek\"]"]),
    ("turtle", "full", ["--players", "5", "-p", "random", "-r", "shield_continue=target", "-r", "p_perform=0.5"]),
    ("turtle", "young", ["--players", "3", "-r", "remove=[\"Skip\"]"]),
    ("gubs", "standard", ["--players", "3", "-p", "random", "-p", "strong", "-p", "simple", "-r", "hand_size=4",
                          "-r", "thief_to=hand"]),
    ("fourbid", "game", ["-p", "bidder", "-p", "collector", "-p", "random", "-p", "collector", "-r", "target=40"]),
    ("fourbid", "hand", ["-p", "random", "-r", "dealer=A", "-r", "rule2=false"]),
    ("fourbid", "tournament", ["-r", "tournament_wins=1", "-r", "target=30"]),
]


def traced_games(args: list[str]) -> list[list[dict]]:
    r = runner.invoke(app, ["trace", *args, "--format", "jsonl"])
    assert r.exit_code == 0, r.output
    games: list[list[dict]] = []
    for line in r.stdout.splitlines():  # stderr may say it is compiling
        e = json.loads(line)
        if e["event"] == "header":
            games.append([])
        games[-1].append(e)
    return games


@pytest.mark.parametrize(("game", "variant", "opts"), REPLAYS, ids=[f"{g}-{v}" for g, v, _ in REPLAYS])
def test_a_header_alone_replays_its_game(game, variant, opts):
    games = traced_games([game, "--variant", variant, "--seed", "11", "--start", "5", "--games", "2", *opts])
    assert [g[0]["game"] for g in games] == [5, 6]
    for events in games:
        head = events[0]
        assert head["seed"] == 11 and head["variant"] == variant and head["game_name"] == game
        _, setup = setup_from_header(head)
        assert set(head["rules"]) == {k.name for k in get_game(game).knobs_for(variant)}
        assert len(head["seats"]) == setup.players
        # JSON in, JSON out: the replay prints exactly the lines the trace printed
        assert [json.loads(json.dumps(e)) for e in replay(head)] == events


def test_a_plugin_seat_replays_by_reference(tmp_path):
    ref = f"{write_duck(tmp_path)}:duck"
    games = traced_games(["fubnub", "-p", ref, "-p", "partner", "-p", ref, "-p", "greedy",
                          "-r", "point_cards=3", "--seed", "4"])
    head = games[0][0]
    source = plugin_source_key(ref.rsplit(":", 1)[0])
    assert head["seats"][0] == {"policy": str(Path(ref.rsplit(":", 1)[0]).resolve()) + ":duck",
                                "params": {"top": 8.0, "boom": 0.0, "bad": 0.0}, "source": source}
    assert replay(head) == games[0]
    # an edited plug-in would replay other games: refused, naming the seat (the header named only its path)
    (tmp_path / "duck.py").write_text(PLUGIN.format(card=LOWEST))
    with pytest.raises(ScenarioError, match=f"seat 0's plug-in duck.py has changed since the trace was written "
                                            f"\\(source {source} then, [0-9a-f]+ now\\)"):
        replay(head)


def test_replay_refuses_another_rules_version():
    head = traced_games(["fubnub", "-r", "point_cards=1"])[0][0]
    head["rules_version"] -= 1
    with pytest.raises(ScenarioError, match="rules version"):
        replay(head)


# -- streaming ----------------------------------------------------------------------------------
def test_trace_streams_any_number_of_games_in_bounded_batches(monkeypatch):
    g = get_game("fubnub")
    calls: list[int] = []
    original = type(g).trace

    def spy(self, setup, key, start, count, *a, **k):
        calls.append(count)
        return original(self, setup, key, start, count, *a, **k)

    monkeypatch.setattr(type(g), "trace", spy)
    games = traced_games(["fubnub", "--variant", "battle_royal", "--players", "2", "-r", "point_cards=1",
                          "--games", "1234", "--start", "7"])
    assert len(games) == 1234 and games[-1][0]["game"] == 1240  # no 1,000-game cap
    assert max(calls) <= g.trace_batch and sum(calls) == 1234


def test_trace_to_a_closed_pipe_stops_quietly():
    code = ("import sys; from cardsim.cli import app; "
            "sys.argv = ['cardsim', 'trace', 'fubnub', '--games', '400', '--format', 'jsonl']; app()")
    p = subprocess.run(f"{sys.executable} -c \"{code}\" | head -n 3", shell=True, capture_output=True, text=True,
                       cwd=ROOT)
    assert len(p.stdout.splitlines()) == 3 and "Traceback" not in p.stderr, p.stderr


# -- docs/traces.md --------------------------------------------------------------------------------
def test_docs_traces_page_is_current():
    page = ROOT / "docs" / "traces.md"
    assert page.read_text() == trace_docs.render(), "docs/traces.md is stale: run `python -m cardsim.docs traces`"
    text = page.read_text()
    for g in game_names():
        for name in schema(g):
            assert f"`{name}`" in text


def test_text_trace_starts_each_game_with_its_header_line():
    r = runner.invoke(app, ["trace", "turtle", "--games", "2", "--seed", "5", "-r", "remove=[\"Skip\"]"])
    assert r.exit_code == 0, r.output
    heads = [line for line in r.output.splitlines() if line.startswith("=== turtle full")]
    assert len(heads) == 2 and "seed 5, game 1" in heads[1] and 'remove=["Skip"]' in heads[0]
