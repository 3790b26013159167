"""``--executor local:N``: N worker processes of this machine, started once per command.

One interpreter runs one thread at a time: when ``run --all`` crawls dozens of origins in one
process, each page's CPU (HTTP, WARC, extraction, checkpoint) queues behind the others' and the
politeness pauses stretch. ``local:N`` spreads the same tasks over N worker processes (started
with ``spawn``: forking a process that has threads is unsafe), each running its share of tasks
on threads, as a Dask worker does. The submitting process keeps what needs one writer: the
site locks, the SQLite store, the verdicts and the reports.

How it works: every worker has its own task queue; a task goes to the worker with the fewest
tasks in flight, so an ``io_bound`` job (crawls waiting on politeness) is spread evenly, and
an origin group is never split (one group is one task). Results and progress events come back
on each worker's own pipe as soon as each task ends (a worker that dies mid-write cannot
block the others). A worker that dies (killed, out of memory) has its
tasks retried once on a fresh worker; a second failure comes back as
:class:`~anchorpath._errors.WorkerFailed`. Workers leave when the pool is closed, and
on their own within a second when the submitting process disappears (after ``kill -9`` the
next ``run --all`` resumes the sites from their checkpoints).

Task functions and items must be picklable (module-level functions, plain data), as on Dask;
so must progress data.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from anchorpath._errors import RunError, WorkerFailed
from anchorpath.runner.progress import Progress, ProgressEvent, TaskFn

__all__ = ["ProcessExecutor"]

#: how often a worker checks that the submitting process still exists, and the submitting
#: process that its workers do
_WATCH_SECONDS = 0.5


def _watch_parent(parent: int) -> None:  # pragma: no cover - runs in worker processes
    """Leave as soon as the submitting process is gone (its locks and store with it)."""
    while True:
        time.sleep(_WATCH_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def _run_task(
    send: Callable[[bytes], None], job: str, key: int, fn: TaskFn, item: Any
) -> None:  # pragma: no cover - runs in worker processes
    """Run one task and send its progress and its result (or the exception it raised, or a
    RunError saying why that cannot be sent) through ``send``."""

    def progress(event: ProgressEvent) -> None:
        try:
            send(pickle.dumps(("progress", job, key, event, None)))
        except Exception:  # progress is best effort: never break the task for it
            return

    try:
        outcome: Any = fn(progress, item)
    except BaseException as exc:  # every failure goes back to the caller
        outcome = exc
    try:
        data = pickle.dumps(("done", job, key, outcome, None), protocol=pickle.HIGHEST_PROTOCOL)
        if isinstance(outcome, BaseException):
            pickle.loads(data)  # some exceptions pickle but cannot be rebuilt
    except Exception as exc:
        what = f"{type(outcome).__name__}: {outcome}"
        data = pickle.dumps(("done", job, key, RunError(f"{what} (not sendable: {exc})"), None))
    send(data)


def _worker_main(
    tasks: Any, results: Any, parent: int
) -> None:  # pragma: no cover - runs in worker processes
    """A worker process: results of the tasks of ``tasks`` to ``results``. An ``io_bound``
    task runs on a thread of its own; CPU-bound ones run one after the other, in the order
    they came (two at once would only share the interpreter and both finish late)."""

    threading.Thread(
        target=_watch_parent, args=(parent,), name="anchorpath-watch", daemon=True
    ).start()
    # Ctrl-C in a terminal reaches the whole process group. The submitting process says what
    # became of the job; a worker leaves at once and quietly (no traceback per process), as
    # after kill -9: the sites it crawled resume from their checkpoints.
    signal.signal(signal.SIGINT, lambda signum, frame: os._exit(1))
    # One thread writes this process's pipe, in the order messages were made: a task's result
    # waits there until the submitting process reads it (busy gating and committing an
    # earlier result, it may take a while), while the next task already runs.
    outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def write_out() -> None:
        while (data := outbox.get()) is not None:
            results.send_bytes(data)

    writer = threading.Thread(target=write_out, name="anchorpath-send", daemon=True)
    writer.start()
    send = outbox.put

    def run(job: str, key: int, fn: TaskFn, item: Any) -> None:
        _run_task(send, job, key, fn, item)

    cpu_bound: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()

    def run_cpu_bound() -> None:
        while (msg := cpu_bound.get()) is not None:
            run(*msg)

    cpu_thread = threading.Thread(target=run_cpu_bound, name="anchorpath-cpu", daemon=True)
    cpu_thread.start()
    threads: list[threading.Thread] = [cpu_thread]
    while True:
        msg = tasks.get()
        if msg is None:
            break
        io_bound, *args = msg
        if not io_bound:
            cpu_bound.put(tuple(args))
            continue
        thread = threading.Thread(target=run, args=args, name="anchorpath-task", daemon=True)
        thread.start()
        threads = [t for t in threads if t.is_alive()] + [thread]
    cpu_bound.put(None)
    for thread in threads:
        thread.join()
    outbox.put(None)
    writer.join()


def _message(raw: bytes) -> tuple[str, str, int, Any]:
    """A worker's message: ``(kind, job, task index, payload)``; RunError if unreadable."""
    try:
        kind, job, i, payload, _ = pickle.loads(raw)
    except Exception as exc:  # a result that cannot be rebuilt
        raise RunError(f"a worker process sent an unreadable result ({exc})") from exc
    return str(kind), str(job), int(i), payload


