"""What a replay did, run by run, beside what the store recorded (``report.json`` / ``report.md``
in the replay's directory)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath._errors import (
    RunError,
)
from anchorpath.runner.checkpoint import PageEntry, RecordEntry
from anchorpath.runner.run_types import EXIT_OK
from anchorpath.runner.store.commit import (
    CommitPlan,
    Merged,
)
from anchorpath.runner.store.database import (
    Event,
    PageRow,
    StoredRecord,
)
from anchorpath.runner.verdict import COMMITTED, Verdict

__all__ = [
    "ReplayResult",
    "ReplayedRun",
    "final_diff",
    "write_report",
]


@dataclass
class ReplayedRun:
    """One run as replayed with version N, beside what the store recorded for it."""

    run_id: str
    started_at: str
    original_verdict: Verdict
    original_version: int | None
    verdict: Verdict = "error"
    reason: str | None = None
    complete: bool = False
    pages: int = 0
    unresolved: list[str] = field(default_factory=list)
    records: int = 0
    invalid: int = 0
    events: list[Event] = field(default_factory=list)
    original_events: list[Event] = field(default_factory=list)
    stats: dict[str, Any] | None = None
    # what a commit needs (not reported)
    _records: list[RecordEntry] = field(default_factory=list, repr=False)
    _pages: list[PageEntry] = field(default_factory=list, repr=False)
    _page_rows: list[PageRow] = field(default_factory=list, repr=False)
    _looks_empty: bool = field(default=False, repr=False)
    _gone: list[str] = field(default_factory=list, repr=False)
    _failed: list[str] = field(default_factory=list, repr=False)
    _blocked: str | None = field(default=None, repr=False)
    _fatal: str | None = field(default=None, repr=False)
    _charset: list[str] = field(default_factory=list, repr=False)
    _plan: CommitPlan | None = field(default=None, repr=False)
    _merged: Merged | None = field(default=None, repr=False)
    _original_complete: bool = field(default=False, repr=False)

    @property
    def committed_before(self) -> bool:
        return self.original_verdict in COMMITTED

    def same_events(self) -> bool:
        # A run committed before new events carried their values stored them without: such a
        # new event is compared by key.
        bare = {e.key for e in self.original_events if e.kind == "new" and not e.fields}

        def norm(evs: Sequence[Event]) -> list[tuple[str, str, str]]:
            return sorted(
                (
                    e.kind,
                    e.key,
                    ""
                    if e.kind == "new" and e.key in bare
                    else json.dumps(e.to_dict()["fields"], sort_keys=True),
                )
                for e in evs
            )

        return norm(self.events) == norm(self.original_events)

    def to_dict(self) -> dict[str, Any]:
        kinds = [e.kind for e in self.events]
        okinds = [e.kind for e in self.original_events]
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "original": {
                "verdict": self.original_verdict,
                "selector_version": self.original_version,
                "events": {k: okinds.count(k) for k in ("new", "changed", "withdrawn")},
            },
            "replayed": {
                "verdict": self.verdict,
                "reason": self.reason,
                "complete": self.complete,
                "pages": self.pages,
                "records": self.records,
                "invalid": self.invalid,
                "unresolved_pages": self.unresolved,
                "events": {k: kinds.count(k) for k in ("new", "changed", "withdrawn")},
            },
            "same_events": self.same_events(),
            "events": [e.to_dict() for e in self.events],
        }


@dataclass
class ReplayResult:
    """What a replay did; ``exit_code`` is what the CLI exits with."""

    replay_id: str
    site: str
    version: int
    into: str
    runs: list[ReplayedRun]
    out_dir: Path
    database: Path
    written: int = 0  # runs backfilled into the store
    exit_code: int = EXIT_OK
    final_diff: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "replay_id": self.replay_id,
            "site": self.site,
            "selector_version": self.version,
            "into": self.into,
            "database": str(self.database),
            "backfilled_runs": self.written,
            "final_state_vs_store": self.final_diff,
            "runs": [r.to_dict() for r in self.runs],
        }


def final_diff(
    final: Mapping[str, StoredRecord], truth: Mapping[str, StoredRecord]
) -> dict[str, int]:
    """How the replayed end state differs from the store's state at the same point."""
    same = sum(1 for k in final if k in truth and final[k].content_hash == truth[k].content_hash)
    return {
        "same": same,
        "different": sum(1 for k in final if k in truth) - same,
        "only_replayed": sum(1 for k in final if k not in truth),
        "only_store": sum(1 for k in truth if k not in final),
    }


def write_report(result: ReplayResult) -> None:
    summary = result.to_dict()
    lines = [
        f"# Replay {result.replay_id} of {result.site} with selector version {result.version}",
        "",
        f"Into: {result.into} · database: `{result.database}`"
        + (f" · backfilled runs: {result.written}" if result.into == "store" else ""),
        "",
        "| run | started | was | replayed | pages | records | new | changed | withdrawn "
        "| same events |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in result.runs:
        kinds = [e.kind for e in r.events]
        lines.append(
            f"| {r.run_id} | {r.started_at} | {r.original_verdict} (v{r.original_version}) | "
            f"{r.verdict} | {r.pages} | {r.records} | {kinds.count('new')} | "
            f"{kinds.count('changed')} | {kinds.count('withdrawn')} | "
            f"{'yes' if r.same_events() else 'no'} |"
        )
    d = result.final_diff
    lines += [
        "",
        f"Records after the last replayed run against the store at that point: {d.get('same', 0)} "
        f"same, {d.get('different', 0)} different, {d.get('only_replayed', 0)} only in the "
        f"replay, {d.get('only_store', 0)} only in the store.",
        "",
    ]
    try:
        (result.out_dir / "report.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
        )
        (result.out_dir / "report.md").write_text("\n".join(lines), encoding="utf-8")
    except OSError as exc:
        raise RunError(f"{result.out_dir}: cannot write the replay report: {exc}") from exc
