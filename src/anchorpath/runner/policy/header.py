"""The lines every run report opens with: the permission basis, the robots.txt each origin
was judged by (fetch time and sha256), the terms page's hash, the completion rate with its
formula, and — for a ``stopped`` run — why, with the robots.txt diff.

Completion rate = valid records ÷ URLs allowed and attempted (pages read, plus URLs that
failed for another reason than robots.txt or 404/410); robots-excluded and 404/410 URLs are
listed beside it, not counted."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anchorpath.runner.policy.judge import Stop
from anchorpath.runner.policy.observe import PolicySeen
from anchorpath.selectors.model import SelectorFile

__all__ = ["Completion", "PolicyHeader", "header_html", "header_markdown", "policy_header"]

FORMULA = "valid records ÷ URLs allowed and attempted"


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


@dataclass(frozen=True)
class PolicyHeader:
    """What a run report opens with (see the module docstring)."""

    basis: str | None
    purpose: str | None
    retention_days: int | None
    store_raw: bool
    robots: tuple[Mapping[str, Any], ...]
    terms: Mapping[str, Any] | None
    completion: Completion
    stop: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "purpose": self.purpose,
            "retention_days": self.retention_days,
            "store_raw": self.store_raw,
            "robots": [dict(r) for r in self.robots],
            "terms": dict(self.terms) if self.terms else None,
            "completion": self.completion.to_dict(),
            "stop": dict(self.stop) if self.stop else None,
        }


def policy_header(
    sf: SelectorFile,
    seen: PolicySeen,
    completion: Completion,
    stop: Stop | None,
) -> PolicyHeader:
    """The header of one run's report."""
    policy = sf.policy
    return PolicyHeader(
        basis=policy.basis if policy else None,
        purpose=policy.purpose if policy else None,
        retention_days=policy.retention_days if policy else None,
        store_raw=policy.store_raw if policy else True,
        robots=tuple(
            {
                "origin": r.origin,
                "kind": r.kind,
                "fetched_at": r.fetched_at,
                "sha256": r.sha256,
                "detail": r.detail or None,
            }
            for r in seen.robots
        ),
        terms=seen.terms.to_dict() if seen.terms else None,
        completion=completion,
        stop={"cause": stop.cause, "reason": stop.reason, "diff": stop.diff} if stop else None,
    )


def _robots_line(r: Mapping[str, Any]) -> str:
    if r.get("kind") == "unreachable":
        return f"robots.txt {r.get('origin')}: unreachable ({r.get('detail')})"
    if r.get("kind") == "allow-all":
        return f"robots.txt {r.get('origin')}: none (404/410), fetched {r.get('fetched_at')}"
    return f"robots.txt {r.get('origin')}: fetched {r.get('fetched_at')}, sha256 {r.get('sha256')}"


def _lines(h: Mapping[str, Any]) -> list[str]:
    lines = [f"basis: {h.get('basis') or 'NOT RECORDED'}"]
    if h.get("purpose"):
        lines.append(f"purpose: {h['purpose']}")
    robots: Sequence[Mapping[str, Any]] = h.get("robots") or []
    lines += [_robots_line(r) for r in robots] or ["robots.txt: not read by this run"]
    terms = h.get("terms")
    if terms:
        what = f"sha256 {terms.get('sha256')}" if terms.get("sha256") else terms.get("error")
        lines.append(f"terms {terms.get('url')}: {what}")
    completion = h.get("completion") or {}
    lines.append(f"completion rate: {completion.get('line', 'n/a')}")
    if h.get("retention_days"):
        lines.append(f"retention: {h['retention_days']} days")
    if h.get("store_raw") is False:
        lines.append("raw pages: not kept (store_raw: false)")
    return lines


def header_markdown(h: Mapping[str, Any] | None) -> list[str]:
    """The header as Markdown lines (a bullet list, then the stop and its diff)."""
    if not h:
        return []
    out = [f"- {line}" for line in _lines(h)]
    completion = h.get("completion") or {}
    for what, key in (("robots-excluded", "robots_excluded"), ("gone (404/410)", "gone")):
        urls = completion.get(key) or []
        if urls:
            out.append(f"- {what}: " + ", ".join(str(u) for u in urls[:20]))
    stop = h.get("stop")
    if stop:
        out += ["", f"**Stopped ({stop.get('cause')}):** {stop.get('reason')}", ""]
        if stop.get("diff"):
            out += ["```diff", str(stop["diff"]), "```"]
        out.append("Lift the stop after review: `anchorpath resume SITE --by NAME --reason TEXT`")
    return [*out, ""]


def header_html(h: Mapping[str, Any] | None) -> list[str]:
    """The header as HTML (a list, then the stop and its diff)."""
    if not h:
        return []
    out = ["<ul class=policy>"]
    out += [f"<li>{html.escape(line)}</li>" for line in _lines(h)]
    out.append("</ul>")
    stop = h.get("stop")
    if stop:
        out.append(
            f"<p class=stopped><b>Stopped ({html.escape(str(stop.get('cause')))}):</b> "
            f"{html.escape(str(stop.get('reason')))}</p>"
        )
        if stop.get("diff"):
            out.append(f"<pre>{html.escape(str(stop['diff']))}</pre>")
    return out
