"""Review speed: ``anchorpath check`` for pre-commit, and ``anchorpath diff``'s replay.

Run (from the repo root, one core):  taskset -c 0 .venv/bin/python bench/review_speed.py

* check: the repository's ``selectors/`` (the demo selector file, 26 golden fixture pages,
  CP949), in-process time of :func:`anchorpath.review.check.check_file` and the wall time of
  the whole command (``anchorpath check selectors/`` in a fresh interpreter, imports included).
  Goal: well under a second, so a pre-commit hook is not felt.
* replay: both versions of a selector file (the demo file, and the same file with one field's
  XPath pointed at another label) on N pages (the fixture pages repeated under distinct URLs,
  as a run's WARC would hold them). Side by side: the replay as built (each page parsed once,
  both versions evaluated on the same tree) and the naive way (``extract`` per version, two
  parses per page). Own pages only (the demo's), no third-party data.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from anchorpath.review.check import check_file
from anchorpath.review.replay import Page, extract_quietly, replay
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.load import load_selector_file, parse_selector_data

REPO = Path(__file__).resolve().parents[1]
APPLICANT = "/descendant::th[normalize-space()='신청인'][1]/following-sibling::td[1]"
MANUFACTURER = "/descendant::th[normalize-space()='제조소'][1]/following-sibling::td[1]"


def _median(fn: Callable[[], object], reps: int, clock: Callable[[], float]) -> float:
    times = []
    for _ in range(reps):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def _interleaved(fns: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """Median process CPU time of each function, taking turns every repetition."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--pages", type=int, default=520, help="pages replayed")
    args = ap.parse_args()
    path = REPO / "selectors" / "mfds-dmf.json"

    result = check_file(path)
    assert result.ok, result.problems
    in_process = _median(lambda: check_file(path), args.reps, time.process_time)
    cli = _median(
        lambda: subprocess.run(
            [sys.executable, "-m", "anchorpath", "check", "selectors/"],
            cwd=REPO,
            check=True,
            capture_output=True,
        ),
        max(3, args.reps // 2),
        time.perf_counter,
    )
    print(
        f"check: {result.fixtures} fixture pages, {result.records} records; "
        f"in-process median {in_process * 1000:.0f} ms CPU; whole command (fresh interpreter) "
        f"median {cli * 1000:.0f} ms wall"
    )

    old = load_selector_file(path)
    text = path.read_text(encoding="utf-8").replace(APPLICANT, MANUFACTURER)
    new = parse_selector_data(json.loads(text), "edited")
    base = [(fx.url, (path.parent / fx.page).read_bytes()) for fx in old.fixtures]
    pages = [
        Page(f"{url}&copy={i}" if "?" in url else url, body, "run", "bench")
        for i in range(args.pages // len(base) + 1)
        for url, body in base
    ][: args.pages]
    kb = sum(len(p.body) for p in pages) / len(pages) / 1024

    def parse_once() -> None:
        for p in pages:
            doc = parse_html(p.body, plain=True)
            for sf in (old, new):
                evaluate_page(compile_selectors(sf), doc, p.url, anchors=False)

    def parse_twice() -> None:
        for p in pages:
            extract_quietly(old, p)
            extract_quietly(new, p)

    t = _interleaved(
        {
            "replay": lambda: replay(old, new, pages),
            "once": parse_once,
            "twice": parse_twice,
        },
        args.reps,
    )
    changed = replay(old, new, pages).fields["detail", "applicant"].changed.count
    print(
        f"replay: {len(pages)} pages ({kb:.1f} KB avg), 2 versions, {changed} values changed "
        f"(median CPU s over {args.reps} interleaved reps)"
    )
    print(
        f"  replay as built (parse once, evaluate both, compare): {t['replay']:.3f} s = "
        f"{len(pages) / t['replay']:.0f} pages/s"
    )
    print(f"  parse once + evaluate both, no compare:             {t['once']:.3f} s")
    print(
        f"  extract per version (2 parses), no compare:         {t['twice']:.3f} s "
        f"({t['twice'] / t['once']:.2f}x parse once)"
    )


if __name__ == "__main__":
    main()
