"""CPU of a crawl outside the drift statistics: per site and page, and the parts made cheaper.

Part 1: ``--sites`` demo sites of ``--pages`` pages each, crawled one after the other by
``run_site`` (delay 0, the demo server in a child process), each into a fresh state directory
(a first run, as in ``run --all`` over new sites): CPU time of this process per site and per
page (``time.process_time``: every thread, kernel time included).

Part 2, side by side, each item against what it replaced (CPU time, best of ``--reps``):

* the fetch cache of 32 sites crawled on 32 threads (``run --all``: one state directory), each
  opened, read once and closed: ``DiskStore`` (the process's one ``diskcache.Cache`` of the
  directory) against a ``diskcache.Cache`` opened per site;
* 32 ``HttpClient`` constructions (one per site of a 32-site ``run --all``, sharing one TLS
  context) against 32 ``httpx.Client(trust_env=False)`` (each loading the CA bundle);
* the ``report.json`` of the last run of part 1: ``report_json`` against
  ``json.dumps(indent=2)``;
* validating the demo's golden records, a validator per site as a run builds one:
  ``RecordValidator.problems`` against jsonschema's ``iter_errors`` for every record.

    .venv/bin/python bench/crawl_cpu.py --sites 8 --pages 20 --reps 3

``--crawl-only`` skips part 2 (to time part 1 on an older checkout). ``--phases`` crawls the
sites of a repetition into one state directory, each from its own origin (as ``run --all``),
and splits part 1's CPU per site into the per-site fixed costs of ``run --all``: *setup* (from
``crawl_site`` starting to the site's first request), *post-crawl* (from the last page's
progress event to ``crawl_site`` returning: closing the fetcher, validation, field
statistics) and *finish* (``Run.finish``: the gate, commit, report files, checkpoint removal;
without the drift baseline's *seed*, which ``run --all`` computes while the sites crawl).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import diskcache
import httpx
import scale  # bench/scale.py: demo servers in a child process, the fetch settings
from jsonschema import Draft202012Validator

from anchorpath._config import FetchConfig
from anchorpath.demo import write_site_file
from anchorpath.fetch.http import HttpClient
from anchorpath.runner import pipeline
from anchorpath.runner.drift import gate
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.progress import PageRead
from anchorpath.runner.run_types import RunOptions
from anchorpath.selectors.load import load_selector_file


def crawl_one(url: str, work: Path, pages: int, site: str = "s") -> Path:
    sel, state = work / "selectors", work / "state"
    write_site_file(sel, url, site_id=site, max_pages=pages)
    result = run_site(RunOptions(site, sel, state, base_url=url, settings=scale.settings(0.0, 4)))
    assert result.verdict == "ok", result.reason
    return result.run_dir


class Phases:
    """CPU seconds of the per-site phases (see the module docstring), summed over crawls."""

    NAMES = ("setup", "post-crawl", "finish", "seed")

    def __init__(self) -> None:
        self.total = dict.fromkeys(self.NAMES, 0.0)
        self.began: float | None = None  # crawl_site started, no request sent yet

    def install(self) -> None:
        crawl, finish, send = pipeline.crawl_site, pipeline.Run.finish, HttpClient.send
        seed_for = gate.seed_for

        def timed_crawl(job: Any, factory: Any, progress: Any) -> Any:
            last = [0.0]

            def on(event: Any) -> None:
                if isinstance(event, PageRead):
                    last[0] = time.process_time()
                progress(event)

            self.began = time.process_time()
            out = crawl(job, factory, on)
            self.total["post-crawl"] += time.process_time() - last[0]
            return out

        def timed_send(client: Any, *a: Any, **k: Any) -> Any:
            if self.began is not None:
                self.total["setup"] += time.process_time() - self.began
                self.began = None
            return send(client, *a, **k)

        def timed_finish(run: Any, *a: Any, **k: Any) -> Any:
            began = time.process_time()
            out = finish(run, *a, **k)
            self.total["finish"] += time.process_time() - began
            return out

        def timed_seed(*a: Any, **k: Any) -> Any:
            # part of finish here; computed ahead, while the sites crawl, by run --all
            began = time.process_time()
            out = seed_for(*a, **k)
            took = time.process_time() - began
            self.total["seed"] += took
            self.total["finish"] -= took
            return out

        pipeline.crawl_site = timed_crawl  # type: ignore[assignment]
        pipeline.Run.finish = timed_finish  # type: ignore[method-assign,assignment]
        HttpClient.send = timed_send  # type: ignore[method-assign,assignment]
        gate.seed_for = timed_seed


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
    ap.add_argument("--phases", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="crawl-cpu-"))
    phases = Phases()
    if args.phases:
        phases.install()
    # --phases: as in ``run --all``, the sites of a repetition share one state directory,
    # each on its own origin (a fresh state directory and robots.txt per site otherwise)
    with scale.Servers(args.sites if args.phases else 1) as servers:
        url = servers.urls[0]
        run_dir = crawl_one(url, root / "warm", args.pages)  # imports, first-use costs
        per_site = []
        per_phase: list[dict[str, float]] = []
        for rep in range(args.reps):
            phases.total = dict.fromkeys(Phases.NAMES, 0.0)
            began = time.process_time()
            for i in range(args.sites):
                if args.phases:
                    run_dir = crawl_one(servers.urls[i], root / f"r{rep}", args.pages, f"s{i}")
                else:
                    run_dir = crawl_one(url, root / f"r{rep}-{i}", args.pages)
            per_site.append((time.process_time() - began) / args.sites)
            per_phase.append({k: v / args.sites for k, v in phases.total.items()})
    site_ms = 1000 * min(per_site)
    print(f"crawl: {site_ms:.1f} ms CPU per site, {site_ms / args.pages:.2f} ms per page")
    print("  (per rep: " + ", ".join(f"{1000 * s:.1f}" for s in per_site) + " ms per site)")
    if args.phases:
        print(
            "  per site, best rep: "
            + ", ".join(
                f"{name} {1000 * min(p[name] for p in per_phase):.1f} ms" for name in Phases.NAMES
            )
        )

    if not args.crawl_only:
        items(root, run_dir, args.reps)


def items(root: Path, run_dir: Path, reps: int) -> None:
    from anchorpath.fetch.cache import DiskStore
    from anchorpath.runner.drift import validate
    from anchorpath.runner.drift.validate import RecordValidator, record_schema
    from anchorpath.runner.report.render import report_json

    cache_dir = root / "cache"
    DiskStore(cache_dir).close()

    def on_threads(open_read_close: Callable[[], None]) -> None:
        threads = [threading.Thread(target=open_read_close) for _ in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def own_cache() -> None:
        c = diskcache.Cache(str(cache_dir))
        c.get("robots\x00http://127.0.0.1:1")
        c.close()

    def disk_store() -> None:
        s = DiskStore(cache_dir)
        s.get("robots", "http://127.0.0.1:1")
        s.close()

    per_site = best(lambda: on_threads(own_cache), 1, reps)
    shared_cache = best(lambda: on_threads(disk_store), 1, reps)
    print(
        f"32 sites' fetch cache: {1000 * per_site:.1f} ms CPU opening a diskcache.Cache each, "
        f"{1000 * shared_cache:.1f} ms with the process's shared one"
    )

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
