"""``anchorpath run --all``: every site of the selectors directory in one job.

Politeness makes one site slow by design; the way to go faster is many origins at once. Sites
are put in *origin groups*: sites whose start URLs share an origin (transitively) are one
group, crawled one after the other in one task, so one origin is never fetched by two tasks
at once and no pacing state has to be shared between machines. A group's sites are prepared
(locked, resumed) when the executor takes its task, so the first crawls start while later
sites are still being prepared. Groups run concurrently
(``--workers``, default ``max(fetch.global_concurrency, 32)`` groups at once), and on threads
of this process (``--executor local``) all of them share one politeness registry
(:class:`~anchorpath.fetch.origins.SharedPoliteness`): one pace and one robots.txt per origin,
and at most ``fetch.global_concurrency`` requests in flight in all. Groups sent to other
processes (``local:N`` worker processes, Dask workers) share one registry per process and job,
each process with an equal share of ``fetch.global_concurrency`` (at least one request): an
origin still has one pace and one robots.txt, since it belongs to exactly one group.

Each site keeps everything ``anchorpath run SITE`` has: its lock (held by this process for the
whole job), its checkpoint, drift gate, report and verdict. The crawl of a group is the only
part that runs on the executor (:mod:`anchorpath.runner.executor`: local threads, worker
processes, or a Dask worker); preparing a run (lock, resume) and deciding it (gate, commit,
report) happen here, so this process is the only writer of the SQLite store. A site that
fails does not stop the others; a crawl that fails keeps its checkpoint, so the next
``--all`` (or ``run SITE``) resumes it, as it resumes every site left unfinished by
``kill -9`` of the whole job.

The exit code is the most severe verdict: stopped (5) > blocked (4) > drift (3) > error (1) >
ok (0); a stopped site is not run (until ``anchorpath resume``), its line says so.
"""

from __future__ import annotations

import fnmatch
import math
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from anchorpath._config import Settings
from anchorpath._errors import AnchorpathError, RunError, SiteStopped, WorkerFailed
from anchorpath._text import excerpt
from anchorpath.fetch.origins import SharedPoliteness
from anchorpath.fetch.protocol import FetcherFactory
from anchorpath.fetch.safety import origin_of
from anchorpath.runner.drift.check import needs_seed
from anchorpath.runner.drift.gate import committed_history, seed_for
from anchorpath.runner.executor import DaskExecutor, Executor, LocalExecutor
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.pipeline import CrawlJob, CrawlOutcome, Run, crawl_site
from anchorpath.runner.policy.site import check_may_run
from anchorpath.runner.progress import (
    PROGRESS_SECONDS,
    PageRead,
    Progress,
    ProgressEvent,
    SiteCrawled,
    SiteDone,
    SitesPlanned,
    no_progress,
)
from anchorpath.runner.run_types import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_STOPPED,
    Counts,
    RunOptions,
    RunResult,
)
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "GroupJob",
    "RunAllOptions",
    "RunAllResult",
    "SiteOutcome",
    "crawl_group",
    "discover_sites",
    "origin_groups",
    "run_all",
]


@dataclass(frozen=True)
class RunAllOptions:
    """What ``anchorpath run --all`` was asked to do."""

    patterns: tuple[str, ...] = ()
    selectors_dir: Path = Path("selectors")
    state_dir: Path = Path(".anchorpath/state")
    full: bool = False
    workers: int | None = None
    settings: Settings = field(default_factory=Settings)

    def groups_at_once(self) -> int:
        if self.workers is not None:
            return max(1, self.workers)
        return max(self.settings.fetch.global_concurrency, 32)


@dataclass
class SiteOutcome:
    """One line of the summary table."""

    site: str
    verdict: str
    exit_code: int
    seconds: float = 0.0
    reason: str | None = None
    result: RunResult | None = None

    def counts(self) -> Counts:
        return Counts() if self.result is None else self.result.counts()


