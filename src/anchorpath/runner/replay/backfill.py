"""``replay --into store``: the replayed runs the store had not committed, backfilled in one
transaction, or refused (:class:`ReplayRefused`) when that would rewrite or contradict committed
history."""

from __future__ import annotations

from dataclasses import replace

from anchorpath._errors import (
    RunError,
)
from anchorpath.runner.replay.gate import Replaying
from anchorpath.runner.replay.plan import ReplayOptions
from anchorpath.runner.run_types import now
from anchorpath.runner.store.commit import (
    commit_records,
)
from anchorpath.runner.store.database import (
    RunRow,
    Store,
)
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "ReplayRefused",
    "backfill",
    "default_by",
]


class ReplayRefused(RunError):
    """``--into store`` refused: a replayed run fails the gate or would contradict history."""


def backfill(
    store: Store,
    replayed: list[Replaying],
    newer: list[RunRow],
    options: ReplayOptions,
    sf: SelectorFile,
) -> int:
    """Commit the replayed runs the store had not committed, in one transaction, or refuse."""
    for rr in replayed:
        if rr.verdict not in ("ok", "empty-source"):
            raise ReplayRefused(
                f"run {rr.run_id} replays as {rr.verdict} with version {sf.version}"
                + (f" ({rr.reason})" if rr.reason else "")
                + ": nothing was written; review with --into scratch"
            )
        if rr.committed_before and not rr.same_events():
            raise ReplayRefused(
                f"run {rr.run_id} ({rr.original_verdict}) is committed with other events than "
                f"version {sf.version} gives ({len(rr.original_events)} recorded, "
                f"{len(rr.events)} replayed): committed events are never rewritten; "
                "review with --into scratch"
            )
    todo = [rr for rr in replayed if not rr.committed_before and rr.verdict == "ok"]
    pending = sum(len(rr.events) for rr in todo)
    if newer and pending:
        n = newer[0]
        raise ReplayRefused(
            f"run {n.id} ({n.verdict}, started {n.started_at}) is newer than the replayed runs "
            f"and was computed without them: backfilling {pending} event(s) would contradict "
            "it; nothing was written; review with --into scratch"
        )
    if not todo:
        return 0
    by = options.by or default_by()
    at = now()
    originals = {r.id: r for r in store.runs(sf.site.id)}
    with store.transaction():
        for rr in todo:
            original = originals[rr.run_id]
            row = replace(
                original,
                verdict="replayed",
                selector_version=sf.version,
                pages=rr.pages,
                records=rr.records,
                error=None,
                accepted_by=by,
                accepted_at=at,
            )
            assert rr.plan is not None
            outcome = commit_records(
                store, row, rr.extracted, rr.plan, rr.page_rows, merged=rr.merged
            )
            rr.events, rr.complete = outcome.events, outcome.complete
    return len(todo)


def default_by() -> str:
    from anchorpath.runner.accept import default_acceptor

    return default_acceptor()
