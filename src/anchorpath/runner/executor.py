"""Where ``run --all`` and ``replay`` do their work: threads of this process, worker processes
of this machine, or a Dask cluster.

``--executor local`` (the default) runs tasks on a thread pool in this process.
``--executor local:N`` runs them in N worker processes of this machine
(:mod:`anchorpath.runner.workers`): for jobs whose CPU one interpreter cannot keep up with.
``--executor dask://HOST:PORT`` submits them to a running ``distributed`` scheduler; the
optional extra ``anchorpath[dask]`` installs it. Either way the caller gets each task's result
(or the exception it raised) back in the submitting process, which stays the only writer of
the SQLite store.

Crawl tasks wait on politeness, not on the CPU: they are submitted as ``io_bound`` and, on
Dask, leave the worker's thread pool (``secede``) so that a worker with one thread still
crawls many origins at once; how many run at once is bounded here (``max_in_flight``).
Replay tasks parse pages and keep their worker thread. A Dask task whose worker dies is
retried once on another worker; a second failure comes back as :class:`WorkerFailed`.

Progress from tasks: a task function receives a ``progress(event)`` callable as its first
argument (:mod:`anchorpath.runner.progress`). Locally it is the caller's own callback (called
from worker threads); on Dask it publishes the event, pickled, as a worker event that the
client relays to the caller's callback.
"""

from __future__ import annotations

import pickle
import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

from anchorpath._errors import ConfigError, RunError, WorkerFailed
from anchorpath.runner.progress import Progress, ProgressEvent, TaskFn

__all__ = [
    "DaskExecutor",
    "Executor",
    "ExecutorSpec",
    "LocalExecutor",
    "open_executor",
    "parse_executor",
]

_LOCAL_RE = re.compile(r"^local:(?P<n>\d{1,4})$")
_DASK_RE = re.compile(r"^(?:dask|tcp)://(?P<host>[^\s:/]+|\[[0-9a-fA-F:]+\]):(?P<port>\d{1,5})/?$")


@dataclass(frozen=True)
class ExecutorSpec:
    """Parsed ``--executor``: ``local``, ``local:N`` or a Dask scheduler address."""

    kind: str  # "local" | "dask"
    address: str | None = None  # tcp://HOST:PORT for dask
    #: worker processes of ``local:N`` (0: threads of this process)
    processes: int = 0

    def __str__(self) -> str:
        if self.kind == "dask":
            return f"dask://{(self.address or '')[6:]}"
        return f"local:{self.processes}" if self.processes else "local"


def parse_executor(text: str) -> ExecutorSpec:
    """``local``, ``local:N`` or ``dask://HOST:PORT`` (``tcp://`` accepted); ConfigError
    otherwise."""
    value = text.strip()
    if value in ("", "local"):
        return ExecutorSpec("local")
    local = _LOCAL_RE.match(value)
    if local:
        if not 1 <= int(local["n"]) <= 256:
            raise ConfigError(f"--executor {text!r}: local:N needs 1 <= N <= 256 worker processes")
        return ExecutorSpec("local", processes=int(local["n"]))
    match = _DASK_RE.match(value)
    if not match or not 0 < int(match["port"]) < 65536:
        raise ConfigError(
            f"--executor {text!r}: expected 'local', 'local:N' or 'dask://HOST:PORT' "
            "(the address `dask scheduler` prints)"
        )
    return ExecutorSpec("dask", f"tcp://{match['host']}:{int(match['port'])}")


class Executor(Protocol):
    """Runs ``fn(progress, item)`` for every item; yields ``(index, result or exception)``."""

    def run(
        self,
        fn: TaskFn,
        items: Sequence[Any],
        *,
        progress: Progress,
        io_bound: bool,
        max_in_flight: int,
        names: Sequence[str] | None = None,
    ) -> Iterator[tuple[int, Any]]: ...

    def capacity(self) -> int | None:
        """How many CPU-bound tasks run at once (worker threads), None when unbounded."""
        ...

    def close(self) -> None: ...