@dataclass
class _Worker:
    process: Any
    tasks: Any
    #: the read end of the worker's own result pipe (one writer: a worker that dies mid-write
    #: cannot block the others, as a lock shared by all of them would)
    results: Any
    #: indices of the current job's tasks sent to it and not finished
    running: set[int] = field(default_factory=set)


class ProcessExecutor:
    """``processes`` worker processes (started on first use, kept until :meth:`close`)."""

    def __init__(self, processes: int) -> None:
        if processes < 1:
            raise RunError(f"--executor local:{processes}: at least one worker process")
        self.processes = processes
        self._ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._jobs = 0

    def start(self) -> ProcessExecutor:
        """Start the worker processes now (each imports the runner once, in parallel)."""
        while len(self._workers) < self.processes:
            self._workers.append(self._spawn())
        return self

    def _spawn(self) -> _Worker:
        tasks = self._ctx.SimpleQueue()
        reader, writer = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(
            target=_worker_main,
            args=(tasks, writer, os.getpid()),
            name="anchorpath-worker",
            daemon=True,
        )
        proc.start()
        writer.close()  # the worker holds the write end: EOF here when it dies
        return _Worker(proc, tasks, reader)

    def _receive(self, timeout: float) -> tuple[list[bytes], bool]:
        """Messages from any worker within ``timeout`` seconds, and whether a worker's pipe
        closed (it died: time to check the workers)."""
        ready = multiprocessing.connection.wait([w.results for w in self._workers], timeout)
        out: list[bytes] = []
        closed = False
        for w in self._workers:
            if w.results not in ready:
                continue
            try:
                out.append(w.results.recv_bytes())
            except (EOFError, OSError):
                closed = True
        return out, closed

    def capacity(self) -> int | None:
        """One CPU-bound task at a time per worker process."""
        return self.processes

    def pids(self) -> list[int]:
        """The process ids of the workers (empty before :meth:`start`)."""
        return [int(w.process.pid) for w in self._workers]

    def close(self) -> None:
        """Stop the workers (after their running tasks) and release the queues."""
        for w in self._workers:
            if w.process.is_alive():
                w.tasks.put(None)
        for w in self._workers:
            w.process.join(timeout=30)
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(timeout=5)
        for w in self._workers:
            w.results.close()
        self._workers = []

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
        self.start()
        self._jobs += 1
        job = f"{os.getpid()}-{self._jobs}"
        keys = list(names) if names else [str(i) for i in range(len(items))]
        # io_bound tasks (crawls waiting on politeness): as many at once as asked, spread
        # evenly; CPU-bound ones: two per worker (run one after the other there), so that
        # none idles between two tasks.
        limit = max(1, max_in_flight) if io_bound else 2 * self.processes
        pending = list(range(len(items)))
        attempts = dict.fromkeys(pending, 0)
        finished: set[int] = set()

        def fill() -> None:
            while pending and sum(len(w.running) for w in self._workers) < limit:
                i = pending.pop(0)
                worker = min(self._workers, key=lambda w: len(w.running))
                worker.running.add(i)
                attempts[i] += 1
                worker.tasks.put((io_bound, job, i, fn, items[i]))

        checked = time.monotonic()
        try:
            while len(finished) < len(items):
                fill()
                if time.monotonic() - checked >= _WATCH_SECONDS:
                    checked = time.monotonic()
                    for i in self._replace_dead():
                        if attempts[i] < 2:
                            pending.insert(0, i)
                        else:
                            finished.add(i)
                            yield (
                                i,
                                WorkerFailed(
                                    f"task {keys[i]} failed on two worker processes "
                                    "(the process died: killed, or out of memory)"
                                ),
                            )
                received, closed = self._receive(_WATCH_SECONDS)
                if closed:  # a worker died: check now (once it is reaped)
                    checked = 0.0
                    time.sleep(0.01)
                for raw in received:
                    kind, msg_job, i, payload = _message(raw)
                    if msg_job != job or i in finished:
                        continue  # an earlier job's, or a task retried after its worker died
                    if kind == "progress":
                        progress(payload)
                        continue
                    for w in self._workers:
                        w.running.discard(i)
                    if i in pending:
                        pending.remove(i)
                    finished.add(i)
                    fill()  # the next task goes out before the caller handles this result
                    yield i, payload
        finally:
            # A caller that stops early leaves tasks running: they finish (checkpoints stay
            # consistent) and their results are dropped as an earlier job's.
            for w in self._workers:
                w.running.clear()

    def _replace_dead(self) -> list[int]:
        """Start a fresh worker for each dead one; return the tasks the dead ones had."""
        lost: list[int] = []
        for k, w in enumerate(self._workers):
            if not w.process.is_alive():
                lost.extend(sorted(w.running))
                w.results.close()
                self._workers[k] = self._spawn()
        return lost
