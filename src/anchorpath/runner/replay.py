"""``anchorpath replay``: re-read the pages past runs archived, with another selector version.

After a repair, the weeks of pages already archived can be read again with the fixed selector
file instead of being fetched again (no network at all). The runs of a site between
``--since`` and ``--until`` are replayed in the order they ran: each run's WARC segments are
read, every page it processed is extracted with selector version N (default: the current
one), and validation, the drift gate and new/changed/withdrawn events are computed as if that
run had used version N: against the records the store held when it started, with the drift
baseline of the committed runs before it (the replayed ones included).

Which pages a run processed comes from its WARC, in the order they were archived: the last
complete response per URL; ``robots.txt``, redirects (the target is archived too) and failed
answers are not pages. A ``304 Not Modified`` carries no body: it is resolved to the body of the
latest earlier response of the same URL (same ``ETag``), from the replayed runs or, when
needed, from older runs of the site. A page that cannot be resolved makes the replayed run
incomplete (no ``withdrawn`` event), as a failed page makes a live run incomplete. A run whose
crawl was not complete is not complete replayed either.

Two destinations:

``scratch`` (default)
    A separate database, ``<state>/replays/<site>/<replay_id>/anchorpath.sqlite``, seeded with
    the records as of the first replayed run and the committed runs before it; the replayed
    runs are committed there, and ``report.json`` / ``report.md`` beside it say, run by run,
    what would change (verdicts, events) against what the store recorded.
``store``
    A backfill of the real store, in one transaction, after the same checks: every replayed
    run must pass the drift gate; runs the store already committed must replay to exactly the
    events they recorded (committed events are never rewritten); and a committed run newer
    than the replayed ones must not be contradicted (backfilled events would change the state
    its own events were computed against). Runs that the store had not committed (drift,
    empty-source) are committed with verdict ``replayed`` and selector version N.

Extraction is the heavy part: it runs on the executor (:mod:`anchorpath.runner.executor`:
local threads, or Dask workers reading the segments from the shared state directory), the WARC
segments (*shards*) of one run in one task, batched (large batches first, single runs last,
so that the workers finish together). A run whose pages are all in its own segments (no
``304`` that an earlier run's page stands for) is also validated and measured in that task, so
its records travel once; the others are checked in a second wave once the earlier pages are
known. The gate and every database write stay in this process, which gates and commits each
run as soon as it and the runs before it are back, while the workers go on (the drift
baseline is kept in memory as runs are committed), so that little is left once the last task
is back.
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import json
import pickle
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from anchorpath._config import Settings
from anchorpath._errors import AnchorpathError, ArchiveError, ConfigError, OriginBlocked, RunError
from anchorpath.fetch.http import charset_of
from anchorpath.runner.archive import stands_for
from anchorpath.runner.checkpoint import PageEntry, RecordEntry
from anchorpath.runner.crawl.pages import extract_page
from anchorpath.runner.drift.check import BASELINE_WINDOW, baseline_window, needs_seed
from anchorpath.runner.drift.gate import gate, looks_empty, seed_for, stats_of
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.executor import PROGRESS_SECONDS, Executor, LocalExecutor, Progress
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.pipeline import RunChecks, check_records
from anchorpath.runner.run_types import EXIT_DRIFT, EXIT_ERROR, EXIT_OK, now
from anchorpath.runner.store.commit import (
    ACCEPT_PLAN,
    CommitPlan,
    Merged,
    commit_records,
    merge_records,
    page_rows,
)
from anchorpath.runner.store.database import (
    DB_NAME,
    Event,
    PageRow,
    RunRow,
    Store,
    StoredRecord,
    canonical_json,
)
from anchorpath.runner.verdict import COMMITTED, Verdict
from anchorpath.selectors.evaluate import compile_selectors
from anchorpath.selectors.load import (
    dump_selector_file,
    find_selector_file,
    load_selector_file,
    parse_selector_data,
)
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "REPLAYABLE",
    "ReplayOptions",
    "ReplayRefused",
    "ReplayResult",
    "ReplayedRun",
    "Shard",
    "extract_batch",
    "extract_runs",
    "extract_shard",
    "parse_time",
    "replay_site",
]

#: Verdicts of runs whose archived pages are replayed (blocked and error runs are partial).
REPLAYABLE: tuple[Verdict, ...] = ("ok", "accepted", "replayed", "drift", "empty-source")


class ReplayRefused(RunError):
    """``--into store`` refused: a replayed run fails the gate or would contradict history."""


def parse_time(text: str, *, end: bool = False) -> dt.datetime:
    """``2026-11-30``, ``2026-11-30T06:00``, ``2026-11-30T06:00:00Z`` (UTC unless an offset is
    given). A bare date as ``--until`` means the end of that day."""
    value = text.strip()
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(
            f"{text!r}: not a time (use 2026-11-30, 2026-11-30T06:00 or 2026-11-30T06:00:00Z)"
        ) from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    if end and len(value) == 10:
        when += dt.timedelta(days=1) - dt.timedelta(microseconds=1)
    return when.astimezone(dt.UTC)


def _run_time(started_at: str) -> dt.datetime:
    return parse_time(started_at)


@dataclass(frozen=True)
class ReplayOptions:
    """What ``anchorpath replay`` was asked to do."""

    site: str
    selectors_dir: Path = Path("selectors")
    state_dir: Path = Path(".anchorpath/state")
    version: int | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    into: str = "scratch"  # scratch | store
    by: str | None = None
    settings: Settings = field(default_factory=Settings)


# -- extraction (runs on the executor) ----------------------------------------------------


@dataclass(frozen=True)
class Shard:
    """One WARC segment to extract with one selector file (``sf_text``: canonical JSON)."""

    sf_text: str
    path: str
    only_urls: frozenset[str] | None = None


@dataclass(frozen=True)
class ArchivedOut:
    """One archived response of a segment and, for a 2xx page, what extraction made of it."""

    url: str
    status: int
    etag: str | None
    location: str | None = None
    page: PageEntry | None = None
    records: tuple[RecordEntry, ...] = ()
    blocked: str | None = None


_COMPILED: dict[str, tuple[SelectorFile, Any]] = {}


def _compiled(sf_text: str) -> tuple[SelectorFile, Any]:
    key = hashlib.sha256(sf_text.encode("utf-8")).hexdigest()
    hit = _COMPILED.get(key)
    if hit is None:
        sf = parse_selector_data(json.loads(sf_text), "<replayed selector file>")
        hit = (sf, compile_selectors(sf))
        if len(_COMPILED) > 8:
            _COMPILED.clear()
        _COMPILED[key] = hit
    return hit


def _is_robots(url: str) -> bool:
    return url.split("?", 1)[0].endswith("/robots.txt")


def extract_batch(progress: Progress, shards: list[Shard]) -> list[list[ArchivedOut]]:
    """:func:`extract_shard` of several shards (one executor task)."""
    return [extract_shard(progress, shard) for shard in shards]


@dataclass(frozen=True)
class RunShards:
    """The shards of one replayed run (its WARC segments, in order), and where the live run
    left its plan and report (``run_dir``; ``complete``: what its row says, if neither can be
    read)."""

    shards: tuple[Shard, ...]
    run_dir: str
    complete: bool


@dataclass(frozen=True)
class Checked:
    """A run's checks and what its commit needs from them, computed where it was checked: its
    statistics as the store keeps them (JSON values, sorted keys) and its emitted records
    merged by key."""

    checks: RunChecks
    stats: dict[str, Any]
    merged: Merged


@dataclass(frozen=True)
class Assembled:
    """What the commit of a run checked where it was extracted needs of its pages and
    records (see :func:`_pages_of`): its pages' store rows, how many records it emitted,
    whether its pages look empty (:func:`looks_empty`), the wall that stopped it, and the URLs
    that failed (with their status)."""

    page_rows: list[PageRow]
    emitted: int
    looks_empty: bool
    blocked: str | None
    failed: list[tuple[str, int]]


@dataclass(frozen=True)
class RunOut:
    """A run's extracted shards, whether the live run's crawl was complete, and, when its
    pages needed no earlier run (no ``304``), what its commit needs (:class:`Assembled`,
    :class:`Checked`), computed where it was extracted; its shards then travel as one pickled
    ``archive``, opened only if a later run's ``304`` needs a page of it."""

    outs: list[list[ArchivedOut]]
    original_complete: bool
    assembled: Assembled | None = None
    checked: Checked | None = None
    archive: bytes = b""

    def archived(self) -> list[ArchivedOut]:
        """Every archived response of the run, in archive order."""
        outs = pickle.loads(self.archive) if self.archive else self.outs
        return [o for seg in outs for o in seg]


