"""The ``cardsim`` command line: parses, calls the library, prints (STYLE habit 11).

Every user error (a bad scenario, an unknown policy, a corrupt run
directory) ends with one line on stderr and exit code 2.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import signal
import sys
import tempfile
import threading
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

#: what Ctrl-C before a command starts says (as :meth:`Session.kept` with no game played)
NOTHING_KEPT = ("before this command played any game; nothing new to keep (what earlier commands kept is "
                "untouched)")


def _interrupted_early(signum, frame) -> None:
    """Ctrl-C while the command line loads (typer, polars, numba: about half a second): one line and
    exit code 130, as later; a KeyboardInterrupt there printed a traceback of the imports."""
    sys.stderr.write(f"interrupted: {NOTHING_KEPT}\n")
    raise SystemExit(130)


# before the slow imports below; a command puts Python's own handler back (user_errors), and a
# process that handles SIGINT itself (or ignores it) keeps its handler
if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted_early)

import typer  # noqa: E402
import typer.core  # noqa: E402

from cardsim.errors import CardsimError, too_long  # noqa: E402
from cardsim.output import Format as OutFormat  # noqa: E402
from cardsim.output import Output, emit  # noqa: E402

#: the click typer's groups run on: vendored as ``typer._click`` since typer 0.2x, plain click before
_click = getattr(typer.core, "_click", None) or typer.core.click
_NoArgsIsHelp = getattr(_click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2


class _OneLineUsage(typer.core.TyperGroup):
    """Click's usage errors (an unknown command or option, ``--games abc``, a missing argument) as one
    ``error:`` line ending with the command's usage, exit code 2, like every other user error."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            return self._main(args, prog_name, complete_var, standalone_mode, **extra)
        finally:
            _default_sigint()

    def _main(self, args, prog_name, complete_var, standalone_mode, **extra):
        if not standalone_mode:  # a caller that handles click's exceptions itself
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _NoArgsIsHelp as e:  # bare `cardsim` or `cardsim run`: the help
            e.show()
            sys.exit(e.exit_code)
        except _click.exceptions.UsageError as e:
            usage = ""
            if e.ctx is not None:
                usage = e.ctx.get_usage().replace("Usage: ", "", 1)
                usage = f" (usage: {usage}; more with '{e.ctx.command_path} --help')"
            # typer's validation prefixes a bad choice with "Value error, " (--format xml)
            message = e.format_message().rstrip(".").replace(": Value error, ", ": ")
            typer.echo(f"error: {message}{usage}", err=True)
            sys.exit(e.exit_code)
        except _click.exceptions.ClickException as e:
            e.show()
            sys.exit(e.exit_code)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        except OSError as e:  # --version or --help into `| head` or a full disk (in a command: user_errors)
            if e.filename is not None or not _stdout_fails(e):
                raise
            try:
                _stdout_gone(e)
            except typer.Exit as stop:
                sys.exit(stop.exit_code)
            sys.exit(0)
        sys.exit(rv if isinstance(rv, int) else 0)  # an int is typer.Exit's code in this mode


app = typer.Typer(
    cls=_OneLineUsage,
    name="cardsim",
    help="Monte Carlo strategy analysis for FUBNUB, Bad Bad Turtle, Gubs and FOURBID.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # plain help text: rich markup would eat "[compare]" in "a scenario with a [compare] section"
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from cardsim import __version__

        typer.echo(f"cardsim {__version__}")
        raise typer.Exit()


#: ``--format`` of the commands that answer a question (cardsim.output)
FORMAT = typer.Option("--format", "-f", help="table for people; json or csv for programs")


_debug = False


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="print the cardsim version and exit")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="on an error, print the whole traceback (a plug-in's "
                                                         "numba typing message in full) before the one-line error")
                     ] = False,
) -> None:
    """Monte Carlo strategy analysis for FUBNUB, Bad Bad Turtle, Gubs and FOURBID."""
    global _debug
    _debug = debug
    from cardsim import jit

    jit.announce_compiles()  # 'compiling ... (first run only)' on stderr after a second of compiling


#: errno values of a folder the user cannot write to (read-only, no permission, full disk)
_WRITE_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR, errno.EEXIST,
                 errno.EISDIR}


def _default_sigint() -> None:
    """Python's own Ctrl-C handler (a KeyboardInterrupt) in place of :func:`_interrupted_early`."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _interrupted_early:
        signal.signal(signal.SIGINT, signal.default_int_handler)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a batch system's stop, a closed terminal's session manager), raised in the
    main thread as Ctrl-C is, so that it ends a command the same way: every finished chunk kept, no
    temporary file or Dask scratch folder left behind, one line. It used to end the process at once,
    silently, leaving temporary files in the run directory and a local Dask cluster's scratch folder."""


class HungUp(Terminated):
    """SIGHUP (the terminal closed, an ssh session dropped), ended as SIGTERM is (exit code 129). It
    ended the process at once, as SIGTERM did, with the same leftovers. A command started under
    ``nohup`` (SIGHUP ignored) keeps ignoring it."""


def _terminated(signum, frame) -> None:
    raise HungUp() if signum == signal.SIGHUP else Terminated()


