"""CPU of the start of ``run --all``: discover, load and prepare N sites before the first crawl.

Part 1: N selector files (the demo's, on N loopback origins nobody serves: nothing is fetched)
and a fresh state directory; ``run_all`` with an executor that takes every group's task (which
prepares its sites: lock, resume or start, first checkpoint) and crawls none. Measured, best of
``--reps`` (a fresh state directory each): CPU time of this process (``time.process_time``, every
thread) from the call until the executor is asked for work (discover, load, plan, open the
store: "load") and from then until every group is prepared ("prepare"), and the wall time of
both (syncs to disk wait without CPU).

Part 2, side by side (CPU per call, best of ``--reps``): one selector file's schema validation
by jsonschema's ``iter_errors`` (what ``validate_data`` always ran) against the check compiled
from the schema, then ``validate_data`` and ``load_selector_file`` as they are now.

    .venv/bin/python bench/startup.py --sites 32 300 --reps 5

``--start-only`` skips part 2 (to time part 1 on an older checkout).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from crawl_cpu import best  # bench/crawl_cpu.py: best CPU seconds per call

from anchorpath.demo import write_site_file
from anchorpath.runner.run_all import RunAllOptions, run_all
from anchorpath.selectors import load


class PrepareOnly:
    """An executor that takes every task (preparing its group) and runs none of them."""

    def __init__(self) -> None:
        self.marks: list[tuple[float, float]] = []

    def run(
        self,
        fn: Callable[..., Any],
        items: Sequence[Any],
        *,
        progress: Any,
        io_bound: bool,
        max_in_flight: int,
        names: Sequence[str] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        self.marks.append((time.process_time(), time.monotonic()))
        for k in range(len(items)):
            items[k]
        self.marks.append((time.process_time(), time.monotonic()))
        return iter(())

    def capacity(self) -> int | None:
        return 2

    def close(self) -> None:
        return None


def start(selectors: Path, state: Path) -> dict[str, float]:
    executor = PrepareOnly()
    cpu, wall = time.process_time(), time.monotonic()
    run_all(RunAllOptions(selectors_dir=selectors, state_dir=state), executor=executor)
    (cpu1, wall1), (cpu2, wall2) = executor.marks
    return {
        "load_cpu": cpu1 - cpu,
        "prepare_cpu": cpu2 - cpu1,
        "load_wall": wall1 - wall,
        "prepare_wall": wall2 - wall1,
    }


def part1(sites: int, reps: int, root: Path) -> dict[str, float]:
    sel = root / f"selectors-{sites}"
    for i in range(sites):
        url = f"http://127.0.0.1:{20000 + i}/"
        write_site_file(sel, url, site_id=f"site-{i:03d}", max_pages=20)
    start(sel, root / f"warm-{sites}")  # imports and first-use costs
    runs = [start(sel, root / f"state-{sites}-{r}") for r in range(reps)]
    out = {k: min(r[k] for r in runs) for k in runs[0]}
    out["prepare_wall_median"] = statistics.median(r["prepare_wall"] for r in runs)
    return out


def part2(reps: int, root: Path) -> dict[str, float]:
    path = write_site_file(root / "one", "http://127.0.0.1:20000/", site_id="site-000")
    data = json.loads(path.read_text(encoding="utf-8"))
    validator = load._validator()
    check = load._certainly_valid()
    assert check(data) and not list(validator.iter_errors(data))
    return {
        "jsonschema iter_errors": best(lambda: list(validator.iter_errors(data)), 100, reps),
        "compiled check": best(lambda: check(data), 1000, reps),
        "validate_data": best(lambda: load.validate_data(data), 1000, reps),
        "load_selector_file": best(lambda: load.load_selector_file(path), 300, reps),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sites", type=int, nargs="+", default=[32, 300])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--start-only", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="startup-"))
    print(f"part 1: start of run --all, best of {args.reps} (ms)")
    print(
        f"{'sites':>6} {'load CPU':>9} {'prep CPU':>9} {'per site':>9} {'load wall':>10} "
        f"{'prep wall':>10} {'(median)':>9}"
    )
    for n in args.sites:
        r = part1(n, args.reps, root)
        print(
            f"{n:>6} {1000 * r['load_cpu']:>9.1f} {1000 * r['prepare_cpu']:>9.1f} "
            f"{1000 * (r['load_cpu'] + r['prepare_cpu']) / n:>9.2f} {1000 * r['load_wall']:>10.1f} "
            f"{1000 * r['prepare_wall']:>10.1f} {1000 * r['prepare_wall_median']:>9.1f}"
        )
    if args.start_only:
        return
    print(f"part 2: one selector file, CPU per call, best of {args.reps} (ms)")
    for name, seconds in part2(args.reps, root).items():
        print(f"  {name:<24} {1000 * seconds:8.3f}")


if __name__ == "__main__":
    main()