def extract_runs(progress: Progress, runs: list[RunShards]) -> list[RunOut]:
    """:func:`extract_shard` of every shard of several runs (one executor task); a run whose
    pages are all in its own segments is also assembled and checked here (:func:`check_run`),
    so its records do not travel to a worker a second time and the submitting process only
    gates and commits it. Runs with ``304`` answers are checked later, once the pages they
    stand for are known."""
    tally = _Tally(progress)
    out: list[RunOut] = []
    for run in runs:
        outs = [extract_shard(tally, shard) for shard in run.shards]
        done = _original_complete(Path(run.run_dir), run.complete)
        pages_out, asked, failed = _assemble([o for seg in outs for o in seg])
        if not run.shards or any(o.status == 304 for o in pages_out):
            out.append(RunOut(outs, done))
            continue
        pages, records, _unresolved, blocked = _pages_of(pages_out, asked, _no_history)
        sf_text = run.shards[0].sf_text
        checked = check_run(tally, CheckJob(sf_text, records, pages))
        emit = {name for name, pt in _compiled(sf_text)[0].page_types.items() if pt.emit}
        assembled = Assembled(
            page_rows(pages),
            sum(1 for r in records if r.page_type in emit),
            looks_empty(pages),
            blocked,
            failed,
        )
        archive = pickle.dumps(outs, protocol=pickle.HIGHEST_PROTOCOL)
        out.append(RunOut([], done, assembled, checked, archive))
    tally.flush()
    return out