@dataclass
class RunAllResult:
    """Every site's outcome (in site order) and the job's exit code."""

    sites: list[SiteOutcome]
    seconds: float
    groups: int

    @property
    def exit_code(self) -> int:
        # stopped 5 > blocked 4 > drift 3 > error 1 > ok 0: the codes are ordered by severity
        return max((s.exit_code for s in self.sites), default=EXIT_OK)


def discover_sites(selectors_dir: Path, patterns: Sequence[str] = ()) -> list[Path]:
    """The selector files of ``selectors_dir`` (``*.json``, not ``.history/``), those whose
    name (without ``.json``) matches one of the shell ``patterns`` if any are given."""
    if not selectors_dir.is_dir():
        raise RunError(f"{selectors_dir}: no such selectors directory")
    files = sorted(p for p in selectors_dir.glob("*.json") if p.is_file())
    if patterns:
        files = [p for p in files if any(fnmatch.fnmatchcase(p.stem, pat) for pat in patterns)]
        if not files:
            raise RunError(
                f"{selectors_dir}: no selector file matches {', '.join(map(repr, patterns))}"
            )
    elif not files:
        raise RunError(f"{selectors_dir}: no selector files (*.json)")
    return files


def _origins(sf: SelectorFile) -> set[str]:
    out = set()
    for url in sf.fetch.start_urls:
        try:
            out.add(origin_of(url))
        except ValueError:
            out.add(url)
    return out


