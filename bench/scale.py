"""Scale benchmark: ``run --all`` over N loopback origins, and ``replay`` on worker processes.

Part 1, many origins: N demo servers (one origin each, in a child process) × one site each capped
at M pages. A polite crawl cannot beat ``bound = max over origins of M × min delay`` (each
origin: robots.txt, then M pages, M pauses); origins run in parallel. We time ``run_all`` with
the local executor (threads of this process), with ``local:2`` (2 worker processes) and with a
Dask scheduler and 2 worker processes started as the README does, and report total / bound (goal: ≤ 1.15 for
32 origins), each after a warm-up run (1 origin × 1 page) through the same executor, so that
starting workers and importing modules (fixed per process, paid once by a Dask worker) are not
counted; the best of ``--reps`` repetitions is kept (every one is printed), with the CPU time
of this process per page fetched beside it. A Dask cluster is up only while it is measured (an
idle one takes CPU from whatever runs beside it).

Part 2, replay throughput: one demo site crawled in full once, its run cloned R times in the
store (R runs, R WARC segments); ``replay_site`` of all R runs into a scratch database with
threads of this process, on ``local:1``/``local:2`` worker processes, and on Dask clusters of
1 worker process and of 2 (goal: 2 workers ≥ 1.8× faster than 1; ``local:1`` and ``local:2``
measured in turns, Dask's 1-worker cluster before its 2-worker one; best and median of
``--reps`` each), against a bare
``lxml.html.fromstring`` of the same page bodies in one process. Peak RSS of every worker is
read after each phase.

    .venv/bin/python bench/scale.py --origins 8 32 --pages 20 --delay 0.2 --replay-runs 40

``--replay-only`` runs part 2 alone; its table gives, beside the wall-clock times (best and
median of ``--reps``), the CPU seconds of the submitting process and of the workers per
replay, and (in comments) the seconds the workers waited for a core while runnable and the
seconds they idled without a task: on 2 cores the submitting process's share is what keeps 2
workers from 2x.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchorpath._config import Settings
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.executor import DaskExecutor, Executor, LocalExecutor
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay.plan import ReplayOptions
from anchorpath.runner.replay.run import replay_site
from anchorpath.runner.run_all import RunAllOptions, run_all
from anchorpath.runner.run_types import RunOptions
from anchorpath.runner.store.database import Store
from anchorpath.runner.workers import ProcessExecutor

#: Pause after a response = max(min delay, DELAY_FACTOR × response time). 0 (the default of
#: --delay-factor) keeps every pause at the min delay, so that the bound is exact: with the
#: adaptive factor (5 by default) a loaded machine's slower answers lengthen the pauses.
DELAY_FACTOR = 0.0


def settings(delay: float, concurrency: int) -> Settings:
    s = Settings()
    return replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=delay,
            delay_factor=DELAY_FACTOR,
            global_concurrency=concurrency,
            allow_private_networks=True,
            contact="bench@anchorpath.invalid",
        ),
    )


def _peak_rss_kb() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


class DaskCluster:
    """A Dask scheduler and ``workers`` worker processes started as the README starts them
    (``dask scheduler``, ``dask worker --nworkers N --nthreads 1``, workers without Dask's
    statistical profiler, which walks every thread's stack 100 times a second while a
    ``run --all`` task keeps one thread per origin group): the scheduler runs in a process of
    its own, as in a deployment, not in the submitting process."""

    def __init__(self, workers: int, root: Path) -> None:
        dask_cli = str(Path(sys.executable).with_name("dask"))
        info = Path(tempfile.mkdtemp(dir=root)) / "scheduler.json"
        self.procs = [
            subprocess.Popen(
                [
                    dask_cli,
                    "scheduler",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(info),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        ]
        env = {**os.environ, "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
        self.procs.append(
            subprocess.Popen(
                [
                    *(dask_cli, "worker", "--scheduler-file", str(info), "--no-dashboard"),
                    *("--nworkers", str(workers), "--nthreads", "1"),
                    *("--local-directory", str(info.parent)),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        deadline = time.monotonic() + 60
        while not info.is_file() or not info.read_text(encoding="utf-8").strip():
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("dask scheduler did not start")
            time.sleep(0.1)
        self.scheduler_address: str = json.loads(info.read_text(encoding="utf-8"))["address"]
        ex = DaskExecutor(self.scheduler_address)
        try:
            ex.client.wait_for_workers(workers, timeout=60)
        finally:
            ex.close()

    def __enter__(self) -> DaskCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def worker_peaks(executor: Executor) -> list[float]:
    """Peak RSS of every worker process, MiB."""
    if isinstance(executor, ProcessExecutor):
        kbs: list[int] = []
        for pid in executor.pids():
            status = Path(f"/proc/{pid}/status").read_text()
            kbs.extend(
                int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")
            )
        return sorted(round(kb / 1024, 1) for kb in kbs)
    assert isinstance(executor, DaskExecutor)
    peaks = executor.client.run(_peak_rss_kb)
    return sorted(round(kb / 1024, 1) for kb in peaks.values())


# -- part 1: run --all over N origins -----------------------------------------------------


def _serve(origins: int, conn: Any) -> None:
    """Child process: ``origins`` demo servers until told to stop (they must not share the
    crawler's interpreter and its GIL: a site's server is not part of the crawler)."""
    with ExitStack() as stack:
        servers = [stack.enter_context(DemoServer(day=1)) for _ in range(origins)]
        conn.send([srv.base_url for srv in servers])
        conn.recv()


class Servers:
    """N demo servers (N origins) in a child process."""

    def __init__(self, origins: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(origins, child), daemon=True)
        self.proc.start()
        self.urls: list[str] = self.conn.recv()

    def __enter__(self) -> Servers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.conn.send("stop")
        self.proc.join(timeout=10)


def run_many(
    origins: int, pages: int, delay: float, concurrency: int, executor: Executor, work: Path
) -> dict[str, Any]:
    with Servers(origins) as servers:
        sel = work / "selectors"
        for i, url in enumerate(servers.urls):
            write_site_file(sel, url, site_id=f"site-{i:03d}", max_pages=pages)
        opts = RunAllOptions(
            selectors_dir=sel, state_dir=work / "state", settings=settings(delay, concurrency)
        )
        began, cpu = time.monotonic(), time.process_time()
        result = run_all(opts, executor=executor)
        took, cpu = time.monotonic() - began, time.process_time() - cpu
    fetched = sum(s.counts().pages for s in result.sites)
    verdicts = sorted({s.verdict for s in result.sites})
    bound = pages * delay
    return {
        "origins": origins,
        "pages": pages,
        "fetched": fetched,
        "verdicts": verdicts,
        "total": took,
        "bound": bound,
        "ratio": took / bound,
        "cpu_ms_per_page": 1000 * cpu / max(1, fetched),
    }


def warm_up(executor: Executor, delay: float, concurrency: int, work: Path) -> float:
    """One origin × one page through ``executor`` before the clock starts: the crawling
    interpreter(s) import the fetch/extract/store modules once, as a long-lived process or a
    Dask worker already has (the import cost is fixed per process, not per origin)."""
    began = time.monotonic()
    run_many(1, 1, delay, concurrency, executor, work)
    return time.monotonic() - began


def demo_pair(delay: float, work: Path) -> dict[str, float]:
    """Two full demo sites on two origins: each alone, then both in one ``run --all``."""
    out: dict[str, float] = {}
    with Servers(2) as servers:
        for i, url in enumerate(servers.urls):
            sel = work / f"alone-{i}" / "selectors"
            write_site_file(sel, url, site_id=f"demo-{i}")
            write_site_file(work / "both" / "selectors", url, site_id=f"demo-{i}")
            opts = RunAllOptions(
                selectors_dir=sel,
                state_dir=work / f"alone-{i}" / "state",
                settings=settings(delay, 4),
            )
            began = time.monotonic()
            result = run_all(opts)
            out[f"demo-{i} alone"] = time.monotonic() - began
            assert result.exit_code == 0
        opts = RunAllOptions(
            selectors_dir=work / "both" / "selectors",
            state_dir=work / "both" / "state",
            settings=settings(delay, 4),
        )
        began = time.monotonic()
        result = run_all(opts)
        out["both, one run --all"] = time.monotonic() - began
        assert result.exit_code == 0
    return out


# -- part 2: replay throughput ------------------------------------------------------------


def build_archive(work: Path, runs: int) -> tuple[Path, Path, int]:
    """One full demo crawl, cloned ``runs`` times (run rows + WARC copies)."""
    sel, state = work / "selectors", work / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        result = run_site(
            RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=settings(0.0, 4))
        )
    assert result.verdict == "ok", result.reason
    with Store.in_state_dir(state) as store:
        [row] = store.runs("mfds-dmf")
        segment = Path(row.warc_path or "")
        for k in range(1, runs):
            run_id = f"{row.id}-clone{k:03d}"
            run_dir = state / "runs" / "mfds-dmf" / run_id
            run_dir.mkdir(parents=True)
            shutil.copy(segment, run_dir / segment.name)
            shutil.copy(Path(row.run_dir or "") / "report.json", run_dir / "report.json")
            stamp = row.started_at.replace("Z", f"{k:03d}Z")  # later, same second: sortable
            store.commit_run(
                replace(
                    row,
                    id=run_id,
                    started_at=stamp,
                    run_dir=str(run_dir),
                    warc_path=str(run_dir / segment.name),
                )
            )
    return sel, state, result.pages


def bodies(state: Path) -> list[bytes]:
    from anchorpath.fetch.warc import WarcReader

    out = []
    for seg in sorted((state / "runs").glob("*/*/pages-*.warc.gz")):
        for url, status, _headers, body in WarcReader([seg]).responses():
            if 200 <= status < 300 and not url.endswith("/robots.txt"):
                out.append(body)
    return out


def bare_lxml(pages: list[bytes]) -> float:
    import lxml.html

    began = time.process_time()
    for body in pages:
        lxml.html.fromstring(body)
    return len(pages) / (time.process_time() - began)


MAX_IN_FLIGHT = 32


def replay_once(sel: Path, state: Path, executor: Executor) -> tuple[float, int]:
    began = time.monotonic()
    result = replay_site(
        ReplayOptions("mfds-dmf", sel, state), executor=executor, max_in_flight=MAX_IN_FLIGHT
    )
    took = time.monotonic() - began
    assert all(r.verdict == "ok" for r in result.runs), [r.verdict for r in result.runs]
    return took, sum(r.pages for r in result.runs)


def run_all_part(args: argparse.Namespace, root: Path) -> None:
    """Part 1: two demo sites in one ``run --all``, then N origins x M pages."""
    print(f"\n## two demo sites (71 pages each), two origins, min delay {args.delay} s\n")
    print("| what | s |\n|---|---|")
    pair = demo_pair(args.delay, root / "pair")
    for what, took in pair.items():
        print(f"| {what} | {took:.2f} |")
    slower = max(v for k, v in pair.items() if "alone" in k)
    print(f"\nboth / slower alone: {pair['both, one run --all'] / slower:.2f}", flush=True)

    print("\n## run --all: N origins x M pages\n")
    print(
        "| executor | origins | pages/origin | pages fetched | verdicts | total s | bound s "
        "| total/bound (best) | every repetition | CPU ms/page, this process "
        "| warm-up s (not timed) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    # A Dask cluster is up only while it is measured: an idle scheduler, nanny and workers
    # take ~0.05-0.1 of a core (heartbeats, system monitor), which the others would lose.
    names = ["local (threads of one process)", "local:2 (2 worker processes)"]
    if not args.skip_dask:
        names.append("dask, 2 workers")
    for n in args.origins:
        for name in names:
            with ExitStack() as stack:
                ex: Executor
                if name.startswith("dask"):
                    cluster = stack.enter_context(DaskCluster(2, root))
                    ex = DaskExecutor(cluster.scheduler_address)
                elif name.startswith("local:2"):
                    ex = ProcessExecutor(2)
                else:
                    ex = LocalExecutor()
                stack.callback(ex.close)
                warm = warm_up(ex, args.delay, args.concurrency, Path(tempfile.mkdtemp(dir=root)))
                reps = [
                    run_many(
                        n,
                        args.pages,
                        args.delay,
                        args.concurrency,
                        ex,
                        Path(tempfile.mkdtemp(dir=root)),
                    )
                    for _ in range(args.reps)
                ]
                r = min(reps, key=lambda x: float(x["total"]))
                ratios = sorted(f"{x['ratio']:.3f}" for x in reps)
                print(
                    f"| {name} | {r['origins']} | {r['pages']} | {r['fetched']} | "
                    f"{','.join(r['verdicts'])} | {r['total']:.2f} | {r['bound']:.2f} | "
                    f"{r['ratio']:.3f} | {', '.join(ratios)} | {r['cpu_ms_per_page']:.1f} | "
                    f"{warm:.2f} |",
                    flush=True,
                )
                if isinstance(ex, DaskExecutor | ProcessExecutor):
                    print(f"<!-- worker peak RSS MiB: {worker_peaks(ex)} -->", flush=True)


def replay_part(args: argparse.Namespace, root: Path) -> None:
    """Part 2: replay throughput on threads, on 1 and 2 worker processes (local, Dask)."""
    print("\n## replay: archived pages re-extracted\n")
    sel, state, per_run = build_archive(root / "replay", args.replay_runs)
    pages = bodies(state)
    lx = max(bare_lxml(pages) for _ in range(3))
    print(f"{args.replay_runs} runs x {per_run} pages = {len(pages)} archived pages\n")
    print(
        "| how | pages | best s | median s | pages/s (best) | speed-up vs 1 worker, best "
        "(median) | CPU s, submitting process (median) | CPU s, workers (median) "
        "| worker peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| bare lxml.html.fromstring, 1 process (CPU time) | {len(pages)} "
        f"| {len(pages) / lx:.2f} | | {lx:.0f} | | | | |"
    )
    local = [measured_replay(sel, state, LocalExecutor()) for _ in range(args.reps)]
    best, mid = min(r[0] for r in local), statistics.median(r[0] for r in local)
    print(
        f"| replay, local executor (threads of one process) | {len(pages)} | {best:.2f} "
        f"| {mid:.2f} | {len(pages) / best:.0f} | | "
        f"{statistics.median(r[1] for r in local):.2f} | | main {_peak_rss_kb() / 1024:.0f} |",
        flush=True,
    )
    # local:1 and local:2 are measured in turns (both pools up: an idle pool costs nothing),
    # so that a change of the machine's speed hits both alike. Dask's clusters are measured
    # one after the other: an idle cluster takes CPU from the measured one (see part 1).
    one, two = ProcessExecutor(1).start(), ProcessExecutor(2).start()
    try:
        reps = replay_in_turns(sel, state, [one, two], args.reps)
        print_replays("local", reps, len(pages), [worker_peaks(one), worker_peaks(two)])
    finally:
        one.close()
        two.close()
    if not args.skip_dask:
        reps, peaks = [], []
        for workers in (1, 2):
            with DaskCluster(workers, root) as cluster:
                ex = DaskExecutor(cluster.scheduler_address)
                try:
                    reps += replay_in_turns(sel, state, [ex], args.reps)
                    peaks.append(worker_peaks(ex))
                finally:
                    ex.close()
        print_replays("dask", reps, len(pages), peaks)


Measured = tuple[float, float, float, float, float]


def replay_in_turns(
    sel: Path, state: Path, executors: list[Executor], times: int
) -> list[list[Measured]]:
    """``times`` measured replays on each of ``executors``, in turns, after a warm-up each
    (the workers import the runner)."""
    for ex in executors:
        replay_once(sel, state, ex)
    reps: list[list[Measured]] = [[] for _ in executors]
    for _ in range(times):
        for k, ex in enumerate(executors):
            reps[k].append(measured_replay(sel, state, ex))
    return reps


def print_replays(
    kind: str, reps: list[list[Measured]], pages: int, peaks: list[list[float]]
) -> None:
    """The rows of 1 and 2 workers (``reps[0]``, ``reps[1]``), and the details as comments."""
    walls = [[r[0] for r in rs] for rs in reps]
    one, one_mid = min(walls[0]), statistics.median(walls[0])
    for k in (0, 1):
        best, mid = min(walls[k]), statistics.median(walls[k])
        label = f"local:{k + 1}" if kind == "local" else f"dask, {k + 1} worker process(es)"
        print(
            f"| replay, {label} | {pages} | {best:.2f} | {mid:.2f} "
            f"| {pages / best:.0f} | {one / best:.2f}× ({one_mid / mid:.2f}×) "
            f"| {statistics.median(r[1] for r in reps[k]):.2f} "
            f"| {statistics.median(r[2] for r in reps[k]):.2f} | {peaks[k]} |",
            flush=True,
        )
    how = "in turn" if kind == "local" else "(1 worker, then 2)"
    pairs = ", ".join(f"{a / b:.2f}" for a, b in zip(walls[0], walls[1], strict=True))
    print(f"<!-- {kind}: 1 worker / 2 workers, every repetition {how}: {pairs} -->")
    for k in (0, 1):
        waits = ", ".join(f"{r[3]:.2f}/{max(0.0, r[4]):.2f}" for r in reps[k])
        print(
            f"<!-- {kind}, {k + 1} worker(s): seconds the workers waited for a core / "
            f"idled, every repetition: {waits} -->"
        )


def _cpu_seconds() -> float:
    """CPU seconds of this process (all its threads), user + system."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def workers_cpu(executor: Executor) -> float:
    """CPU seconds used so far by the worker processes of ``executor`` (user + system)."""
    if isinstance(executor, ProcessExecutor):
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in executor.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        return total
    if isinstance(executor, DaskExecutor):
        usages = executor.client.run(resource.getrusage, resource.RUSAGE_SELF).values()
        return float(sum(ru.ru_utime + ru.ru_stime for ru in usages))
    return 0.0


