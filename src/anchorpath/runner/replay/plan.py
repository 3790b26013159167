"""Which archived runs a replay reads, and what it knows of each live run: the options, the window
of runs (oldest first), their WARC segments, whether the live crawl was complete and how it
reached its entry pages."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath._config import Settings
from anchorpath._errors import (
    ConfigError,
)
from anchorpath.runner.crawl.frontier import Frontier
from anchorpath.runner.store.commit import (
    ACCEPT_PLAN,
)
from anchorpath.runner.store.database import (
    RunRow,
    Store,
    locator,
)
from anchorpath.runner.verdict import Verdict
from anchorpath.selectors.load import (
    find_selector_file,
    load_selector_file,
)
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "REPLAYABLE",
    "ReplayOptions",
    "entry_vias",
    "live_run",
    "load",
    "parse_time",
    "run_dir",
    "run_time",
    "runs_to_replay",
    "segments",
]


#: Verdicts of runs whose archived pages are replayed (blocked and error runs are partial).
REPLAYABLE: tuple[Verdict, ...] = ("ok", "accepted", "replayed", "drift", "empty-source")


def parse_time(text: str, *, end: bool = False) -> dt.datetime:
    """``2026-11-30``, ``2026-11-30T06:00``, ``2026-11-30T06:00:00Z`` (UTC unless an offset is
    given). A bare date as ``--until`` means the end of that day."""
    value = text.strip()
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(
            f"{text!r}: not a time (use 2026-11-30, 2026-11-30T06:00 or 2026-11-30T06:00:00Z)"
        ) from exc
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    if end and len(value) == 10:
        when += dt.timedelta(days=1) - dt.timedelta(microseconds=1)
    return when.astimezone(dt.UTC)


def run_time(started_at: str) -> dt.datetime:
    return parse_time(started_at)


@dataclass(frozen=True)
class ReplayOptions:
    """What ``anchorpath replay`` was asked to do."""

    site: str
    selectors_dir: Path = Path("selectors")
    state_dir: Path = Path(".anchorpath/state")
    version: int | None = None
    since: dt.datetime | None = None
    until: dt.datetime | None = None
    into: str = "scratch"  # scratch | store
    by: str | None = None
    settings: Settings = field(default_factory=Settings)


def run_dir(run: RunRow, state_dir: Path) -> Path:
    return Path(run.run_dir) if run.run_dir else state_dir / "runs" / run.site / run.id


def live_run(run_dir: Path, complete: bool) -> tuple[bool, tuple[str, ...]]:
    """Whether the live run's crawl saw the whole site (its plan, else its report, else what
    its row says: ``complete``), and the pages it was limited to (``--url``; its report)."""
    report: dict[str, Any] = {}
    try:
        loaded = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
        report = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        pass
    urls = report.get("urls")
    only = tuple(str(u) for u in urls) if isinstance(urls, list) else ()
    plan = run_dir / "quarantine" / ACCEPT_PLAN
    try:
        return bool(json.loads(plan.read_text(encoding="utf-8"))["crawl_complete"]), only
    except (OSError, ValueError, KeyError, TypeError):
        pass
    done = report.get("complete")
    return (bool(done) if done is not None else complete), only


def entry_vias(sf: SelectorFile, urls: Sequence[str]) -> dict[str, str]:
    """How the live run reached the pages it started from, by :func:`locator`: ``url`` for a
    ``--url`` run's pages, else ``start`` for the start URLs. Any other page was reached by
    following a link (pagination counts alike: its records are listed)."""
    frontier = Frontier(sf, only_urls=urls)
    via = "url" if urls else "start"
    return {locator(frontier.normalize(u)): via for u in (urls or sf.fetch.start_urls)}


def segments(run: RunRow) -> list[str]:
    return [p for p in (run.warc_path or "").split(",") if p]


def load(options: ReplayOptions) -> tuple[SelectorFile, Path]:
    sf_path = find_selector_file(options.site, options.selectors_dir)
    sf = load_selector_file(sf_path, version=options.version)
    return sf, sf_path


def runs_to_replay(
    store: Store, site: str, options: ReplayOptions
) -> tuple[list[RunRow], list[RunRow]]:
    """The runs to replay (oldest first) and the runs before them (newest first)."""
    runs = list(reversed(store.runs(site, stats=False)))
    window: list[RunRow] = []
    older: list[RunRow] = []
    for r in runs:
        t = run_time(r.started_at)
        if options.since is not None and t < options.since:
            if segments(r):
                older.append(r)
            continue
        if options.until is not None and t > options.until:
            continue
        if r.verdict in REPLAYABLE and segments(r):
            window.append(r)
    if window:
        first = window[0].started_at
        older = [r for r in runs if r.started_at < first and segments(r)]
    return window, list(reversed(older))