def user_errors(fn):
    """Turn :class:`CardsimError`, a failing plug-in and a folder that cannot be written into one
    line on stderr and exit code 2 (with the whole traceback first under ``cardsim --debug``), and
    Ctrl-C (or SIGTERM, SIGHUP) into a line saying what was kept and how to resume (exit code 130; 143;
    129)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        session = Session()
        _SESSION[:] = [session]
        _default_sigint()
        main = threading.current_thread() is threading.main_thread()
        before = signal.signal(signal.SIGTERM, _terminated) if main else None
        hup = main and signal.getsignal(signal.SIGHUP) is signal.SIG_DFL  # not under nohup
        if hup:
            signal.signal(signal.SIGHUP, _terminated)
        hook = sys.unraisablehook
        sys.unraisablehook = functools.partial(_unraisable, session, hook)
        try:
            return fn(*args, **kwargs)
        except CardsimError as exc:
            _fail(exc, str(exc))
        except OSError as exc:
            if (stop := _interrupt_of(exc)) is not None:
                _stopped(stop, session)
            if exc.filename is None and _stdout_fails(exc):
                _stdout_gone(exc)
                return None
            if exc.errno == errno.ENAMETOOLONG:  # a path typed or pasted too long: it was a traceback
                _fail(exc, too_long(exc.filename or "a path"))
            if exc.errno not in _WRITE_ERRNOS:
                raise
            where = exc.filename2 or exc.filename or "a file"  # a rename's target (a folder where a part goes)
            _fail(exc, f"cannot write {where}: {exc.strerror}; nothing already computed is lost "
                       f"(choose a folder you can write to with --out / --runs)")
        except KeyboardInterrupt as exc:
            _stopped(exc, session)
        except MemoryError as exc:  # numpy's "Unable to allocate 37.3 GiB" traceback
            why = str(exc).splitlines()[0] if str(exc) else "MemoryError"
            _fail(exc, f"out of memory ({why}); each thread holds a chunk of games and their tables at once: lower "
                       f"--threads, or scenario.chunk (default 20,000) in a new run directory (one keeps the chunk it "
                       f"was started with); nothing already computed is lost (finished chunks are kept)")
        except SystemExit as exc:
            if (frame := _foreign_frame(exc)) is None:
                raise
            _fail(exc, f"{frame.filename}, line {frame.lineno}: it called sys.exit({exc.code!r}) (SystemExit) while "
                       f"cardsim loaded or ran it; a plug-in file defines its functions and returns from them")
        except Exception as exc:
            if (stop := _interrupt_of(exc) or session.swallowed) is not None:
                _stopped(stop, session)
            from cardsim.plugin_errors import explain
            from cardsim.policies import loaded_plugins

            code = _os_error_of(exc)
            if code in _WRITE_ERRNOS:  # polars writing a part on a full disk: its ComputeError's traceback
                where = ", ".join(str(d) for d in session.dirs) or "a file"
                _fail(exc, f"cannot write {where}: {os.strerror(code)}; nothing already computed is lost (choose "
                           f"a folder you can write to with --out / --runs)")
            part = session.corrupt_part(exc)
            if part is not None:
                _fail(exc, f"{part} does not read ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); "
                           f"delete it, and `cardsim run {part.parent.parent}` plays its chunk again (the other "
                           f"chunks are kept)")
            line = (explain(exc, *loaded_plugins()) or _plugin_typing(exc, *loaded_plugins())
                    or _plugin_fault(exc, *loaded_plugins()))
            if line is None:
                raise
            _fail(exc, line)
        finally:
            sys.unraisablehook = hook
            if main:
                signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)
            if hup:
                signal.signal(signal.SIGHUP, signal.SIG_DFL)

    return wrapper


def _unraisable(session: Session, hook: Any, unraisable: Any) -> None:
    """``sys.unraisablehook`` while a command runs: a Ctrl-C (or SIGTERM) raised in a callback from C
    (llvmlite's object cache, while numba compiles) is dropped there with "Exception ignored ...
    KeyboardInterrupt", and numba then fails ("RuntimeError: no compiled object yet"): a traceback and
    exit code 1. The session keeps it, and that error ends the command as the Ctrl-C it follows."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        session.swallowed = unraisable.exc_value
        return
    hook(unraisable)


def _stdout_fails(exc: OSError) -> bool:
    """Whether ``exc`` is standard output failing: a pipe whose reader has gone (``| head -1``), a
    full disk or ``> /dev/full``. The write that failed was the innermost frame's, on a stream of
    stdout's file descriptor (typer.echo's ``file``, the trace's ``out``); a pipe whose reader has
    gone also shows an error when polled."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # no stdout, or no descriptor (a test's captured output)
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    for v in (tb.tb_frame.f_locals.values() if tb is not None else ()):
        try:
            if callable(getattr(v, "fileno", None)) and v.fileno() == fd:
                return True
        except (OSError, ValueError):
            continue
    try:
        import select

        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        return any(ev & select.POLLERR for _, ev in poll.poll(0))
    except (OSError, ValueError):
        return False


def _stdout_gone(exc: OSError) -> None:
    """After standard output failed: what Python still flushes at exit goes nowhere (it printed
    "Exception ignored ... BrokenPipeError" and exit code 120), and a reader that stopped (``| head``)
    is not an error (exit code 0, as for ``cardsim trace``: it was exit code 1 without a word); a
    full disk is one line, exit code 2 (it said "cannot write a file ... choose a folder with --out
    / --runs", which has nothing to do with it)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    if not isinstance(exc, BrokenPipeError):
        _fail(exc, f"cannot write the output (standard output: {exc.strerror}); nothing already computed is lost "
                   f"(run directories and journals keep what was played): run the same command again with its "
                   f"output sent where there is room")


def _returns(decision: str, args: str) -> tuple[str, str]:
    """(game, what its plug-in function returns) of the decision ``decision`` passed ``args``."""
    from cardsim.games import game_names, get_game
    from cardsim.plugin_docs import decision_docs

    for n in game_names():
        g = get_game(n)
        if {**g.decisions, **g.optional_decisions}.get(decision) == args:
            return n, decision_docs(g)[1].get(decision, "")
    return "GAME", ""


def _can_end(body: list) -> bool:
    """Whether running the statements ``body`` can reach their end, without a return or a raise."""
    import ast

    if not body:
        return True
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return False
    if isinstance(last, ast.If):
        return _can_end(last.body) or _can_end(last.orelse)
    if isinstance(last, ast.With):
        return _can_end(last.body)
    if isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and last.test.value:
        return any(isinstance(n, ast.Break) for n in ast.walk(last))  # `while True:` ends only by a break
    return True


def _plugin_typing(exc: BaseException, files: set[str], functions: dict[str, tuple[str, int, str, str]]) -> str | None:
    """One line for a numba typing error in a kernel compiled with plug-ins that names no plug-in
    line: a decision function that can end without returning a value (no ``return``, a bare
    ``return``, only a ``raise``, an ``if`` without ``else``) makes numba type its result as none
    or optional, and the kernel calling it fails 100 lines later (a traceback, exit code 1)."""
    import ast

    from numba.core import errors as nerrors

    if not files or not isinstance(exc, nerrors.TypingError):
        return None
    debug = "the whole message: cardsim --debug ..."
    for name, (file, line, decision, args) in functions.items():
        game, returns = _returns(decision, args)
        if returns.startswith("nothing"):  # it fills an array (FUBNUB's swap)
            continue
        try:
            tree = ast.parse(Path(file).read_bytes(), file)
        except (OSError, SyntaxError, ValueError):
            continue
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef) or fn.name != name:
                continue
            inner = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
            if _can_end(fn.body) or not any(r.value is not None for r in inner) or any(r.value is None for r in inner):
                return (f"plug-in {Path(file).name}, function {name}, line {line}: numba cannot compile the kernel "
                        f"with it: it can end without returning a value (no return, a bare return, only a raise, "
                        f"an if without else); every path of a {game} '{decision}' decision must return "
                        f"{returns or 'a value'} ({debug})")
    from cardsim.plugin_errors import _typing_line

    names = ", ".join(sorted({Path(f).name for f, *_ in functions.values()})) or "the plug-ins"
    return (f"numba cannot compile the kernel with plug-in {names}: {_typing_line(str(exc))}; check that each "
            f"decision function returns what `cardsim games GAME` says ({debug})")


def _plugin_fault(exc: BaseException, files: set[str], functions: dict[str, tuple[str, int, str, str]]
                  ) -> str | None:
    """:func:`cardsim.runner.plugin_fault` where no set-up is at hand (a chunk of a study or a trace): it
    names the plug-ins loaded in this process (a run's chunk names its own, :func:`cardsim.runner.run_chunk`)."""
    from cardsim.runner import plugin_fault

    if not files:
        return None
    return plugin_fault(exc, ", ".join(sorted({Path(f).name for f, *_ in functions.values()})) or "the plug-ins")


def _os_error_of(exc: BaseException) -> int | None:
    """The errno a library's own error carries in its message (polars: "underlying IO error: No space
    left on device (os error 28)"), if any."""
    import re

    m = re.search(r"\(os error (\d+)\)", str(exc))
    return int(m[1]) if m else None


def _foreign_frame(exc: BaseException):
    """The innermost traceback frame of ``exc`` in a file that is neither cardsim's nor an installed
    library's or Python's own: a plug-in's (a plug-in calling ``sys.exit()`` when imported ended the
    command without a word, with its exit code, 0 included)."""
    import sysconfig
    import traceback

    package = Path(__file__).resolve().parent
    libs = {Path(p).resolve() for p in sysconfig.get_paths().values() if p}
    for f in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(f.filename)
        if f.filename.startswith("<") or not path.is_file():
            continue
        path = path.resolve()
        if not path.is_relative_to(package) and not any(path.is_relative_to(lib) for lib in libs):
            return f
    return None


def _interrupt_of(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) an error was raised in handling, if any: a library's clean-up that fails
    on the way out (Optuna's journal lock, interrupted within its release, raised FileNotFoundError,
    printed as a traceback with exit code 1 after Ctrl-C in a search)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__context__
    return None


def _stopped(exc: KeyboardInterrupt, session: Session) -> None:
    """After Ctrl-C, SIGTERM or SIGHUP: one line saying what was kept and how to resume; exit code 130,
    143 or 129."""
    stop, sig = (("hung up", signal.SIGHUP) if isinstance(exc, HungUp) else ("terminated", signal.SIGTERM)
                 if isinstance(exc, Terminated) else ("interrupted", signal.SIGINT))
    try:
        typer.echo(f"{stop}: {session.kept()}", err=True)
    except OSError:  # the terminal that would show it has gone (SIGHUP)
        pass
    raise typer.Exit(128 + sig) from None


def _fail(exc: BaseException, line: str) -> None:
    if _debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    typer.echo(f"error: {line}", err=True)
    raise typer.Exit(2) from None


class Session:
    """What one command does that a user should see on stderr: the run directories it starts,
    a progress bar, and after Ctrl-C how many games were kept."""

    def __init__(self) -> None:
        self.dirs: dict[Path, int] = {}  # run directory -> games asked of it
        self.read: list[Path] = []  # run directories only read (cardsim report RUN_DIR)
        self.bar: Any = None
        self.journals = ""  # what a search or meta-game keeps in its journals, said after Ctrl-C
        self.swallowed: KeyboardInterrupt | None = None  # a Ctrl-C Python dropped in a callback (_unraisable)

    def searching(self, s: Any, kind: str, runs: Path, budget: int | None = None) -> None:
        """A search (``kind`` "search") or meta-game of scenario ``s`` starts: after Ctrl-C, say what its
        journals keep (it said "no game was played yet; nothing to keep", its journal holding trials).
        ``budget``: ``--budget``, which names the search's folder (it named the scenario budget's)."""
        from cardsim.studies import search as srch

        if kind == "search":
            p = srch.with_budget(srch.plan(s), budget)  # as search.run makes it
            self.journals = f"the search keeps each finished batch of candidates in its journal {p.storage or srch.folder_for(p, runs) / 'journal.log'}"
        else:
            self.journals = (f"the meta-game keeps the games played in {runs / (s.name + '-meta-chunks')} and each "
                             f"finished batch of its best-response searches in their journals under {runs}")

    def corrupt_part(self, exc: BaseException) -> Path | None:
        """After a polars error, the first parquet part of this command's run directories that does
        not read in full (its footer reads, so the run trusted it, but its data is damaged), if any."""
        import polars as pl

        from cardsim.results import scan_part

        if not isinstance(exc, pl.exceptions.PolarsError):
            return None
        for d in [*self.dirs, *self.read]:
            for part in sorted(Path(d).glob("*/part-*.parquet")):
                try:
                    scan_part(part).collect()
                except Exception:
                    return part
        return None

    def on_start(self, path: Path, scenario: Any) -> None:
        """``api.run``'s hook: print each run directory once, when its run starts."""
        first = path not in self.dirs
        self.dirs[path] = max(self.dirs.get(path, 0), scenario.games)
        if first:
            line = f"{scenario.name}: run directory {path}"
            if self.bar is not None:
                self.bar.console.print(line, markup=False, highlight=False, soft_wrap=True)
            else:
                typer.echo(line, err=True)

    def progress(self, label: str):
        """A rich progress bar on stderr (shown when stderr is a terminal, whatever stdout is) as a
        ``(done, total)`` callback, and the context that shows it."""
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        console = Console(stderr=True)
        self.bar = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            transient=False, disable=not console.is_terminal, console=console)
        task = self.bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            self.bar.update(task, completed=done, total=total)

        return self.bar, update

    def kept(self) -> str:
        """What Ctrl-C left behind, in one line: games kept, where, how to resume."""
        from cardsim.results import RunDir

        resume = "run the same command again to resume (finished chunks are not played again)"
        if not self.dirs and self.journals:
            return f"{self.journals}; run the same command again to resume (finished batches are not played again)"
        if not self.dirs:
            return NOTHING_KEPT
        kept = 0
        complete = True
        for path, asked in self.dirs.items():
            try:
                done = sum(RunDir(path).read_manifest()["done"].values())
            except (CardsimError, OSError, AttributeError, TypeError):
                complete = False
                continue
            kept += done
            complete = complete and done >= asked
        if complete:  # stopped after the last game (in the summary, a report): nothing is left to play
            resume = "run the same command again for what it prints after the games (no game is played again)"
        if len(self.dirs) == 1:
            path, asked = next(iter(self.dirs.items()))
            if complete:
                return f"all {kept:,} games are kept in {path}; {resume}"
            return f"{kept:,} of {asked:,} games are kept in {path}; {resume}"
        parents = sorted({str(p.parent) for p in self.dirs})
        return (f"{kept:,} games are kept in the {len(self.dirs)} run directories started under "
                f"{', '.join(parents)}; {resume}")