def worker_pids(executor: Executor) -> list[int]:
    if isinstance(executor, ProcessExecutor):
        return executor.pids()
    if isinstance(executor, DaskExecutor):
        return [int(pid) for pid in executor.client.run(os.getpid).values()]
    return []


def scheduled(pids: list[int]) -> list[tuple[float, float]]:
    """Per process: seconds on a core and seconds runnable but waiting for one, so far (the
    kernel's schedstat of every thread; zeros where it is not available)."""
    out = []
    for pid in pids:
        run = wait = 0
        for path in Path(f"/proc/{pid}/task").glob("*/schedstat"):
            try:
                on_cpu, queued, _ = path.read_text().split()
            except (OSError, ValueError):
                continue
            run, wait = run + int(on_cpu), wait + int(queued)
        out.append((run / 1e9, wait / 1e9))
    return out


def measured_replay(
    sel: Path, state: Path, executor: Executor
) -> tuple[float, float, float, float, float]:
    """One replay: wall seconds, CPU seconds of this (the submitting) process and of the
    workers, and the workers' seconds waiting for a core (runnable) and idle (no task), summed
    over the workers."""
    pids = worker_pids(executor)
    cpu, workers, sched = _cpu_seconds(), workers_cpu(executor), scheduled(pids)
    took = replay_once(sel, state, executor)[0]
    after = scheduled(pids)
    waits = sum(b[1] - a[1] for a, b in zip(sched, after, strict=True))
    idle = sum(took - (b[0] - a[0]) - (b[1] - a[1]) for a, b in zip(sched, after, strict=True))
    return took, _cpu_seconds() - cpu, workers_cpu(executor) - workers, waits, idle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--origins", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=4, help="fetch.global_concurrency")
    parser.add_argument("--delay-factor", type=float, default=0.0, help="fetch.delay_factor")
    parser.add_argument("--replay-runs", type=int, default=40)
    parser.add_argument(
        "--reps", type=int, default=1, help="repetitions of each measurement (best kept)"
    )
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument(
        "--replay-only", action="store_true", help="part 2 (replay throughput) only"
    )
    args = parser.parse_args(argv)
    global DELAY_FACTOR
    DELAY_FACTOR = args.delay_factor
    root = Path(tempfile.mkdtemp(prefix="anchorpath-scale-"))
    print(
        f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load {os.getloadavg()}",
        flush=True,
    )
    try:
        if not args.replay_only:
            run_all_part(args, root)
        replay_part(args, root)
        print(f"\nload at the end: {os.getloadavg()}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
