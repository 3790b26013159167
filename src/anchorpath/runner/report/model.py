"""The report of one run as typed data: what ``report.json`` holds and what the renderers
(:mod:`~anchorpath.runner.report.render`) read, nothing else. Built once by the run
(:func:`~anchorpath.runner.report.summary.run_report`), re-read from ``report.json`` and
changed as a model (never as parsed JSON) when a person accepts the run
(:meth:`RunReport.accepted`).

Frozen dataclasses; :meth:`RunReport.to_dict` is the file's JSON (key order as a person reads
it), :meth:`RunReport.from_dict` reads it back (a missing or broken key gets its default:
reports written by an older anchorpath stay readable).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from anchorpath.runner.changerate import ChangeRate
from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.header import PolicyHeader
from anchorpath.runner.run_types import Counts
from anchorpath.runner.store.database import Event
from anchorpath.runner.verdict import Verdict, parse_verdict

__all__ = ["Duplicate", "RunReport"]


@dataclass(frozen=True)
class Duplicate:
    """A key that different records carried in one run, and their pages."""

    key: str
    pages: tuple[str, ...]


#: Facts of the run shown before the counts, in this order, when set.
META = (
    "reason",
    "selector_version",
    "renderer",
    "started_at",
    "finished_at",
    "resumed",
    "complete",
    "accepted_by",
    "accepted_at",
)


@dataclass(frozen=True)
class RunReport:
    """What a run did, as its report says it (see the module docstring).

    ``verdict`` is the run's verdict (``accepted`` once a person accepted a drift run:
    ``drift_verdict`` keeps the gate's, ``reason`` its one-line why); ``urls`` the pages a
    ``--url`` run was limited to; ``field_stats`` and ``baseline_history`` the run's
    statistics and its baseline's (oldest first); ``fetch`` the politeness counters;
    ``paths`` where things went (``warc``, ``database``, ``bundle``, ``quarantine``, ...).
    """

    run_id: str
    site: str
    verdict: Verdict
    #: what the report opens with: basis, robots.txt, terms, completion, the stop (the JSON
    #: (rendered by :mod:`anchorpath.runner.policy.header`)
    policy: PolicyHeader | None = None
    reason: str | None = None
    selector_version: int | None = None
    renderer: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    resumed: bool = False
    complete: bool = False
    urls: tuple[str, ...] = ()
    counts: Counts = field(default_factory=Counts)
    charset: tuple[str, ...] = ()
    #: what extraction coerced or guessed ("note (on N page(s), first URL)")
    extraction: tuple[str, ...] = ()
    duplicates: tuple[Duplicate, ...] = ()
    events: tuple[Event, ...] = ()
    drift: DriftResult | None = None
    field_stats: RunStats | None = None
    baseline_history: tuple[RunStats, ...] = ()
    fetch: Mapping[str, float] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    change_rate: ChangeRate | None = None
    paths: Mapping[str, str] = field(default_factory=dict)
    accepted_by: str | None = None
    accepted_at: str | None = None
    drift_verdict: Verdict | None = None

    def meta(self) -> list[tuple[str, object]]:
        """The facts shown before the counts (:data:`META`), those that are set."""
        return [(k, getattr(self, k)) for k in META if getattr(self, k) is not None]

    def accepted(
        self,
        *,
        by: str | None,
        at: str | None,
        complete: bool,
        counts: Counts,
        events: Sequence[Event],
    ) -> RunReport:
        """This drift run's report once a person accepted it: what the commit did."""
        return replace(
            self,
            verdict="accepted",
            drift_verdict=self.drift_verdict or self.verdict,
            accepted_by=by,
            accepted_at=at,
            complete=complete,
            counts=counts,
            events=tuple(events),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``report.json``."""
        out: dict[str, Any] = {
            "run_id": self.run_id,
            "site": self.site,
            "verdict": self.verdict,
            "policy": self.policy.to_dict() if self.policy is not None else None,
            "reason": self.reason,
            "selector_version": self.selector_version,
            "renderer": self.renderer,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "resumed": self.resumed,
            "complete": self.complete,
            "urls": list(self.urls),
            "counts": self.counts.to_dict(),
            "charset": list(self.charset),
            "extraction": list(self.extraction),
            "duplicates": [{"key": d.key, "pages": list(d.pages)} for d in self.duplicates],
            "events": [e.to_dict() for e in self.events],
            "drift": self.drift.to_dict() if self.drift is not None else None,
            "field_stats": self.field_stats.to_dict() if self.field_stats is not None else None,
            "baseline_history": [b.to_dict() for b in self.baseline_history],
            "fetch": dict(self.fetch),
            "errors": list(self.errors),
            "change_rate": self.change_rate.to_dict() if self.change_rate is not None else None,
            "paths": dict(self.paths),
        }
        for name in ("accepted_by", "accepted_at", "drift_verdict"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunReport:
        """A report read back from ``report.json`` (:meth:`to_dict`)."""

        def text(name: str) -> str | None:
            v = d.get(name)
            return None if v is None else str(v)

        def listed(name: str) -> list[Any]:
            v = d.get(name)
            return v if isinstance(v, list) else []

        def mapping(name: str) -> Mapping[str, Any]:
            v = d.get(name)
            return v if isinstance(v, Mapping) else {}

        version = d.get("selector_version")
        drift_verdict = d.get("drift_verdict")
        return cls(
            run_id=str(d["run_id"]),
            site=str(d["site"]),
            verdict=parse_verdict(d.get("verdict"), "report.json"),
            policy=PolicyHeader.from_dict(mapping("policy")) if mapping("policy") else None,
            reason=text("reason"),
            selector_version=version if isinstance(version, int) else None,
            renderer=text("renderer"),
            started_at=text("started_at"),
            finished_at=text("finished_at"),
            resumed=bool(d.get("resumed")),
            complete=bool(d.get("complete")),
            urls=tuple(str(u) for u in listed("urls")),
            counts=Counts.from_dict(mapping("counts")),
            charset=tuple(str(c) for c in listed("charset")),
            extraction=tuple(str(x) for x in listed("extraction")),
            duplicates=tuple(
                Duplicate(str(x.get("key")), tuple(str(p) for p in x.get("pages") or ()))
                for x in listed("duplicates")
                if isinstance(x, Mapping)
            ),
            events=tuple(Event.from_dict(e) for e in listed("events") if isinstance(e, Mapping)),
            drift=DriftResult.from_dict(mapping("drift")) if mapping("drift") else None,
            field_stats=RunStats.from_dict(mapping("field_stats"))
            if mapping("field_stats")
            else None,
            baseline_history=tuple(
                RunStats.from_dict(b) for b in listed("baseline_history") if isinstance(b, Mapping)
            ),
            fetch={str(k): v for k, v in mapping("fetch").items() if isinstance(v, int | float)},
            errors=tuple(str(e) for e in listed("errors")),
            change_rate=ChangeRate.from_dict(mapping("change_rate"))
            if mapping("change_rate")
            else None,
            paths={str(k): str(v) for k, v in mapping("paths").items()},
            accepted_by=text("accepted_by"),
            accepted_at=text("accepted_at"),
            drift_verdict=None
            if drift_verdict is None
            else parse_verdict(drift_verdict, "report.json"),
        )
