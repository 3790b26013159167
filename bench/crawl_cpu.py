"""CPU of a crawl outside the drift statistics: per site and page, and the parts made cheaper.

Part 1: ``--sites`` demo sites of ``--pages`` pages each, crawled one after the other by
``run_site`` (delay 0, the demo server in a child process), each into a fresh state directory
(a first run, as in ``run --all`` over new sites): CPU time of this process per site and per
page (``time.process_time``: every thread, kernel time included).

Part 2, side by side, each item against what it replaced (CPU time, best of ``--reps``):

* 32 ``HttpClient`` constructions (one per site of a 32-site ``run --all``, sharing one TLS
  context) against 32 ``httpx.Client(trust_env=False)`` (each loading the CA bundle);
* the ``report.json`` of the last run of part 1: ``report_json`` against
  ``json.dumps(indent=2)``;
* validating the demo's golden records, a validator per site as a run builds one:
  ``RecordValidator.problems`` against jsonschema's ``iter_errors`` for every record.

    .venv/bin/python bench/crawl_cpu.py --sites 8 --pages 20 --reps 3

``--crawl-only`` skips part 2 (to time part 1 on an older checkout).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import httpx
import scale  # bench/scale.py: demo servers in a child process, the fetch settings
from jsonschema import Draft202012Validator

from anchorpath._config import FetchConfig
from anchorpath.demo import write_site_file
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions
from anchorpath.selectors.load import load_selector_file


def crawl_one(url: str, work: Path, pages: int) -> Path:
    sel, state = work / "selectors", work / "state"
    write_site_file(sel, url, site_id="s", max_pages=pages)
    result = run_site(RunOptions("s", sel, state, base_url=url, settings=scale.settings(0.0, 4)))
    assert result.verdict == "ok", result.reason
    return result.run_dir


def best(fn: Callable[[], Any], n: int, reps: int) -> float:
    """Best CPU seconds per call of ``fn`` over ``reps`` rounds of ``n`` calls."""
    out = []
    for _ in range(reps):
        began = time.process_time()
        for _ in range(n):
            fn()
        out.append((time.process_time() - began) / n)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sites", type=int, default=8)
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--crawl-only", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="crawl-cpu-"))
    with scale.Servers(1) as servers:
        url = servers.urls[0]
        run_dir = crawl_one(url, root / "warm", args.pages)  # imports, first-use costs
        per_site = []
        for rep in range(args.reps):
            began = time.process_time()
            for i in range(args.sites):
                run_dir = crawl_one(url, root / f"r{rep}-{i}", args.pages)
            per_site.append((time.process_time() - began) / args.sites)
    site_ms = 1000 * min(per_site)
    print(f"crawl: {site_ms:.1f} ms CPU per site, {site_ms / args.pages:.2f} ms per page")
    print("  (per rep: " + ", ".join(f"{1000 * s:.1f}" for s in per_site) + " ms per site)")

    if not args.crawl_only:
        items(root, run_dir, args.reps)


def items(root: Path, run_dir: Path, reps: int) -> None:
    from anchorpath.fetch.http import HttpClient
    from anchorpath.runner.drift import validate
    from anchorpath.runner.drift.validate import RecordValidator, record_schema
    from anchorpath.runner.report.render import report_json

    config = FetchConfig()
    shared = best(
        lambda: [HttpClient(config, "ua", clock=time.monotonic).close() for _ in range(32)], 1, reps
    )
    own = best(lambda: [httpx.Client(trust_env=False).close() for _ in range(32)], 1, reps)
    print(
        f"32 clients: {1000 * own:.1f} ms CPU each loading the CA bundle, "
        f"{1000 * shared:.1f} ms sharing one TLS context"
    )

    summary = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    indent = best(lambda: json.dumps(summary, ensure_ascii=False, indent=2, default=str), 100, reps)
    ours = best(lambda: report_json(summary), 100, reps)
    print(
        f"report.json ({len(report_json(summary)) // 1024} KiB): json.dumps(indent=2) "
        f"{1000 * indent:.2f} ms, report_json {1000 * ours:.2f} ms CPU"
    )

    sf = load_selector_file(root / "warm" / "selectors" / "s.json")
    records: list[tuple[str, dict[str, Any]]] = []
    for f in sorted((root / "warm" / "selectors" / "fixtures").glob("*/*.records.json")):
        for r in json.loads(f.read_text(encoding="utf-8")):
            records.append((r["_page_type"], {k: v for k, v in r.items() if k[0] != "_"}))

    def fast() -> None:
        v = RecordValidator(sf.page_types)
        for page_type, values in records:
            assert v.problems(page_type, values) == []

    def jsonschema_only() -> None:
        vs = {
            name: Draft202012Validator(record_schema(pt), format_checker=validate._checker)
            for name, pt in sf.page_types.items()
        }
        for page_type, values in records:
            assert list(vs[page_type].iter_errors(dict(values))) == []

    n = len(records)
    slow_us = 1e6 * best(jsonschema_only, 20, reps) / n
    fast_us = 1e6 * best(fast, 20, reps) / n
    print(
        f"record validation ({n} records a site): jsonschema {slow_us:.1f} us, "
        f"RecordValidator {fast_us:.1f} us CPU per record"
    )


if __name__ == "__main__":
    main()
