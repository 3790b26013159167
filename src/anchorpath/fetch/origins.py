"""What the fetcher knows about each origin during a run, and the events it reports about them.

One :class:`OriginState` per ``scheme://host:port``: its pacing gate, its robots.txt state and,
once a refusal stopped it, the error every later request to it gets.

A fetcher keeps its states in a private :class:`OriginTable`. Several fetchers (one per site in
``anchorpath run --all``) can share one :class:`SharedPoliteness` instead: one table (one pace,
one robots.txt and one refusal per origin, whichever site asks) and one cap on the requests in
flight across all of them (``global_concurrency``).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from anchorpath._errors import OriginBlocked
from anchorpath.fetch.events import FetchEvent, redact_url
from anchorpath.fetch.pacing import OriginGate, PacingPolicy
from anchorpath.fetch.robots import RobotsFile

__all__ = ["OriginState", "OriginTable", "Origins", "RobotsState", "SharedPoliteness"]

# The fetcher's parts log under one name, so logging set up for the fetcher keeps working.
log = logging.getLogger("anchorpath.fetch.polite")


@dataclass
class RobotsState:
    """An origin's robots.txt as far as this run knows it."""

    kind: str  # "parsed" | "allow-all" | "unreachable"
    robots: RobotsFile | None = None
    expires_wall: float = math.inf  # when a fresh fetch is due
    retry_at: float = 0.0  # for "unreachable": fetcher clock time of the next attempt
    attempts: int = 0
    detail: str = ""
    #: the bytes this verdict was parsed from (None: allow-all or unreachable) and when they
    #: were fetched (wall clock; a cached copy keeps its own time)
    body: bytes | None = None
    fetched_wall: float | None = None


@dataclass
class OriginState:
    """One origin's gate, robots.txt state and stop reason."""

    gate: OriginGate
    robots: RobotsState | None = None
    blocked: OriginBlocked | None = None
    robots_failures: int = 0


def _stricter(a: PacingPolicy, b: PacingPolicy) -> PacingPolicy:
    """The slower of two policies, knob by knob (a site may only slow an origin down)."""
    return PacingPolicy(
        max(a.min_delay, b.min_delay),
        max(a.delay_factor, b.delay_factor),
        max(a.max_delay, b.max_delay),
    )


class OriginTable:
    """Thread-safe ``origin -> OriginState``; a gate is made on first use with ``policy``.

    When another user of the table asks for a slower policy on an existing origin, the
    origin's gate takes the slower one (knob by knob): sharing never speeds an origin up.
    """

    def __init__(self, *, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self._clock = clock
        self._sleep = sleep
        self._states: dict[str, OriginState] = {}
        self._lock = threading.Lock()

    def get(self, origin: str, policy: PacingPolicy) -> OriginState:
        with self._lock:
            state = self._states.get(origin)
            if state is None:
                gate = OriginGate(origin, policy, clock=self._clock, sleep=self._sleep)
                state = OriginState(gate=gate)
                self._states[origin] = state
            elif state.gate.policy != policy:
                state.gate.policy = _stricter(state.gate.policy, policy)
            return state


class SharedPoliteness:
    """One politeness registry for several fetchers in one process (``run --all``): per-origin
    pacing, robots.txt and refusals, and the global cap on requests in flight."""

    def __init__(
        self,
        global_concurrency: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.table = OriginTable(clock=clock, sleep=sleep)
        self.slots = threading.BoundedSemaphore(max(1, global_concurrency))
        self.clock = clock
        self.sleep = sleep


class Origins:
    """One fetcher's view of an :class:`OriginTable` (its own, or a shared one); also sends
    the fetcher's events.

    ``started`` is the fetcher's clock reading at start: event times are relative to it.
    """

    def __init__(
        self,
        policy: PacingPolicy,
        *,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        on_event: Callable[[FetchEvent], None] | None,
        started: float,
        table: OriginTable | None = None,
    ) -> None:
        self._policy = policy
        self._on_event = on_event
        self._started = started
        self._table = table if table is not None else OriginTable(clock=clock, sleep=sleep)
        #: the origins this fetcher used (its policy is merged into a shared gate on first use)
        self._states: dict[str, OriginState] = {}
        self._lock = threading.Lock()

    def get(self, origin: str) -> OriginState:
        """The state of ``origin``, created (with a fresh gate) on first use."""
        with self._lock:
            state = self._states.get(origin)
            if state is None:
                state = self._table.get(origin, self._policy)
                self._states[origin] = state
            return state

    def check_open(self, state: OriginState, url: str) -> None:
        """Raise OriginBlocked when an earlier refusal stopped the origin of ``url``."""
        if state.blocked is not None:
            self.emit("skip", url, state, outcome="blocked", detail=state.blocked.reason)
            raise OriginBlocked(
                f"{url}: origin {state.gate.origin} is blocked ({state.blocked.reason}): "
                f"{state.blocked}",
                url=url,
                reason=state.blocked.reason,
            )

    def block(self, state: OriginState, url: str, reason: str, message: str) -> OriginBlocked:
        """Stop the origin for the rest of the run; return the error for the caller to raise."""
        error = OriginBlocked(message, url=url, reason=reason)
        state.blocked = error
        log.warning("origin %s stopped (%s): %s", state.gate.origin, reason, message)
        self.emit("warning", url, state, outcome="blocked", detail=f"{reason}: {message}")
        return error

    def emit(
        self,
        kind: str,
        url: str,
        state: OriginState,
        *,
        status: int | None = None,
        nbytes: int = 0,
        started: float = 0.0,
        elapsed: float = 0.0,
        waited: float = 0.0,
        wait_reason: str | None = None,
        attempt: int = 0,
        render: str = "http",
        outcome: str = "",
        detail: str = "",
    ) -> None:
        """Send one :class:`FetchEvent` to ``on_event`` (URL redacted), if there is an observer."""
        if self._on_event is None:
            return
        event = FetchEvent(
            kind=kind,
            url=redact_url(url),
            origin=state.gate.origin,
            status=status,
            bytes=nbytes,
            started=started - self._started if started else 0.0,
            elapsed=elapsed,
            waited=waited,
            wait_reason=wait_reason,
            attempt=attempt,
            render=render,
            outcome=outcome,
            detail=detail,
        )
        try:
            self._on_event(event)
        except Exception:  # a broken observer must not break a polite fetch
            log.exception("on_event callback failed")
