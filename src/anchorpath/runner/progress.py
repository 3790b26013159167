"""What a run, ``run --all`` and ``replay`` report while they work: one small frozen
dataclass per kind of progress (they pickle, so they travel from worker processes and Dask
workers), the :data:`ProgressEvent` union the CLI dispatches on by type, the
:data:`Progress` callback, and :func:`no_progress`, the one sink that ignores them.

Events of a site's run carry its ``site``, so that ``run --all`` can tell the sites apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "PROGRESS_SECONDS",
    "Note",
    "PageRead",
    "Phase",
    "Progress",
    "ProgressEvent",
    "ReplayPlanned",
    "RunReplayed",
    "RunStarted",
    "RunsChecked",
    "ShardsRead",
    "SiteCrawled",
    "SiteDone",
    "SitesPlanned",
    "TaskFn",
    "Waited",
    "no_progress",
]

#: A task sends progress of one kind (a site's page counts, replayed shards) at most this
#: often, and at its end: each event wakes the submitting process through a pipe or, on
#: Dask, crosses the scheduler.
PROGRESS_SECONDS = 0.5


@dataclass(frozen=True)
class RunStarted:
    """A run started or resumed (``done``: pages an earlier attempt finished)."""

    run_id: str
    site: str
    resumed: bool
    done: int
    run_dir: str


@dataclass(frozen=True)
class PageRead:
    """A page was read: the run's running totals."""

    url: str
    done: int
    queued: int
    records: int
    errors: int
    site: str = ""


@dataclass(frozen=True)
class Waited:
    """The polite fetcher waited before a request (pacing, ``Retry-After``, a slow site)."""

    seconds: float
    reason: str
    site: str = ""


@dataclass(frozen=True)
class Phase:
    """The run's crawl is over: it is checking its records, or committing them."""

    name: Literal["checking", "committing"]
    site: str = ""


@dataclass(frozen=True)
class Note:
    """Something a person should read now (an unfinished run abandoned, say)."""

    message: str
    site: str = ""


@dataclass(frozen=True)
class SitesPlanned:
    """``run --all``: the sites of the job, in origin groups."""

    sites: tuple[str, ...]
    groups: int


@dataclass(frozen=True)
class SiteCrawled:
    """``run --all``: a site's crawl is over (its verdict follows)."""

    site: str


@dataclass(frozen=True)
class SiteDone:
    """``run --all``: a site's verdict."""

    site: str
    verdict: str


@dataclass(frozen=True)
class ReplayPlanned:
    """``replay``: the runs and WARC segments to read."""

    runs: int
    shards: int


@dataclass(frozen=True)
class ShardsRead:
    """``replay``: WARC segments read and extracted (``pages``: their pages)."""

    shards: int
    pages: int


@dataclass(frozen=True)
class RunsChecked:
    """``replay``: runs validated and measured."""

    runs: int


@dataclass(frozen=True)
class RunReplayed:
    """``replay``: a run's verdict with the replayed selector version."""

    run_id: str
    verdict: str


ProgressEvent = (
    RunStarted
    | PageRead
    | Waited
    | Phase
    | Note
    | SitesPlanned
    | SiteCrawled
    | SiteDone
    | ReplayPlanned
    | ShardsRead
    | RunsChecked
    | RunReplayed
)
Progress = Callable[[ProgressEvent], None]
#: ``fn(progress, item) -> result``: what every executor runs.
TaskFn = Callable[[Progress, Any], Any]


def no_progress(event: ProgressEvent) -> None:
    """The sink for progress nobody watches."""
