"""Errors a user can cause. The CLI turns each into one line and exit code 2."""

from __future__ import annotations

import difflib
import errno
import os
from collections.abc import Iterable, Sequence


class CardsimError(Exception):
    """Bad input: the message names what is wrong and what is allowed."""


class ScenarioError(CardsimError):
    """A scenario file or option that does not validate."""


class PolicyError(CardsimError):
    """A policy that cannot be found, loaded or that acted illegally."""


class RunDirError(CardsimError):
    """A run directory that is corrupt or belongs to another scenario."""


def did_you_mean(word: str, allowed: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when a close match exists, else ``''``."""
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def said(where: str, value: str) -> str:
    """How a value is named in a message: ``--players 3`` for an option (as typed on the command line),
    ``scenario.players = 3`` for a scenario key."""
    return f"{where} {value}" if where.startswith("-") else f"{where} = {value}"


def allowed_list(allowed: Iterable[object]) -> str:
    return ", ".join(str(a) for a in allowed)


def first_repeat(items: Sequence[object]) -> tuple[int, int] | None:
    """``(i, j)``: the first item of ``items`` that repeats an earlier one (at ``j``) and that earlier
    place (``i``), or None when every item is distinct; for a message that names the item twice."""
    seen: dict[object, int] = {}
    for j, x in enumerate(items):
        if x in seen:
            return seen[x], j
        seen[x] = j
    return None


def too_long(path: object) -> str:
    """A path longer than the system takes (ENAMETOOLONG), in words."""
    text = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else str(path)
    shown = repr(text[:60]) + ("..." if len(text) > 60 else "")
    return (f"{shown} is too long a path ({len(text.encode(errors='replace')):,} bytes; a name between slashes "
            f"holds at most 255 bytes, a whole path 4,096)")


def unlookable(path: str | os.PathLike) -> str | None:
    """Why the system cannot look ``path`` up at all, in words (a name longer than it takes, a NUL byte:
    pathlib's OSError or ValueError), or None: it exists, or it does not and the caller says so."""
    try:
        os.stat(path)
    except ValueError:
        return f"{os.fsdecode(path)[:60]!r} holds a NUL byte, which no path holds"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return too_long(path)
    return None
