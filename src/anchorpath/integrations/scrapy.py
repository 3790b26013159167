"""Scrapy integration (``pip install 'anchorpath[scrapy]'``): a spider built from a selector
file and an item pipeline that stores its items as an anchorpath run.

A team already on Scrapy keeps its middlewares, AutoThrottle, robots.txt handling and feed
exports, and gains anchorpath's selectors, drift gate and events::

    # dmf_spider.py
    from anchorpath.integrations.scrapy import SelectorSpider

    class DmfSpider(SelectorSpider):
        name = "mfds-dmf"
        selector_file = "selectors/mfds-dmf.json"

    # scrapy runspider dmf_spider.py -O records.jsonl \\
    #   -s ITEM_PIPELINES='{"anchorpath.integrations.scrapy.AnchorpathPipeline": 300}' \\
    #   -s ANCHORPATH_STATE_DIR=.anchorpath/state

:class:`SelectorSpider` requests the selector file's start URLs, follows its pagination and
``follow`` links within its allow/deny rules and caps (the runner's own frontier), and yields
one item per record, extracted by the runner's page extraction (the same as ``anchorpath.extract``
plus login-wall detection): a dict of the record's fields with ``_url``, ``_page_type`` and
``_via`` (and ``_problems``/``_template`` when there are some). :class:`AnchorpathPipeline` makes
the crawl an anchorpath run (:class:`~anchorpath.runner.external.ExternalRun`): each page is
archived to the run's WARC before it is parsed, the items that reach the pipeline are the run's
records, and when the spider closes the runner decides the verdict (drift gate included) and
commits the SCD2 records and events or quarantines them, exactly as ``anchorpath run`` would.
A crawl stopped by a shutdown (Ctrl-C) is not decided: the next run resumes it.

Politeness is not optional: the spider sets ``ROBOTSTXT_OBEY`` and refuses to start without it
(anchorpath never crawls against robots.txt), a robots-refused start URL blocks the run,
401/403 and login walls stop it (verdict ``blocked``). Scrapy's middleware reads robots.txt:
one that cannot be fetched (5xx, network) allows everything there, where ``anchorpath run``
disallows everything (RFC 9309). It sends no cookies, one request at a
time per domain, and paces at anchorpath's default ``min_delay`` with AutoThrottle on; a
project's own settings (``-s DOWNLOAD_DELAY=5``) may change the pace.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import CloseSpider, IgnoreRequest
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from anchorpath._config import FetchConfig, load_settings
from anchorpath._errors import ConfigError
from anchorpath.runner.crawl.frontier import CrawlItem
from anchorpath.runner.external import ExternalCrawl, ExternalRun, FetchedPage
from anchorpath.runner.model import RecordEntry
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.page_url import is_http_url

__all__ = ["AnchorpathPipeline", "SelectorSpider", "item_from_record", "record_from_item"]

_META = ("_url", "_page_type", "_via", "_problems", "_template")


def item_from_record(record: RecordEntry) -> dict[str, Any]:
    """The Scrapy item of one record: its fields, and where it came from."""
    item: dict[str, Any] = {"_url": record.url, "_page_type": record.page_type, "_via": record.via}
    item.update(record.values)
    if record.problems:
        item["_problems"] = list(record.problems)
    if record.template:
        item["_template"] = list(record.template)
    return item


def record_from_item(item: Mapping[str, Any]) -> RecordEntry:
    """The record an item carries (after whatever the pipelines before did to its fields)."""
    via = item.get("_via")
    return RecordEntry(
        page_type=str(item["_page_type"]),
        url=str(item["_url"]),
        values={k: v for k, v in item.items() if k not in _META},
        problems=tuple(str(p) for p in item.get("_problems") or ()),
        via=str(via) if via is not None else None,
        template=tuple(str(t) for t in item.get("_template") or ()),
    )


class SelectorSpider(scrapy.Spider):
    """A spider that crawls and extracts what a selector file describes.

    Set ``selector_file`` (and ``name``) on a subclass, or pass ``-a selector_file=PATH``;
    ``-a base_url=http://127.0.0.1:8765`` crawls a copy of the site on another origin (as
    ``anchorpath run --base-url``).
    """

    name = "anchorpath"
    selector_file: ClassVar[str | None] = None
    # Scrapy declares it an instance attribute, so it cannot be a ClassVar here.
    custom_settings = {  # noqa: RUF012
        "ROBOTSTXT_OBEY": True,
        "COOKIES_ENABLED": False,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": FetchConfig.min_delay,
        "AUTOTHROTTLE_ENABLED": True,
        "AUTOTHROTTLE_START_DELAY": FetchConfig.min_delay,
        "AUTOTHROTTLE_MAX_DELAY": FetchConfig.max_delay,
    }

    def __init__(
        self,
        name: str | None = None,
        *,
        selector_file: str | None = None,
        base_url: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name, **kwargs)
        path = selector_file or type(self).selector_file
        if not path:
            raise ConfigError(
                f"spider {self.name!r}: no selector file (set selector_file on the class or "
                "pass -a selector_file=PATH)"
            )
        if base_url is not None and not is_http_url(base_url):
            raise ConfigError(f"spider {self.name!r}: base_url {base_url!r} is not an http(s) URL")
        self.selector_path = Path(path)
        self.selector = load_selector_file(self.selector_path)
        self.base_url = base_url
        self.anchorpath_run: ExternalRun | None = None
        self._crawl: ExternalCrawl | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> SelectorSpider:
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise ConfigError(
                "ROBOTSTXT_OBEY is off: anchorpath never crawls against robots.txt "
                "(remove -s ROBOTSTXT_OBEY=False)"
            )
        spider = super().from_crawler(crawler, *args, **kwargs)
        assert isinstance(spider, SelectorSpider)
        return spider

    def attach_run(self, run: ExternalRun) -> None:
        """Feed ``run`` (the pipeline's) instead of a crawl of the spider's own."""
        self.anchorpath_run = run
        self._crawl = run.crawl

    @property
    def crawl(self) -> ExternalCrawl:
        if self._crawl is None:
            self._crawl = ExternalCrawl(self.selector, base_url=self.base_url)
        return self._crawl

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for item in self.crawl.pending():
            yield self._request(item)

    def _request(self, item: CrawlItem) -> scrapy.Request:
        return scrapy.Request(
            item.url,
            callback=self.parse_page,
            errback=self.fetch_failed,
            cb_kwargs={"item": item},
            dont_filter=True,  # the frontier already queues each URL once
        )

    def parse_page(self, response: Response, item: CrawlItem) -> Iterator[Any]:
        """One item per record of the page, then requests for the URLs it adds."""
        fetched = FetchedPage(
            response.url,
            response.status,
            _headers(response.headers),
            response.body,
            _headers(response.request.headers) if response.request is not None else (),
        )
        if self.anchorpath_run is not None:
            records, more = self.anchorpath_run.page(item, fetched)
        else:
            records, more = self.crawl.page(item, fetched)
        for record in records:
            yield item_from_record(record)
        yield from self._next(more)

    def fetch_failed(self, failure: Failure) -> Iterator[Any]:
        """A request that failed (robots.txt, HTTP error status, network), as the runner
        treats it."""
        request = failure.request  # type: ignore[attr-defined]
        item: CrawlItem = request.cb_kwargs["item"]
        status = None
        robots = False
        error = failure.value
        if isinstance(error, HttpError):
            status = error.response.status
            message = f"HTTP {status}"
        elif isinstance(error, IgnoreRequest):
            message = str(error)
            robots = "robots" in message.lower()
        else:
            message = f"{failure.type.__name__ if failure.type else 'error'}: {failure.value}"
        if self.anchorpath_run is not None:
            more = self.anchorpath_run.failed(item, message, status=status, robots=robots)
        else:
            more = self.crawl.failed(item, message, status=status, robots=robots)
        yield from self._next(more)

    def _next(self, more: list[CrawlItem]) -> Iterator[scrapy.Request]:
        crawl = self.crawl
        if crawl.stopped:
            raise CloseSpider(crawl.blocked or crawl.fatal or "stopped")
        for item in more:
            yield self._request(item)


def _headers(headers: Any) -> list[tuple[str, str]]:
    out = []
    for key, values in headers.items():
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        for value in values:
            out.append((name, value.decode("latin-1") if isinstance(value, bytes) else str(value)))
    return out


class AnchorpathPipeline:
    """Stores a :class:`SelectorSpider`'s items as one anchorpath run of its selector file.

    Settings: ``ANCHORPATH_STATE_DIR`` (default ``paths.state_dir`` of anchorpath's settings)
    and ``ANCHORPATH_CONFIG`` (an anchorpath config file). The run's result is in the crawl's
    stats (``anchorpath/verdict``, ``anchorpath/exit_code``, ``anchorpath/run_id``) and in
    :attr:`result`.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.state_dir = crawler.settings.get("ANCHORPATH_STATE_DIR")
        self.config = crawler.settings.get("ANCHORPATH_CONFIG")
        self.run: ExternalRun | None = None
        self.result: RunResult | None = None
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> AnchorpathPipeline:
        return cls(crawler)

    def open_spider(self, spider: scrapy.Spider | None = None) -> None:
        spider = self.crawler.spider
        if not isinstance(spider, SelectorSpider):
            raise ConfigError(
                f"AnchorpathPipeline stores the items of a SelectorSpider, not of {spider!r}"
            )
        settings = load_settings(self.config)
        options = RunOptions(
            site=str(spider.selector_path),
            selectors_dir=spider.selector_path.parent,
            state_dir=Path(self.state_dir or settings.paths.state_dir),
            base_url=spider.base_url,
            settings=settings,
        )
        self.run = ExternalRun(options)
        spider.attach_run(self.run)

    def process_item(self, item: Any, spider: scrapy.Spider | None = None) -> Any:
        if self.run is not None and isinstance(item, Mapping) and "_page_type" in item:
            self.run.add_record(record_from_item(item))
        return item

    def spider_closed(self, spider: scrapy.Spider, reason: str) -> None:
        """Decide and commit the run, or leave it to be resumed after a shutdown."""
        run, self.run = self.run, None
        if run is None:
            return
        if reason == "shutdown":
            run.abort()
            spider.logger.warning("anchorpath: crawl interrupted; the next run resumes it")
            return
        result = run.finish()
        self.result = result
        stats = self.crawler.stats
        if stats is not None:
            stats.set_value("anchorpath/verdict", result.verdict)
            stats.set_value("anchorpath/exit_code", result.exit_code)
            stats.set_value("anchorpath/run_id", result.run_id)
        counts = result.counts()
        line = (
            f"anchorpath: run {result.run_id} of {result.site}: {result.verdict} "
            f"(exit {result.exit_code}); {counts.pages} pages, {counts.records} records, "
            f"new {counts.new}, changed {counts.changed}, withdrawn {counts.withdrawn}"
            + (f"; {result.reason}" if result.reason else "")
        )
        if result.verdict == "ok" or result.verdict == "empty-source":
            spider.logger.info(line)
        else:
            spider.logger.error(line)
