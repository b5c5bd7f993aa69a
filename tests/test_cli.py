"""The CLI as a user runs it: output, exit codes, and one-line errors for bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cardsim.cli import app

runner = CliRunner()
GOOD = """
[scenario]
name = "cli"
game = "fubnub"
variant = "traditional"
games = 300
seed = 1

[seats]
policies = ["partner", "partner", "partner", "partner"]

[rules]
point_cards = 7
"""


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_games_lists_variants_knobs_policies():
    r = invoke("games", "fubnub")
    assert r.exit_code == 0
    for word in ("traditional", "point_cards", "partner", "greedy", "tactician", "call("):
        assert word in r.output
    # what a plug-in may write and must return (a write or a float does not compile)
    assert "each reads its arrays, writes only rng and out, and returns an int (swap: nothing)" in r.output
    assert "writes only rng, and returns an int;" in invoke("games", "gubs").output


def test_games_as_json_and_csv_list_what_the_text_lists():
    """`cardsim games -f json` gives a program the knobs, policies and columns the listing prints."""
    from cardsim.games import get_game

    d = json.loads(invoke("games", "gubs", "-f", "json").output)
    t = d["tables"]
    g = get_game("gubs")
    assert [r["knob"] for r in t["Knobs ([rules])"]] == [k.name for k in g.knobs]
    for r, k in zip(t["Knobs ([rules])"], g.knobs, strict=True):
        assert json.loads(r["default"]) == (list(k.default) if isinstance(k.default, tuple) else k.default)
        assert (r["kind"], r["choices"], r["lo"], r["hi"]) == (k.kind, list(k.choices), k.lo, k.hi)
    assert {r["policy"] for r in t["Policies"]} == {p.name for p in g.policies}
    strong = [r for r in t["Policy parameters"] if r["policy"] == "strong"]
    assert [r["param"] for r in strong] == list(next(p for p in g.policies if p.name == "strong").param_names())
    cards = next(r for r in t["Tables (columns in order, by variant and players)"] if r["table"] == "cards")
    assert cards["columns"] == g.columns_for("standard", cards["players"])["cards"]
    csv = invoke("games", "-f", "csv")
    assert csv.exit_code == 0 and "# Knobs ([rules])" in csv.output and "fourbid,game,4,4,4" in csv.output


def test_games_refuses_an_empty_game_name():
    """``cardsim games ""`` (an unset shell variable) listed every game as if no name were given."""
    r = invoke("games", "")
    assert r.exit_code == 2 and "unknown game ''; allowed: fubnub" in r.output


def test_run_prints_summary_and_writes_run_dir(tmp_path):
    r = invoke("run", write(tmp_path, GOOD), "--out", tmp_path / "run")
    assert r.exit_code == 0, r.output
    assert "Game win rate by team" in r.output and "calling team" in r.output
    assert (tmp_path / "run" / "manifest.json").exists()
    assert list((tmp_path / "run" / "hands").glob("*.parquet"))
    r2 = invoke("run", write(tmp_path, GOOD), "--out", tmp_path / "run", "--games", "100", "--seed", "1")
    assert r2.exit_code == 0


def test_run_prints_the_answer_first(tmp_path):
    """`cardsim run` answers in words (the report's answer), then says what it played."""
    r = invoke("run", write(tmp_path, GOOD), "--out", tmp_path / "run", "--format", "json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout[r.stdout.index("{"):])
    assert "wins" in out["answer"] and "95% CI" in out["answer"]
    assert out["notes"][0].startswith("cli: ") and "run directory" in out["notes"][0]
    # the summary's tables of many rows say how they handle multiplicity
    assert any(n.startswith("Each interval is a 95% interval for its own row (pointwise)") for n in out["notes"])


def test_run_of_a_study_scenario_says_which_command_plays_its_study(tmp_path):
    # `cardsim run` on a search scenario (games = 1) played one game and said nothing of [search]
    study = GOOD + '\n[compare]\narms = [{ name = "a" }, { name = "b", rules = { point_cards = 5 } }]\n'
    path = write(tmp_path, study)
    r = invoke("run", path, "--out", tmp_path / "run", "--games", "50", "--format", "json")
    assert r.exit_code == 0, r.output
    notes = json.loads(r.stdout[r.stdout.index("{"):])["notes"]
    assert f"{path} has a [compare] section, which `cardsim run` does not play" in notes[-1]
    assert f"`cardsim compare {path}` does" in notes[-1]
    r = invoke("run", write(tmp_path, GOOD), "--out", tmp_path / "run2", "--games", "50", "--format", "json")
    assert not any("section" in n for n in json.loads(r.stdout[r.stdout.index("{"):])["notes"])


@pytest.mark.parametrize(("game", "cap"), [("fubnub", "max_hands"), ("gubs", "max_turns")])
def test_a_run_whose_every_game_was_cut_says_so(tmp_path, game, cap):
    # every game cut at its cap: the headline (of FUBNUB, Gubs) raised an IndexError on no finished game,
    # and the report another; now the answer says so, and the report refuses in one line
    path = write(tmp_path, f'[scenario]\nname = "cut"\ngame = "{game}"\ngames = 40\n[rules]\n{cap} = 1\n')
    r = invoke("run", path, "--out", tmp_path / "run")
    assert r.exit_code == 0, r.output
    said = f"No game finished: every game was cut at the game's cap (rules.{cap} = 1), so no seat won one"
    assert said in r.stdout
    r = invoke("report", tmp_path / "run", "--out", tmp_path / "rep")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip().startswith("error: ") and "no report: no game finished" in r.output


def test_trace_text_and_jsonl():
    r = invoke("trace", "fubnub", "--seed", "3", "--policy", "greedy")
    assert r.exit_code == 0 and "deals" in r.output and "trick 1" in r.output
    j = invoke("trace", "fubnub", "--seed", "3", "-p", "greedy", "-p", "partner", "-p", "random", "-p", "tactician",
               "--format", "jsonl", "--rule", "point_cards=3")
    assert j.exit_code == 0
    events = [json.loads(line) for line in j.stdout.splitlines()]  # stdout: a cold cache adds "compiling"
    kinds = {e["event"] for e in events}
    assert {"deal", "reveal", "decision", "play", "trick", "hand", "game"} <= kinds
    assert any(e["event"] == "deal" and all(" " in c for c in e["cards"]) for e in events)


def test_trace_policy_with_parameters():
    """--policy takes a policy with its parameters as a TOML inline table, as a scenario's seats do,
    so a row of a run of a parametric policy can be traced; a malformed table is one error."""
    j = invoke("trace", "fubnub", "--seed", "3", "-p", "{ name = 'tactician', call_need = 3 }", "--format", "jsonl")
    assert j.exit_code == 0, j.output
    header = json.loads(j.stdout.splitlines()[0])
    assert header["event"] == "header"
    assert "call_need" in json.dumps(header) and "3" in json.dumps(header)
    bad = invoke("trace", "fubnub", "-p", "{ name = 'tactician', call_need = }")
    assert bad.exit_code == 2 and "is not a TOML inline table" in bad.output and "Traceback" not in bad.output
    typo = invoke("trace", "fubnub", "-p", "{ name = 'tactician', cal_need = 3 }")
    assert typo.exit_code == 2 and "call_need" in typo.output


def test_bench_prints_ratios():
    r = invoke("bench", "fubnub", "--games", "300", "--interp", "3")
    assert r.exit_code == 0, r.output
    assert "full/interpreted" in r.output and "full/minimal" in r.output
    assert "median of 7 back-to-back pairs" in r.output


def test_bench_json_has_every_rate_and_ratio_with_its_range():
    r = invoke("bench", "fubnub", "fubnub", "--games", "300", "--interp", "3", "-f", "json")
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)["tables"]["Kernel speed"]  # a game named twice is benched once
    assert (row["game"], row["variant"], row["unit"], row["pairs"], row["tables_rounds"]) == (
        "fubnub", "traditional", "hand", 7, 7)
    assert row["pairs_lo"] <= row["vs_minimal"] <= row["pairs_hi"]
    assert row["tables_lo"] <= row["tables_vs_full"] <= row["tables_hi"]
    assert row["vs_interpreted"] == pytest.approx(row["full"] / row["interpreted"])
    both = invoke("bench", "fubnub", "--markdown", "-f", "csv")
    assert both.exit_code == 2 and "--markdown and --format csv" in both.output


def test_bench_ratio_is_the_median_of_the_pairs():
    # a pair timed in a slow phase of the machine moves the ratio of the medians, not the median ratio
    from cardsim.bench import BenchResult, median

    r = BenchResult("g", "v", "hand", full=2.0, tables=1.0, interpreted=0.01, minimal=4.0, ratios=(0.6, 0.3, 0.5))
    assert r.vs_minimal == 0.5 and median([3, 1, 2, 4]) == 2.5
    assert BenchResult("g", "v", "hand", 2.0, 1.0, 0.01, 4.0).vs_minimal == 0.5
    # with tables / kernel: the median of the rounds' ratios too (issue 19's 0.8 bar)
    r = BenchResult("g", "v", "hand", 2.0, 1.0, 0.01, 4.0, table_ratios=(0.9, 0.4, 0.85))
    assert r.tables_vs_full == 0.85 and BenchResult("g", "v", "hand", 2.0, 1.0, 0.01, 4.0).tables_vs_full == 0.5


def test_bench_gives_every_paired_ratio_its_range_and_says_the_interpreted_one_is_one_timing():
    # full/interpreted (1,030x) and tables/kernel (0.83) were printed without a range; only full/minimal had one
    from cardsim.bench import MARKDOWN_HEADER, BenchResult, bench_line, markdown_row

    r = BenchResult("fubnub", "traditional", "hand", full=6e6, tables=5e6, interpreted=6e3, minimal=6.2e6,
                    ratios=(0.91, 0.98, 1.0), table_ratios=(0.8, 0.83, 0.85))
    line = bench_line(r)
    assert "full/interpreted = 1,000x (one interpreted timing against the full kernel's median: not paired" in line
    assert "tables/kernel = 0.83 (0.80-0.85)" in line and "full/minimal = 0.98 (0.91-1.00)" in line
    assert "median of 3 back-to-back pairs, with the pairs' range" in line
    row, head = markdown_row(r).split(" | "), MARKDOWN_HEADER.splitlines()[0].split(" | ")
    assert len(row) == len(head) and row[head.index("tables' range")] == "0.80-0.85"
    assert "full / interpreted (one timing)" in head
    one = bench_line(BenchResult("g", "v", "game", 2.0, 1.0, 0.01, 4.0))
    assert "tables/kernel = 0.50 (one pair)" in one and "each from one pair" in one


BAD = [
    ("unknown game", GOOD.replace('game = "fubnub"', 'game = "fubnb"'), "fubnub"),
    ("unknown variant", GOOD.replace('"traditional"', '"tradition"'), "traditional"),
    ("unknown policy", GOOD.replace('["partner", "partner"', '["partnr", "partner"'), "did you mean 'partner'"),
    ("unknown knob", GOOD.replace("point_cards = 7", "point_card = 7"), "did you mean 'point_cards'"),
    ("knob out of range", GOOD.replace("point_cards = 7", "point_cards = 17"), "rules.point_cards"),
    ("knob even", GOOD.replace("point_cards = 7", "point_cards = 6"), "odd"),
    ("knob wrong type", GOOD.replace("point_cards = 7", 'point_cards = "seven"'), "rules.point_cards"),
    ("malformed toml", GOOD.replace("games = 300", "games = = 300"), "malformed TOML"),
    ("seven players", GOOD.replace("seed = 1", "seed = 1\nplayers = 7"), "takes 4 players"),
    ("seat count", GOOD.replace('["partner", "partner", "partner", "partner"]', '["partner", "partner"]'), "players"),
    ("seven seat policies", GOOD.replace('["partner", "partner", "partner", "partner"]', '["partner"' + ', "partner"' * 6 + "]"),
     "7 seat policies given (seats.policies, or --policy repeated), but fubnub traditional takes 4 players"),
    ("unknown key", GOOD.replace("seed = 1", "seed = 1\nsed = 2"), "did you mean 'seed'"),
    ("unknown section", GOOD + "\n[rulez]\nx = 1\n", "[rules]"),
    ("games negative", GOOD.replace("games = 300", "games = -5"), "scenario.games"),
    ("missing game", GOOD.replace('game = "fubnub"\n', ""), "scenario.game"),
    ("policy param", GOOD.replace('["partner", "partner"', '[{name = "tactician", call_nede = 2}, "partner"'), "call_need"),
    ("until not a string", GOOD.replace("seed = 1", "seed = 1\nuntil = 5"), "scenario.until = 5 must be a string"),
    ("backend unknown", GOOD.replace("seed = 1", "seed = 1\nbackend = \"spark\""),
     "scenario.backend = 'spark' is not a backend; allowed: local, dask"),
    ("workers negative", GOOD.replace("seed = 1", "seed = 1\nworkers = -1"), "scenario.workers = -1 must be a positive"),
    # the variant was looked up before its type was checked: "variant = 3 is not a variant of fubnub"
    ("variant not a string", GOOD.replace('variant = "traditional"', "variant = 3"),
     "scenario.variant = 3 must be a string; allowed: traditional"),
    ("variant unknown", GOOD.replace('variant = "traditional"', 'variant = "tradtional"'),
     "scenario.variant = 'tradtional' is not a variant of fubnub (did you mean 'traditional'?)"),
    ("players of a one-count variant", GOOD.replace("seed = 1", "seed = 1\nplayers = 3"),
     "scenario.players = 3 is out of range; allowed: 4 (fubnub traditional takes 4 players)"),
    ("garbage bytes", b"\x00\xff\xfe\x81garbage", "not a UTF-8 text file"),
    # name = ".." wrote the report into the folder above --out (index.html, report.md over its files),
    # a NUL or a 300-byte name stopped with a Python traceback when the run directory was made
    ("name ..", GOOD.replace('name = "cli"', 'name = ".."'), "scenario.name = '..' must be"),
    ("name .", GOOD.replace('name = "cli"', 'name = "."'), "not '.' or '..'"),
    ("name with NUL", GOOD.replace('name = "cli"', 'name = "a\\u0000b"'), "control characters"),
    ("name too long", GOOD.replace('name = "cli"', f'name = "{"x" * 300}"'), "is 300 bytes long; allowed: at most 120"),
    # nan passed every range check of a float knob and was played (a chance of nan to perform)
    ("float knob nan", '[scenario]\ngame = "turtle"\nvariant = "full"\ngames = 2\n[rules]\np_perform = nan\n',
     "rules.p_perform = nan is not allowed; allowed: float in [0, 1]"),
    ("report title not a string", GOOD + '\n[report]\ntitle = 3\n', "report.title = 3 must be a string"),
    # each command played its own section and ignored the other without a word
    ("two studies", GOOD + '\n[compare]\narms = [{name = "a"}, {name = "b", rules = {point_cards = 3}}]\n'
                           '\n[sweep]\ngrid = { "rules.point_cards" = [1, 3] }\n',
     "the scenario has 2 study sections, [compare], [sweep], but a scenario holds one study"),
]


@pytest.mark.parametrize(("what", "text", "needle"), BAD, ids=[b[0] for b in BAD])
def test_bad_scenarios_exit_2_with_one_line(tmp_path, what, text, needle):
    p = tmp_path / "bad.toml"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    r = invoke("run", p, "--out", tmp_path / "run")
    assert r.exit_code == 2, (what, r.output)
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert needle in lines[0], lines[0]
    assert "Traceback" not in r.output


def test_missing_file_and_bad_trace_args(tmp_path):
    assert invoke("run", tmp_path / "nope.toml").exit_code == 2
    r = invoke("trace", "fubnub", "--policy", "nobody")
    assert r.exit_code == 2 and "unknown policy" in r.output
    r = invoke("trace", "fubnub", "--rule", "point_cards")
    assert r.exit_code == 2 and "name=value" in r.output
    r = invoke("trace", "fubnub", "--players", "3")  # named as typed, not as a scenario's key
    assert r.exit_code == 2 and "error: --players 3 is out of range; allowed: 4 (fubnub" in r.output  # not 4-4
    r = invoke("trace", "fubnub", "--variant", "nope")  # named as typed: it said "variant = 'nope'"
    assert r.exit_code == 2 and "error: --variant 'nope' is not a variant of fubnub" in r.output
    r = invoke("trace", "fubnub", "-p", "partner", "-p", "partner", "--players", "4")
    assert r.exit_code == 2 and "--policy has 2 entries but --players 4" in r.output


def test_run_dir_of_another_scenario_refused_and_kept(tmp_path):
    out = tmp_path / "run"
    assert invoke("run", write(tmp_path, GOOD), "--out", out).exit_code == 0
    before = sorted(p.name for p in (out / "hands").iterdir())
    r = invoke("run", write(tmp_path, GOOD.replace("point_cards = 7", "point_cards = 5"), "t.toml"), "--out", out)
    assert r.exit_code == 2 and "another scenario (rules.point_cards: 7 in the directory, 5 in this scenario;" in r.output
    assert sorted(p.name for p in (out / "hands").iterdir()) == before
    (out / "manifest.json").write_text("garbage")
    r = invoke("run", write(tmp_path, GOOD), "--out", out)
    assert r.exit_code == 2 and "corrupt" in r.output


@pytest.mark.parametrize("args", [["--seed", "-1"], ["--seed", str(2**64)], ["--start", str(2**64)],
                                  ["--start", str(2**63 - 1), "--games", "2"], ["--games", str(10**20)],
                                  ["--start", str(2**63 - 3), "--games", "5"]])
def test_trace_seed_and_start_out_of_range_are_one_line(args):
    """A negative seed, or games past int64, stopped with a numpy or numba traceback (exit 1)."""
    r = CliRunner().invoke(app, ["trace", "fubnub", *args])
    assert r.exit_code == 2 and r.output.startswith("error: --") and "out of range" in r.output
    assert r.output.count("\n") == 1
    # the option out of range is the one named (a huge --games said '--start = 0 ... allowed: 0--9077...'), as
    # typed: '--seed -1', not '--seed = -1' (a scenario key's form)
    named = "--games" if args[-1] in (str(10**20), "5") else args[0]
    assert r.output.startswith(f"error: {named} {args[args.index(named) + 1]} is out of range"), r.output
    assert "--9" not in r.output


def test_report_of_a_scenario_named_dot_dot_writes_nothing_above_out(tmp_path):
    """`name = ".."` put index.html, report.md and the figures in the folder above --out, over what was there."""
    (tmp_path / "report.md").write_text("mine")
    r = invoke("report", write(tmp_path, GOOD.replace('name = "cli"', 'name = ".."')), "--out", tmp_path / "reports",
               "--runs", tmp_path / "runs")
    assert r.exit_code == 2 and "scenario.name = '..'" in r.output and "Traceback" not in r.output
    assert (tmp_path / "report.md").read_text() == "mine" and not (tmp_path / "index.html").exists()



def test_bench_memory_out_of_range_and_a_failed_measure(tmp_path, monkeypatch):
    """`bench --memory 10**15` ran `cardsim run` on more games than a scenario takes: the child's error,
    then the parent's CalledProcessError traceback, and its temporary run folder left behind."""
    import subprocess

    from cardsim import bench
    from cardsim.errors import CardsimError

    r = invoke("bench", "fubnub", "--memory", 10**15)
    assert r.exit_code == 2 and r.output.startswith("error: --memory 1000000000000000 is out of range")
    folder = tmp_path / "mem"
    monkeypatch.setattr("tempfile.mkdtemp", lambda **kw: str(folder.mkdir() or folder))
    monkeypatch.setattr(bench.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 2))
    with pytest.raises(CardsimError, match="--memory 1000: the `cardsim run` of 80 FUBNUB games it plays failed"):
        bench.memory(1000)
    assert not folder.exists()


def test_trace_out_of_memory_names_the_caps(monkeypatch):
    """`cardsim trace fourbid -p random --rule max_hands=1000000 --rule turn_cap=1000000` stopped with
    numpy's _ArrayMemoryError traceback (45 GiB for one game's 755 million events, after 4 minutes)."""
    from cardsim.games import get_game

    g = get_game("fourbid")

    def traced(*args, **kwargs):
        raise MemoryError("Unable to allocate 45.0 GiB")
        yield

    monkeypatch.setattr(type(g), "traced", traced)
    r = invoke("trace", "fourbid", "--rule", "turn_cap=1000000")
    assert r.exit_code == 2 and r.output.startswith("error: the trace ran out of memory"), r.output
    assert "lower rules.turn_cap, rules.max_hands" in r.output and r.output.count("\n") == 1


def test_a_scenario_with_a_byte_order_mark_loads(tmp_path):
    """A scenario saved by an editor that writes a UTF-8 byte-order mark (Windows Notepad) read as
    'malformed TOML: Invalid statement (at line 1, column 1)'."""
    p = tmp_path / "bom.toml"
    p.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    plain = tmp_path / "plain.toml"
    plain.write_text(GOOD)
    from cardsim.scenario import load

    assert load(p).raw == load(plain).raw and load(p).setup == load(plain).setup


def test_backend_local_option_overrides_the_scenarios_scheduler(tmp_path):
    """`cardsim run S --backend local` with `scheduler = ...` in S played on that cluster anyway (the CLI
    resolved the options to local threads, and api.run read the scenario's keys again): here an address
    nothing answers, so it waited 30 s and ended in "the Dask scheduler could not be reached"."""
    text = GOOD.replace("seed = 1", 'seed = 1\nchunk = 100\nscheduler = "tcp://127.0.0.1:9"')
    r = invoke("run", write(tmp_path, text), "--backend", "local", "--runs", tmp_path / "runs", "-f", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout[r.stdout.index("{"):])["games"] == 300
