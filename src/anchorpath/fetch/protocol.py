"""The seam between a run (or authoring) and the network: the :class:`Fetcher` Protocol and the
factory that makes one per run.

:class:`~anchorpath.fetch.polite.PoliteFetcher` is the real one;
:class:`~anchorpath.fetch.mock.MockFetcher` is the fake shipped for tests. Code that fetches
annotates with :class:`Fetcher` and never cares which it got.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from anchorpath._config import FetchConfig
from anchorpath.fetch.events import FetchCounters, FetchEvent
from anchorpath.fetch.result import FetchResult
from anchorpath.fetch.robots_policy import RobotsSeen

__all__ = ["Fetcher", "FetcherFactory"]


class Fetcher(Protocol):
    """What the rest of anchorpath codes against."""

    @property
    def counters(self) -> FetchCounters:
        """What this fetcher did so far (the denominators of a collection report)."""
        ...

    def fetch(
        self,
        url: str,
        *,
        conditional: bool = True,
        render: str = "http",
        wait_for: str | None = None,
    ) -> FetchResult:
        """Fetch one URL or raise a FetchError subclass. ``wait_for``: with ``render="browser"``,
        an XPath whose presence means the page's content is there (the page type's record
        root), waited for instead of network idleness."""
        ...

    def robots_seen(self, url: str) -> RobotsSeen | None:
        """The robots.txt requests to ``url``'s origin were judged by so far (None: not asked
        yet, or a fetcher that does not read robots.txt). Never fetches."""
        ...

    def close(self) -> None:
        """Release connections, browsers and archive files."""
        ...


#: ``(fetch_config, warc_path, cache_dir, on_event) -> fetcher``; the fetcher archives every
#: response to ``warc_path`` before returning it.
FetcherFactory = Callable[[FetchConfig, Path, Path, Callable[[FetchEvent], None]], Fetcher]