class _Tally:
    """The "shard" and "checked" progress of one task, added up and sent at most every
    :data:`PROGRESS_SECONDS` (``shards``/``runs``: how many each event stands for): a task of
    ten runs would otherwise send twenty events, each waking the submitting process through a
    pipe or, on Dask, crossing the scheduler."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.sent = time.monotonic()
        self.shards = self.pages = self.runs = 0

    def __call__(self, kind: str, data: Mapping[str, Any]) -> None:
        if kind == "shard":
            self.shards += 1
            self.pages += int(data.get("pages", 0))
        elif kind == "checked":
            self.runs += 1
        else:
            self.progress(kind, data)
            return
        if time.monotonic() - self.sent >= PROGRESS_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.shards:
            self.progress("shard", {"shards": self.shards, "pages": self.pages})
        if self.runs:
            self.progress("checked", {"runs": self.runs})
        self.shards = self.pages = self.runs = 0
        self.sent = time.monotonic()


def extract_shard(progress: Progress, shard: Shard) -> list[ArchivedOut]:
    """Every archived response of one WARC segment, in archive order; 2xx pages extracted.

    Runs on the executor (a Dask worker reads the segment from the shared state directory).
    A segment cut short by a kill is read up to its last complete record.
    """
    from anchorpath.fetch.warc import WarcReader

    sf, compiled = _compiled(shard.sf_text)
    reader = WarcReader([Path(shard.path)])
    rendered: dict[str, bytes] = {}
    out: list[ArchivedOut] = []
    try:
        if sf.fetch.render == "browser":
            rendered = dict(reader.rendered())
        for url, status, headers, body in reader.responses():
            if _is_robots(url) or (shard.only_urls is not None and url not in shard.only_urls):
                continue
            etag = headers.get("etag")
            if not 200 <= status < 300:
                out.append(ArchivedOut(url, status, etag, location=headers.get("location")))
                continue
            html = rendered.get(url, body)
            try:
                # Listing records count as listed whatever ``via`` says; a detail page was
                # reached by following a link.
                ex = extract_page(
                    compiled,
                    url,
                    url,
                    status,
                    headers,
                    html,
                    charset_of(headers.get("content-type")),
                    via="follow",
                )
            except OriginBlocked as exc:
                out.append(ArchivedOut(url, status, etag, blocked=str(exc)))
                continue
            except AnchorpathError as exc:  # undecodable page: a failed page, as in a run
                out.append(ArchivedOut(url, 599, etag, blocked=None, location=str(exc)))
                continue
            out.append(ArchivedOut(url, status, etag, page=ex.page, records=tuple(ex.records)))
    except ArchiveError:
        pass  # truncated tail of a killed attempt: what was read so far stands
    progress("shard", {"path": shard.path, "pages": sum(1 for o in out if o.page)})
    return out


@dataclass(frozen=True)
class CheckJob:
    """One assembled run to validate and measure (its records and pages)."""

    sf_text: str
    records: list[RecordEntry]
    pages: list[PageEntry]


def check_batch(progress: Progress, jobs: list[CheckJob]) -> list[Checked]:
    """:func:`check_run` of several runs (one executor task)."""
    return [check_run(progress, job) for job in jobs]


def check_run(progress: Progress, job: CheckJob) -> Checked:
    """Schema validation and drift statistics of one run, and its records merged by key: pure,
    so it runs on the executor (the gate itself needs the store's history and stays in the
    submitting process)."""
    sf, _ = _compiled(job.sf_text)
    checks = check_records(sf, job.records, job.pages)
    stats = json.loads(canonical_json(checks.stats.to_dict()))
    merged = merge_records(job.records, _plan(sf, checks.bad))
    progress("checked", {"pages": len(job.pages)})
    return Checked(checks, stats, merged)


def _plan(
    sf: SelectorFile,
    bad: set[int],
    *,
    crawl_complete: bool = False,
    stats: dict[str, Any] | None = None,
    gone: Sequence[str] = (),
) -> CommitPlan:
    """How a replayed run's records are committed (``merge_records`` reads the key, emitted
    and listing page types and the bad records only)."""
    return CommitPlan(
        key_fields=list(sf.key),
        emit=sorted(n for n, pt in sf.page_types.items() if pt.emit),
        listing_types=sorted(n for n, pt in sf.page_types.items() if pt.record_root),
        bad=sorted(bad),
        crawl_complete=crawl_complete,
        stats=stats,
        gone=list(gone),
    )


# -- the replayed runs --------------------------------------------------------------------


@dataclass
class ReplayedRun:
    """One run as replayed with version N, beside what the store recorded for it."""

    run_id: str
    started_at: str
    original_verdict: Verdict
    original_version: int | None
    verdict: Verdict = "error"
    reason: str | None = None
    complete: bool = False
    pages: int = 0
    unresolved: list[str] = field(default_factory=list)
    records: int = 0
    invalid: int = 0
    events: list[Event] = field(default_factory=list)
    original_events: list[Event] = field(default_factory=list)
    stats: dict[str, Any] | None = None
    # what a commit needs (not reported)
    _records: list[RecordEntry] = field(default_factory=list, repr=False)
    _pages: list[PageEntry] = field(default_factory=list, repr=False)
    _page_rows: list[PageRow] = field(default_factory=list, repr=False)
    _looks_empty: bool = field(default=False, repr=False)
    _gone: list[str] = field(default_factory=list, repr=False)
    _failed: list[str] = field(default_factory=list, repr=False)
    _blocked: str | None = field(default=None, repr=False)
    _plan: CommitPlan | None = field(default=None, repr=False)
    _merged: Merged | None = field(default=None, repr=False)
    _original_complete: bool = field(default=False, repr=False)

    @property
    def committed_before(self) -> bool:
        return self.original_verdict in COMMITTED

    def same_events(self) -> bool:
        def norm(evs: Sequence[Event]) -> list[tuple[str, str, str]]:
            return sorted(
                (e.kind, e.key, json.dumps(e.to_dict()["fields"], sort_keys=True)) for e in evs
            )

        return norm(self.events) == norm(self.original_events)

    def to_dict(self) -> dict[str, Any]:
        kinds = [e.kind for e in self.events]
        okinds = [e.kind for e in self.original_events]
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "original": {
                "verdict": self.original_verdict,
                "selector_version": self.original_version,
                "events": {k: okinds.count(k) for k in ("new", "changed", "withdrawn")},
            },
            "replayed": {
                "verdict": self.verdict,
                "reason": self.reason,
                "complete": self.complete,
                "pages": self.pages,
                "records": self.records,
                "invalid": self.invalid,
                "unresolved_pages": self.unresolved,
                "events": {k: kinds.count(k) for k in ("new", "changed", "withdrawn")},
            },
            "same_events": self.same_events(),
            "events": [e.to_dict() for e in self.events],
        }


@dataclass
class ReplayResult:
    """What a replay did; ``exit_code`` is what the CLI exits with."""

    replay_id: str
    site: str
    version: int
    into: str
    runs: list[ReplayedRun]
    out_dir: Path
    database: Path
    written: int = 0  # runs backfilled into the store
    exit_code: int = EXIT_OK
    final_diff: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "replay_id": self.replay_id,
            "site": self.site,
            "selector_version": self.version,
            "into": self.into,
            "database": str(self.database),
            "backfilled_runs": self.written,
            "final_state_vs_store": self.final_diff,
            "runs": [r.to_dict() for r in self.runs],
        }


def _run_dir(run: RunRow, state_dir: Path) -> Path:
    return Path(run.run_dir) if run.run_dir else state_dir / "runs" / run.site / run.id


def _original_complete(run_dir: Path, complete: bool) -> bool:
    """Whether the live run's crawl saw the whole site (its plan, else its report, else what
    its row says: ``complete``)."""
    plan = run_dir / "quarantine" / ACCEPT_PLAN
    try:
        return bool(json.loads(plan.read_text(encoding="utf-8"))["crawl_complete"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        return bool(json.loads((run_dir / "report.json").read_text(encoding="utf-8"))["complete"])
    except (OSError, ValueError, KeyError, TypeError):
        return complete


def _segments(run: RunRow) -> list[str]:
    return [p for p in (run.warc_path or "").split(",") if p]


def _assemble(
    outs: Sequence[ArchivedOut],
) -> tuple[list[ArchivedOut], dict[str, str], list[tuple[str, int]]]:
    """A run's pages from its archived responses: the last answer per URL at its first
    position; redirects map targets back to the URL the crawl asked for; failed URLs with
    their status."""
    last: dict[str, ArchivedOut] = {}
    for o in outs:
        last[o.url] = o
    asked: dict[str, str] = {}
    for o in outs:
        if o.location and 300 <= o.status < 400:
            from urllib.parse import urljoin

            target = urljoin(o.url, o.location)
            asked.setdefault(target, asked.get(o.url, o.url))
    order: list[str] = []
    seen: set[str] = set()
    for o in outs:
        if o.url not in seen:
            seen.add(o.url)
            order.append(o.url)
    pages: list[ArchivedOut] = []
    failed: list[tuple[str, int]] = []
    for url in order:
        o = last[url]
        if 300 <= o.status < 400 and o.status != 304:
            continue
        if o.page is not None or o.status == 304 or o.blocked:
            pages.append(o)
        else:
            failed.append((url, o.status))
    return pages, asked, failed


def _no_history(o: ArchivedOut) -> ArchivedOut | None:
    return None


def _pages_of(
    pages_out: Sequence[ArchivedOut],
    asked: Mapping[str, str],
    resolve: Callable[[ArchivedOut], ArchivedOut | None],
) -> tuple[list[PageEntry], list[RecordEntry], list[str], str | None]:
    """A run's pages and records from its assembled responses (``304`` answers resolved by
    ``resolve``): pages, records, unresolved URLs, and the wall that stopped it, if any."""
    records: list[RecordEntry] = []
    pages: list[PageEntry] = []
    unresolved: list[str] = []
    blocked: str | None = None
    for o in pages_out:
        src = o
        if o.status == 304:
            found = resolve(o)
            if found is None:
                unresolved.append(o.url)
                continue
            src = found
        if src.blocked:
            blocked = src.blocked
            break
        assert src.page is not None
        page = replace(
            src.page,
            url=asked.get(o.url, o.url),
            final_url=o.url,
            status=o.status,
            source="archive",
        )
        pages.append(page)
        records += src.records
    return pages, records, unresolved, blocked


class _Replayer:
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
        #: statistics of the target's last committed runs, oldest first (None: a committed run
        #: without any), kept up to date as runs are committed: the gate reads no database
        self.committed: list[RunStats | None] = []
        #: pickled shards of runs checked where they were extracted, not yet in ``history``
        self.unopened: list[bytes] = []
        self._seed: list[RunStats] | None = None

    def _listing(self, url: str) -> bool:
        """Whether ``url`` is a listing page (its page type has a record root)."""
        for pt in self.sf.page_types.values():
            if re.search(pt.match, url):
                return bool(pt.record_root)
        return False

    def start_history(self, target: Store) -> None:
        """Read the baseline's committed runs from ``target`` (then kept by :meth:`decide`)."""
        rows = target.runs(self.sf.site.id, verdicts=COMMITTED, limit=BASELINE_WINDOW)
        self.committed = [stats_of(r) for r in reversed(rows)]

    def baseline(self) -> list[RunStats]:
        """:func:`~anchorpath.runner.drift.gate.baseline` of the target, from memory (the seed
        from the fixtures is computed once)."""
        real = [s for s in self.committed if s is not None]
        if not needs_seed(real):
            return baseline_window([], real)
        if self._seed is None:
            self._seed = seed_for(self.sf, self.sf_path)
        return baseline_window(self._seed, real)

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
            shards = [Shard(self.sf_text, p, frozenset(needed)) for p in _segments(run)]
            found: list[ArchivedOut] = []
            for outs in self.extract(shards):
                found += [o for o in outs if o.page is not None]
            for o in reversed(found):
                if o.url in needed:
                    self.history.setdefault(o.url, []).insert(0, o)
                    needed.discard(o.url)

    def assemble(self, run: RunRow, got: RunOut) -> ReplayedRun:
        """A run's pages and records from its archived responses (304s resolved from the
        runs assembled before it: call in the order the runs happened), unless the executor
        assembled them already."""
        rr = ReplayedRun(
            run.id,
            run.started_at,
            run.verdict,
            run.selector_version,
            original_events=self.store.events(run.id),
        )
        rr._original_complete = got.original_complete
        if got.assembled is not None:  # assembled and checked where it was extracted
            done = got.assembled
            failed, blocked = done.failed, done.blocked
            rr.pages, rr.records = len(done.page_rows), done.emitted
            rr._page_rows, rr._looks_empty = done.page_rows, done.looks_empty
            self.unopened.append(got.archive)
        else:
            outs = got.archived()
            pages_out, asked, failed = _assemble(outs)
            pages, records, unresolved, blocked = _pages_of(pages_out, asked, self.resolve)
            rr.unresolved += unresolved
            self.remember(outs)
            rr.pages = len(pages)
            rr._records, rr._pages = records, pages
            rr._page_rows, rr._looks_empty = page_rows(pages), looks_empty(pages)
            rr.records = sum(1 for r in records if r.page_type in self.emit)
        # A record's page that answered 404/410 is evidence of withdrawal, as in a live run
        # (a gone listing page is an error).
        rr._gone = [u for u, status in failed if status in (404, 410) and not self._listing(u)]
        rr._failed = [f"{u}: HTTP {status}" for u, status in failed if u not in rr._gone]
        if blocked:
            rr._blocked = blocked
        return rr

    def check(self, runs: list[ReplayedRun], done: Sequence[Checked | None] = ()) -> list[Checked]:
        """Validation and field statistics of every assembled run: those in ``done`` (checked
        where they were extracted) as they are, the others on the executor."""
        out: list[Checked | None] = list(done) or [None] * len(runs)
        todo = [k for k, c in enumerate(out) if c is None]
        jobs = [CheckJob(self.sf_text, runs[k]._records, runs[k]._pages) for k in todo]
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

    def decide(self, rr: ReplayedRun, run: RunRow, checked: Checked, target: Store) -> None:
        """The gate against ``target``'s history, then the commit into ``target``."""
        sf, emit, checks = self.sf, self.emit, checked.checks
        invalid_emitted = [r for r in checks.invalid if r.record.page_type in emit]
        rr.invalid = len(invalid_emitted)
        stats = checks.stats
        rr.stats = checked.stats
        rr._merged = checked.merged
        crawl_complete = rr._original_complete and not rr._failed and not rr.unresolved
        if rr._blocked:
            rr.verdict, rr.reason = "blocked", rr._blocked
        elif not rr.pages:
            rr.verdict = "error"
            rr.reason = "no archived page could be replayed" + (
                f": {rr._failed[0]}" if rr._failed else ""
            )
        elif rr.records == 0 and rr._looks_empty:
            rr.verdict = "empty-source"
            rr.reason = "the archived pages listed no records"
        else:
            history = self.baseline()
            _, rr.verdict, rr.reason = gate(stats, history, invalid_emitted, rr.records, sf)
        rr._plan = _plan(
            sf, checks.bad, crawl_complete=crawl_complete, stats=rr.stats, gone=rr._gone
        )
        row = self._row(run, rr)
        if rr.verdict == "ok":
            outcome = commit_records(
                target, row, rr._records, rr._plan, rr._page_rows, merged=rr._merged
            )
            rr.events, rr.complete = outcome.events, outcome.complete
            # What the database now holds for it (JSON values already), as the next runs'
            # baseline would read it.
            stats = outcome.row.stats
            self.committed.append(RunStats.from_dict(stats) if isinstance(stats, dict) else None)
            del self.committed[:-BASELINE_WINDOW]
        else:
            target.commit_run(row)

    def _row(self, run: RunRow, rr: ReplayedRun) -> RunRow:
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