_SESSION: list[Session] = [Session()]


def session() -> Session:
    """The current command's :class:`Session`."""
    return _SESSION[0]


#: the prefix of the empty file :func:`_check_writable` makes and removes (:func:`_check_run_dir` skips it)
WRITE_CHECK = ".cardsim-write-check."


def _check_writable(path: Path, option: str, instead: str = "choose a folder you can write to") -> None:
    """Fail before any game is played when ``path`` (``--out`` / ``--runs``, or ``cardsim run RUN_DIR``'s
    own directory) cannot be written; ``instead``: what to do then."""
    if path.exists() and not path.is_dir():  # it said "cannot write there (File exists)"
        raise CardsimError(f"{option} {path} is a file, and {option} names a folder (made when missing); choose "
                           f"another path")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path, prefix=WRITE_CHECK)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise CardsimError(f"{option} {path}: cannot write there ({exc.strerror}); {instead}") from None


def _check_run_dir(out: Path) -> None:
    """Refuse ``--out`` naming a folder that holds files of its own and no run (no manifest.json): the
    run's games/, hands/ and manifest.json went in among them (``--out ~``, ``--out /``, ``--out ""``
    from an unset variable, which is the current folder). A run writes its manifest before any game,
    so a folder holding nothing but what cardsim leaves before it (its lock, a temporary file) is one."""
    from cardsim.results import MANIFEST
    from cardsim.runner import OWNER

    if (out / MANIFEST).exists():
        return
    others = sorted(e.name for e in out.iterdir() if e.name != OWNER
                    and not e.name.startswith(WRITE_CHECK)
                    and not (e.name.startswith(".") and e.name.endswith(".tmp")))
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise CardsimError(f"--out {out} holds other files ({shown}) and no run (no {MANIFEST}); --out names a run "
                           f"directory of its own (made when missing): choose a new or empty folder, e.g. "
                           f"{out / 'NAME'}")