class LocalExecutor:
    """Threads of this process (``max_in_flight`` at once)."""

    def run(
        self,
        fn: TaskFn,
        items: Sequence[Any],
        *,
        progress: Progress,
        io_bound: bool,
        max_in_flight: int,
        names: Sequence[str] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        if not items:
            return
        lock = threading.Lock()

        def safe_progress(event: ProgressEvent) -> None:
            with lock:
                progress(event)

        workers = max(1, min(max_in_flight, len(items)))
        with ThreadPoolExecutor(workers, thread_name_prefix="anchorpath-task") as pool:
            futures: dict[Future[Any], int] = {
                pool.submit(fn, safe_progress, item): i for i, item in enumerate(items)
            }
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    exc = fut.exception()
                    yield futures[fut], (exc if exc is not None else fut.result())

    def capacity(self) -> int | None:
        """Threads are made as needed (``max_in_flight``)."""
        return None

    def close(self) -> None:
        """Nothing to release."""


def _distributed() -> Any:
    """The ``distributed`` module (untyped for mypy: only a few calls are used)."""
    import importlib

    return importlib.import_module("distributed")


def _dask_task(
    fn: TaskFn, item: Any, topic: str, io_bound: bool
) -> Any:  # pragma: no cover - runs on Dask workers
    dd = _distributed()
    worker = dd.get_worker()
    if io_bound:
        dd.secede()  # waits on politeness: leave the thread pool to CPU-bound tasks

    def progress(event: ProgressEvent) -> None:
        try:
            worker.log_event(topic, {"event": pickle.dumps(event)})
        except Exception:  # progress is best effort: never break the task for it
            return

    return fn(progress, item)


def _warm_up() -> bool:  # pragma: no cover - runs on Dask workers
    import importlib

    for name in ("anchorpath.runner.run_all", "anchorpath.runner.replay.extract"):
        importlib.import_module(name)
    return True


class DaskExecutor:
    """A ``distributed.Client`` connected to ``address`` (``tcp://HOST:PORT``)."""

    def __init__(self, address: str, *, timeout: float = 20.0) -> None:
        try:
            dd = _distributed()
        except ImportError as exc:
            raise ConfigError(
                "--executor dask://...: the Dask extra is not installed "
                "(pip install 'anchorpath[dask]')"
            ) from exc
        self.address = address
        try:
            self.client: Any = dd.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise RunError(f"dask scheduler {address}: cannot connect ({exc})") from exc
        try:
            # Workers import the runner now, all at once, not on their first task.
            self.client.run(_warm_up)
        except Exception as exc:
            self.client.close()
            raise RunError(
                f"dask scheduler {address}: its workers cannot load anchorpath ({exc}); "
                "install the same anchorpath version on every worker"
            ) from exc

    def workers(self) -> int:
        """How many workers the scheduler knows right now."""
        info = self.client.scheduler_info()
        return len(info.get("workers", {}))

    def capacity(self) -> int | None:
        """The worker threads the scheduler knows right now (None: no worker yet)."""
        workers = self.client.scheduler_info().get("workers", {})
        threads = sum(int(w.get("nthreads", 1) or 1) for w in workers.values())
        return threads or None

    def run(
        self,
        fn: TaskFn,
        items: Sequence[Any],
        *,
        progress: Progress,
        io_bound: bool,
        max_in_flight: int,
        names: Sequence[str] | None = None,
    ) -> Iterator[tuple[int, Any]]:
        if not items:
            return
        topic = f"anchorpath-{uuid.uuid4().hex[:12]}"
        relay_lock = threading.Lock()

        def relay(event: Any) -> None:
            _, msg = event
            if isinstance(msg, dict) and isinstance(msg.get("event"), bytes):
                with relay_lock:
                    progress(pickle.loads(msg["event"]))

        self.client.subscribe_topic(topic, relay)
        keys = list(names) if names else [str(i) for i in range(len(items))]
        index: dict[str, int] = {}
        queue = list(range(len(items)))
        ac: Any = _distributed().as_completed(loop=self.client.loop)

        def submit(i: int) -> None:
            fut: Any = self.client.submit(
                _dask_task,
                fn,
                items[i],
                topic,
                io_bound,
                key=f"anchorpath-{keys[i]}-{uuid.uuid4().hex[:8]}",
                retries=1,
                pure=False,
            )
            index[fut.key] = i
            ac.add(fut)

        try:
            for _ in range(max(1, max_in_flight)):
                if queue:
                    submit(queue.pop(0))
            for fut in ac:
                i = index[fut.key]
                result: Any
                if fut.status == "error":
                    exc = fut.exception()
                    if isinstance(exc, Exception) and not _is_worker_death(exc):
                        result = exc
                    else:
                        result = WorkerFailed(f"task {keys[i]} failed on two workers: {exc}")
                elif fut.status == "cancelled":
                    result = WorkerFailed(f"task {keys[i]} was cancelled by the scheduler")
                else:
                    result = fut.result()
                fut.release()
                # The next task goes out before the caller handles this result (a replay gates
                # and commits runs meanwhile): the workers never wait for the caller.
                if queue:
                    submit(queue.pop(0))
                yield i, result
        finally:
            self.client.unsubscribe_topic(topic)

    def close(self) -> None:
        """Disconnect from the scheduler (the cluster keeps running)."""
        self.client.close()


def _is_worker_death(exc: BaseException) -> bool:
    return type(exc).__name__ in ("KilledWorker", "CommClosedError", "FutureCancelledError")


def open_executor(spec: ExecutorSpec) -> Executor:
    """The executor ``spec`` names (connects to the Dask scheduler; starts the worker
    processes of ``local:N``)."""
    if spec.kind == "dask":
        assert spec.address is not None
        return DaskExecutor(spec.address)
    if spec.processes:
        # imported here: only local:N needs multiprocessing
        from anchorpath.runner.workers import ProcessExecutor

        return ProcessExecutor(spec.processes).start()
    return LocalExecutor()
