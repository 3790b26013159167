"""A run whose pages another crawler fetches (the Scrapy integration): the same frontier rules,
WARC archive, extraction, verdict, commit and reports as :func:`~.pipeline.run_site`.

:class:`ExternalCrawl` is the crawl without a store: it hands out the URLs the selector file's
rules allow (start URLs, pagination, ``follow`` links, allow/deny, depth and page caps), and
turns each fetched page into its records and the next URLs with the runner's own
:func:`~.crawl.pages.extract_page` (login walls included). :class:`ExternalRun` adds the rest
of a run around it: the site's lock, the run directory and checkpoint, the WARC segment each
page is archived to before it is parsed, and at the end the runner's own verdict, commit or
quarantine and report (``Run.finish``: :func:`~.decide.decide`, the drift gate, SCD2 records
and events). Records reach the run through :meth:`ExternalRun.add_record`, so a crawler's
item pipelines may drop or clean them first.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path

from anchorpath._errors import (
    ArchiveError,
    ExtractionError,
    OriginBlocked,
    RunError,
    SelectorEvaluationError,
)
from anchorpath.fetch.http import charset_of
from anchorpath.fetch.warc import WarcWriter
from anchorpath.runner.checkpoint import load_checkpoint, save_checkpoint
from anchorpath.runner.crawl.frontier import CrawlItem, CrawlState, Frontier
from anchorpath.runner.crawl.pages import extract_page
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.model import Checkpoint, PageEntry, RecordEntry
from anchorpath.runner.pipeline import CrawlJob, CrawlOutcome, Run, check_records
from anchorpath.runner.progress import Progress, no_progress
from anchorpath.runner.run_types import RunOptions, RunResult, warc_segments
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.selectors.evaluate import compile_selectors
from anchorpath.selectors.load import find_selector_file, load_selector_file
from anchorpath.selectors.model import SelectorFile

__all__ = ["ExternalCrawl", "ExternalRun", "FetchedPage"]

Headers = Sequence[tuple[str, str]]


class FetchedPage:
    """What the other crawler got for one URL: final URL, status, headers and body, and the
    request headers it sent (for the WARC request record)."""

    __slots__ = ("body", "final_url", "headers", "request_headers", "status")

    def __init__(
        self,
        final_url: str,
        status: int,
        headers: Headers,
        body: bytes,
        request_headers: Headers = (),
    ) -> None:
        self.final_url = final_url
        self.status = status
        self.headers = list(headers)
        self.body = body
        self.request_headers = list(request_headers)


class ExternalCrawl:
    """The crawl of one selector file, driven by another crawler's responses (no store).

    :meth:`pending` gives the URLs to request (each once); every one comes back through
    :meth:`page` or :meth:`failed`, which return the records and the newly allowed URLs.
    After a refusal (``blocked``) or a selector fault (``fatal``) nothing more is handed out.
    """

    def __init__(
        self,
        sf: SelectorFile,
        *,
        base_url: str | None = None,
        max_url_length: int = 2048,
        state: CrawlState | None = None,
        warc: WarcWriter | None = None,
    ) -> None:
        self.sf = sf
        self.compiled = compile_selectors(sf)
        self.frontier = Frontier(sf, base_url=base_url, max_url_length=max_url_length)
        self.state = state if state is not None else self.frontier.start()
        self.warc = warc
        self.pages: list[PageEntry] = []
        self.errors: list[str] = []
        self.gone: list[str] = []
        self.blocked: str | None = None
        self.fatal: str | None = None
        self._out: dict[str, CrawlItem] = {}  # handed out, not yet back

    @property
    def stopped(self) -> bool:
        return self.blocked is not None or self.fatal is not None

    def pending(self) -> list[CrawlItem]:
        """Queued URLs not handed out yet, within ``max_pages`` (done + in flight)."""
        if self.stopped:
            return []
        out = []
        room = self.sf.fetch.max_pages - len(self.state.done) - len(self._out)
        for item in self.state.frontier:
            if room <= 0:
                break
            if item.url not in self._out:
                self._out[item.url] = item
                out.append(item)
                room -= 1
        return out

    def _finish(
        self, item: CrawlItem, next_url: str | None = None, links: Sequence[str] = ()
    ) -> list[CrawlItem]:
        self._out.pop(item.url, None)
        if item in self.state.frontier:
            self.state.frontier.remove(item)
        self.frontier.finish(self.state, item, next_url=next_url, links=links)
        return self.pending()

    def page(
        self, item: CrawlItem, fetched: FetchedPage
    ) -> tuple[list[RecordEntry], list[CrawlItem]]:
        """Archive (when a WARC is open) and extract one fetched page: its records and the
        URLs it adds to the crawl. A login wall stops the crawl as ``blocked``."""
        if self.warc is not None:
            try:
                self.warc.write_exchange(
                    url=fetched.final_url,
                    method="GET",
                    request_headers=fetched.request_headers,
                    status=fetched.status,
                    reason="",
                    response_headers=fetched.headers,
                    payload=fetched.body,
                )
            except ArchiveError as exc:
                # Never parse what could not be archived: the run stops (verdict error).
                self.fatal = f"{item.url}: {exc}"
                self.errors.append(self.fatal)
                return [], []
        headers = dict(fetched.headers)
        lower = {k.lower(): v for k, v in headers.items()}
        try:
            out = extract_page(
                self.compiled,
                item.url,
                fetched.final_url,
                fetched.status,
                headers,
                fetched.body,
                charset_of(lower.get("content-type")),
                via=item.via,
                source="fetch",
            )
        except OriginBlocked as exc:
            self.errors.append(f"{item.url}: {exc}")
            self.blocked = f"{type(exc).__name__}: {exc}"
            return [], []
        except SelectorEvaluationError as exc:
            name = Path(self.sf.path).name if self.sf.path else f"{self.sf.site.id}.json"
            self.fatal = f"{name}: {exc} (on {item.url})"
            self.errors.append(self.fatal)
            return [], []
        except ExtractionError as exc:
            self.errors.append(f"{item.url}: {exc}")
            return [], self._finish(item)
        self.pages.append(out.page)
        return out.records, self._finish(item, out.next_url, out.links)

    def failed(
        self, item: CrawlItem, message: str, *, status: int | None = None, robots: bool = False
    ) -> list[CrawlItem]:
        """A URL the other crawler could not get, as the runner treats it: robots.txt refusing
        a start URL, or 401/403, blocks the run; a record's page gone (404/410) is evidence of
        withdrawal; a robots-refused follow link is skipped; anything else is an error."""
        if robots:
            if item.via in ("start", "url"):
                self.blocked = f"RobotsDisallowed: {item.url}: {message}"
                self.errors.append(f"{item.url}: {message}")
                return []
            self.state.skipped.append((item.url, "robots.txt disallows it"))
            return self._finish(item)
        if status in (401, 403):
            self.blocked = f"OriginBlocked: {item.url}: {message}"
            self.errors.append(f"{item.url}: {message}")
            return []
        if status in (404, 410) and item.via in ("follow", "url"):
            self.gone.append(item.url)
        else:
            self.errors.append(f"{item.url}: {message}")
        return self._finish(item)

    def close(self) -> None:
        """Note the URLs left unfetched (the crawl is then incomplete: no withdrawals)."""
        left = list(self.state.frontier)
        if left:
            self.state.capped.append(
                f"max_pages {self.sf.fetch.max_pages} reached or the crawl stopped; "
                f"{len(left)} URLs left"
            )
            self.state.frontier.clear()
        self._out.clear()


class ExternalRun:
    """One run of ``options.site`` fed by another crawler (see the module docstring).

    Opening it takes the site's lock and starts (or resumes) the run; :meth:`finish` decides,
    commits or quarantines and writes the report, then releases the lock; :meth:`abort`
    releases it and leaves the checkpoint for the next run to resume.
    """

    def __init__(self, options: RunOptions, *, progress: Progress | None = None) -> None:
        sf_path = find_selector_file(options.site, options.selectors_dir)
        sf = load_selector_file(sf_path)
        unrunnable = sf.unrunnable_reason()
        if unrunnable:
            raise RunError(f"{sf_path}: {unrunnable}")
        self.sf = sf
        self._lock = SiteLock(options.state_dir, sf.site.id)
        self._lock.acquire()
        self._store: Store | None = None
        try:
            self._store = Store(options.state_dir / DB_NAME)
            self._run = Run(options, sf, sf_path, self._store, progress or no_progress)
            self.job: CrawlJob = self._run.prepare(self._lock.info)
            run_dir = self.job.run_dir
            loaded = load_checkpoint(run_dir)
            if loaded is None:
                if self.job.fresh is None:
                    raise RunError(f"{run_dir}: the run's checkpoint is gone")
                run_dir.mkdir(parents=True, exist_ok=True)
                loaded = copy.deepcopy(self.job.fresh)
            self.cp: Checkpoint = loaded
            self._earlier_pages = list(loaded.pages)  # an unfinished run's, when resumed
            self.cp.attempts += 1
            segment = run_dir / f"pages-{self.cp.attempts - 1:02d}.warc.gz"
            self.cp.warc_segments = [p.name for p in warc_segments(run_dir)]
            if segment.name not in self.cp.warc_segments:
                self.cp.warc_segments.append(segment.name)
            self._warc = WarcWriter(segment)
            save_checkpoint(run_dir, self.cp)
            self.crawl = ExternalCrawl(
                sf,
                base_url=options.base_url,
                max_url_length=options.settings.fetch.max_url_length,
                state=CrawlState.from_dict(self.cp.crawl),
                warc=self._warc,
            )
            self.crawl.errors = list(self.cp.errors)
            self.crawl.gone = list(self.cp.gone)
        except BaseException:
            self._release()
            raise
        self._open = True

    def page(
        self, item: CrawlItem, fetched: FetchedPage
    ) -> tuple[list[RecordEntry], list[CrawlItem]]:
        """:meth:`ExternalCrawl.page`, with the checkpoint saved after the page."""
        records, more = self.crawl.page(item, fetched)
        self._save()
        return records, more

    def failed(
        self, item: CrawlItem, message: str, *, status: int | None = None, robots: bool = False
    ) -> list[CrawlItem]:
        more = self.crawl.failed(item, message, status=status, robots=robots)
        self._save()
        return more

    def add_record(self, record: RecordEntry) -> None:
        """A record the crawler delivers (from :meth:`page`, possibly cleaned on the way)."""
        self.cp.records.append(record)

    def _save(self) -> None:
        self.cp.pages = self._earlier_pages + self.crawl.pages
        self.cp.crawl = self.crawl.state.to_dict()
        self.cp.errors = list(self.crawl.errors)
        self.cp.gone = list(self.crawl.gone)
        save_checkpoint(self.job.run_dir, self.cp)

    def finish(self) -> RunResult:
        """The run's verdict, commit or quarantine, and report (the runner's own), then the
        lock is released."""
        if not self._open:
            raise RunError(f"site {self.sf.site.id!r}: this run is already finished")
        try:
            self.crawl.close()
            self._save()
            self._warc.close()
            checks = check_records(self.sf, self.cp.records, self.cp.pages)
            outcome = CrawlOutcome(
                self.cp,
                self.crawl.blocked,
                self.cp.errors,
                {},
                self.crawl.fatal,
                checks,
            )
            result = self._run.finish(self.job, outcome)
            result.took_over_lock = self._lock.took_over
            return result
        finally:
            self._release()

    def abort(self) -> None:
        """Stop without a verdict: the checkpoint stays, the next run resumes it."""
        if self._open:
            self._save()
            self._warc.close()
            self._release()

    def _release(self) -> None:
        self._open = False
        if self._store is not None:
            self._store.close()
            self._store = None
        self._lock.release()