def _not_a_study_folder(path: Path, command: str) -> None:
    """A search's folder (its journal) or a meta-game's chunks given as a run directory: say which
    command reads it (it said only "not a run directory (no manifest.json)")."""
    if (path / "manifest.json").exists():
        return
    if (path / "journal.log").is_file():
        what, study = "a search's folder (journal.log)", "search"
    elif path.name.endswith("-meta-chunks"):
        what, study = "a meta-game's games (its chunks)", "meta"
    else:
        return
    same = " (and the --budget and --seed it ran with, which name the folder)" if study == "search" else ""
    raise CardsimError(f"{path} is {what}, not a run directory for `cardsim {command}`: give the {study}'s scenario "
                       f"file to `cardsim {study}` (or `cardsim report`) with --runs {path.parent}{same}, which "
                       f"resumes from it (no finished batch or chunk is played again)")


def _parse_rules(rules: list[str] | None) -> dict[str, Any]:
    import tomllib

    out: dict[str, Any] = {}
    for r in rules or []:
        if "=" not in r:
            raise CardsimError(f"--rule {r!r} must look like name=value (a TOML value, e.g. point_cards=7)")
        k, v = r.split("=", 1)
        k = k.strip()
        if not k:  # it said "unknown knob rules.;"
            raise CardsimError(f"--rule {r!r} names no knob; write name=value (a TOML value, e.g. point_cards=7)")
        try:
            value = tomllib.loads(f"x = {v}")["x"]
        except (tomllib.TOMLDecodeError, RecursionError):  # nested too deeply: tomllib recursed
            value = v
        if k in out and out[k] != value:  # the last one was played without a word
            raise CardsimError(f"--rule {k} is given twice ({k}={json.dumps(out[k])} and {k}={json.dumps(value)}); "
                               f"give it once")
        out[k] = value
    return out


