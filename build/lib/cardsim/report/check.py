"""Look at reports in a real browser before they are committed.

``python -m cardsim.report.check [--shots DIR] [--require-browser] REPORT.html...`` (run by
``make report``) checks each report page twice:

- its HTML: a title, a question and a non-empty answer, and every embedded figure a PNG that
  decodes to a picture that is not blank;
- in headless Chromium (when one is installed): a screenshot of the page, which must not be
  blank. The screenshots are kept in ``--shots`` (default ``runs/report-shots``) to look at.

Exit code 0 when every page passes (the browser part is skipped, with a note, when no Chromium
is found, unless ``--require-browser``), 1 otherwise; each problem is one line.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_browser() -> str | None:
    """A Chromium-family browser: ``$CARDSIM_CHROMIUM`` or the first of :data:`BROWSERS` on PATH."""
    env = os.environ.get("CARDSIM_CHROMIUM")
    if env:
        return env if Path(env).exists() or shutil.which(env) else None
    return next((b for b in map(shutil.which, BROWSERS) if b), None)


def _blank(png: bytes) -> str:
    """'' when the picture shows something, else why it is blank or broken."""
    from PIL import Image  # matplotlib's dependency

    try:
        im = Image.open(io.BytesIO(png))
        im.load()
    except Exception as exc:  # a truncated or corrupt PNG
        return f"does not decode ({type(exc).__name__})"
    if im.width < 50 or im.height < 50:
        return f"is {im.width}x{im.height} pixels"
    grey = im.convert("L")
    hist = grey.histogram()
    total = im.width * im.height
    dominant = max(hist) / total
    if dominant > 0.995:
        return f"is blank ({100 * dominant:.1f}% of its pixels one shade)"
    return ""


def check_html(page: Path) -> list[str]:
    """Problems of the page's HTML and its embedded figures (no browser needed)."""
    text = page.read_text(errors="replace")
    problems = []
    if not re.search(r"<h1>[^<]+</h1>", text):
        problems.append("no title")
    answer = re.search(r"<b>Answer\.</b>(.*?)</p>", text, re.S)
    if not answer or len(answer.group(1).strip()) < 10:
        problems.append("no answer")
    if re.search(r"\bnan%|\bnan\b", re.sub(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+", "", text)):
        problems.append("shows 'nan'")
    for n, b64 in enumerate(re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text), 1):
        why = _blank(base64.b64decode(b64))
        if why:
            problems.append(f"figure {n} {why}")
    return problems


def screenshot(page: Path, png: Path, browser: str, width: int = 1200, height: int = 3000) -> str:
    """Take a headless screenshot of ``page``; '' on success, else what went wrong."""
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="cardsim-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
               f"--user-data-dir={profile}", f"--screenshot={png}", f"--window-size={width},{height}",
               page.resolve().as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=180, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"the browser failed: {exc}"
    if not png.exists():
        return "the browser wrote no screenshot"
    return ""


def check(page: Path, shots: Path | None = None, browser: str | None = None) -> list[str]:
    """Every problem of one report page: its HTML, then (with a browser) its screenshot."""
    problems = check_html(page)
    if browser:
        shot = (shots or page.parent) / f"{page.parent.name}.png"
        why = screenshot(page, shot, browser)
        if not why:
            why = _blank(shot.read_bytes())
            why = f"screenshot {shot} {why}" if why else ""
        if why:
            problems.append(why)
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cardsim.report.check", description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="+", type=Path, help="report pages (reports/*/index.html)")
    ap.add_argument("--shots", type=Path, default=Path("runs/report-shots"), help="where screenshots go")
    ap.add_argument("--require-browser", action="store_true", help="fail when no Chromium is found")
    args = ap.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print("check: no Chromium found (apt-get install chromium, or set CARDSIM_CHROMIUM): "
              "checking the HTML and its figures only", file=sys.stderr)
        if args.require_browser:
            return 1
    bad = 0
    for page in args.pages:
        problems = check(page, args.shots, browser)
        bad += bool(problems)
        for p in problems:
            print(f"check: {page}: {p}")
        if not problems:
            print(f"check: ok {page}" + (f" (screenshot in {args.shots})" if browser else ""))
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
