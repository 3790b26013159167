"""Extraction of archived pages (on the executor: threads or Dask workers): a WARC segment read and
extracted, a run's pages assembled from its responses (``304`` answers resolved), validated and
measured where possible, with the progress of a task added up."""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from anchorpath._errors import (
    AnchorpathError,
    ArchiveError,
    OriginBlocked,
    SelectorEvaluationError,
)
from anchorpath.fetch.http import charset_of
from anchorpath.runner.crawl.pages import extract_page
from anchorpath.runner.drift.gate import looks_empty
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.model import PageEntry, RecordEntry
from anchorpath.runner.pipeline import RunChecks, check_records
from anchorpath.runner.progress import (
    PROGRESS_SECONDS,
    Progress,
    ProgressEvent,
    RunsChecked,
    ShardsRead,
)
from anchorpath.runner.replay.plan import entry_vias, live_run
from anchorpath.runner.store.commit import (
    CommitPlan,
    Merged,
    merge_records,
    page_rows,
)
from anchorpath.runner.store.database import (
    PageRow,
    canonical_json,
    locator,
)
from anchorpath.selectors.evaluate import compile_selectors
from anchorpath.selectors.load import (
    parse_selector_data,
)
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "ArchivedOut",
    "Assembled",
    "CheckJob",
    "Checked",
    "Read",
    "RunOut",
    "RunShards",
    "Shard",
    "Tally",
    "assemble",
    "charset_notes",
    "check_batch",
    "check_run",
    "commit_plan",
    "extract_batch",
    "extract_runs",
    "extract_shard",
    "is_robots",
    "no_history",
    "pages_of",
    "selector_of",
]


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
    #: the selector file failed to evaluate on this page (every page would fail alike)
    fatal: str | None = None


_COMPILED: dict[str, tuple[SelectorFile, Any]] = {}


def selector_of(sf_text: str) -> tuple[SelectorFile, Any]:
    key = hashlib.sha256(sf_text.encode("utf-8")).hexdigest()
    hit = _COMPILED.get(key)
    if hit is None:
        sf = parse_selector_data(json.loads(sf_text), "<replayed selector file>")
        hit = (sf, compile_selectors(sf))
        if len(_COMPILED) > 8:
            _COMPILED.clear()
        _COMPILED[key] = hit
    return hit


def is_robots(url: str) -> bool:
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
    statistics as the store keeps them (read back from their canonical JSON, so the baseline
    holds what ``run`` would read from the database) and its emitted records merged by key."""

    checks: RunChecks
    stats: RunStats
    merged: Merged


@dataclass(frozen=True)
class Assembled:
    """What the commit of a run checked where it was extracted needs of its pages and
    records (see :func:`pages_of`): its pages' store rows, how many records it emitted,
    whether its pages look empty (:func:`looks_empty`), the wall that stopped it, and the URLs
    that failed (with their status)."""

    page_rows: list[PageRow]
    emitted: int
    looks_empty: bool
    blocked: str | None
    failed: list[tuple[str, int]]
    charset: list[str]
    fatal: tuple[str, str] | None


@dataclass(frozen=True)
class RunOut:
    """A run's extracted shards, whether the live run's crawl was complete, and, when its
    pages needed no earlier run (no ``304``), what its commit needs (:class:`Assembled`,
    :class:`Checked`), computed where it was extracted; its shards then travel as one pickled
    ``archive``, opened only if a later run's ``304`` needs a page of it."""

    outs: list[list[ArchivedOut]]
    original_complete: bool
    #: how the live run reached its entry pages (see :func:`entry_vias`)
    entries: dict[str, str] = field(default_factory=dict)
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
    tally = Tally(progress)
    out: list[RunOut] = []
    for run in runs:
        outs = [extract_shard(tally, shard) for shard in run.shards]
        done, urls = live_run(Path(run.run_dir), run.complete)
        sf_text = run.shards[0].sf_text if run.shards else ""
        entries = entry_vias(selector_of(sf_text)[0], urls) if run.shards else {}
        pages_out, asked, failed = assemble([o for seg in outs for o in seg])
        if not run.shards or any(o.status == 304 for o in pages_out):
            out.append(RunOut(outs, done, entries))
            continue
        read = pages_of(pages_out, asked, no_history, entries)
        pages, records = read.pages, read.records
        checked = check_run(tally, CheckJob(sf_text, records, pages))
        emit = {name for name, pt in selector_of(sf_text)[0].page_types.items() if pt.emit}
        assembled = Assembled(
            page_rows(pages),
            sum(1 for r in records if r.page_type in emit),
            looks_empty(pages),
            read.blocked,
            failed,
            charset_notes(pages),
            read.fatal,
        )
        archive = pickle.dumps(outs, protocol=pickle.HIGHEST_PROTOCOL)
        out.append(RunOut([], done, entries, assembled, checked, archive))
    tally.flush()
    return out


