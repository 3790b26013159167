"""The policy header of a run report as typed data: the permission basis, the robots.txt
each origin was judged by, the terms page's hash, the completion rate and — for a
``stopped`` run — the stop. Built by :func:`anchorpath.runner.policy.header.policy_header`,
carried by ``RunResult`` and ``RunReport``, rendered by
:mod:`anchorpath.runner.policy.header`. It sits at the runner's data layer so the run's
result types can hold it; :meth:`PolicyHeader.to_dict`/:meth:`PolicyHeader.from_dict` are
only for ``report.json``.

Completion rate = valid records ÷ URLs allowed and attempted (pages read, plus URLs that
failed for another reason than robots.txt or 404/410); robots-excluded and 404/410 URLs are
listed beside it, not counted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["FORMULA", "Completion", "PolicyHeader", "RobotsLine", "StopLine", "TermsLine"]

FORMULA = "valid records ÷ URLs allowed and attempted"


def _text(d: Mapping[str, Any], key: str) -> str | None:
    v = d.get(key)
    return None if v is None else str(v)


def _texts(d: Mapping[str, Any], key: str) -> tuple[str, ...]:
    v = d.get(key)
    return tuple(str(x) for x in v) if isinstance(v, list) else ()


def _int(d: Mapping[str, Any], key: str) -> int:
    v = d.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


@dataclass(frozen=True)
class Completion:
    """The completion rate's parts."""

    valid: int
    attempted: int
    excluded: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()

    @property
    def rate(self) -> float | None:
        return round(self.valid / self.attempted, 4) if self.attempted else None

    def line(self) -> str:
        rate = "n/a" if self.rate is None else f"{self.rate:.2%}"
        return (
            f"{FORMULA} = {self.valid} ÷ {self.attempted} = {rate} "
            f"(robots-excluded: {len(self.excluded)}, gone 404/410: {len(self.gone)}, "
            "not counted)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rate": self.rate,
            "formula": FORMULA,
            "valid_records": self.valid,
            "urls_attempted": self.attempted,
            "robots_excluded": list(self.excluded),
            "gone": list(self.gone),
            "line": self.line(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Completion:
        return cls(
            valid=_int(d, "valid_records"),
            attempted=_int(d, "urls_attempted"),
            excluded=_texts(d, "robots_excluded"),
            gone=_texts(d, "gone"),
        )


@dataclass(frozen=True)
class RobotsLine:
    """The robots.txt one origin was judged by: ``kind`` ``parsed`` (with its ``sha256``),
    ``allow-all`` (404/410) or ``unreachable`` (``detail`` says why)."""

    origin: str
    kind: str
    fetched_at: str | None = None
    sha256: str | None = None
    detail: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "origin": self.origin,
            "kind": self.kind,
            "fetched_at": self.fetched_at,
            "sha256": self.sha256,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RobotsLine:
        return cls(
            origin=str(d.get("origin")),
            kind=str(d.get("kind")),
            fetched_at=_text(d, "fetched_at"),
            sha256=_text(d, "sha256"),
            detail=_text(d, "detail"),
        )


@dataclass(frozen=True)
class TermsLine:
    """The terms page as the run fetched it: the sha256 of its text, or the error."""

    url: str
    sha256: str | None = None
    fetched_at: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {
            "url": self.url,
            "sha256": self.sha256,
            "fetched_at": self.fetched_at,
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TermsLine:
        return cls(
            url=str(d.get("url")),
            sha256=_text(d, "sha256"),
            fetched_at=_text(d, "fetched_at"),
            error=_text(d, "error"),
        )


@dataclass(frozen=True)
class StopLine:
    """Why a ``stopped`` run stopped: the cause, a one-line reason, the robots.txt diff."""

    cause: str
    reason: str
    diff: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"cause": self.cause, "reason": self.reason, "diff": self.diff}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> StopLine:
        return cls(str(d.get("cause")), str(d.get("reason")), _text(d, "diff"))


@dataclass(frozen=True)
class PolicyHeader:
    """What a run report opens with (see the module docstring)."""

    basis: str | None
    purpose: str | None
    retention_days: int | None
    store_raw: bool
    robots: tuple[RobotsLine, ...]
    terms: TermsLine | None
    completion: Completion
    stop: StopLine | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``policy`` object of ``report.json``."""
        return {
            "basis": self.basis,
            "purpose": self.purpose,
            "retention_days": self.retention_days,
            "store_raw": self.store_raw,
            "robots": [r.to_dict() for r in self.robots],
            "terms": self.terms.to_dict() if self.terms else None,
            "completion": self.completion.to_dict(),
            "stop": self.stop.to_dict() if self.stop else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PolicyHeader:
        """The header read back from ``report.json`` (:meth:`to_dict`); a missing or broken
        key gets its default."""
        robots = d.get("robots")
        terms = d.get("terms")
        completion = d.get("completion")
        stop = d.get("stop")
        days = d.get("retention_days")
        return cls(
            basis=_text(d, "basis"),
            purpose=_text(d, "purpose"),
            retention_days=days if isinstance(days, int) and not isinstance(days, bool) else None,
            store_raw=d.get("store_raw") is not False,
            robots=tuple(RobotsLine.from_dict(r) for r in robots or () if isinstance(r, Mapping))
            if isinstance(robots, list)
            else (),
            terms=TermsLine.from_dict(terms) if isinstance(terms, Mapping) and terms else None,
            completion=Completion.from_dict(completion)
            if isinstance(completion, Mapping)
            else Completion(0, 0),
            stop=StopLine.from_dict(stop) if isinstance(stop, Mapping) and stop else None,
        )
