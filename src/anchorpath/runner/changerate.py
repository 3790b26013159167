"""Per-site change rate under a Poisson model (Cho & Garcia-Molina 2003). Pure functions.

A site visited every ``I`` days showed a change on ``X`` of ``n`` visits. Counting visits with a
change underestimates the rate (several changes between two visits look like one); Cho &
Garcia-Molina's bias-reduced estimator is

    λ̂ = −ln(1 − (X + 0.5) / (n + 1)) / I

It is used from ``MIN_RUNS`` = 14 runs on; before that the rate is the prior 0.5 changes/day.
Two flags go into the report (the schedule itself stays uniform, daily):

* **burst** – λ̂ over the last 14 runs is at least 3 × the long-term λ̂;
* **silent stop** – the site has shown no change for ``k`` runs in a row although, under λ̂,
  that has probability ``exp(−λ̂·k·I)`` < 1 %: a hint that the selectors broke quietly (for
  example a listing that now always shows the same cached first page).

Flags need at least ``MIN_RUNS`` runs (burst: more than that, so the two windows differ); with
fewer, the rate is the prior, and a flag would only restate an assumption.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BURST_FACTOR",
    "MIN_RUNS",
    "PRIOR_RATE",
    "SILENT_P",
    "ChangeRate",
    "assess",
    "poisson_rate",
]

MIN_RUNS = 14
PRIOR_RATE = 0.5
BURST_FACTOR = 3.0
SILENT_P = 0.01


def poisson_rate(changes: int, runs: int, interval_days: float = 1.0) -> float:
    """λ̂ = −ln(1 − (X + 0.5)/(n + 1)) / I, in changes per day.

    >>> round(poisson_rate(7, 14, 1.0), 4)
    0.6931
    """
    if runs < 0 or not 0 <= changes <= runs:
        raise ValueError(f"need 0 <= changes <= runs, got X={changes}, n={runs}")
    if interval_days <= 0:
        raise ValueError(f"interval must be positive, got {interval_days}")
    return -math.log(1.0 - (changes + 0.5) / (runs + 1)) / interval_days


@dataclass(frozen=True)
class ChangeRate:
    """The rate in force and the report's flags."""

    rate: float
    runs: int
    changes: int
    interval_days: float
    from_prior: bool
    recent_rate: float | None
    burst: bool
    quiet_runs: int
    p_quiet: float
    silent_stop: bool

    @property
    def note(self) -> str:
        """One line on where the rate comes from."""
        if self.from_prior:
            return f"prior {self.rate}/day until {MIN_RUNS} accepted runs ({self.runs} so far)"
        return f"Poisson estimate from {self.runs} runs, {self.changes} with changes"

    def to_dict(self) -> dict[str, Any]:
        """The report's JSON (``lambda_hat`` and ``lambda_recent`` repeat the rates under the
        names the scheduler reads)."""
        rate = round(self.rate, 6)
        recent = None if self.recent_rate is None else round(self.recent_rate, 6)
        return {
            "rate_per_day": rate,
            "runs": self.runs,
            "changes": self.changes,
            "interval_days": self.interval_days,
            "from_prior": self.from_prior,
            "recent_rate_per_day": recent,
            "burst": self.burst,
            "quiet_runs": self.quiet_runs,
            "p_quiet": round(self.p_quiet, 6),
            "silent_stop": self.silent_stop,
            "lambda_hat": rate,
            "lambda_recent": recent,
            "note": self.note,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ChangeRate:
        """Read back from :meth:`to_dict` (missing numbers are 0)."""
        recent = d.get("recent_rate_per_day")
        return cls(
            rate=float(d.get("rate_per_day") or 0.0),
            runs=int(d.get("runs") or 0),
            changes=int(d.get("changes") or 0),
            interval_days=float(d.get("interval_days") or 1.0),
            from_prior=bool(d.get("from_prior")),
            recent_rate=None if recent is None else float(recent),
            burst=bool(d.get("burst")),
            quiet_runs=int(d.get("quiet_runs") or 0),
            p_quiet=float(d.get("p_quiet") or 0.0),
            silent_stop=bool(d.get("silent_stop")),
        )


def assess(
    changed: Sequence[bool],
    interval_days: float = 1.0,
    *,
    min_runs: int = MIN_RUNS,
    prior: float = PRIOR_RATE,
) -> ChangeRate:
    """Rate and flags from the accepted runs of one site, oldest first (True = had events)."""
    n = len(changed)
    x = sum(1 for c in changed if c)
    from_prior = n < min_runs
    rate = prior if from_prior else poisson_rate(x, n, interval_days)
    recent: float | None = None
    burst = False
    if n > min_runs:
        window = changed[-min_runs:]
        recent = poisson_rate(sum(1 for c in window if c), len(window), interval_days)
        burst = recent >= BURST_FACTOR * rate
    quiet = 0
    for c in reversed(changed):
        if c:
            break
        quiet += 1
    p_quiet = math.exp(-rate * quiet * interval_days)
    silent = not from_prior and quiet > 0 and p_quiet < SILENT_P
    return ChangeRate(rate, n, x, interval_days, from_prior, recent, burst, quiet, p_quiet, silent)
