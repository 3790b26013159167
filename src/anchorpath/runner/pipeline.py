"""The daily run of one site: fetch → WARC → extract → validate → drift gate → commit or quarantine.

:func:`run_site` is the library behind ``anchorpath run``. One run:

1. takes the site's lock (:mod:`~anchorpath.runner.lock`) and loads the current selector file;
2. finds an unfinished run of the site (a ``checkpoint.json`` left by a crash or ``kill -9``)
   and resumes it, or starts a new one in ``<state>/runs/<site>/<run_id>/``;
3. crawls (:mod:`~anchorpath.runner.crawl`): every page goes through the polite fetcher,
   which archives it to the run's WARC before anything parses it; pages already archived by
   an earlier attempt of the same run are replayed from the WARC instead of fetched again;
   progress is checkpointed after every page;
4. extracts records, validates each against the JSON Schema derived from the field types
   (:mod:`~anchorpath.runner.drift.validate`) and computes the run's field statistics;
5. decides the verdict:

   ``stopped``
       the rules of collection changed or the site refused for good
       (:mod:`~anchorpath.runner.policy`): robots.txt now disallows URLs the site needs, the
       terms page changed, 401/403 on a start URL, repeated 429, walls before any page,
       robots.txt unreachable past RFC 9309's grace period – the store is untouched, exit 5,
       and the site is not run again until ``anchorpath resume``;
   ``blocked``
       the site refused (robots.txt on a start URL, 401/403, or a page that certainly is a wall:
       a login form or a challenge as the page's main content, an "access denied" page — see
       :mod:`anchorpath.fetch.walls`) – exit 4; a page that merely lost its values next to a
       header login box is left to the drift gate;
   ``error``
       no page could be fetched, or something broke – exit 1;
   ``empty-source``
       the site answered with its usual page structure (anchor labels present) but listed no
       records – nothing is committed, exit 0;
   ``drift``
       the drift gate (:mod:`~anchorpath.runner.drift`) found the output's shape off the
       baseline, the records breaking their schema are more than 10 % (Wilson lower bound),
       the fetched pages matched no page type, or a page type's pages gave no records where
       the baseline had some – results quarantined
       (with the :class:`CommitPlan` that lets a person accept a false alarm later,
       :mod:`~anchorpath.runner.accept`), alert bundle written, exit 3;
   ``ok``
       events computed and committed in one transaction – exit 0.

Records of page types with ``emit: true`` go to the store, merged by the selector file's
``key`` fields (:mod:`~anchorpath.runner.store.commit` says how). ``withdrawn`` is only
inferred from a complete crawl (no cap hit, every page fetched, no ``--url`` selection, every
emitted record identifiable).

Where the parts live: ``run_types.py`` (:class:`RunOptions`, :class:`RunResult`, exit codes),
``resume.py`` (resume an unfinished run or start one), ``crawl/`` (frontier, URLs, fetch or
replay one page), ``drift/`` (validation, field statistics, baseline, the gate), ``store/``
(SQLite, :class:`CommitPlan`, :func:`commit_records`, shared with ``accept.py``), ``report/``
(quarantine, alert bundle, change rate, report files). This module only orchestrates them.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from anchorpath._errors import (
    AnchorpathError,
    ExtractionError,
    FetchError,
    FetchFailed,
    OriginBlocked,
    RobotsDisallowed,
    RunError,
    SelectorEvaluationError,
)
from anchorpath.fetch.events import FetchEvent
from anchorpath.fetch.protocol import Fetcher, FetcherFactory
from anchorpath.fetch.robots import product_token
from anchorpath.fetch.warc import strip_bodies
from anchorpath.runner.archive import ArchivedPage, last_archived
from anchorpath.runner.checkpoint import load_checkpoint, remove_checkpoint, save_checkpoint
from anchorpath.runner.crawl.frontier import CrawlItem, CrawlState, Frontier
from anchorpath.runner.crawl.pages import (
    PageReader,
    default_fetcher,
    site_config,
    unreachable,
)
from anchorpath.runner.crawl.sources import MAX_URLS, read_source, unchanged_since
from anchorpath.runner.crawl.urls import rewrite_origin
from anchorpath.runner.decide import Decision, Observed, decide, gone_evidence
from anchorpath.runner.drift.gate import (
    ChecksAhead,
    StoreBaseline,
    looks_empty,
    page_result,
    run_stats,
    validate_records,
)
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.drift.validate import RecordValidator
from anchorpath.runner.header import Completion
from anchorpath.runner.lock import SiteLock, lease_holds
from anchorpath.runner.model import (
    Checkpoint,
    InvalidRecord,
    PageEntry,
    RecordEntry,
    extraction_notes,
)
from anchorpath.runner.policy.header import policy_header
from anchorpath.runner.policy.judge import Stop
from anchorpath.runner.policy.observe import PolicySeen, Refusal, observe_terms
from anchorpath.runner.policy.site import (
    check_may_run,
    conclude,
    file_origin,
    gather_robots,
    previous,
    remember,
)
from anchorpath.runner.progress import (
    PageRead,
    Phase,
    Progress,
    RunStarted,
    Waited,
    no_progress,
)
from anchorpath.runner.report.summary import (
    change_rate,
    write_bundle,
    write_quarantine,
    write_report,
)
from anchorpath.runner.resume import runs_dir, start_or_resume
from anchorpath.runner.run_types import (
    EXIT_BY_VERDICT,
    EXIT_ERROR,
    RunOptions,
    RunResult,
    now,
    warc_segments,
)
from anchorpath.runner.store.commit import (
    ACCEPT_PLAN,
    CommitPlan,
    commit_records,
    page_rows,
)
from anchorpath.runner.store.database import DB_NAME, RunRow, Store
from anchorpath.runner.verdict import COMMITTED
from anchorpath.selectors.evaluate import compile_selectors
from anchorpath.selectors.load import find_selector_file, load_selector_file
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "CrawlJob",
    "CrawlOutcome",
    "Run",
    "RunChecks",
    "check_records",
    "crawl_site",
    "run_site",
]


@dataclass
class CrawlJob:
    """One site's crawl as the process holding its lock hands it out: picklable, so that
    ``run --all`` can send it to a Dask worker. The checkpoint is in ``run_dir``, or in
    ``fresh`` for a new run until its crawl first saves it."""

    options: RunOptions
    sf: SelectorFile
    run_dir: Path
    resumed: bool
    #: the site lock's content while the sender holds it (see ``lock.lease_holds``)
    lease: dict[str, Any] | None = None
    #: a new run's first checkpoint: written by the crawl, before its first request, not by
    #: the preparing process (until then the run has done nothing a crash could lose)
    fresh: Checkpoint | None = None
    #: the terms page's text hash the last run saw: a different one stops before the crawl
    terms_before: str | None = None
    #: when the last committed run started: sitemap pages whose lastmod is not later are
    #: not fetched (None: fetch them all, ``--full`` or no earlier run)
    since: str | None = None


@dataclass
class CrawlOutcome:
    """What a crawl gathered (records and pages in the checkpoint), for the verdict."""

    checkpoint: Checkpoint
    blocked: str | None
    errors: list[str]
    fetch_counters: dict[str, float]
    #: the selector file itself failed (every page would fail alike): the run stopped
    fatal: str | None = None
    #: validation and field statistics, computed where the crawl ran
    checks: RunChecks | None = None
    seconds: float = 0.0
    #: robots.txt and terms as the crawl saw them, robots-excluded URLs, the refusal
    policy: PolicySeen | None = None


@dataclass
class RunChecks:
    """A run's invalid records, their indices and its field statistics: pure functions of
    its records and pages, so computed where it was crawled (a Dask worker for ``run --all``,
    an executor task for ``replay``), not in the process that holds the store."""

    invalid: list[InvalidRecord]
    bad: set[int]
    stats: RunStats


def check_records(
    sf: SelectorFile,
    records: list[RecordEntry],
    pages: list[PageEntry],
    ahead: ChecksAhead | None = None,
) -> RunChecks:
    """Validate every record against its page type's schema and measure the run's fields
    (``ahead``: what the crawl checked page by page, see :class:`ChecksAhead`)."""
    validator = ahead.validator if ahead is not None else RecordValidator(sf.page_types)
    invalid, bad = validate_records(validator, records, ahead)
    facts = ahead.facts if ahead is not None else None
    return RunChecks(invalid, bad, run_stats(sf, records, [page_result(p) for p in pages], facts))


def crawl_site(job: CrawlJob, fetcher_factory: FetcherFactory, progress: Progress) -> CrawlOutcome:
    """Crawl one site from its checkpoint: fetch (or replay from the run's WARC) and extract
    every page, checkpointing after each. No database access: this part may run on a worker.

    Each call is one more attempt of the run: it writes its own WARC segment, and pages that
    earlier attempts archived are replayed from theirs, never fetched again.
    """
    options, sf, run_dir = job.options, job.sf, job.run_dir
    loaded = load_checkpoint(run_dir)
    if loaded is None and job.fresh is not None:
        # A new run's first attempt (or a retry of one that stopped before saving anything).
        _check_lease(job)
        run_dir.mkdir(parents=True, exist_ok=True)
        loaded = copy.deepcopy(job.fresh)
    if loaded is None:
        raise RunError(f"{run_dir}: the run's checkpoint is gone (finished by another process?)")
    cp = loaded
    cp.attempts += 1
    earlier = warc_segments(run_dir)
    archive = last_archived(run_dir) if earlier else {}
    segment = run_dir / f"pages-{cp.attempts - 1:02d}.warc.gz"
    cp.warc_segments = [p.name for p in earlier]
    if segment.name not in cp.warc_segments:
        cp.warc_segments.append(segment.name)
    save_checkpoint(run_dir, cp)
    site = sf.site.id
    progress(RunStarted(cp.run_id, site, job.resumed, len(cp.crawl.get("done", [])), str(run_dir)))
    frontier = Frontier(
        sf,
        base_url=options.base_url,
        only_urls=options.urls,
        max_url_length=options.settings.fetch.max_url_length,
    )
    emit = {name for name, pt in sf.page_types.items() if pt.emit}
    state = CrawlState.from_dict(cp.crawl)
    blocked: str | None = None
    fatal: str | None = None
    fetch_errors: list[str] = list(cp.errors)
    config = site_config(options.settings.fetch, sf)
    cache_dir = options.settings.paths.cache_path(options.state_dir)
    reader = PageReader(
        sf,
        compile_selectors(sf),
        lambda: fetcher_factory(config, segment, cache_dir, lambda ev: _waited(progress, ev, site)),
        conditional=config.conditional and not options.full,
    )
    counters: dict[str, float] = {}
    ahead = ChecksAhead(RecordValidator(sf.page_types))
    # Records are only ever appended: the progress count grows with each page's new ones.
    counted, emitted = 0, 0
    seen = PolicySeen()
    try:
        terms_url = sf.policy.terms_url if sf.policy is not None else None
        if terms_url:
            reader.fetcher = reader.fetcher or reader.make_fetcher()
            on_site = file_origin(terms_url) == file_origin(sf.fetch.start_urls[0])
            live = rewrite_origin(terms_url, options.base_url) if on_site else terms_url
            seen.terms = replace(observe_terms(reader.fetcher, live), url=terms_url)
            before, now_hash = job.terms_before, seen.terms.sha256
            if before and now_hash and before != now_hash:
                seen.terms_stop = (
                    f"the terms page {terms_url} changed since the last run (text sha256 "
                    f"{before[:12]} -> {now_hash[:12]}): nothing else was fetched"
                )
        while seen.terms_stop is None:
            item = frontier.pop(state)
            if item is None:
                break
            _check_lease(job)
            if item.via in ("sitemap", "feed"):
                reader.fetcher = reader.fetcher or reader.make_fetcher()
                since_and_cap = (job.since, config.max_decompressed_bytes)
                blocked = _read_source(
                    reader.fetcher, frontier, state, item, since_and_cap, fetch_errors, seen
                )
                if blocked:
                    break
                cp.crawl = state.to_dict()
                cp.errors = fetch_errors
                save_checkpoint(run_dir, cp)
                continue
            step = _read_page(reader, item, archive, cp, fetch_errors, seen)
            if step.stop:
                blocked, fatal = step.blocked, step.fatal
                break
            page_links = step.links
            frontier.finish(state, item, next_url=page_links[0], links=page_links[1])
            cp.crawl = state.to_dict()
            cp.errors = fetch_errors
            save_checkpoint(run_dir, cp)
            emitted += sum(1 for r in cp.records[counted:] if r.page_type in emit)
            counted = len(cp.records)
            progress(
                PageRead(
                    item.url, len(state.done), len(state.frontier), emitted, len(fetch_errors), site
                )
            )
            ahead.add(cp.records)  # while the origin's next turn comes
    finally:
        if reader.fetcher is not None:
            counters = reader.fetcher.counters.as_dict()
            seen.robots = gather_robots(reader.fetcher, sf, options.base_url)
            reader.fetcher.close()
    cp.crawl = state.to_dict()
    cp.errors = fetch_errors
    checks = check_records(sf, cp.records, cp.pages, ahead)
    return CrawlOutcome(cp, blocked, fetch_errors, counters, fatal, checks, policy=seen)


@dataclass(frozen=True)
class _Step:
    """What reading one page gave: its next page and links, or why the crawl stops (a wall,
    the selector file failing, or the site unreachable: ``stop`` with neither)."""

    links: tuple[str | None, tuple[str, ...]] = (None, ())
    stop: bool = False
    blocked: str | None = None
    fatal: str | None = None


def _read_page(
    reader: PageReader,
    item: CrawlItem,
    archive: dict[str, ArchivedPage],
    cp: Checkpoint,
    fetch_errors: list[str],
    seen: PolicySeen,
) -> _Step:
    """Fetch (or read back from the run's archive) and extract one page; what failed goes to
    ``fetch_errors``, a gone record page to ``cp.gone``, a refusal to ``seen``."""
    sf = reader.sf
    try:
        return _Step(links=reader.read(item, archive, cp))
    except (OriginBlocked, RobotsDisallowed) as exc:
        fetch_errors.append(f"{item.url}: {exc}")
        if isinstance(exc, RobotsDisallowed) and exc.reason == "disallowed":
            seen.excluded.append(item.url)
        refused = isinstance(exc, OriginBlocked) or item.via in ("start", "url")
        if refused:
            seen.refusal = Refusal(exc.reason, item.url, item.via, str(exc))
        if unreachable(exc):
            # No robots.txt because the site is down: an error, not a refusal.
            return _Step(stop=True)
        if refused:
            return _Step(stop=True, blocked=f"{type(exc).__name__}: {exc}")
        return _Step()
    except FetchFailed as exc:
        if gone_evidence(sf, item.url, exc.status):
            # A record's page is gone: evidence that it was withdrawn, not an
            # error (a gone listing still is one).
            cp.gone.append(item.url)
        else:
            fetch_errors.append(f"{item.url}: {exc}")
        return _Step()
    except SelectorEvaluationError as exc:
        # The selector file is at fault, not the page: every page would fail alike.
        name = Path(sf.path).name if sf.path else f"{sf.site.id}.json"
        fatal = f"{name}: {exc} (on {item.url})"
        fetch_errors.append(fatal)
        return _Step(stop=True, fatal=fatal)
    except (FetchError, ExtractionError) as exc:
        fetch_errors.append(f"{item.url}: {exc}")
        return _Step()


def _read_source(
    fetcher: Fetcher,
    frontier: Frontier,
    state: CrawlState,
    item: CrawlItem,
    since_and_cap: tuple[str | None, int],
    fetch_errors: list[str],
    seen: PolicySeen,
) -> str | None:
    """Read a sitemap or feed (entries changed since the last run, within the decompressed
    size cap) and queue what it lists (nested sitemaps too); the wall that stopped the crawl,
    if one did."""
    try:
        found = read_url_source(fetcher, item, *since_and_cap)
    except (FetchError, ExtractionError) as exc:
        fetch_errors.append(f"{item.url}: {exc}")
        if isinstance(exc, OriginBlocked):
            seen.refusal = Refusal(exc.reason, item.url, item.via, str(exc))
            return f"{type(exc).__name__}: {exc}"
        found = None
    if found is not None:
        for nested in found.sitemaps:
            frontier.queue_source(state, nested, "sitemap", item.depth + 1)
        if found.unchanged:
            state.capped.append(
                f"{item.url}: {found.unchanged} page(s) unchanged since the last "
                "run (lastmod), not fetched"
            )
        if found.capped:
            state.capped.append(f"{item.url}: more than {MAX_URLS} URLs")
    frontier.finish(state, item, links=found.pages if found is not None else ())
    return None


def _waited(progress: Progress, event: FetchEvent, site: str) -> None:
    """A fetch that waited (pacing, ``Retry-After``) as progress; shorter waits say nothing."""
    if event.waited > 0.05:
        progress(Waited(event.waited, event.wait_reason or "", site))


@dataclass(frozen=True)
class _Found:
    """The pages a sitemap or feed led to (those unchanged since ``since`` left out)."""

    pages: list[str]
    sitemaps: list[str]
    unchanged: int
    capped: bool


def read_url_source(fetcher: Fetcher, item: CrawlItem, since: str | None, cap: int) -> _Found:
    """Fetch a sitemap or feed (politely, archived) and list what it leads to; pages whose
    sitemap ``lastmod`` is not after ``since`` are left out (counted)."""
    res = fetcher.fetch(item.url, conditional=False)
    links = read_source(res.body, item.via, max_bytes=cap)
    pages = [
        u for u, lastmod in links.pages if item.via == "feed" or not unchanged_since(lastmod, since)
    ]
    return _Found(pages, links.sitemaps, len(links.pages) - len(pages), links.capped)


def _check_lease(job: CrawlJob) -> None:
    """Raise RunError when the site's lock no longer names the process that sent ``job``."""
    sid = job.sf.site.id
    if job.lease is not None and not lease_holds(job.options.state_dir, sid, job.lease):
        raise RunError(
            f"site {sid!r}: its lock was taken over by another run; this crawl stops (the "
            "other run resumes it)"
        )


class Run:
    """State of one run while it executes: prepared and decided by the process holding the
    site's lock and the store (this module's :func:`run_site`, or ``run --all`` for each of
    its sites); crawled by :func:`crawl_site`, possibly elsewhere."""

    def __init__(
        self,
        options: RunOptions,
        sf: SelectorFile,
        sf_path: Path,
        store: Store,
        progress: Progress,
    ) -> None:
        self.options = options
        self.sf = sf
        self.sf_path = sf_path
        self.store = store
        self.progress = progress
        self.sf_sha = hashlib.sha256(sf_path.read_bytes()).hexdigest()
        self.frontier = Frontier(
            sf,
            base_url=options.base_url,
            only_urls=options.urls,
            max_url_length=options.settings.fetch.max_url_length,
        )
        self.emit = {name for name, pt in sf.page_types.items() if pt.emit}
        #: the seed of the drift baseline when computed ahead (``run --all``: while crawling)
        self.seed: Callable[[], list[RunStats]] | None = None
        #: what the crawl saw of robots.txt and the terms page (set by :meth:`finish`)
        self.seen = PolicySeen()
        self.stop: Stop | None = None

    # .. main ....................................................................................

    def prepare(self, lease: dict[str, Any] | None = None) -> CrawlJob:
        """Resume the site's unfinished run (its checkpoint is saved) or start one (its first
        checkpoint goes with the job: :func:`crawl_site` saves it, with its directory, before
        it fetches anything, so preparing a new run writes and syncs nothing)."""
        options, sf = self.options, self.sf
        cp, resumed = start_or_resume(
            options, sf, self.sf_sha, self.store, self.frontier, self.progress
        )
        run_dir = runs_dir(options, sf.site.id) / cp.run_id
        terms = previous(self.store, sf.site.id).terms if self._terms_url() else None
        since = None
        if sf.fetch.sitemaps and not options.full:
            last = self.store.runs(sf.site.id, verdicts=COMMITTED, limit=1, stats=False)
            since = last[0].started_at if last else None
        if not resumed:
            return CrawlJob(
                options, sf, run_dir, resumed, lease, fresh=cp, terms_before=terms, since=since
            )
        run_dir.mkdir(parents=True, exist_ok=True)
        save_checkpoint(run_dir, cp)
        return CrawlJob(options, sf, run_dir, resumed, lease, terms_before=terms, since=since)

    def _terms_url(self) -> str | None:
        return self.sf.policy.terms_url if self.sf.policy is not None else None

    def finish(self, job: CrawlJob, outcome: CrawlOutcome) -> RunResult:
        """The verdict, the commit (or quarantine) and the report of a crawled run."""
        cp = outcome.checkpoint
        result = RunResult(
            cp.run_id,
            self.sf.site.id,
            "error",
            EXIT_ERROR,
            job.run_dir,
            self.sf.version,
            resumed=job.resumed,
        )
        result.fetch_counters = outcome.fetch_counters
        result.pages = len(cp.pages)
        result.replayed = sum(1 for p in cp.pages if p.source == "archive")
        result.errors = outcome.errors
        state = CrawlState.from_dict(cp.crawl)
        self.progress(Phase("checking", self.sf.site.id))
        self.seen = outcome.policy or PolicySeen()
        self._decide(cp, state, result, outcome.blocked, outcome.fatal, outcome.checks)
        remove_checkpoint(job.run_dir)
        if self.sf.policy is not None and not self.sf.policy.store_raw:
            # Only headers, digests and the extracted records are kept (the bundle's
            # snapshots, written above for a drift run, stay for repair).
            for segment in warc_segments(job.run_dir):
                strip_bodies(segment, "not kept: the selector file's policy.store_raw is false")
        return result

    def execute(self, fetcher_factory: FetcherFactory, lease: dict[str, Any] | None) -> RunResult:
        job = self.prepare(lease)
        return self.finish(job, crawl_site(job, fetcher_factory, self.progress))

    # .. verdict ..................................................................................

    def _decide(
        self,
        cp: Checkpoint,
        state: CrawlState,
        result: RunResult,
        blocked: str | None,
        fatal: str | None = None,
        checks: RunChecks | None = None,
    ) -> None:
        """Gather what the verdict depends on, :func:`decide` it, then :meth:`_finish`."""
        sf, emit, records = self.sf, self.emit, cp.records
        result.records = sum(1 for r in records if r.page_type in emit)
        if checks is None:
            checks = check_records(sf, records, cp.pages)
        invalid, bad, stats = checks.invalid, checks.bad, checks.stats
        invalid_emitted = [r for r in invalid if r.record.page_type in emit]
        result.invalid = len(invalid_emitted)
        result.charset = [f"{p.url}: {p.charset_note}" for p in cp.pages if p.charset_note]
        result.extraction = extraction_notes(cp.pages)
        token = product_token(self.options.settings.fetch.user_agent_product) or "anchorpath"
        self.stop = conclude(
            self.store, sf, self.seen, token=token, pages_read=len(cp.pages), now=now()
        )
        seen = Observed(
            stopped=self.stop.reason if self.stop is not None else None,
            blocked=blocked,
            fatal=fatal,
            pages=len(cp.pages),
            looks_empty=looks_empty(cp.pages),
            errors=result.errors,
            records=result.records,
            stats=stats,
            invalid_emitted=invalid_emitted,
            charset_notes=result.charset,
        )
        history = StoreBaseline(self.store, sf, self.sf_path, self.seed)
        decision = decide(seen, history, sf)
        # How much of the site this run saw (reported for every verdict; withdrawals also need
        # every emitted record to be identifiable, checked when committing).
        crawl_complete = self.frontier.complete(state) and not result.errors
        result.complete = crawl_complete and not blocked
        plan = CommitPlan(
            key_fields=list(sf.key),
            emit=sorted(emit),
            listing_types=sorted(n for n, pt in sf.page_types.items() if pt.record_root),
            bad=sorted(bad),
            crawl_complete=crawl_complete,
            stats=stats.to_dict(),
            gone=list(cp.gone),
        )
        self._finish(cp, result, decision, plan, invalid, stats, history.history())

    def _finish(
        self,
        cp: Checkpoint,
        result: RunResult,
        decision: Decision,
        plan: CommitPlan,
        invalid: list[InvalidRecord],
        stats: RunStats,
        history: list[RunStats],
    ) -> None:
        """Act on the decision: commit (``ok``) or record the run and keep its records in
        quarantine, write the alert bundle for drift, then the change rate and the reports."""
        sf, verdict = self.sf, decision.verdict
        result.verdict, result.reason = verdict, decision.reason
        result.drift = decision.drift
        finished = now()
        run_row = RunRow(
            id=cp.run_id,
            site=sf.site.id,
            started_at=cp.started_at,
            finished_at=finished,
            verdict=verdict,
            selector_version=sf.version,
            warc_path=",".join(str(result.run_dir / s) for s in cp.warc_segments),
            run_dir=str(result.run_dir),
            pages=result.pages,
            records=result.records,
            error=result.reason if verdict != "ok" else None,
        )
        quarantine: Path | None = None
        if verdict == "ok":
            self.progress(Phase("committing", sf.site.id))
            outcome = commit_records(self.store, run_row, cp.records, plan, page_rows(cp.pages))
            result.events, result.complete = outcome.events, outcome.complete
            result.unseen, result.duplicates = len(outcome.unseen), outcome.duplicates
            result.rekeyed = len(outcome.rekeyed)
        else:
            if verdict in ("drift", "blocked", "stopped"):
                quarantine = write_quarantine(cp, result.run_dir, invalid)
            if verdict == "drift":
                # Everything ``anchorpath accept`` needs to commit these records later exactly
                # as this run would have, even after the selector file changed.
                (quarantine or result.run_dir).joinpath(ACCEPT_PLAN).write_text(
                    json.dumps(plan.to_dict(), ensure_ascii=False), encoding="utf-8"
                )
            self.store.commit_run(run_row)
        result.exit_code = EXIT_BY_VERDICT.get(verdict, EXIT_ERROR)
        remember(self.store, sf, cp.run_id, cp.started_at, self.seen, self.stop)
        excluded = tuple(dict.fromkeys(self.seen.excluded))
        completion = Completion(
            valid=result.records - result.invalid,
            attempted=len(cp.pages) + max(0, len(result.errors) - len(excluded)),
            excluded=excluded,
            gone=tuple(cp.gone),
        )
        result.policy = policy_header(sf, self.seen, completion, self.stop)
        result.change_rate = change_rate(self.store, sf.site.id)
        if verdict == "drift" and decision.drift is not None:
            result.bundle = write_bundle(
                self.store,
                sf.site.id,
                self.sf_path,
                compile_selectors(sf),
                cp,
                result,
                decision.drift,
            )
        write_report(
            self.options.state_dir,
            sf,
            self.sf_path,
            cp,
            result,
            stats,
            history,
            quarantine,
            finished,
        )


def run_site(
    options: RunOptions,
    *,
    fetcher_factory: FetcherFactory | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Run one site once (see the module docstring). Raises ``AnchorpathError`` subclasses for
    runs that cannot start (unknown site, invalid selector file, lock held); a run that starts
    always returns a :class:`RunResult` whose ``exit_code`` tells the scheduler what happened."""
    sf_path = find_selector_file(options.site, options.selectors_dir)
    sf = load_selector_file(sf_path)
    unrunnable = sf.unrunnable_reason()
    if unrunnable:
        # Even with --url: its page types' match regexes were made from local file paths.
        raise RunError(f"{sf_path}: {unrunnable}")
    missing = sf.missing_basis()
    if missing:
        raise RunError(f"{sf_path}: {missing}")
    lock = SiteLock(options.state_dir, sf.site.id)
    with lock:
        store = Store(options.state_dir / DB_NAME)
        try:
            check_may_run(sf, str(sf_path), store)
            run = Run(options, sf, sf_path, store, progress or no_progress)
            try:
                result = run.execute(fetcher_factory or default_fetcher, lock.info)
            except AnchorpathError:
                raise
            except OSError as exc:
                raise RunError(f"{options.state_dir}: {exc}") from exc
            result.took_over_lock = lock.took_over
            return result
        finally:
            store.close()