class Tally:
    """The :class:`ShardsRead` and :class:`RunsChecked` progress of one task, added up and
    sent at most every :data:`PROGRESS_SECONDS`: a task of ten runs would otherwise send twenty
    events, each waking the submitting process through a pipe or, on Dask, crossing the
    scheduler."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.sent = time.monotonic()
        self.shards = self.pages = self.runs = 0

    def __call__(self, event: ProgressEvent) -> None:
        if isinstance(event, ShardsRead):
            self.shards += event.shards
            self.pages += event.pages
        elif isinstance(event, RunsChecked):
            self.runs += event.runs
        else:
            self.progress(event)
            return
        if time.monotonic() - self.sent >= PROGRESS_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.shards:
            self.progress(ShardsRead(self.shards, self.pages))
        if self.runs:
            self.progress(RunsChecked(self.runs))
        self.shards = self.pages = self.runs = 0
        self.sent = time.monotonic()


def extract_shard(progress: Progress, shard: Shard) -> list[ArchivedOut]:
    """Every archived response of one WARC segment, in archive order; 2xx pages extracted.

    Runs on the executor (a Dask worker reads the segment from the shared state directory).
    A segment cut short by a kill is read up to its last complete record.
    """
    from anchorpath.fetch.warc import WarcReader

    sf, compiled = selector_of(shard.sf_text)
    reader = WarcReader([Path(shard.path)])
    rendered: dict[str, bytes] = {}
    out: list[ArchivedOut] = []
    try:
        if sf.fetch.render == "browser":
            rendered = dict(reader.rendered())
        for url, status, headers, body in reader.responses():
            if is_robots(url) or (shard.only_urls is not None and url not in shard.only_urls):
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
            except SelectorEvaluationError as exc:
                out.append(ArchivedOut(url, status, etag, fatal=str(exc)))
                continue
            except AnchorpathError as exc:  # undecodable page: a failed page, as in a run
                out.append(ArchivedOut(url, 599, etag, blocked=None, location=str(exc)))
                continue
            out.append(ArchivedOut(url, status, etag, page=ex.page, records=tuple(ex.records)))
    except ArchiveError:
        pass  # truncated tail of a killed attempt: what was read so far stands
    progress(ShardsRead(1, sum(1 for o in out if o.page)))
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
    sf, _ = selector_of(job.sf_text)
    checks = check_records(sf, job.records, job.pages)
    stats = RunStats.from_dict(json.loads(canonical_json(checks.stats.to_dict())))
    merged = merge_records(job.records, commit_plan(sf, checks.bad))
    progress(RunsChecked(1))
    return Checked(checks, stats, merged)


def commit_plan(
    sf: SelectorFile,
    bad: set[int],
    *,
    crawl_complete: bool = False,
    stats: RunStats | None = None,
    gone: Sequence[str] = (),
) -> CommitPlan:
    """How a replayed run's records are committed (``merge_records`` reads the key, emitted
    and listing page types and the bad records only); its statistics in the JSON form the
    store keeps."""
    return CommitPlan(
        key_fields=list(sf.key),
        emit=sorted(n for n, pt in sf.page_types.items() if pt.emit),
        listing_types=sorted(n for n, pt in sf.page_types.items() if pt.record_root),
        bad=sorted(bad),
        crawl_complete=crawl_complete,
        stats=None if stats is None else stats.to_dict(),
        gone=list(gone),
    )


def assemble(
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
        if o.page is not None or o.status == 304 or o.blocked or o.fatal:
            pages.append(o)
        else:
            failed.append((url, o.status))
    return pages, asked, failed


def no_history(o: ArchivedOut) -> ArchivedOut | None:
    return None


@dataclass(frozen=True)
class Read:
    """A run's pages and records from its assembled responses, the URLs of ``304`` answers
    that could not be resolved, and what stopped it: a wall (``blocked``) or the selector
    file failing on a page (``fatal``: the page's URL and the error)."""

    pages: list[PageEntry]
    records: list[RecordEntry]
    unresolved: list[str]
    blocked: str | None = None
    fatal: tuple[str, str] | None = None


def pages_of(
    pages_out: Sequence[ArchivedOut],
    asked: Mapping[str, str],
    resolve: Callable[[ArchivedOut], ArchivedOut | None],
    entries: Mapping[str, str],
) -> Read:
    """A run's pages and records from its assembled responses (``304`` answers resolved by
    ``resolve``); like the crawl, the first wall or selector failure stops it. Records of the
    run's entry pages (``entries``, see :func:`entry_vias`) carry how the run reached them, as
    in the live run (whether a record was listed decides its later withdrawal)."""
    records: list[RecordEntry] = []
    pages: list[PageEntry] = []
    unresolved: list[str] = []
    for o in pages_out:
        src = o
        if o.status == 304:
            found = resolve(o)
            if found is None:
                unresolved.append(o.url)
                continue
            src = found
        if src.blocked:
            return Read(pages, records, unresolved, blocked=src.blocked)
        if src.fatal:
            return Read(pages, records, unresolved, fatal=(asked.get(o.url, o.url), src.fatal))
        assert src.page is not None
        page = replace(
            src.page,
            url=asked.get(o.url, o.url),
            final_url=o.url,
            status=o.status,
            source="archive",
        )
        pages.append(page)
        via = entries.get(locator(page.url))
        if via is None:
            records += src.records
        else:
            records += [replace(r, via=via) for r in src.records]
    return Read(pages, records, unresolved)


def charset_notes(pages: Sequence[PageEntry]) -> list[str]:
    """Pages whose declared charset does not fit their bytes (as a run reports them)."""
    return [f"{p.url}: {p.charset_note}" for p in pages if p.charset_note]
