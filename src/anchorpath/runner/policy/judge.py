"""Whether a run must end ``stopped``: a pure decision over what the run observed and what
the runs before it observed (:mod:`~anchorpath.runner.policy.observe`).

A site is stopped (and stays stopped until a person runs ``anchorpath resume``) when:

* its robots.txt changed since the last run that read it, and the change removes access to a
  URL the site needs (a start URL, or a page the last committed run read) — the report shows
  the diff and the URLs;
* the text of its terms page (``policy.terms_url``) changed;
* a start URL answered 401/403, robots.txt itself answered 4xx, or 429s kept coming after
  waiting as ``Retry-After`` said (the fetcher's circuit opened);
* a login wall, CAPTCHA or "access denied" page came before any page could be read (walls on
  most pages: the fetcher stops the origin at the first wall);
* robots.txt has been unreachable (5xx, network) for longer than RFC 9309's grace period
  (:data:`ROBOTS_GRACE_DAYS`, 30 days) — until then such a run is an ``error``.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from anchorpath.fetch.robots import RobotsFile, parse_robots
from anchorpath.fetch.robots_policy import RobotsSeen
from anchorpath.runner.policy.observe import PolicySeen

__all__ = ["ROBOTS_GRACE_DAYS", "Stop", "StopCause", "judge", "robots_diff"]

#: RFC 9309 §2.3.1.4: a robots.txt unreachable for more than 30 days.
ROBOTS_GRACE_DAYS = 30

StopCause = Literal[
    "robots-changed", "terms-changed", "refused", "rate-limited", "walls", "robots-unreachable"
]
_WALLS = ("login-wall", "captcha", "access-denied")


@dataclass(frozen=True)
class Stop:
    """Why the site stops: the cause, a one-line reason, and the robots.txt diff when it
    changed."""

    cause: StopCause
    reason: str
    diff: str | None = None


def robots_diff(old: RobotsSeen, new: RobotsSeen) -> str:
    """A unified diff of two robots.txt texts (``(none)`` for a missing file)."""
    a = (old.text or "").splitlines() if old.kind == "parsed" else ["(no robots.txt)"]
    b = (new.text or "").splitlines() if new.kind == "parsed" else ["(no robots.txt)"]
    return "\n".join(
        difflib.unified_diff(
            a,
            b,
            f"robots.txt {old.fetched_at or '?'} ({(old.sha256 or 'none')[:12]})",
            f"robots.txt {new.fetched_at or '?'} ({(new.sha256 or 'none')[:12]})",
            lineterm="",
        )
    )


def _rules(seen: RobotsSeen) -> RobotsFile | None:
    """The parsed rules of a robots.txt that was read (None: no file, everything allowed)."""
    if seen.kind != "parsed" or seen.text is None:
        return None
    return parse_robots(seen.text.encode("utf-8"))


def _allows(rules: RobotsFile | None, token: str, url: str) -> bool:
    return rules is None or rules.allowed(token, url)


def _days_between(since: str, now: str) -> float:
    a = dt.datetime.fromisoformat(since.replace("Z", "+00:00"))
    b = dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    return (b - a).total_seconds() / 86400


def judge(
    seen: PolicySeen,
    *,
    previous_robots: Mapping[str, RobotsSeen],
    previous_terms: str | None,
    unreachable_since: Mapping[str, str],
    needed: Mapping[str, Sequence[str]],
    token: str,
    pages_read: int,
    now: str,
    grace_days: int = ROBOTS_GRACE_DAYS,
) -> Stop | None:
    """The :class:`Stop` this run ends with, or None.

    ``previous_robots``: per origin, the last robots.txt an earlier run read (not an
    unreachable one); ``previous_terms``: the terms hash of the last run that read it;
    ``unreachable_since``: per origin, when robots.txt first failed in the current streak of
    failures; ``needed``: per origin, the URLs the site needs (start URLs, the last
    committed run's pages); ``pages_read``: pages this run read."""
    for current in seen.robots:
        before = previous_robots.get(current.origin)
        if before is None or current.kind == "unreachable" or before.sha256 == current.sha256:
            continue
        old_rules, new_rules = _rules(before), _rules(current)
        lost = [
            u
            for u in needed.get(current.origin, ())
            if _allows(old_rules, token, u) and not _allows(new_rules, token, u)
        ]
        if lost:
            more = f" and {len(lost) - 3} more" if len(lost) > 3 else ""
            since = before.fetched_at or "the last run"
            return Stop(
                "robots-changed",
                f"robots.txt of {current.origin} changed since {since}"
                f" and now disallows {len(lost)} URL(s) the site needs: "
                f"{', '.join(lost[:3])}{more}",
                robots_diff(before, current),
            )
    if seen.terms_stop:
        return Stop("terms-changed", seen.terms_stop)
    terms = seen.terms
    if terms is not None and terms.sha256 and previous_terms and terms.sha256 != previous_terms:
        return Stop(
            "terms-changed",
            f"the terms page {terms.url} changed since the last run (text sha256 "
            f"{previous_terms[:12]} -> {terms.sha256[:12]})",
        )
    refusal = seen.refusal
    if refusal is not None:
        if refusal.reason in ("http-401", "http-403") and refusal.via in ("start", "url"):
            return Stop("refused", f"start URL {refusal.url} answered {refusal.reason[5:]}")
        if refusal.reason == "robots-4xx":
            return Stop("refused", refusal.message)
        if refusal.reason == "circuit-open":
            return Stop(
                "rate-limited",
                f"{refusal.message} (after waiting as Retry-After asked): the site is "
                "rate-limiting this collector",
            )
        if refusal.reason in _WALLS and pages_read == 0:
            return Stop(
                "walls",
                f"a {refusal.reason} page came before any page could be read: {refusal.url}",
            )
    for current in seen.robots:
        failing = unreachable_since.get(current.origin)
        if current.kind == "unreachable" and failing and _days_between(failing, now) > grace_days:
            return Stop(
                "robots-unreachable",
                f"robots.txt of {current.origin} unreachable since {failing} (more than "
                f"{grace_days} days, RFC 9309's grace period): {current.detail}",
            )
    return None