def _load(options: ReplayOptions) -> tuple[SelectorFile, Path]:
    sf_path = find_selector_file(options.site, options.selectors_dir)
    sf = load_selector_file(sf_path, version=options.version)
    return sf, sf_path


def _window(store: Store, site: str, options: ReplayOptions) -> tuple[list[RunRow], list[RunRow]]:
    """The runs to replay (oldest first) and the runs before them (newest first)."""
    runs = list(reversed(store.runs(site, stats=False)))
    window: list[RunRow] = []
    older: list[RunRow] = []
    for r in runs:
        t = _run_time(r.started_at)
        if options.since is not None and t < options.since:
            if _segments(r):
                older.append(r)
            continue
        if options.until is not None and t > options.until:
            continue
        if r.verdict in REPLAYABLE and _segments(r):
            window.append(r)
    if window:
        first = window[0].started_at
        older = [r for r in runs if r.started_at < first and _segments(r)]
    return window, list(reversed(older))


def replay_site(
    options: ReplayOptions,
    *,
    executor: Executor | None = None,
    progress: Progress | None = None,
    max_in_flight: int = 4,
) -> ReplayResult:
    """Replay the archived runs of ``options.site`` (see the module docstring).

    Raises ``AnchorpathError`` subclasses for what cannot start (unknown site or version, no
    archived run in the window, lock held for ``--into store``) and :class:`ReplayRefused`
    when a backfill would break the checks (nothing is written then).
    """
    if options.into not in ("scratch", "store"):
        raise ConfigError(f"--into {options.into!r}: expected scratch or store")
    sf, sf_path = _load(options)
    site = sf.site.id
    state = options.state_dir
    if not (state / DB_NAME).is_file():
        raise RunError(f"{state / DB_NAME}: no state database, so nothing was archived yet")
    lock = SiteLock(state, site) if options.into == "store" else None
    if lock is not None:
        lock.acquire()
    store = Store(state / DB_NAME)
    try:
        return _replay(
            options, sf, sf_path, store, executor or LocalExecutor(), progress, max_in_flight
        )
    finally:
        store.close()
        if lock is not None:
            lock.release()


