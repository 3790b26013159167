"""Resume or start: find a site's unfinished run (a ``checkpoint.json`` left by a crash or
``kill -9``) and continue it, or start a new run in ``<state>/runs/<site>/<run_id>/``.

An unfinished run is only resumed when it was started with the same selector file (by hash)
and the same request (``--url``, ``--full``, base URL); otherwise it cannot be finished as it
was started, and its checkpoint is renamed ``checkpoint.abandoned.json`` (files kept).
"""

from __future__ import annotations

import datetime as dt
import secrets
from pathlib import Path
from typing import Any

from anchorpath.runner.checkpoint import load_checkpoint, remove_checkpoint
from anchorpath.runner.crawl.frontier import Frontier
from anchorpath.runner.model import Checkpoint
from anchorpath.runner.progress import Note, Progress
from anchorpath.runner.run_types import RunOptions, now
from anchorpath.runner.store.database import Store
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "find_unfinished",
    "new_run_id",
    "options_fingerprint",
    "runs_dir",
    "start_or_resume",
    "what_changed",
]


def new_run_id() -> str:
    """A sortable, unique run id: UTC start time plus a random suffix."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def runs_dir(options: RunOptions, site: str) -> Path:
    """Where the site's run directories live."""
    return options.state_dir / "runs" / site


def options_fingerprint(options: RunOptions) -> dict[str, Any]:
    """The part of the request a resumed run must share with the run it continues."""
    return {"urls": list(options.urls), "full": options.full, "base_url": options.base_url}


_OPTION_NAMES = {"urls": "--url", "full": "--full", "base_url": "--base-url"}


def _shown(value: Any) -> str:
    if value in (None, [], False):
        return "not given"
    if value is True:
        return "given"
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def what_changed(cp: Checkpoint, sf_sha: str, fingerprint: dict[str, Any]) -> str:
    """What differs between an unfinished run and this one ("" when it can be resumed)."""
    changes = []
    if cp.selector_sha256 != sf_sha:
        changes.append("the selector file changed")
    for name, flag in _OPTION_NAMES.items():
        old, new = cp.options.get(name), fingerprint.get(name)
        if old != new:
            changes.append(f"{flag} changed (was {_shown(old)}, now {_shown(new)})")
    return "; ".join(changes)


def find_unfinished(
    options: RunOptions, site: str, sf_sha: str, store: Store, progress: Progress
) -> Checkpoint | None:
    """The checkpoint of the site's newest unfinished run that can be resumed, if any."""
    root = runs_dir(options, site)
    if not root.is_dir():
        return None
    for run_dir in sorted(root.iterdir(), reverse=True):
        cp = load_checkpoint(run_dir) if run_dir.is_dir() else None
        if cp is None:
            continue
        if any(r.id == cp.run_id for r in store.runs(site, limit=50, stats=False)):
            # Committed, then killed before the checkpoint was removed: nothing to resume.
            remove_checkpoint(run_dir)
            continue
        changed = what_changed(cp, sf_sha, options_fingerprint(options))
        if not changed:
            return cp
        # The selector file or the request changed since: that run cannot be finished as
        # it was started. Keep its files for inspection, but stop offering it.
        (run_dir / "checkpoint.json").rename(run_dir / "checkpoint.abandoned.json")
        progress(
            Note(
                f"abandoned unfinished run {cp.run_id}: {changed} since it started, "
                "so it cannot be finished as started (its files are kept); starting a new run",
                site,
            )
        )
    return None


def start_or_resume(
    options: RunOptions,
    sf: SelectorFile,
    sf_sha: str,
    store: Store,
    frontier: Frontier,
    progress: Progress,
) -> tuple[Checkpoint, bool]:
    """The checkpoint of the run to execute (an unfinished run, or a new run with no attempt
    yet), and whether it is resumed."""
    cp = find_unfinished(options, sf.site.id, sf_sha, store, progress)
    if cp is not None:
        return cp, True
    cp = Checkpoint(
        run_id=new_run_id(),
        site=sf.site.id,
        started_at=now(),
        selector_version=sf.version,
        selector_sha256=sf_sha,
        options=options_fingerprint(options),
        crawl=frontier.start().to_dict(),
        attempts=0,  # each crawl of the run counts one attempt (see pipeline.crawl_site)
    )
    return cp, False
