"""The manual stands alone (issue 17): no file points outside the repository, every rule id cited
anywhere resolves to a heading of docs/rules/, every relative link in a Markdown file resolves, and
the README's Python API examples run as written; every command line the manual shows parses."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP_DIRS = {".git", ".venv", "runs", ".numba_cache", "__pycache__", ".pytest_cache", ".ruff_cache",
             "dask-worker-space", "build", "dist"}
BINARY = {".png", ".parquet", ".pyc", ".so", ".gz", ".zip"}
#: rule id families and their ranges (docs/rules/README.md)
FAMILIES = {"F": 15, "T": 10, "G": 5, "B": 14}
RULE_ID = re.compile(r"\b([FTGB])(\d{1,2})\b")
#: a path to the project docs beside the repository (spelt in pieces so this file does not match itself)
OUTSIDE = re.compile(r"\.\./" r"shared|shared/" r"seeds|shared/RULES|(?<![_A-Za-z])RULES\.md")


def repo_files() -> list[Path]:
    out = []
    for p in ROOT.rglob("*"):
        rel = p.relative_to(ROOT)
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in rel.parts) or not p.is_file():
            continue
        if p.suffix in BINARY:
            continue
        out.append(p)
    return out


def text(p: Path) -> str:
    data = p.read_bytes()
    if b"\0" in data:
        return ""
    s = data.decode("utf-8", errors="replace")
    if p.suffix == ".html":  # embedded figures are base64, not words
        s = re.sub(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+", "", s)
    return s


def test_no_file_points_outside_the_repository():
    this = Path(__file__).resolve()
    bad = []
    for p in repo_files():
        if p == this:
            continue
        for n, line in enumerate(text(p).splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()[:120]}")
    assert not bad, "files that point outside the repository (cite docs/rules/... instead):\n" + "\n".join(bad)


def defined_ids() -> dict[str, str]:
    """Rule id -> the docs/rules page whose heading defines it (``### F3 Ranking in a hand``)."""
    out = {}
    for page in sorted((ROOT / "docs" / "rules").glob("*.md")):
        for m in re.finditer(r"^#{2,4} ([FTGB]\d{1,2}) ", page.read_text(), re.M):
            assert m.group(1) not in out, f"{m.group(1)} is defined twice"
            out[m.group(1)] = page.name
    return out


def test_every_rule_id_has_one_heading_in_docs_rules():
    ids = defined_ids()
    want = {f"{f}{i}" for f, n in FAMILIES.items() for i in range(1, n + 1)}
    assert set(ids) == want
    page = {"F": "fubnub.md", "T": "turtle.md", "G": "gubs.md", "B": "fourbid.md"}
    assert all(ids[i] == page[i[0]] for i in ids)


def test_every_rule_id_cited_anywhere_resolves():
    ids = defined_ids()
    bad = []
    for p in repo_files():
        if p.suffix not in (".py", ".md", ".toml", ".html", ".txt", ".jsonl", ".json", ""):
            continue
        for m in RULE_ID.finditer(text(p)):
            rid = m.group(0)
            if rid not in ids:
                bad.append(f"{p.relative_to(ROOT)}: {rid}")
    assert not bad, "rule ids cited but not defined in docs/rules/:\n" + "\n".join(sorted(set(bad)))


def test_reference_policies_have_their_heading():
    for page, names in {"fubnub.md": ("greedy", "partner"), "turtle.md": ("eager",),
                        "fourbid.md": ("collector",)}.items():
        body = (ROOT / "docs" / "rules" / page).read_text()
        assert "## Reference polic" in body
        for name in names:
            assert re.search(rf"^### {name}$", body, re.M), (page, name)


#: pages a link may point to before they exist (none now: docs/plugins.md and docs/traces.md landed)
PENDING: set[str] = set()


def markdown_links():
    """``(page, target)`` for every link of the repository's Markdown pages outside code blocks, but web
    (``scheme:``) links."""
    for p in repo_files():
        if p.suffix != ".md":
            continue
        body = re.sub(r"```.*?```", "", text(p), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", body):
            if not re.match(r"[a-z]+:", target):
                yield p, target


def test_relative_links_in_markdown_resolve_inside_the_repository():
    bad = []
    for p, target in markdown_links():
        if target.startswith("#"):
            continue
        path = (p.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() and str(path.relative_to(ROOT.resolve())) in PENDING:
            continue
        if not path.exists() or ROOT.resolve() not in path.parents:
            bad.append(f"{p.relative_to(ROOT)}: {target}")
    assert not bad, "broken links:\n" + "\n".join(bad)


def heading_anchors(body: str) -> set[str]:
    """The anchors a Markdown page offers: each heading's GitHub slug (lower case, punctuation but - and _
    dropped, spaces to -, a repeated slug numbered -1, -2, ...) and each explicit ``<a id>`` / ``<a name>``."""
    found: set[str] = set(re.findall(r"<a (?:id|name)=[\"']([^\"']+)[\"']", body))
    seen: dict[str, int] = {}
    for title in re.findall(r"^#{1,6}\s+(.*?)\s*#*$", body, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def test_anchor_links_in_markdown_name_a_heading():
    """A link's #anchor (the README's contents, "see [Questions](#questions-...)") names a heading of its page:
    a renamed heading left links that open the page at its top."""
    bad = []
    for p, target in markdown_links():
        if "#" not in target:
            continue
        page, anchor = target.split("#", 1)
        path = (p.parent / page).resolve() if page else p
        if path.suffix != ".md" or not path.exists():
            continue  # a missing page is the test above's
        if anchor not in heading_anchors(re.sub(r"```.*?```", "", text(path), flags=re.S)):
            bad.append(f"{p.relative_to(ROOT)}: {target}")
    assert not bad, "links to no heading:\n" + "\n".join(bad)


# -- the README's Python API examples ----------------------------------------------------------------
def readme_section(title: str) -> str:
    body = (ROOT / "README.md").read_text()
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", body, re.M | re.S)
    assert m, f"README has no section '## {title}'"
    return m.group(1)


def python_blocks(section: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", section, re.S)


@pytest.mark.slow
def test_readme_python_api_examples_run(tmp_path, monkeypatch):
    """Every ```python block of the README's Python API section runs as written, in order, from a
    folder holding the repository's scenarios (as a user's checkout would)."""
    blocks = python_blocks(readme_section("Python API"))
    assert len(blocks) >= 4, "the Python API section shows run, compare, sweep, rate and open_run"
    for name in ("cardsim.run(", "cardsim.compare(", "cardsim.sweep(", "cardsim.rate(", "cardsim.open_run(",
                 "to_pandas("):
        assert any(name in b for b in blocks), name
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    for block in blocks:
        exec(compile(block, "README.md (Python API)", "exec"), namespace)


# -- the command lines the manual shows ----------------------------------------------------------------
SHELL = {"", "sh", "bash", "console", "shell"}


def fenced_lines(body: str) -> list[str]:
    """The lines of a Markdown text's shell code blocks (```sh, ```bash, ``` ...)."""
    out, lang = [], None
    for line in body.splitlines():
        fence = re.match(r"\s*```(\w*)", line)
        if fence:
            lang = None if lang is not None else fence.group(1)
        elif lang in SHELL:
            out.append(line.strip().removeprefix("$ "))
    return out


def manual_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
            *sorted((ROOT / "cardsim").rglob("*.md"))]


def test_every_command_line_in_the_manual_parses():
    """A ``cardsim ...`` line of a shell block in the README or docs/ runs with the command and
    options it names: each is parsed by the CLI itself (nothing runs), so a renamed option, a value
    outside a choice or a scenario file that is gone fails here, not in a user's terminal. And the
    README shows every command at least once."""
    import typer

    from cardsim.cli import app

    group = typer.main.get_command(app)
    seen, bad, shown = 0, [], set()
    for p in manual_files():
        for line in fenced_lines(text(p)):
            if not line.startswith("cardsim "):
                continue
            # the shell's part of the line: a comment, a pipe, a redirection
            words = re.split(r"\s+#\s|\s\|\s|\s>\s", line)[0]
            args = shlex.split(words)[1:]
            seen += 1
            try:
                ctx = group.make_context("cardsim", list(args))
                rest = ctx._protected_args + ctx.args
                cmd = group.get_command(ctx, rest[0]) if rest else None
                if cmd is None:
                    bad.append(f"{p.relative_to(ROOT)}: {line!r}: no such command")
                    continue
                cmd.make_context(rest[0], rest[1:], parent=ctx)
                if p.name == "README.md":
                    shown.add(rest[0])
            except typer.Exit:
                pass
            except Exception as e:  # click's usage errors, reported by line
                why = e.format_message() if hasattr(e, "format_message") else str(e)
                bad.append(f"{p.relative_to(ROOT)}: {line!r}: {why}")
            for path in re.findall(r"\bscenarios/[\w.]+\.toml\b", words):
                if not (ROOT / path).is_file():
                    bad.append(f"{p.relative_to(ROOT)}: {line!r}: no file {path}")
    assert seen >= 25, f"only {seen} command lines found: did the README's code blocks change fence?"
    assert not bad, "\n".join(bad)
    assert shown == set(group.list_commands(None)), f"commands with no example in the README: " \
        f"{sorted(set(group.list_commands(None)) - shown)}"


def test_every_option_the_manual_names_exists():
    """An inline ``cardsim CMD ... --option`` (a synopsis or a sentence) names options the command
    has."""
    import typer

    from cardsim.cli import app

    group = typer.main.get_command(app)
    commands = {name: group.get_command(None, name) for name in group.list_commands(None)}
    top = {o for prm in group.params for o in prm.opts + prm.secondary_opts}
    bad = []
    for p in manual_files():
        for span in re.findall(r"`(cardsim [^`]+)`", text(p)):
            words = span.split()
            cmd = commands.get(words[1]) if len(words) > 1 else None
            have = top | ({o for prm in cmd.params for o in prm.opts + prm.secondary_opts} if cmd else set())
            for opt in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", span):
                if opt not in have:
                    bad.append(f"{p.relative_to(ROOT)}: `{span}`: {opt}")
    assert not bad, "options the CLI does not have:\n" + "\n".join(bad)


def test_readme_scenario_blocks_are_toml_with_keys_cardsim_reads():
    """Every ```toml block of the README parses (a user copies them) and uses only keys its section
    takes, and the README names every key a scenario section takes (one left out is a key a user
    cannot find)."""
    import tomllib

    from cardsim.scenario import SECTIONS
    from cardsim.studies import meta, search

    keys = {s: set(k) for s, k in SECTIONS.items() if s != "rules"} | {
        "search": set(search.KEYS), "meta": set(meta.KEYS), "meta.search": set(meta.SEARCH_KEYS)}
    shown: dict[str, set[str]] = {s: set() for s in keys}
    blocks = re.findall(r"```toml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 7
    bad = []
    for block in blocks:
        try:
            doc = tomllib.loads(block)
        except tomllib.TOMLDecodeError as e:
            bad.append(f"not TOML ({e}):\n{block}")
            continue
        for section, body in doc.items():
            if section == "rules":
                continue
            parts = {section: body} | ({"meta.search": body["search"]} if section == "meta" and "search" in body else {})
            for name, table in parts.items():
                shown[name] |= set(table)
                bad += [f"[{name}] {k}: not a key cardsim reads" for k in set(table) - keys[name]]
    readme = (ROOT / "README.md").read_text()
    bad += [f"[{s}] {k}: the README never names it" for s in keys for k in sorted(keys[s] - shown[s])
            if not re.search(rf"`{k}`|\b{k} =|# .*\b{k}\b", readme)]
    assert not bad, "\n".join(bad)


def test_readme_plugin_example_plays(tmp_path, monkeypatch):
    """The README's plug-in (its ``mine.py`` block and the ``[seats]`` block after it), copied as
    written into a folder with a scenario around them, plays a FUBNUB run: the page users copy from."""
    from cardsim import api

    section = readme_section("Policies and plug-ins")
    code = next(b for b in python_blocks(section) if b.startswith("# mine.py"))
    seats = re.search(r"```toml\n(\[seats\].*?)```", section, re.S).group(1)
    (tmp_path / "mine.py").write_text(code)
    (tmp_path / "s.toml").write_text(f'[scenario]\ngame = "fubnub"\ngames = 200\n{seats}')
    monkeypatch.chdir(tmp_path)
    res = api.run(tmp_path / "s.toml", out=tmp_path / "run")
    assert res.tables["games"].select("game").collect().height == 200


def test_readme_names_every_stored_column():
    """Every column of every stored table (each game, variant and player count at its ends) is named
    in the README's "Output: tables and columns" section; a run of seat columns (``score_s0`` ..)
    by its first member or a pattern (``earned_s*``, ``out_s<k>``)."""
    from cardsim.games import game_names, get_game

    body = (ROOT / "README.md").read_text()
    section = body[body.index("## Output: tables and columns"):body.index("## Reports")]
    words = set(re.findall(r"\w+", section))
    missing = set()
    for name in game_names():
        g = get_game(name)
        for v in g.variants:
            for players in sorted({v.min_players, v.max_players}):
                for table, cols in g.columns_for(v.name, players).items():
                    for c in cols:
                        run = re.match(r"(.*_[a-z])(\d+)$", c)
                        if c in words or (run and re.search(rf"\b{re.escape(run.group(1))}(0|\*|<k>)", section)):
                            continue
                        missing.add(f"{name} {table}.{c}")
    assert not missing, "columns the README does not name:\n" + "\n".join(sorted(missing))


def test_readme_names_every_json_key_of_run_and_rate(tmp_path):
    """`cardsim run -f json` adds run_dir, games and seed, and `cardsim rate -f json` adds model, to the
    answer, notes and tables every command prints; the README's command sections named none of them."""
    import json

    from typer.testing import CliRunner

    from cardsim.cli import app

    body = (ROOT / "README.md").read_text()
    f = tmp_path / "s.toml"
    f.write_text('[scenario]\nname = "k"\ngame = "fubnub"\ngames = 40\n[ratings]\npolicies = ["random", "partner"]\n')
    for command in ("run", "rate"):
        r = CliRunner().invoke(app, [command, str(f), "--runs", str(tmp_path / "runs"), "-f", "json", "-n", "20"])
        assert r.exit_code == 0, r.output
        keys = set(json.loads(r.stdout[r.stdout.index("{"):])) - {"answer", "notes", "tables"}
        start = body.index(f"### `cardsim {command}`")
        section = body[start:body.index("\n### ", start + 1)]
        assert keys and not {k for k in keys if f"`{k}`" not in section}, (command, keys)


def test_readme_names_every_column_of_bench_json():
    """`cardsim bench -f json` rows carry game, variant and unit beside the rates and ratios; the README's
    `cardsim bench` section listed the rates and ratios only, so `unit` (hand or game) was nowhere."""
    from cardsim.bench import BenchResult, bench_row

    body = (ROOT / "README.md").read_text()
    start = body.index("### `cardsim bench`")
    section = body[start:body.index("\n### ", start + 1)]
    row = bench_row(BenchResult("fubnub", "traditional", "hand", 1.0, 1.0, 1.0, 1.0, (1.0,), (1.0,)))
    assert not [k for k in row if f"`{k}`" not in section]


def test_readme_cards_example_names_removable_cards(tmp_path):
    """The README's ``[cards]`` example plans on a Bad, Bad, Turtle scenario: every card it names is one
    a scenario may remove (it once listed the Turtle, which stays in the deck: ``cardsim cards`` refused it)."""
    from cardsim import scenario as sc
    from cardsim.studies import cards

    section = readme_section("Questions: comparisons, sweeps, precision, ratings, card effects")
    block = next(b for b in re.findall(r"```toml\n(.*?)```", section, re.S) if b.startswith("[cards]"))
    p = tmp_path / "s.toml"
    p.write_text('[scenario]\ngame = "turtle"\nplayers = 4\ngames = 100\n\n[seats]\npolicy = "eager"\n\n' + block)
    plan = cards.plan(sc.load(p))
    named = re.search(r"^cards = \[(.*?)\]", block, re.M).group(1)
    assert len(re.findall(r'"([^"]+)"', named)) == 3 and plan is not None


def test_readme_python_api_names_resolve_after_import_cardsim():
    """The functions the README's Python API section names in its text (``cardsim.report.write(res,
    "reports")``, ``cardsim.studies.cards.output(result)``, ...) are reached after ``import cardsim``
    alone, in a fresh interpreter: ``cardsim.report`` raised AttributeError until imported by hand."""
    import subprocess
    import sys

    section = readme_section("Python API")
    names = sorted(set(re.findall(r"`(cardsim(?:\.\w+)+)\(", section)))
    assert "cardsim.report.write" in names and "cardsim.studies.cards.output" in names, names
    code = "import cardsim\n" + "".join(f"assert callable({n}), {n!r}\n" for n in names)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