# -- games ------------------------------------------------------------------------
@app.command()
@user_errors
def games(
    game: Annotated[str | None, typer.Argument(metavar="GAME", help="show one game only")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """List games, variants, knobs, policies and tables.

    Each knob with its default and allowed values, each policy with its parameters, each
    table with its columns (for the variant that has them). JSON and CSV give the same as
    tables, one row per variant, knob, policy parameter, decision and table layout.
    """
    from cardsim.games import game_names, get_game
    from cardsim.plugin_docs import decision_docs
    from cardsim.scenario import players_range

    names = [game] if game is not None else game_names()  # "" is a name to refuse, not every game
    if fmt is not OutFormat.table:
        emit(_games_output([get_game(n) for n in names]), fmt)
        return
    for name in names:
        g = get_game(name)
        typer.echo(f"{g.name}: {g.title} (rules version {g.rules_version})")
        typer.echo("  variants:")
        for v in g.variants:
            typer.echo(f"    {v.name:<14} {players_range(v)} (default {v.default_players}): {v.help}")
        typer.echo("  knobs ([rules]):")
        for k in g.knobs:
            d = list(k.default) if isinstance(k.default, tuple) else k.default
            only = f" [variants: {', '.join(k.variants)}]" if k.variants else ""
            typer.echo(f"    {k.name} = {json.dumps(d)}  ({k.allowed()}){only}\n        {k.help}")
        typer.echo("  policies:")
        for p in g.policies:
            params = ", ".join(f"{n}={v:g} [{p.domain(n).describe()}]" for n, v in p.params)
            typer.echo(f"    {p.name}{f' ({params})' if params else ''}: {p.help}")
        writes = " and ".join(g.plugin_writes)
        filled = f" ({', '.join(g.filled_decisions)}: nothing)" if g.filled_decisions else ""
        typer.echo(f"  plug-in decisions (define <name>_<decision> with @numba.njit; each reads its arrays, writes "
                   f"only {writes}, and returns an int{filled}; docs/plugins.md):")
        meanings, returns = decision_docs(g)
        for d, args in {**g.decisions, **g.optional_decisions}.items():
            opt = f"  [optional; left out: {g.optional_fallbacks[d][0]}]" if d in g.optional_decisions else ""
            typer.echo(f"    {d}({args}){opt}")
            if game:  # one game: what each argument means
                typer.echo(f"        returns {returns[d]}")
                for a, meaning in meanings[d].items():
                    typer.echo(f"        {a}: {meaning}")
        typer.echo("  tables (columns in order):")
        for t, (counts, names) in _table_columns(g).items():
            typer.echo(f"    {t} ({counts}): {names}")
        typer.echo("")


def _games_output(gs: list) -> Output:
    """``cardsim games -f json|csv``: what the listing says, as tables a program reads."""
    import polars as pl

    from cardsim.plugin_docs import decision_docs

    def frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
        return pl.DataFrame(rows, schema=schema, orient="row")

    games, variants, knobs, policies, params, decisions, tables = [], [], [], [], [], [], []
    for g in gs:
        games.append({"game": g.name, "title": g.title, "rules_version": g.rules_version})
        variants += [{"game": g.name, "variant": v.name, "min_players": v.min_players, "max_players": v.max_players,
                      "default_players": v.default_players, "help": v.help} for v in g.variants]
        knobs += [{"game": g.name, "knob": k.name,
                   "default": json.dumps(list(k.default) if isinstance(k.default, tuple) else k.default),
                   "kind": k.kind, "allowed": k.allowed(), "choices": list(k.choices), "lo": k.lo, "hi": k.hi,
                   "odd": k.odd, "variants": list(k.variants), "help": k.help} for k in g.knobs]
        policies += [{"game": g.name, "policy": p.name, "params": len(p.params), "help": p.help} for p in g.policies]
        params += [{"game": g.name, "policy": p.name, "param": n, "default": float(v),
                    "allowed": p.domain(n).describe()} for p in g.policies for n, v in p.params]
        _, returns = decision_docs(g)
        decisions += [{"game": g.name, "decision": d, "args": args, "optional": d in g.optional_decisions,
                       "returns": returns[d]} for d, args in {**g.decisions, **g.optional_decisions}.items()]
        for v in g.variants:
            for players in sorted({v.min_players, v.max_players}):
                tables += [{"game": g.name, "variant": v.name, "players": players, "table": t, "columns": list(cols)}
                           for t, cols in g.columns_for(v.name, players).items()]
    text = pl.String
    return Output(
        f"{len(gs)} game{'s' if len(gs) != 1 else ''}: {', '.join(g.name for g in gs)}",
        [("Games", frame(games, {"game": text, "title": text, "rules_version": pl.Int64})),
         ("Variants", frame(variants, {"game": text, "variant": text, "min_players": pl.Int64,
                                       "max_players": pl.Int64, "default_players": pl.Int64, "help": text})),
         ("Knobs ([rules])", frame(knobs, {"game": text, "knob": text, "default": text, "kind": text,
                                           "allowed": text, "choices": pl.List(text), "lo": pl.Float64,
                                           "hi": pl.Float64, "odd": pl.Boolean, "variants": pl.List(text),
                                           "help": text})),
         ("Policies", frame(policies, {"game": text, "policy": text, "params": pl.Int64, "help": text})),
         ("Policy parameters", frame(params, {"game": text, "policy": text, "param": text, "default": pl.Float64,
                                              "allowed": text})),
         ("Plug-in decisions", frame(decisions, {"game": text, "decision": text, "args": text,
                                                 "optional": pl.Boolean, "returns": text})),
         ("Tables (columns in order, by variant and players)",
          frame(tables, {"game": text, "variant": text, "players": pl.Int64, "table": text,
                         "columns": pl.List(text)}))],
        notes=["a knob's default is its value as JSON text; its kind is int, float, bool, choice (one of choices) "
               "or names (a list of choices); lo and hi bound a number (null: open)"])


def _table_columns(g) -> dict[str, tuple[str, str]]:
    """Each table's column count (by variant and players, when they change it) and its column
    names, runs such as ``tricks_s0, tricks_s1, ...`` written ``tricks_s0..tricks_s3``."""
    seen: dict[str, set[tuple[str, ...]]] = {}
    for v in g.variants:
        for players in sorted({v.min_players, v.max_players}):
            for t, cols in g.columns_for(v.name, players).items():
                seen.setdefault(t, set()).add(tuple(cols))
    out = {}
    for t, layouts in seen.items():
        widest = max(layouts, key=len)
        sizes = sorted({len(c) for c in layouts})
        counts = f"{sizes[0]}-{sizes[-1]} columns by players" if len(sizes) > 1 else f"{sizes[0]} columns"
        out[t] = (counts, _compress(list(widest)))
    return out


def _compress(names: list[str]) -> str:
    """``a, x_s0, x_s1, x_s2, b`` -> ``a, x_s0..x_s2, b``."""
    import re

    out: list[str] = []
    i = 0
    while i < len(names):
        m = re.fullmatch(r"(.*?)(\d+)", names[i])
        j = i
        if m:
            while j + 1 < len(names) and names[j + 1] == f"{m.group(1)}{int(m.group(2)) + j + 1 - i}":
                j += 1
        out += names[i:j + 1] if j - i < 2 else [f"{names[i]}..{names[j]}"]
        i = j + 1
    return ", ".join(out)


# -- run --------------------------------------------------------------------------
#: a study's section -> the command that plays it
STUDIES = {"compare": "compare", "sweep": "sweep", "ratings": "rate", "cards": "cards", "search": "search",
           "meta": "meta"}


@app.command()
@user_errors
def run(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO|RUN_DIR", help="scenario TOML file, or a run "
                                             "directory to resume or extend")],
    games: Annotated[int | None, typer.Option("--games", "-n", help="games to play (overrides the scenario)")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")] = None,
    out: Annotated[Path | None, typer.Option(help="run directory (default: RUNS/<name>-<hash>)")] = None,
    runs: Annotated[Path | None, typer.Option(help="parent of default run directories [default: runs]")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help="local threads (results do not depend on it)")] = None,
    debug: Annotated[bool, typer.Option(help="check card conservation at every step (slow)")] = False,
    until: Annotated[str | None, typer.Option(help="stop when an estimate is this precise, e.g. 'winrate_s0 +-0.002' "
                                                   "(95% Wilson, looked at after every chunk; --games is the cap)")] = None,
    balance: Annotated[bool, typer.Option(help="also print the balance metrics")] = False,
    backend: Annotated[str | None, typer.Option(help="local (threads, default) or dask")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="workers of a local Dask cluster")] = None,
    scheduler: Annotated[str | None, typer.Option(help="address of a Dask scheduler, e.g. tcp://host:8786")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Play a scenario and print its summary.

    The run directory is resumed or extended when it exists: finished chunks are not played
    again (RUN_DIR: the run it holds, with its seed). Ctrl-C keeps every finished chunk.
    """
    from cardsim import api

    if scenario.is_dir():  # a run directory: resume or extend the run it holds
        _not_a_study_folder(scenario, "run")
        if not (scenario / "manifest.json").exists():
            raise CardsimError(f"{scenario} is a directory but not a run directory (no manifest.json); give a "
                               f"scenario file (.toml) or the run directory `cardsim run` printed")
        if runs is not None:  # it was resumed in place, --runs ignored without a word
            raise CardsimError(f"--runs {runs}: {scenario} is a run directory, resumed or extended where it is; "
                               f"--runs is where a scenario's new run directories go: drop it (--out NEW_DIR "
                               f"plays the run's scenario into a new directory)")
        _, m, s = api.played_scenario(scenario)
        asked = m.get("asked", 0)  # the most games a run asked of it (an interrupted run's too)
        s = api.load(s, games or (asked if isinstance(asked, int) and asked > s.games else None), seed)
        if out is None:  # resumed where it is, which must be writable (its lock, its manifest, new parts)
            _check_writable(scenario, "RUN_DIR", f"`cardsim report {scenario}` reads it without writing, or "
                                                  f"--out NEW_DIR plays its scenario into a folder you can write to")
        out = out if out is not None else scenario
    else:
        s = api.load(scenario, games, seed)
    if out is not None:
        _check_writable(out, "--out")
        _check_run_dir(out)
    else:
        _check_writable(runs := runs or Path("runs"), "--runs")
    be = api.make_backend(s, backend, workers, scheduler)
    bar, update = session().progress(f"{s.name}: games")
    try:
        with bar:
            # be None: the options and keys resolved to local threads ("local", or api.run read the scenario's
            # keys again: `--backend local` beside `scheduler = ...` in the file played on that cluster)
            result = api.run(s, out=out, runs=runs, threads=threads, progress=update, debug=debug, until=until,
                             backend=be or "local", on_start=session().on_start)
    finally:
        if be is not None:
            be.close()
    s = result.scenario
    from cardsim.games import get_game
    from cardsim.report.numbers import many, one_game_note

    what = f"{s.name}: {many(s.games, 'game')} of {s.game} ({s.setup.variant}), seed {s.seed}, run directory {result.path}"
    answer = one_game_note(get_game(s.game).answer(result.tables, s.setup), s.games)  # the report's answer, in words
    from cardsim.stats import ROWWISE

    notes = ([what] if answer else []) + ([result.stop] if result.stop else []) + [ROWWISE]
    if debug and not result.played:
        notes.append(f"--debug checked nothing: all {s.games:,} games were already played in {result.path}; "
                     f"to check them, play them again into a fresh directory (--out NEW_DIR)")
    if not scenario.is_dir():  # a study's scenario: `cardsim run` plays its base only (`games` of it)
        for section, command in STUDIES.items():
            if section in s.raw:
                notes.append(f"{scenario} has a [{section}] section, which `cardsim run` does not play (it played "
                             f"the base scenario alone): `cardsim {command} {scenario}` does")
    emit(Output(answer or what,
                result.summary() + ([("Balance metrics", result.balance())] if balance else []),
                notes=notes,
                fields={"run_dir": str(result.path), "games": s.games, "seed": s.seed}), fmt)


# -- trace ------------------------------------------------------------------------
class Format(StrEnum):
    text = "text"
    jsonl = "jsonl"


@app.command()
@user_errors
def trace(
    game: Annotated[str, typer.Argument(metavar="GAME", help="game name (cardsim games)")],
    seed: Annotated[int, typer.Option(help="root seed")] = 0,
    policy: Annotated[list[str] | None, typer.Option("--policy", "-p",
                      help="policy per seat (repeat), or one for all seats")] = None,
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="games to trace (any number: printed as "
                                                                   "they are played, in batches)")] = 1,
    start: Annotated[int, typer.Option(min=0, help="first game index (the same game as in a run)")] = 0,
    variant: Annotated[str | None, typer.Option(help="variant (default: the game's first)")] = None,
    players: Annotated[int | None, typer.Option(help="number of players")] = None,
    rule: Annotated[list[str] | None, typer.Option("--rule", "-r", help="knob as name=value (repeat)")] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="text for people, jsonl for programs")] = Format.text,
) -> None:
    """Print games move by move.

    From the same kernel as the fast runs; each game starts with a header event naming everything
    needed to play it again (cardsim.tracing.replay).
    """
    from cardsim.games import get_game
    from cardsim.scenario import _check_int, build_setup
    from cardsim.tracing import describe

    g = get_game(game)
    _check_int("--seed", seed, 0, 2**63 - 1)
    below = "a game index is below 2^63, the last one traced included"
    _check_int("--start", start, 0, 2**63 - 2, below)
    _check_int("--games", games, 1, 2**63 - 1 - start, below)  # checked first, a huge --games blamed --start
    pols: Any = None
    if policy:
        parsed = [_policy_arg(p) for p in policy]
        pols = parsed[0] if len(parsed) == 1 else parsed
    setup = build_setup(g, variant, players, pols, _parse_rules(rule), base_dir=Path.cwd(),
                        players_key="--players", policies_key="--policy", policy_key="--policy", variant_key="--variant")
    out = sys.stdout
    if out is None:  # stdout closed (`cardsim trace ... >&-`): nobody reads the games (it was a traceback)
        return
    try:
        for e in g.traced(setup, seed, start, games):
            out.write((json.dumps(e) if fmt == Format.jsonl else describe(g, e)) + "\n")
        out.flush()
    except BrokenPipeError:  # the reader stopped (e.g. `| head`): not an error; what Python still
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # flushes at exit goes nowhere
    except MemoryError:  # a game cut only at enormous caps: its events (millions) are held at once
        caps = ", ".join(f"rules.{k.name}" for k in g.knobs_for(setup.variant) if k.name.startswith("max_")
                         or k.name.endswith("_cap"))
        raise CardsimError(f"the trace ran out of memory: it holds a batch of games and their events at once, and "
                           f"a {g.name} game cut only at caps this large can make millions of events; lower "
                           f"{caps or 'the caps on a game'}") from None


def _policy_arg(text: str) -> Any:
    """A ``--policy`` value: a policy name, or a TOML inline table with its parameters as in a
    scenario's seats (``"{ name = 'tactician', call_need = 3 }"``)."""
    if not text.lstrip().startswith("{"):
        return text
    import tomllib

    from cardsim.errors import ScenarioError

    try:
        return tomllib.loads(f"policy = {text}")["policy"]
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        why = str(exc).split(" (at ")[0]
        raise ScenarioError(f"--policy {text!r} is not a TOML inline table ({why}); write a name, or e.g. "
                            "\"{ name = 'tactician', call_need = 3 }\"") from None


# -- bench ------------------------------------------------------------------------
@app.command()
@user_errors
def bench(
    game: Annotated[list[str] | None, typer.Argument(metavar="GAME...", help="games to bench (default: all)")] = None,
    count: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per timed repetition")] = None,
    interp: Annotated[int | None, typer.Option(min=1, help="games for the interpreted run")] = None,
    markdown: Annotated[bool, typer.Option(help="print a Markdown table (for the README)")] = False,
    variants: Annotated[bool, typer.Option("--variants", help="bench every variant, not only the first")] = False,
    memory: Annotated[int | None, typer.Option(min=1, help="also run this many FUBNUB hands through `cardsim run` and "
                                                    "report its peak resident memory (make bench: 100000000)")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Measure kernel speed: full vs interpreted vs minimal.

    Units per second of the full kernel, of the same kernel interpreted and of a minimal
    shuffle-deal-resolve kernel, timed side by side; compare the ratios, not the rates.
    JSON and CSV print one row per game and variant when all are measured.
    """
    from cardsim.bench import INTERPRETED, MARKDOWN_HEADER, bench_line, bench_row, markdown_row
    from cardsim.games import game_names, get_game

    if markdown and fmt is not OutFormat.table:
        raise CardsimError(f"--markdown and --format {fmt.value}: --markdown is the table format's Markdown "
                           f"form (for the README); give one of them")
    names = list(dict.fromkeys(game)) if game else game_names()  # `bench gubs gubs` benches gubs once
    for n in names:  # before the --memory run: a mistyped name ended the command after it, its figure unprinted
        get_game(n)
    notes = []
    if memory:
        from cardsim.bench import GAME_HANDS
        from cardsim.bench import memory as run_memory
        from cardsim.scenario import MAX_GAMES, _check_int

        _check_int("--memory", memory, 1, int(MAX_GAMES * GAME_HANDS), f"hands: at most {MAX_GAMES:,} games")
        m = run_memory(memory)
        notes.append(f"memory: {m.hands:,} FUBNUB hands ({m.games:,} games) through `cardsim run` in "
                     f"{m.seconds:,.0f} s ({m.hands / m.seconds:,.0f} hands/s end to end, parquet included): peak "
                     f"resident {m.peak_rss_mib:,.0f} MiB")
        if fmt is OutFormat.table:
            typer.echo(notes[-1])

    jobs = [(n, v.name) for n in names for v in (get_game(n).variants if variants else get_game(n).variants[:1])]
    if fmt is not OutFormat.table:
        import polars as pl

        rows = [bench_row(run_bench(n, count, interp, v)) for n, v in jobs]
        emit(Output(f"kernel speed of {len(rows)} game variant{'s' if len(rows) != 1 else ''}, in units a second "
                    f"of this thread's CPU time; compare the ratios, not the rates",
                    [("Kernel speed", pl.DataFrame(rows))],
                    notes=[*notes, f"vs_interpreted: {INTERPRETED}; vs_minimal and tables_vs_full: medians of "
                                   f"back-to-back pairs (pairs, tables_rounds) with their range (_lo, _hi)"],
                    fields={"memory": vars(m) if memory else None}), fmt)
        return
    if markdown:
        typer.echo(MARKDOWN_HEADER)
    for n, v in jobs:
        r = run_bench(n, count, interp, v)
        typer.echo(markdown_row(r) if markdown else bench_line(r))


def run_bench(name: str, count: int | None, interp: int | None, variant: str):
    """:func:`cardsim.bench.bench`, a repetition too large for memory said in one line (it was numpy's
    ``Unable to allocate 36.4 TiB`` traceback, or the interpreted subprocess's CalledProcessError)."""
    import re
    import subprocess

    from cardsim.bench import bench
    from cardsim.games import get_game

    try:
        return bench(name, count, interp, variant)
    except (MemoryError, ValueError) as exc:  # numpy past its sizes (-n 10**19): "array is too big", a traceback
        if isinstance(exc, ValueError) and not re.search(r"array is too big|Maximum allowed dimension", str(exc)):
            raise
        raise CardsimError(f"--games {count or get_game(name).bench_count:,}: a timed repetition holds its {name} "
                           f"games in memory at once, and this many do not fit; give fewer (default: "
                           f"{get_game(name).bench_count:,})") from None
    except subprocess.CalledProcessError as exc:
        why = next((ln.strip() for ln in reversed((exc.stderr or "").splitlines()) if ln.strip()),
                   f"exit code {exc.returncode}")
        raise CardsimError(f"--interp: the interpreted run of {name} (a subprocess) failed ({why[:200]}); give "
                           f"fewer games with --interp (default: --games / 500)") from None


# -- studies ----------------------------------------------------------------------
def _study(kind: str, scenario: Path, games: int | None, seed: int | None, runs: Path, threads: int | None,
           fmt: OutFormat) -> None:
    from cardsim import api
    from cardsim.studies import cards as cd
    from cardsim.studies import compare as cmp
    from cardsim.studies import rate as rt
    from cardsim.studies import sweep as sw

    s = api.load(scenario, seed=seed)
    _check_writable(runs, "--runs")
    fn = {"compare": api.compare, "sweep": api.sweep, "ratings": api.rate, "cards": api.cards}[kind]
    mod = {"compare": cmp, "sweep": sw, "ratings": rt, "cards": cd}[kind]
    bar, update = session().progress(f"{s.name}: games")
    with bar:
        res = fn(s, games=games, runs=runs, threads=threads, progress=update, on_start=session().on_start)
    emit(mod.output(res), fmt)


@app.command()
@user_errors
def compare(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="scenario with a [compare] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per arm and rotation (cap in decide mode)")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Compare arms on the same deals (paired, seats rotated).

    Plays the scenario's [compare] section and prints each arm against the first with its
    paired 95% interval.
    """
    _study("compare", scenario, games, seed, runs, threads, fmt)


@app.command()
@user_errors
def sweep(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="scenario with a [sweep] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per point")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Sweep a grid of knobs or parameters.

    Plays every point of the scenario's [sweep] section on the same deals and prints one row
    per point, with intervals.
    """
    _study("sweep", scenario, games, seed, runs, threads, fmt)


@app.command()
@user_errors
def rate(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="scenario with a [ratings] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per pair and rotation")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Rate policies (round robin or gauntlet).

    A Luce model (Bradley-Terry when two sides meet), clustered by deal. Plays the scenario's [ratings] section and prints each policy's strength with its 95%
    interval and the pairwise win rates.
    """
    _study("ratings", scenario, games, seed, runs, threads, fmt)


@app.command()
@user_errors
def cards(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="scenario with a [cards] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="games per deck (and rotation)")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario)")] = None,
    runs: Annotated[Path, typer.Option(help="parent of the run directories")] = Path("runs"),
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Measure each card's effect on the same deals.

    The scenario's [cards] section: every game played again on the same seeds with the card
    removed (or its count changed), paired, with Holm or BH across cards.
    """
    _study("cards", scenario, games, seed, runs, threads, fmt)


def _scale_study(kind: str, scenario: Path, size: int | None, seed: int | None, runs: Path, threads: int | None,
                 backend: str | None, workers: int | None, scheduler: str | None, fmt: OutFormat) -> None:
    """``search`` and ``meta``: in-memory evaluation on local threads or a Dask cluster."""
    import importlib

    from cardsim import api

    mod = importlib.import_module(f"cardsim.studies.{kind}")
    s = api.load(scenario, seed=seed)
    _check_writable(runs, "--runs")
    session().searching(s, kind, runs, size if kind == "search" else None)
    be = api.make_backend(s, backend, workers, scheduler)
    bar, update = session().progress(f"{s.name}: {'search games' if kind == 'search' else 'profiles'}")
    try:
        with bar:
            if kind == "search":
                res = api.search(s, budget=size, runs=runs, threads=threads, progress=update, backend=be or "local")
            else:
                res = api.meta(s, games=size, runs=runs, threads=threads, progress=update, backend=be or "local")
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
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="scenario with a [search] section")],
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
    """Search a policy's parameters or the rules.

    The scenario's [search] section: candidates raced on the same deals (Optuna proposes them), the
    winner re-played on held-out deals against the baseline and the runner-up.
    """
    _scale_study("search", scenario, budget, seed, runs, threads, backend, workers, scheduler, fmt)


@app.command()
@user_errors
def meta(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="scenario with a [meta] section")],
    games: Annotated[int | None, typer.Option("--games", "-n", min=1, help="deals per profile and held out "
                                              "(overrides meta.deals and meta.heldout)")] = None,
    seed: Seed = None,
    runs: Annotated[Path, typer.Option(help="parent of the best-response searches' folders")] = Path("runs"),
    threads: Threads = None,
    backend: BackendOpt = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    fmt: Annotated[OutFormat, FORMAT] = OutFormat.table,
) -> None:
    """Solve the meta-game of a population of strategies.

    The scenario's [meta] section: the payoff table, Nash mixture, alpha-rank, exploitability and
    iterated best response.
    """
    _scale_study("meta", scenario, games, seed, runs, threads, backend, workers, scheduler, fmt)


