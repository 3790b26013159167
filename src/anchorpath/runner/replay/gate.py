"""The replayed runs decided and committed one after another: each run's pages assembled and
checked on the executor, then the verdict of :func:`anchorpath.runner.decide.decide` against a
baseline kept in memory (:class:`~anchorpath.runner.drift.gate.RollingBaseline`) and the commit
into the scratch database, as soon as it and the runs before it are back."""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from anchorpath._errors import (
    RunError,
)
from anchorpath.runner.archive import stands_for
from anchorpath.runner.decide import Observed, decide, gone_evidence
from anchorpath.runner.drift.gate import RollingBaseline, looks_empty, stats_of
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.executor import Executor
from anchorpath.runner.model import PageEntry, RecordEntry
from anchorpath.runner.progress import Progress, ReplayPlanned, RunReplayed
from anchorpath.runner.replay.extract import (
    ArchivedOut,
    Checked,
    CheckJob,
    RunOut,
    RunShards,
    Shard,
    assemble,
    charset_notes,
    check_batch,
    commit_plan,
    extract_batch,
    extract_runs,
    pages_of,
)
from anchorpath.runner.replay.plan import ReplayOptions, run_dir, segments
from anchorpath.runner.replay.report import ReplayedRun, same_events
from anchorpath.runner.store.commit import (
    CommitPlan,
    Merged,
    commit_records,
    page_rows,
)
from anchorpath.runner.store.database import (
    Event,
    PageRow,
    RunRow,
    Store,
)
from anchorpath.runner.verdict import COMMITTED, Verdict
from anchorpath.selectors.load import (
    dump_selector_file,
)
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "Replayer",
    "Replaying",
    "cycles_uncollected",
    "replay_runs",
]


@dataclass
class Replaying:
    """One run while it is replayed: what :class:`~.report.ReplayedRun` reports of it, and
    what its verdict and commit need (its extracted records and pages, failed and gone pages,
    the wall or selector failure that stopped it, its commit plan and merged records)."""

    run_id: str
    started_at: str
    original_verdict: Verdict
    original_version: int | None
    original_events: list[Event]
    verdict: Verdict = "error"
    reason: str | None = None
    complete: bool = False
    pages: int = 0
    unresolved: list[str] = field(default_factory=list)
    records: int = 0
    invalid: int = 0
    events: list[Event] = field(default_factory=list)
    stats: RunStats | None = None
    extracted: list[RecordEntry] = field(default_factory=list)
    page_entries: list[PageEntry] = field(default_factory=list)
    page_rows: list[PageRow] = field(default_factory=list)
    looks_empty: bool = False
    gone: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    blocked: str | None = None
    fatal: str | None = None
    charset: list[str] = field(default_factory=list)
    plan: CommitPlan | None = None
    merged: Merged | None = None
    original_complete: bool = False

    @property
    def committed_before(self) -> bool:
        return self.original_verdict in COMMITTED

    def same_events(self) -> bool:
        return same_events(self.events, self.original_events)

    def report(self) -> ReplayedRun:
        """What the replay report says of this run."""
        return ReplayedRun(
            self.run_id,
            self.started_at,
            self.original_verdict,
            self.original_version,
            self.verdict,
            self.reason,
            self.complete,
            self.pages,
            tuple(self.unresolved),
            self.records,
            self.invalid,
            tuple(self.events),
            tuple(self.original_events),
        )


