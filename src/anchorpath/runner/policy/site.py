"""A site's governance around one run: whether it may run at all (a recorded permission
basis, no stop in force), what the runs before it saw (robots.txt per origin, the terms
hash, how long robots.txt has been unreachable), which URLs it needs, and — after the crawl
— the :class:`~anchorpath.runner.policy.judge.Stop` it ends with, recorded in the store."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from anchorpath._errors import RunError, SiteStopped
from anchorpath.fetch.protocol import Fetcher
from anchorpath.fetch.robots_policy import RobotsSeen
from anchorpath.runner.crawl.urls import rewrite_origin
from anchorpath.runner.policy.judge import Stop, judge
from anchorpath.runner.policy.observe import PolicySeen
from anchorpath.runner.store.database import Store
from anchorpath.runner.store.governance import (
    StopRow,
    active_stop,
    lift_stop,
    policy_history,
    record_policy,
)
from anchorpath.runner.verdict import COMMITTED
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "Previous",
    "check_may_run",
    "conclude",
    "file_origin",
    "gather_robots",
    "previous",
    "remember",
    "resume_site",
]


def file_origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` as the selector file names it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def check_may_run(sf: SelectorFile, where: str, store: Store) -> None:
    """Raise RunError when the file records no permission basis, SiteStopped when the site
    is stopped and nobody lifted the stop."""
    missing = sf.missing_basis()
    if missing:
        raise RunError(f"{where}: {missing}")
    stop = active_stop(store, sf.site.id)
    if stop is not None:
        raise SiteStopped(
            f"site {sf.site.id!r} is stopped since {stop.at} ({stop.reason}); after review: "
            f"anchorpath resume {sf.site.id} --by NAME --reason TEXT"
        )


@dataclass(frozen=True)
class Previous:
    """What earlier runs saw: the last readable robots.txt per origin, the last terms hash,
    and since when robots.txt has failed in a row (per origin)."""

    robots: Mapping[str, RobotsSeen] = field(default_factory=dict)
    terms: str | None = None
    unreachable_since: Mapping[str, str] = field(default_factory=dict)


def previous(store: Store, site: str) -> Previous:
    """The site's :class:`Previous` from its recorded runs (newest first)."""
    robots: dict[str, RobotsSeen] = {}
    since: dict[str, str] = {}
    streak_over: set[str] = set()
    terms: str | None = None
    for _run_id, at, data in policy_history(store, site):
        seen = PolicySeen.from_dict(data)
        for r in seen.robots:
            if r.kind == "unreachable":
                if r.origin not in robots and r.origin not in streak_over:
                    since[r.origin] = at
            else:
                streak_over.add(r.origin)
                robots.setdefault(r.origin, r)
        if terms is None and seen.terms is not None and seen.terms.sha256:
            terms = seen.terms.sha256
    return Previous(robots, terms, since)


def gather_robots(
    fetcher: Fetcher | None, sf: SelectorFile, base_url: str | None
) -> list[RobotsSeen]:
    """The robots.txt each start URL's origin was judged by in this crawl, named by the
    selector file's origin (a ``--base-url`` run compares with the live site's runs)."""
    if fetcher is None:
        return []
    out: dict[str, RobotsSeen] = {}
    for u in sf.fetch.start_urls:
        origin = file_origin(u)
        if origin in out:
            continue
        seen = fetcher.robots_seen(rewrite_origin(u, base_url))
        if seen is not None:
            out[origin] = replace(seen, origin=origin)
    return list(out.values())


def _needed(sf: SelectorFile, store: Store) -> dict[str, list[str]]:
    """Per origin: the start URLs and the pages the last committed run read."""
    needed: dict[str, list[str]] = {}
    for u in sf.fetch.start_urls:
        needed.setdefault(file_origin(u), []).append(u)
    last = store.runs(sf.site.id, verdicts=COMMITTED, limit=1, stats=False)
    if last:
        rows = store.query("SELECT url FROM pages WHERE run_id = ? ORDER BY rowid", (last[0].id,))
        origins = list(needed)
        for (url,) in rows:
            # pages of a --base-url run carry the copy's origin: judge their paths on the
            # file's first origin
            origin = file_origin(url) if file_origin(url) in needed else origins[0]
            needed[origin].append(rewrite_origin(url, origin))
    return {o: list(dict.fromkeys(us)) for o, us in needed.items()}


def conclude(
    store: Store,
    sf: SelectorFile,
    seen: PolicySeen,
    *,
    token: str,
    pages_read: int,
    now: str,
) -> Stop | None:
    """The stop this run ends with (or None), judged against the site's earlier runs."""
    before = previous(store, sf.site.id)
    return judge(
        seen,
        previous_robots=before.robots,
        previous_terms=before.terms,
        unreachable_since=before.unreachable_since,
        needed=_needed(sf, store),
        token=token,
        pages_read=pages_read,
        now=now,
    )


def remember(
    store: Store, sf: SelectorFile, run_id: str, at: str, seen: PolicySeen, stop: Stop | None
) -> None:
    """Record the run's observations (and its stop) for the runs after it."""
    record_policy(
        store,
        run_id=run_id,
        site=sf.site.id,
        at=at,
        seen=seen.to_dict(),
        stop=(stop.cause, stop.reason, stop.diff) if stop is not None else None,
    )


def resume_site(store: Store, site: str, *, by: str, reason: str, at: str) -> StopRow:
    """Lift the site's stop (recorded with who, when and why); returns the stop as it was.
    Raises RunError when the site is not stopped or ``by``/``reason`` is empty."""
    if not by.strip() or not reason.strip():
        raise RunError(f"site {site!r}: resume needs a name (--by) and a reason (--reason)")
    stop = active_stop(store, site)
    if stop is None:
        raise RunError(f"site {site!r} is not stopped: nothing to resume")
    lift_stop(store, stop.id, by=by, at=at, reason=reason)
    return stop
