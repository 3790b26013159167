"""Run time of the demo with plain HTTP against Chromium rendering, side by side in one run.

Serves the demo notice board (day 1: 64 records on list and detail pages) on 127.0.0.1 and
runs the pipeline on it twice with the demo's selector file and the demo's fast politeness:
once with ``render: http``, once with ``render: browser`` (Debian Chromium through
Playwright). Each run starts from an empty state directory, so both fetch every page. Reported:
pages, records, wall time, the ratio browser / HTTP, and the renderer's own timings from the
run's fetch counters (browser launch, time spent rendering, pages rendered).

Goal (issue 14): the browser run within 3x of the HTTP run.

Run from the repo root:
    .venv/bin/python bench/render_speed.py --write-results
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
SECTION = "Browser rendering speed (bench/render_speed.py)"


def run_once(render: str, base_url: str, work: Path) -> dict[str, Any]:
    from anchorpath._config import load_settings
    from anchorpath.demo import __file__ as demo_init
    from anchorpath.runner.pipeline import run_site
    from anchorpath.runner.run_types import RunOptions

    data = json.loads((Path(demo_init).parent / "mfds-dmf.json").read_text("utf-8"))
    data["fetch"]["render"] = render
    sel_dir = work / render
    sel_dir.mkdir(parents=True)
    path = sel_dir / "mfds-dmf.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    settings = load_settings()
    fast = replace(
        settings.fetch,
        min_delay=0.02,
        delay_factor=0.0,
        allow_private_networks=True,
        contact="anchorpath-bench@localhost",
    )
    settings = replace(settings, fetch=fast, paths=replace(settings.paths, cache_dir=""))
    options = RunOptions(
        site=str(path),
        selectors_dir=sel_dir,
        state_dir=work / f"state-{render}",
        base_url=base_url,
        settings=settings,
    )
    t0 = time.perf_counter()
    result = run_site(options)
    seconds = time.perf_counter() - t0
    counters = result.fetch_counters
    return {
        "render": render,
        "seconds": seconds,
        "pages": result.pages,
        "records": result.records,
        "verdict": result.verdict,
        "rendered": counters.get("rendered", 0),
        "render_seconds": counters.get("render_seconds", 0.0),
        "browser_launch_seconds": counters.get("browser_launch_seconds", 0.0),
    }


def section(rows: Sequence[dict[str, Any]]) -> list[str]:
    http = next(r for r in rows if r["render"] == "http")
    lines = [
        "Demo day 1 (64 records, list + detail pages) on 127.0.0.1, the demo's fast politeness",
        "(`min_delay` 0.02 s), empty state for each run; both runs in one process, one after the",
        "other.",
        "",
        "| render | pages | records | verdict | wall s | × HTTP | pages rendered | render s "
        "| ms / page | browser launch s |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        per = 1000 * r["render_seconds"] / r["rendered"] if r["rendered"] else 0.0
        lines.append(
            f"| {r['render']} | {r['pages']} | {r['records']} | {r['verdict']} | "
            f"{r['seconds']:.1f} | {r['seconds'] / http['seconds']:.1f} | {r['rendered']:.0f} | "
            f"{r['render_seconds']:.1f} | {per:.0f} | {r['browser_launch_seconds']:.1f} |"
        )
    return [*lines, "", *NOTES]


#: The figures before issue 14, measured once with this script (kept under the table).
NOTES = [
    "Before issue 14 (same script, same machine, the renderer of main at 23:45 UTC: a new tab",
    "per page, `load` + up to 5 s of network idle): http 5.3 s, browser 101.9 s (19.2x). The",
    "machine had 2 cores shared by several jobs (load average about 9) during the measurements;",
    "repeated runs of the new renderer gave 2.4x, 2.4x and 1.8x.",
]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--write-results", action="store_true", help="update bench/RESULTS.md")
    args = ap.parse_args(argv)
    from anchorpath.demo.server import DemoServer

    rows = []
    with tempfile.TemporaryDirectory(prefix="anchorpath-render-") as tmp, DemoServer(day=1) as srv:
        for render in ("http", "browser"):
            rows.append(run_once(render, str(srv.base_url), Path(tmp)))
            print(rows[-1], file=sys.stderr)
    body = section(rows)
    print("\n".join(body))
    if args.write_results:
        sys.path.insert(0, str(HERE))
        from lists import write_results

        body += ["", "Command: `.venv/bin/python bench/render_speed.py --write-results`"]
        write_results({SECTION: body})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
