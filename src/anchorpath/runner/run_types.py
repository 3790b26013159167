"""What a run is asked to do and what it did: :class:`RunOptions`, :class:`RunResult`, its
:class:`Counts`, exit codes.

Shared by the pipeline (``pipeline.py``), its steps and ``accept.py``; import these from
:mod:`anchorpath.runner.pipeline` as before.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath._config import Settings
from anchorpath.runner.changerate import ChangeRate
from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.header import PolicyHeader
from anchorpath.runner.lock import LockHolder
from anchorpath.runner.store.database import Event
from anchorpath.runner.verdict import Verdict

__all__ = [
    "EXIT_BLOCKED",
    "EXIT_BY_VERDICT",
    "EXIT_DRIFT",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_USAGE",
    "Counts",
    "RunOptions",
    "RunResult",
    "now",
    "warc_segments",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DRIFT = 3
EXIT_BLOCKED = 4
#: the site is stopped until ``anchorpath resume`` (and ``run`` of a stopped site exits so)
EXIT_STOPPED = 5
#: Exit code of each verdict; any other verdict (``error``) exits :data:`EXIT_ERROR`.
EXIT_BY_VERDICT: dict[Verdict, int] = {
    "ok": EXIT_OK,
    "empty-source": EXIT_OK,
    "drift": EXIT_DRIFT,
    "blocked": EXIT_BLOCKED,
    "stopped": EXIT_STOPPED,
}


@dataclass(frozen=True)
class Counts:
    """How many pages, records and events a run had, and what it left aside: invalid
    records, stored records it did not reach (``unseen``), keys two different records carried
    (``duplicate_keys``), pages read back from its own archive on resume (``replayed``),
    stored records under an earlier key (``rekeyed``: retired by a complete run)."""

    pages: int = 0
    records: int = 0
    invalid: int = 0
    new: int = 0
    changed: int = 0
    withdrawn: int = 0
    unseen: int = 0
    duplicate_keys: int = 0
    replayed: int = 0
    rekeyed: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Counts:
        names = cls.__dataclass_fields__
        return cls(**{k: int(v) for k, v in d.items() if k in names and isinstance(v, int)})


@dataclass(frozen=True)
class RunOptions:
    """What ``anchorpath run`` was asked to do."""

    site: str
    selectors_dir: Path = Path("selectors")
    state_dir: Path = Path(".anchorpath/state")
    urls: tuple[str, ...] = ()
    full: bool = False
    resume: bool = False
    base_url: str | None = None
    settings: Settings = field(default_factory=Settings)


@dataclass
class RunResult:
    """What a run did; ``exit_code`` is what the CLI exits with."""

    run_id: str
    site: str
    verdict: Verdict
    exit_code: int
    run_dir: Path
    selector_version: int = 0
    resumed: bool = False
    complete: bool = False
    pages: int = 0
    replayed: int = 0
    records: int = 0
    invalid: int = 0
    events: list[Event] = field(default_factory=list)
    #: Stored records this run neither saw nor withdrew (no evidence either way).
    unseen: int = 0
    #: Stored records under an earlier key (the selector file's key changed): retired by
    #: this run if it was complete, else still current (see ``store.commit.rekeyed``).
    rekeyed: int = 0
    #: Keys two different records carried in this run -> their pages (not stored this run).
    duplicates: dict[str, list[str]] = field(default_factory=dict)
    #: Pages whose declared charset does not fit their bytes ("URL: what was found").
    charset: list[str] = field(default_factory=list)
    #: What extraction coerced or guessed ("note (on N page(s), first URL)"), see
    #: :func:`~anchorpath.runner.checkpoint.extraction_notes`.
    extraction: list[str] = field(default_factory=list)
    drift: DriftResult | None = None
    bundle: Path | None = None
    reason: str | None = None
    errors: list[str] = field(default_factory=list)
    change_rate: ChangeRate | None = None
    fetch_counters: dict[str, float] = field(default_factory=dict)
    took_over_lock: LockHolder | None = None
    accepted_by: str | None = None
    accepted_at: str | None = None
    #: the report's opening lines: basis, robots.txt, terms, completion rate, the stop
    #: (:class:`~anchorpath.runner.header.PolicyHeader`)
    policy: PolicyHeader | None = None

    def counts(self) -> Counts:
        kinds = [e.kind for e in self.events]
        return Counts(
            pages=self.pages,
            records=self.records,
            invalid=self.invalid,
            new=kinds.count("new"),
            changed=kinds.count("changed"),
            withdrawn=kinds.count("withdrawn"),
            unseen=self.unseen,
            duplicate_keys=len(self.duplicates),
            replayed=self.replayed,
            rekeyed=self.rekeyed,
        )


def now() -> str:
    """The current UTC time as the store writes it (microseconds, ``Z``)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def warc_segments(run_dir: Path) -> list[Path]:
    """The run's WARC files, one per attempt, in order."""
    return sorted(run_dir.glob("pages-*.warc.gz"))