def _ignore(kind: str, data: Mapping[str, Any]) -> None:
    return None


def _replay(
    options: ReplayOptions,
    sf: SelectorFile,
    sf_path: Path,
    store: Store,
    executor: Executor,
    progress: Progress | None,
    max_in_flight: int,
) -> ReplayResult:
    site = sf.site.id
    window, older = _window(store, site, options)
    if not window:
        span = f" between {options.since or 'the first run'} and {options.until or 'now'}"
        raise RunError(f"site {site!r} has no archived run to replay{span}")
    report = progress or _ignore
    replay_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    out_dir = options.state_dir / "replays" / site / replay_id
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch_path = out_dir / DB_NAME
    t0 = window[0].started_at
    rep = _Replayer(options, sf, sf_path, store, executor, report, max_in_flight)

    # The gate and the commits go to a scratch database seeded as of t0, run after run.
    scratch = Store(scratch_path, scratch=True)
    try:
        for r in reversed(store.runs(site, verdicts=COMMITTED, before=t0)):
            scratch.commit_run(r)
        scratch.seed_records(site, store.records_as_of(site, t0), run_id="seed", at=t0)
        rep.start_history(scratch)
        with _cycles_uncollected():
            replayed = _replay_runs(rep, window, older, scratch)
        end = window[-1].started_at
        final = scratch.current(site)
    finally:
        scratch.close()
    newer = [
        r
        for r in reversed(store.runs(site, verdicts=COMMITTED, stats=False))
        if r.started_at > end and r.id not in {w.id for w in window}
    ]
    truth = store.records_as_of(site, newer[0].started_at) if newer else store.current(site)
    result = ReplayResult(
        replay_id,
        site,
        sf.version,
        options.into,
        replayed,
        out_dir,
        scratch_path,
        final_diff=_diff(final, truth),
    )
    bad = [r for r in replayed if r.verdict not in ("ok", "empty-source")]
    result.exit_code = (
        EXIT_OK
        if not bad
        else (EXIT_DRIFT if any(r.verdict == "drift" for r in bad) else EXIT_ERROR)
    )
    if options.into == "store":
        result.written = _backfill(store, replayed, newer, options, sf)
        result.database = store.path
    _write_report(result)
    return result