# -- report -----------------------------------------------------------------------
@app.command()
@user_errors
def report(
    source: Annotated[Path, typer.Argument(metavar="SCENARIO|RUN_DIR", help="a scenario TOML (run or resumed first) or a run directory")],
    out: Annotated[Path, typer.Option(help="reports folder; the report goes to OUT/<name>/")] = Path("reports"),
    runs: Annotated[Path | None, typer.Option(help="parent of default run directories [default: runs]")] = None,
    games: Annotated[int | None, typer.Option("--games", "-n", help="games (overrides the scenario; as -n of "
                                              "the scenario's study command: a search's budget, a "
                                              "meta-game's deals per profile and held out)")] = None,
    threads: Annotated[int | None, typer.Option(min=1, help="local threads")] = None,
    seed: Annotated[int | None, typer.Option(help="root seed (overrides the scenario; as --seed of the scenario's "
                                             "command: run, a study, search or meta)")] = None,
) -> None:
    """Write the HTML and Markdown report of a scenario or run.

    OUT/<name>/index.html (self-contained, no network needed) and report.md with its figures.
    A scenario is run (or resumed) first; a run directory is read as it is.
    """
    from cardsim import api
    from cardsim import report as rep

    if not source.exists():
        raise CardsimError(f"{source} does not exist; give a run directory (the one `cardsim run` printed) or "
                           f"a scenario file (.toml)")
    if source.is_dir():
        if games is not None:  # it was read as it was played, --games ignored without a word
            try:
                held = int(json.loads((source / "manifest.json").read_text())["games"])
            except (OSError, ValueError, KeyError, TypeError):
                held = None
            if held == games:
                raise CardsimError(f"--games {games}: a run directory is reported with the games it holds, as it was "
                                   f"played, and it holds {games:,}: drop --games")
            if held is not None and games < held:  # extending it would not change what is reported
                raise CardsimError(f"--games {games}: a run directory is reported with all the games it holds, "
                                   f"as it was played; for its first {games:,}, report its scenario "
                                   f"with --games {games} (`cardsim run {source} --games {games}` prints them)")
            raise CardsimError(f"--games {games}: a run directory is reported with the games it holds, as it was "
                               f"played; to report more, extend it first (`cardsim run {source} --games {games}`), "
                               f"then `cardsim report {source}`")
        if runs is not None or threads is not None or seed is not None:  # nothing is played: they were ignored
            named = [f"--{k} {v}" for k, v in (("runs", runs), ("threads", threads), ("seed", seed)) if v is not None]
            given = ", ".join(named[:-1]) + (" and " if len(named) > 1 else "") + named[-1]
            raise CardsimError(f"{given}: a run directory is reported as it was played, nothing is played; drop "
                               f"{'them' if len(named) > 1 else 'it'}")
        session().read.append(source)
        _not_a_study_folder(source, "report")
        result = api.open_run(source)
        _check_writable(out, "--out")
        path = rep.write(result, out)
    else:
        s = api.load(source, seed=seed)  # a search or meta-game played with --seed S is found by it
        _check_writable(out, "--out")
        _check_writable(runs := runs or Path("runs"), "--runs")
        kind = next((k for k in ("compare", "sweep", "ratings", "cards", "search", "meta") if k in s.raw), None)
        if kind not in ("search", "meta"):
            s = api.load(s, games)
        bar, update = session().progress(f"{s.name}: games")
        with bar:
            if kind is None:
                result = api.run(s, runs=runs, threads=threads, progress=update, on_start=session().on_start)
                path = rep.write(result, out)
            elif kind in ("search", "meta"):
                session().searching(s, kind, runs, games if kind == "search" else None)
                # --games as `cardsim search -n` / `cardsim meta -n` read it (it set the scenario's games,
                # which neither reads: the report played the full search or meta-game, not the one played)
                size = {"budget": games} if kind == "search" else {"games": games}
                study = api.search if kind == "search" else api.meta
                res = study(s, runs=runs, threads=threads, progress=update, **size)
                path = rep.build_study(s, kind, res).write(out)
            else:
                study = {"compare": api.compare, "sweep": api.sweep, "ratings": api.rate, "cards": api.cards}[kind]
                # --games as the study's own command passes it (its errors name --games, not scenario.games)
                res = study(s, games=games, runs=runs, threads=threads, progress=update, on_start=session().on_start)
                path = rep.build_study(s, kind, res).write(out)
    typer.echo(f"report written to {path / 'index.html'} and {path / 'report.md'}")


def main() -> None:  # pragma: no cover
    app(prog_name="cardsim")  # `python -m cardsim.cli` names itself as the installed command does


if __name__ == "__main__":  # pragma: no cover
    main()
