"""``python -m cardsim.docs traces [--check] [PATH]``: write (or check) a generated page."""

from __future__ import annotations

import sys
from pathlib import Path

from cardsim.docs import traces

PAGES = {"traces": (traces.render, Path("docs/traces.md"))}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if not args or args[0] not in PAGES or any(a.startswith("-") for a in args):
        print(f"usage: python -m cardsim.docs {{{','.join(PAGES)}}} [--check] [PATH]", file=sys.stderr)
        return 2
    render, default = PAGES[args[0]]
    path = Path(args[1]) if len(args) > 1 else default
    text = render()
    if check:
        if not path.exists() or path.read_text() != text:
            print(f"error: {path} is not up to date; run `python -m cardsim.docs {args[0]}`", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