@contextmanager
def _cycles_uncollected() -> Iterator[None]:
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


def _replay_runs(
    rep: _Replayer, window: list[RunRow], older: list[RunRow], scratch: Store
) -> list[ReplayedRun]:
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
            tuple(Shard(rep.sf_text, seg) for seg in _segments(run)),
            str(_run_dir(run, state_dir).absolute()),
            bool(run.complete),
        )
        for run in window
    ]
    report("plan", {"runs": len(window), "shards": sum(len(r.shards) for r in run_shards)})
    extracted: list[RunOut | None] = [None] * len(window)
    replayed: list[ReplayedRun] = []
    streaming = True

    def decide(k: int, rr: ReplayedRun, checked: Checked) -> None:
        rep.decide(rr, window[k], checked, scratch)
        report("run", {"run_id": window[k].id, "verdict": rr.verdict})

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


def _diff(final: Mapping[str, StoredRecord], truth: Mapping[str, StoredRecord]) -> dict[str, int]:
    """How the replayed end state differs from the store's state at the same point."""
    same = sum(1 for k in final if k in truth and final[k].content_hash == truth[k].content_hash)
    return {
        "same": same,
        "different": sum(1 for k in final if k in truth) - same,
        "only_replayed": sum(1 for k in final if k not in truth),
        "only_store": sum(1 for k in truth if k not in final),
    }