class Replayer:
    def __init__(
        self,
        options: ReplayOptions,
        sf: SelectorFile,
        sf_path: Path,
        store: Store,
        executor: Executor,
        progress: Progress,
        max_in_flight: int,
    ) -> None:
        self.options = options
        self.sf = sf
        self.sf_path = sf_path
        self.store = store
        self.executor = executor
        self.progress = progress
        self.max_in_flight = max_in_flight
        self.sf_text = dump_selector_file(sf)
        self.emit = {name for name, pt in sf.page_types.items() if pt.emit}
        #: url -> [(etag, ArchivedOut)] of 2xx pages seen so far, oldest first
        self.history: dict[str, list[ArchivedOut]] = {}
        #: the drift baseline of the target, kept up to date as runs are committed (the gate
        #: reads no database); set by :meth:`start_history`
        self.baseline = RollingBaseline(sf, sf_path, [])
        #: pickled shards of runs checked where they were extracted, not yet in ``history``
        self.unopened: list[bytes] = []

    def start_history(self, target: Store) -> None:
        """Read the baseline's committed runs from ``target`` (then kept by :meth:`decide`)."""
        self.baseline = RollingBaseline.from_store(target, self.sf, self.sf_path)

    @property
    def in_flight(self) -> int:
        """Tasks in flight at once: ``max_in_flight``, at most two per Dask worker thread (the
        scheduler then balances them as the workers finish)."""
        slots = self.executor.capacity()
        return self.max_in_flight if slots is None else max(1, min(self.max_in_flight, 2 * slots))

    def _batches(self, n: int) -> list[range]:
        """``n`` items in contiguous batches of decreasing size (guided scheduling): every
        task costs the submitting process scheduling and a transfer, so the first batches are
        large (a share of what remains per worker thread), and the last ones hold one item each,
        so that no worker is left with a long batch while the others are idle at the end."""
        slots = self.executor.capacity() or self.in_flight
        out: list[range] = []
        start = 0
        while start < n:
            size = max(1, -(-(n - start) // (2 * slots)))
            out.append(range(start, min(n, start + size)))
            start += size
        return out

    def extract(self, shards: list[Shard]) -> list[list[ArchivedOut]]:
        """Every shard extracted on the executor (in batches), in the order given."""
        results: list[list[ArchivedOut]] = [[] for _ in shards]
        batches = self._batches(len(shards))
        names = [f"extract-{Path(shards[b[0]].path).parent.name}" for b in batches]
        for i, res in self.executor.run(
            extract_batch,
            [[shards[k] for k in b] for b in batches],
            progress=self.progress,
            io_bound=False,
            max_in_flight=self.in_flight,
            names=names,
        ):
            if isinstance(res, BaseException):
                first = shards[batches[i][0]].path
                raise RunError(f"{first}: replay failed: {res}") from res
            for k, outs in zip(batches[i], res, strict=True):
                results[k] = outs
        return results

    def extract_runs(self, runs: list[RunShards]) -> Iterator[tuple[int, RunOut]]:
        """Every run's shards extracted (and checked where possible) on the executor, in
        batches of runs; yields ``(index, RunOut)`` as batches come back (any order)."""
        batches = self._batches(len(runs))
        names = [
            f"extract-{Path(runs[b[0]].shards[0].path).parent.name if runs[b[0]].shards else b[0]}"
            for b in batches
        ]
        for i, res in self.executor.run(
            extract_runs,
            [[runs[k] for k in b] for b in batches],
            progress=self.progress,
            io_bound=False,
            max_in_flight=self.in_flight,
            names=names,
        ):
            if isinstance(res, BaseException):
                first = runs[batches[i][0]].shards
                where = first[0].path if first else "replay"
                raise RunError(f"{where}: replay failed: {res}") from res
            yield from zip(batches[i], res, strict=True)

    def open_archives(self) -> None:
        """Remember the pages of the runs assembled so far whose archive is still unopened,
        in order (before anything reads or extends the history)."""
        unopened, self.unopened = self.unopened, []
        for blob in unopened:
            self.remember(RunOut([], False, archive=blob).archived())

    def remember(self, outs: Sequence[ArchivedOut]) -> None:
        self.open_archives()
        for o in outs:
            if o.page is not None:
                self.history.setdefault(o.url, []).append(o)

    def resolve(self, o: ArchivedOut) -> ArchivedOut | None:
        """The earlier page a 304 stands for (same URL, same ETag when both are known)."""
        self.open_archives()
        for cand in reversed(self.history.get(o.url, [])):
            if stands_for(o.etag, cand.etag):
                return cand
        return None

    def preload(self, older: list[RunRow], needed: set[str]) -> None:
        """Bodies of 304 pages archived before the replayed window (newest runs first)."""
        self.open_archives()
        for run in older:
            if not needed:
                return
            shards = [Shard(self.sf_text, p, frozenset(needed)) for p in segments(run)]
            found: list[ArchivedOut] = []
            for outs in self.extract(shards):
                found += [o for o in outs if o.page is not None]
            for o in reversed(found):
                if o.url in needed:
                    self.history.setdefault(o.url, []).insert(0, o)
                    needed.discard(o.url)

    def assemble(self, run: RunRow, got: RunOut) -> Replaying:
        """A run's pages and records from its archived responses (304s resolved from the
        runs assembled before it: call in the order the runs happened), unless the executor
        assembled them already."""
        rr = Replaying(
            run.id,
            run.started_at,
            run.verdict,
            run.selector_version,
            original_events=self.store.events(run.id),
        )
        rr.original_complete = got.original_complete
        if got.assembled is not None:  # assembled and checked where it was extracted
            done = got.assembled
            failed, blocked, fatal = done.failed, done.blocked, done.fatal
            rr.charset = done.charset
            rr.pages, rr.records = len(done.page_rows), done.emitted
            rr.page_rows, rr.looks_empty = done.page_rows, done.looks_empty
            self.unopened.append(got.archive)
        else:
            outs = got.archived()
            pages_out, asked, failed = assemble(outs)
            read = pages_of(pages_out, asked, self.resolve, got.entries)
            pages, records, blocked = read.pages, read.records, read.blocked
            fatal = read.fatal
            rr.unresolved += read.unresolved
            rr.charset = charset_notes(pages)
            self.remember(outs)
            rr.pages = len(pages)
            rr.extracted, rr.page_entries = records, pages
            rr.page_rows, rr.looks_empty = page_rows(pages), looks_empty(pages)
            rr.records = sum(1 for r in records if r.page_type in self.emit)
        # A record's page that answered 404/410 is evidence of withdrawal, as in a live run
        # (a gone listing page is an error).
        rr.gone = [u for u, status in failed if gone_evidence(self.sf, u, status)]
        rr.failed = [f"{u}: HTTP {status}" for u, status in failed if u not in rr.gone]
        rr.blocked = blocked
        if fatal is not None:
            rr.fatal = f"{self.sf_path.name}: {fatal[1]} (on {fatal[0]})"
        return rr

    def check(self, runs: list[Replaying], done: Sequence[Checked | None] = ()) -> list[Checked]:
        """Validation and field statistics of every assembled run: those in ``done`` (checked
        where they were extracted) as they are, the others on the executor."""
        out: list[Checked | None] = list(done) or [None] * len(runs)
        todo = [k for k, c in enumerate(out) if c is None]
        jobs = [CheckJob(self.sf_text, runs[k].extracted, runs[k].page_entries) for k in todo]
        batches = self._batches(len(jobs)) if jobs else []
        for i, res in self.executor.run(
            check_batch,
            [[jobs[j] for j in b] for b in batches],
            progress=self.progress,
            io_bound=False,
            max_in_flight=self.in_flight,
            names=[f"check-{runs[todo[b[0]]].run_id}" for b in batches],
        ):
            if isinstance(res, BaseException):
                first = runs[todo[batches[i][0]]].run_id
                raise RunError(f"run {first}: replay check failed: {res}")
            for j, checks in zip(batches[i], res, strict=True):
                out[todo[j]] = checks
        return [c for c in out if c is not None]

    def decide(self, rr: Replaying, run: RunRow, checked: Checked, target: Store) -> None:
        """The gate against ``target``'s history, then the commit into ``target``."""
        sf, emit, checks = self.sf, self.emit, checked.checks
        invalid_emitted = [r for r in checks.invalid if r.record.page_type in emit]
        rr.invalid = len(invalid_emitted)
        stats = checks.stats
        rr.stats = checked.stats
        rr.merged = checked.merged
        crawl_complete = rr.original_complete and not rr.failed and not rr.unresolved
        seen = Observed(
            blocked=rr.blocked,
            fatal=rr.fatal,
            pages=rr.pages,
            looks_empty=rr.looks_empty,
            errors=rr.failed,
            records=rr.records,
            stats=stats,
            invalid_emitted=invalid_emitted,
            charset_notes=rr.charset,
        )
        decision = decide(seen, self.baseline, sf)
        rr.verdict, rr.reason = decision.verdict, decision.reason
        rr.plan = commit_plan(
            sf, checks.bad, crawl_complete=crawl_complete, stats=rr.stats, gone=rr.gone
        )
        row = self._row(run, rr)
        if rr.verdict == "ok":
            outcome = commit_records(
                target, row, rr.extracted, rr.plan, rr.page_rows, merged=rr.merged
            )
            rr.events, rr.complete = outcome.events, outcome.complete
            # Its statistics as the database now holds them, read as the next runs'
            # baseline would read them.
            self.baseline.add(stats_of(outcome.row))
        else:
            target.commit_run(row)

    def _row(self, run: RunRow, rr: Replaying) -> RunRow:
        return RunRow(
            id=run.id,
            site=run.site,
            started_at=run.started_at,
            finished_at=run.finished_at,
            verdict="ok" if rr.verdict == "ok" else rr.verdict,
            selector_version=self.sf.version,
            warc_path=run.warc_path,
            run_dir=run.run_dir,
            pages=rr.pages,
            records=rr.records,
            error=rr.reason if rr.verdict != "ok" else None,
        )


@contextmanager
def cycles_uncollected() -> Iterator[None]:
    """Python's cycle collector paused while the runs come back: each run's results are
    thousands of new objects (records, statistics, page rows), acyclic, freed as they go, and
    the collections they triggered walked the whole heap again and again: ~10% of this
    process's CPU, which on a machine as busy as its workers is taken from them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def replay_runs(
    rep: Replayer, window: list[RunRow], older: list[RunRow], scratch: Store
) -> list[Replaying]:
    """Extract, check, gate and commit the runs of ``window`` into ``scratch``.

    Extraction: one shard per WARC segment of every replayed run, a run's shards in one task,
    in parallel; a run that needs no earlier run's pages (no ``304``) is checked there too.
    While the tasks run, every run whose results and whose predecessors' are back is gated and
    committed at once, in run order, so that little is left to do once the last task is back.
    The first run that needs earlier pages stops that: the rest wait for the whole extraction
    (a ``304`` of the first runs may need a body archived before the window), then are checked
    on the executor, gated and committed.
    """
    report, state_dir = rep.progress, rep.options.state_dir
    run_shards = [
        RunShards(
            tuple(Shard(rep.sf_text, seg) for seg in segments(run)),
            str(run_dir(run, state_dir).absolute()),
            bool(run.complete),
        )
        for run in window
    ]
    report(ReplayPlanned(len(window), sum(len(r.shards) for r in run_shards)))
    extracted: list[RunOut | None] = [None] * len(window)
    replayed: list[Replaying] = []
    streaming = True

    def decide(k: int, rr: Replaying, checked: Checked) -> None:
        rep.decide(rr, window[k], checked, scratch)
        report(RunReplayed(window[k].id, rr.verdict))

    for k, back in rep.extract_runs(run_shards):
        extracted[k] = back
        while streaming and len(replayed) < len(window):
            nxt = extracted[len(replayed)]
            if nxt is None:
                break
            if nxt.checked is None:
                streaming = False
                break
            rr = rep.assemble(window[len(replayed)], nxt)
            replayed.append(rr)
            decide(len(replayed) - 1, rr, nxt.checked)
    if len(replayed) == len(window):
        return replayed
    # 304s of the first runs may need bodies archived before the window.
    needed: set[str] = set()
    have: set[str] = set()
    for one in extracted:
        for o in one.archived() if one is not None else []:
            if o.status == 304 and o.url not in have:
                needed.add(o.url)
            if o.page is not None:
                have.add(o.url)
    rep.preload(older, needed)
    first = len(replayed)
    got = [one for one in extracted[first:] if one is not None]  # every task came back
    rest = [rep.assemble(run, one) for run, one in zip(window[first:], got, strict=True)]
    done = [one.checked for one in got]
    for j, (rr, chk) in enumerate(zip(rest, rep.check(rest, done), strict=True)):
        replayed.append(rr)
        decide(first + j, rr, chk)
    return replayed
