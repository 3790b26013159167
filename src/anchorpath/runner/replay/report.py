"""What a replay did, run by run, beside what the store recorded: frozen models
(:class:`ReplayReport`, one :class:`ReplayedRun` per run) that the replay builds once it is
done and that ``report.json`` / ``report.md`` in the replay's directory and the CLI render,
reading nothing else."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError
from anchorpath.runner.store.database import EVENT_KINDS, Event, StoredRecord
from anchorpath.runner.verdict import COMMITTED, Verdict

__all__ = [
    "FinalDiff",
    "ReplayReport",
    "ReplayedRun",
    "final_diff",
    "render_markdown",
    "same_events",
    "write_report",
]


@dataclass(frozen=True)
class ReplayedRun:
    """One run as replayed with version N, beside what the store recorded for it."""

    run_id: str
    started_at: str
    original_verdict: Verdict
    original_version: int | None
    verdict: Verdict
    reason: str | None
    complete: bool
    pages: int
    unresolved: tuple[str, ...]
    records: int
    invalid: int
    events: tuple[Event, ...]
    original_events: tuple[Event, ...]

    @property
    def committed_before(self) -> bool:
        return self.original_verdict in COMMITTED

    def same_events(self) -> bool:
        return same_events(self.events, self.original_events)

    def counts(self, original: bool = False) -> dict[str, int]:
        """Events per kind (``original``: those the store recorded)."""
        kinds = [e.kind for e in (self.original_events if original else self.events)]
        return {k: kinds.count(k) for k in EVENT_KINDS}

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "started_at": self.started_at,
            "original": {
                "verdict": self.original_verdict,
                "selector_version": self.original_version,
                "events": self.counts(original=True),
            },
            "replayed": {
                "verdict": self.verdict,
                "reason": self.reason,
                "complete": self.complete,
                "pages": self.pages,
                "records": self.records,
                "invalid": self.invalid,
                "unresolved_pages": list(self.unresolved),
                "events": self.counts(),
            },
            "same_events": self.same_events(),
            "events": [e.to_dict() for e in self.events],
        }


def same_events(replayed: Sequence[Event], recorded: Sequence[Event]) -> bool:
    """Whether a run's replayed events say what the store recorded, in any order. A run
    committed before new events carried their values recorded them without: such a new event
    is compared by key."""
    bare = {e.key for e in recorded if e.kind == "new" and not e.fields}

    def norm(evs: Sequence[Event]) -> list[tuple[str, str, str]]:
        return sorted(
            (
                e.kind,
                e.key,
                ""
                if e.kind == "new" and e.key in bare
                else json.dumps(e.fields_dict(), sort_keys=True),
            )
            for e in evs
        )

    return norm(replayed) == norm(recorded)


@dataclass(frozen=True)
class FinalDiff:
    """How the records after the last replayed run differ from the store's at that point."""

    same: int = 0
    different: int = 0
    only_replayed: int = 0
    only_store: int = 0


@dataclass(frozen=True)
class ReplayReport:
    """What a replay did (``database``: the scratch database, or the store it backfilled
    ``written`` runs into); ``exit_code`` is what the CLI exits with."""

    replay_id: str
    site: str
    version: int
    into: str
    runs: tuple[ReplayedRun, ...]
    out_dir: Path
    database: Path
    written: int
    exit_code: int
    final_diff: FinalDiff

    def to_dict(self) -> dict[str, Any]:
        return {
            "replay_id": self.replay_id,
            "site": self.site,
            "selector_version": self.version,
            "into": self.into,
            "database": str(self.database),
            "backfilled_runs": self.written,
            "final_state_vs_store": dict(self.final_diff.__dict__),
            "runs": [r.to_dict() for r in self.runs],
        }


def final_diff(final: Mapping[str, StoredRecord], truth: Mapping[str, StoredRecord]) -> FinalDiff:
    """How the replayed end state differs from the store's state at the same point."""
    same = sum(1 for k in final if k in truth and final[k].content_hash == truth[k].content_hash)
    return FinalDiff(
        same=same,
        different=sum(1 for k in final if k in truth) - same,
        only_replayed=sum(1 for k in final if k not in truth),
        only_store=sum(1 for k in truth if k not in final),
    )


def render_markdown(report: ReplayReport) -> str:
    """``report.md``: a table of the runs, then how the end state compares."""
    lines = [
        f"# Replay {report.replay_id} of {report.site} with selector version {report.version}",
        "",
        f"Into: {report.into} · database: `{report.database}`"
        + (f" · backfilled runs: {report.written}" if report.into == "store" else ""),
        "",
        "| run | started | was | replayed | pages | records | new | changed | withdrawn "
        "| same events |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in report.runs:
        n = r.counts()
        lines.append(
            f"| {r.run_id} | {r.started_at} | {r.original_verdict} (v{r.original_version}) | "
            f"{r.verdict} | {r.pages} | {r.records} | {n['new']} | {n['changed']} | "
            f"{n['withdrawn']} | {'yes' if r.same_events() else 'no'} |"
        )
    d = report.final_diff
    lines += [
        "",
        f"Records after the last replayed run against the store at that point: {d.same} "
        f"same, {d.different} different, {d.only_replayed} only in the replay, "
        f"{d.only_store} only in the store.",
        "",
    ]
    return "\n".join(lines)


def write_report(report: ReplayReport) -> None:
    """``report.json`` and ``report.md`` in the replay's directory."""
    try:
        (report.out_dir / "report.json").write_text(
            json.dumps(report.to_dict(), ensure_ascii=False, indent=2, default=str) + "\n",
            encoding="utf-8",
        )
        (report.out_dir / "report.md").write_text(render_markdown(report), encoding="utf-8")
    except OSError as exc:
        raise RunError(f"{report.out_dir}: cannot write the replay report: {exc}") from exc