def _backfill(
    store: Store,
    replayed: list[ReplayedRun],
    newer: list[RunRow],
    options: ReplayOptions,
    sf: SelectorFile,
) -> int:
    """Commit the replayed runs the store had not committed, in one transaction, or refuse."""
    for rr in replayed:
        if rr.verdict not in ("ok", "empty-source"):
            raise ReplayRefused(
                f"run {rr.run_id} replays as {rr.verdict} with version {sf.version}"
                + (f" ({rr.reason})" if rr.reason else "")
                + ": nothing was written; review with --into scratch"
            )
        if rr.committed_before and not rr.same_events():
            raise ReplayRefused(
                f"run {rr.run_id} ({rr.original_verdict}) is committed with other events than "
                f"version {sf.version} gives ({len(rr.original_events)} recorded, "
                f"{len(rr.events)} replayed): committed events are never rewritten; "
                "review with --into scratch"
            )
    todo = [rr for rr in replayed if not rr.committed_before and rr.verdict == "ok"]
    pending = sum(len(rr.events) for rr in todo)
    if newer and pending:
        n = newer[0]
        raise ReplayRefused(
            f"run {n.id} ({n.verdict}, started {n.started_at}) is newer than the replayed runs "
            f"and was computed without them: backfilling {pending} event(s) would contradict "
            "it; nothing was written; review with --into scratch"
        )
    if not todo:
        return 0
    by = options.by or _default_by()
    at = now()
    originals = {r.id: r for r in store.runs(sf.site.id)}
    with store.transaction():
        for rr in todo:
            original = originals[rr.run_id]
            row = replace(
                original,
                verdict="replayed",
                selector_version=sf.version,
                pages=rr.pages,
                records=rr.records,
                error=None,
                accepted_by=by,
                accepted_at=at,
            )
            assert rr._plan is not None
            outcome = commit_records(
                store, row, rr._records, rr._plan, rr._page_rows, merged=rr._merged
            )
            rr.events, rr.complete = outcome.events, outcome.complete
    return len(todo)