def origin_groups(sites: Sequence[SelectorFile]) -> list[list[int]]:
    """Indices of ``sites`` grouped so that sites sharing a start-URL origin (transitively)
    are in one group; groups and their members keep the order of ``sites``."""
    parent = list(range(len(sites)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, sf in enumerate(sites):
        for origin in sorted(_origins(sf)):
            if origin in owner:
                a, b = find(owner[origin]), find(i)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                owner[origin] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(sites)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


@dataclass
class GroupJob:
    """The crawls of one origin group, in order: one executor task.

    ``shared`` is the politeness registry of a job run on threads of this process. A task sent
    to another process (``local:N``, Dask) travels without it and uses that process's registry
    for the job named ``registry``, with ``concurrency`` requests in flight at most.
    ``fetcher_factory`` replaces the polite fetcher in tests (threads of this process only).
    """

    jobs: list[CrawlJob]
    shared: SharedPoliteness | None = None
    fetcher_factory: FetcherFactory | None = None
    registry: str = ""
    concurrency: int = 1

    def __getstate__(self) -> dict[str, Any]:
        # A registry holds locks and lives in one process: never sent to a worker.
        return {**self.__dict__, "shared": None}


def _polite_factory(shared: SharedPoliteness) -> FetcherFactory:
    def make(config: Any, warc_path: Path, cache_dir: Path, on_event: Any) -> Any:
        from anchorpath.fetch.polite import PoliteFetcher
        from anchorpath.fetch.warc import WarcWriter

        return PoliteFetcher(
            config,
            warc=WarcWriter(warc_path),
            cache_dir=str(cache_dir),
            on_event=on_event,
            shared=shared,
        )

    return make


#: the politeness registries of the jobs whose tasks ran in this (worker) process, by job
_registries: dict[str, SharedPoliteness] = {}
_registries_lock = threading.Lock()
#: registries kept for jobs of a long-lived worker (the oldest is dropped)
_KEEP_REGISTRIES = 8


def _registry(job: str, concurrency: int) -> SharedPoliteness:
    """This process's politeness registry for ``job``: the groups of one job sent to one
    worker process share one cap on requests in flight (their origins are disjoint)."""
    with _registries_lock:
        registry = _registries.get(job)
        if registry is None:
            while len(_registries) >= _KEEP_REGISTRIES:
                del _registries[next(iter(_registries))]
            registry = _registries[job] = SharedPoliteness(concurrency)
        return registry


def crawl_group(progress: Progress, group: GroupJob) -> list[CrawlOutcome | str]:
    """Crawl the sites of one origin group one after the other (an executor task).

    Returns, per site, its :class:`CrawlOutcome` or the one-line error that stopped it (its
    checkpoint stays, so the next run resumes it).
    """
    shared = group.shared or _registry(group.registry, group.concurrency)
    out: list[CrawlOutcome | str] = []
    for job in group.jobs:
        site = job.sf.site.id
        factory = group.fetcher_factory or _polite_factory(shared)

        pages = _PageEvents(progress)

        def site_progress(event: ProgressEvent, pages: _PageEvents = pages) -> None:
            if isinstance(event, PageRead):
                pages.latest(event)
                return
            pages.flush()
            progress(event)

        began = time.monotonic()
        try:
            crawled = crawl_site(job, factory, site_progress)
            crawled.seconds = time.monotonic() - began
            out.append(crawled)
        except AnchorpathError as exc:
            out.append(f"{type(exc).__name__}: {exc}")
        except OSError as exc:
            out.append(f"{job.run_dir}: {exc}")
        except Exception as exc:  # that site's error, the group's others run
            out.append(_reason(exc))
        pages.flush()
        progress(SiteCrawled(site))
    return out


class _PageEvents:
    """A site's :class:`PageRead` progress, at most one per :data:`PROGRESS_SECONDS` (each
    carries the site's running totals, so the latest one says everything): with hundreds of
    sites a job's progress would otherwise cross a pipe or a Dask scheduler for every page.
    The latest one is always sent before the site's next other event."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.sent = -math.inf
        self.pending: PageRead | None = None

    def latest(self, event: PageRead) -> None:
        self.pending = event
        if time.monotonic() - self.sent >= PROGRESS_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.pending is not None:
            event, self.pending = self.pending, None
            self.sent = time.monotonic()
            self.progress(event)


class _Site:
    """One site while the job runs: its lock and prepared run, held by this process."""

    def __init__(self, sf_path: Path, sf: SelectorFile) -> None:
        self.sf_path = sf_path
        self.sf = sf
        self.lock: SiteLock | None = None
        self.run: Run | None = None
        self.job: CrawlJob | None = None

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def _reason(exc: Exception) -> str:
    """One line for an error of one site: ours as worded; anything else (a bug, a library's
    error on hostile input) named by its type, so that site fails and every other runs."""
    if isinstance(exc, AnchorpathError):
        return str(exc)
    return f"unexpected {type(exc).__name__}: {excerpt(str(exc), 200)}"


def run_all(
    options: RunAllOptions,
    *,
    executor: Executor | None = None,
    progress: Progress | None = None,
    fetcher_factory: FetcherFactory | None = None,
) -> RunAllResult:
    """Run every selected site once (see the module docstring); never raises for one site's
    failure. Raises ``AnchorpathError`` only when nothing can start (no selectors directory,
    no matching file, unusable state directory)."""
    began = time.monotonic()
    report = progress or no_progress
    executor = executor or LocalExecutor()
    paths = discover_sites(options.selectors_dir, options.patterns)
    outcomes: dict[str, SiteOutcome] = {}
    order: list[str] = []
    loaded: list[_Site] = []
    for path in paths:
        try:
            sf = load_selector_file(path)
        except Exception as exc:  # one broken file is that site's error
            outcomes[path.stem] = SiteOutcome(path.stem, "error", EXIT_ERROR, reason=_reason(exc))
            order.append(path.stem)
            continue
        if sf.site.id in outcomes or any(s.sf.site.id == sf.site.id for s in loaded):
            outcomes.setdefault(
                f"{sf.site.id} ({path.name})",
                SiteOutcome(
                    sf.site.id, "error", EXIT_ERROR, reason=f"{path}: site id already used"
                ),
            )
            order.append(f"{sf.site.id} ({path.name})")
            continue
        loaded.append(_Site(path, sf))
        order.append(sf.site.id)
    groups = origin_groups([s.sf for s in loaded])
    report(SitesPlanned(tuple(s.sf.site.id for s in loaded), len(groups)))
    concurrency = options.settings.fetch.global_concurrency
    # Threads of this process share one registry; other processes get theirs per job, with
    # an equal share of the cap on requests in flight.
    shared = SharedPoliteness(concurrency) if isinstance(executor, LocalExecutor) else None
    share = max(1, concurrency // max(1, executor.capacity() or 1))
    registry = uuid.uuid4().hex
    # Only Dask workers may be on other machines: everywhere else the lease is in the page
    # cache of the machine that wrote it. (A stale read only stops a crawl: it fails closed.)
    remote = isinstance(executor, DaskExecutor)
    seeder: _Seeder | None = None
    try:
        options.state_dir.mkdir(parents=True, exist_ok=True)
        store = Store(options.state_dir / DB_NAME)
    except OSError as exc:
        raise RunError(f"{options.state_dir}: {exc}") from exc
    try:
        seeder = _Seeder(store)

        def prepare(group: list[int]) -> tuple[GroupJob, list[_Site]]:
            ready: list[_Site] = []
            for i in group:
                site = loaded[i]
                try:
                    _prepare(site, options, store, report, remote=remote)
                except Exception as exc:  # that site's error, the others run
                    site.release()
                    sid = site.sf.site.id
                    if isinstance(exc, SiteStopped):  # refused until `anchorpath resume`
                        outcomes[sid] = SiteOutcome(
                            sid, "stopped", EXIT_STOPPED, reason=_reason(exc)
                        )
                    else:
                        outcomes[sid] = SiteOutcome(sid, "error", EXIT_ERROR, reason=_reason(exc))
                    report(SiteDone(sid, outcomes[sid].verdict))
                    continue
                seeder.ahead(site)
                ready.append(site)
            if group is groups[-1]:
                seeder.start()  # every group is handed out
            task = GroupJob(
                [s.job for s in ready if s.job is not None],
                shared=shared,
                fetcher_factory=fetcher_factory,
                registry=registry,
                concurrency=share,
            )
            return task, ready

        tasks = _Prepared(groups, prepare)
        names = [f"group-{k}-{loaded[g[0]].sf.site.id}" for k, g in enumerate(groups)]
        for k, res in executor.run(
            crawl_group,
            tasks,
            progress=report,
            io_bound=True,
            max_in_flight=options.groups_at_once(),
            names=names,
        ):
            seeder.start()
            for j, site in enumerate(tasks.members(k)):
                sid = site.sf.site.id
                if isinstance(res, BaseException):
                    what = str(res) if isinstance(res, WorkerFailed) else f"worker: {res!r}"
                    outcome: CrawlOutcome | str = what
                else:
                    outcome = res[j]
                outcomes[sid] = _finish(site, outcome)
                site.release()
                report(SiteDone(sid, outcomes[sid].verdict))
    finally:
        if seeder is not None:
            seeder.close()
        for site in loaded:
            site.release()
        store.close()
    return RunAllResult(
        [outcomes[name] for name in order if name in outcomes],
        time.monotonic() - began,
        len(groups),
    )


class _Prepared(Sequence[GroupJob]):
    """The origin groups' tasks, each group prepared (locks, resume, checkpoints) when the
    executor first asks for its task: the first crawls start while the sites of later groups
    are still being prepared, instead of every crawl waiting for every site."""

    def __init__(
        self,
        groups: list[list[int]],
        prepare: Callable[[list[int]], tuple[GroupJob, list[_Site]]],
    ) -> None:
        self._groups = groups
        self._prepare = prepare
        self._done: dict[int, tuple[GroupJob, list[_Site]]] = {}

    def __len__(self) -> int:
        return len(self._groups)

    @overload
    def __getitem__(self, k: int) -> GroupJob: ...

    @overload
    def __getitem__(self, k: slice) -> Sequence[GroupJob]: ...

    def __getitem__(self, k: int | slice) -> GroupJob | Sequence[GroupJob]:
        if isinstance(k, slice):
            return [self[i] for i in range(len(self))[k]]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        if k not in self._done:
            self._done[k] = self._prepare(self._groups[k])
        return self._done[k][0]

    def members(self, k: int) -> list[_Site]:
        """The sites of group ``k`` that were prepared (its task crawls them in this order)."""
        return self._done[k][1] if k in self._done else []


class _Seeder:
    """Computes, on one thread of this process while the crawls run, the drift baseline's
    seed of every site whose committed history is still young (a pure function of its
    selector file and fixtures): deciding a crawled site then only reads the store, and the
    sites that finish together do not queue behind it. The seeds are computed once
    :meth:`start` is called (every group handed out, or the first crawl back), so that they
    do not slow down preparing the sites."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pool: ThreadPoolExecutor | None = None
        self.waiting: list[_Site] = []

    def ahead(self, site: _Site) -> None:
        if site.run is None or not needs_seed(committed_history(self.store, site.sf)):
            return
        if self.pool is None:
            self.waiting.append(site)
        else:
            self._submit(site)

    def start(self) -> None:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(1, thread_name_prefix="anchorpath-seed")
        for site in self.waiting:
            self._submit(site)
        self.waiting = []

    def _submit(self, site: _Site) -> None:
        assert self.pool is not None and site.run is not None
        site.run.seed = self.pool.submit(seed_for, site.sf, site.sf_path).result

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _prepare(
    site: _Site, options: RunAllOptions, store: Store, progress: Progress, *, remote: bool
) -> None:
    """Lock the site and resume or start its run (this process holds the lock). ``remote``:
    crawls may run on other machines, which read the lock's lease from the shared state
    directory (so the lock file is synced, see :class:`SiteLock`)."""
    sid = site.sf.site.id
    run_options = RunOptions(
        site=str(site.sf_path),
        selectors_dir=options.selectors_dir,
        state_dir=options.state_dir,
        full=options.full,
        settings=options.settings,
    )
    for u in site.sf.fetch.start_urls:
        if not u.startswith(("http://", "https://")):
            raise RunError(f"{site.sf_path}: start URL {u!r} is not an http(s) URL")
    check_may_run(site.sf, str(site.sf_path), store)

    site.lock = SiteLock(options.state_dir, sid, sync=remote).acquire()
    try:
        site.run = Run(run_options, site.sf, site.sf_path, store, progress)
        site.job = site.run.prepare(site.lock.info)
    except OSError as exc:
        raise RunError(f"{options.state_dir}: {exc}") from exc


def _finish(site: _Site, outcome: CrawlOutcome | str) -> SiteOutcome:
    """Decide a crawled site (gate, commit, report) in this process."""
    sid = site.sf.site.id
    took = 0.0
    if isinstance(outcome, str):
        return SiteOutcome(
            sid, "error", EXIT_ERROR, took, f"{outcome} (its checkpoint is kept: resumed next run)"
        )
    assert site.run is not None and site.job is not None
    took = outcome.seconds
    decided = time.monotonic()
    try:
        result = site.run.finish(site.job, outcome)
    except AnchorpathError as exc:
        return SiteOutcome(sid, "error", EXIT_ERROR, took, str(exc))
    except OSError as exc:
        return SiteOutcome(sid, "error", EXIT_ERROR, took, f"{site.job.run_dir}: {exc}")
    except Exception as exc:  # that site's error, the others are decided
        return SiteOutcome(sid, "error", EXIT_ERROR, took, _reason(exc))
    assert site.lock is not None
    result.took_over_lock = site.lock.took_over
    return SiteOutcome(
        sid,
        result.verdict,
        result.exit_code,
        took + time.monotonic() - decided,
        result.reason,
        result,
    )
