"""Politeness benchmark: N loopback origins x M pages through PoliteFetcher.fetch_many.

The bound is the least time a polite crawl can take: per origin, robots.txt plus M pages means
M pauses of at least the minimum delay, and origins run in parallel, so
``bound = max over origins of M x delay``. We report total time / bound (goal <= 1.1) and
violations: pairs of consecutive requests to one origin where the next one started before
``previous end + delay`` (fetcher's clock, strict), plus the smallest gap the servers observed.

    .venv/bin/python bench/politeness.py --origins 8 --pages 20 --delay 0.1
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from dataclasses import replace

from anchorpath._config import FetchConfig
from anchorpath.fetch.events import FetchEvent
from anchorpath.fetch.polite import PoliteFetcher
from anchorpath.fetch.result import FetchResult
from anchorpath.fetch.testing import FaultServer, ok


def run(
    origins: int, pages: int, delay: float, concurrency: int, factor: float
) -> dict[str, float]:
    servers = [
        FaultServer({f"/p{i}": ok(b"<html>" + b"x" * 2000 + b"</html>") for i in range(pages)})
        for _ in range(origins)
    ]
    for server in servers:
        server.start()
    events: list[FetchEvent] = []
    config = replace(
        FetchConfig(),
        contact="bench@example.org",
        min_delay=delay,
        delay_factor=factor,
        global_concurrency=concurrency,
        allow_private_networks=True,
    )
    urls = [s.url(f"/p{i}") for i in range(pages) for s in servers]
    try:
        with PoliteFetcher(config, on_event=events.append) as fetcher:
            begun = time.monotonic()
            results = list(fetcher.fetch_many(urls))
            took = time.monotonic() - begun
    finally:
        for server in servers:
            server.stop()
    ok_count = sum(isinstance(r, FetchResult) for _, r in results)
    violations = 0
    by_origin: dict[str, list[FetchEvent]] = {}
    for event in events:
        if event.kind in ("request", "robots"):
            by_origin.setdefault(event.origin, []).append(event)
    for seq in by_origin.values():
        seq.sort(key=lambda e: e.started)
        for prev, nxt in itertools.pairwise(seq):
            if nxt.started < prev.started + prev.elapsed + delay:
                violations += 1
    server_gaps = [b - a for s in servers for a, b in zip(s.times(), s.times()[1:], strict=False)]
    bound = pages * delay
    return {
        "origins": origins,
        "pages": pages,
        "delay": delay,
        "concurrency": concurrency,
        "requests": sum(len(s.requests) for s in servers),
        "ok": ok_count,
        "total": took,
        "bound": bound,
        "ratio": took / bound,
        "violations": violations,
        "min_gap": min(server_gaps),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, nargs="+", default=[8])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--delay-factor", type=float, default=5.0)
    args = parser.parse_args(argv)
    print(
        "| origins | pages | min delay | delay factor | global limit | requests | 2xx | total s "
        "| bound s "
        "| total/bound | violations | min gap seen by servers |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    worst = 0.0
    bad = 0
    for n in args.origins:
        r = run(n, args.pages, args.delay, args.concurrency, args.delay_factor)
        worst = max(worst, r["ratio"])
        bad += int(r["violations"])
        print(
            f"| {n} | {args.pages} | {args.delay:.2f} s | {args.delay_factor:g} | "
            f"{args.concurrency} | "
            f"{r['requests']:.0f} | {r['ok']:.0f} | {r['total']:.3f} | {r['bound']:.3f} | "
            f"{r['ratio']:.3f} | {r['violations']:.0f} | {r['min_gap']:.3f} s |"
        )
    load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nworst total/bound {worst:.3f}, violations {bad}; load average at the end {load}")
    return 0 if worst <= 1.1 and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