def _default_by() -> str:
    from anchorpath.runner.accept import default_acceptor

    return default_acceptor()


def _write_report(result: ReplayResult) -> None:
    summary = result.to_dict()
    lines = [
        f"# Replay {result.replay_id} of {result.site} with selector version {result.version}",
        "",
        f"Into: {result.into} · database: `{result.database}`"
        + (f" · backfilled runs: {result.written}" if result.into == "store" else ""),
        "",
        "| run | started | was | replayed | pages | records | new | changed | withdrawn "
        "| same events |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in result.runs:
        kinds = [e.kind for e in r.events]
        lines.append(
            f"| {r.run_id} | {r.started_at} | {r.original_verdict} (v{r.original_version}) | "
            f"{r.verdict} | {r.pages} | {r.records} | {kinds.count('new')} | "
            f"{kinds.count('changed')} | {kinds.count('withdrawn')} | "
            f"{'yes' if r.same_events() else 'no'} |"
        )
    d = result.final_diff
    lines += [
        "",
        f"Records after the last replayed run against the store at that point: {d.get('same', 0)} "
        f"same, {d.get('different', 0)} different, {d.get('only_replayed', 0)} only in the "
        f"replay, {d.get('only_store', 0)} only in the store.",
        "",
    ]
    try:
        (result.out_dir / "report.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
        )
        (result.out_dir / "report.md").write_text("\n".join(lines), encoding="utf-8")
    except OSError as exc:
        raise RunError(f"{result.out_dir}: cannot write the replay report: {exc}") from exc
