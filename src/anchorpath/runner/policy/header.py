"""The lines every run report opens with, built and rendered: the permission basis, the
robots.txt each origin was judged by (fetch time and sha256), the terms page's hash, the
completion rate with its formula, and — for a ``stopped`` run — why, with the robots.txt diff.
The typed header itself (and the completion formula) is :mod:`anchorpath.runner.header`."""

from __future__ import annotations

import html

from anchorpath.runner.header import Completion, PolicyHeader, RobotsLine, StopLine
from anchorpath.runner.policy.judge import Stop
from anchorpath.runner.policy.observe import PolicySeen
from anchorpath.selectors.model import SelectorFile

__all__ = ["header_html", "header_markdown", "policy_header"]


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
            RobotsLine(r.origin, r.kind, r.fetched_at, r.sha256, r.detail or None)
            for r in seen.robots
        ),
        terms=seen.terms,
        completion=completion,
        stop=StopLine(stop.cause, stop.reason, stop.diff) if stop else None,
    )


def _robots_line(r: RobotsLine) -> str:
    if r.kind == "unreachable":
        return f"robots.txt {r.origin}: unreachable ({r.detail})"
    if r.kind == "allow-all":
        return f"robots.txt {r.origin}: none (404/410), fetched {r.fetched_at}"
    return f"robots.txt {r.origin}: fetched {r.fetched_at}, sha256 {r.sha256}"


def _lines(h: PolicyHeader) -> list[str]:
    lines = [f"basis: {h.basis or 'NOT RECORDED'}"]
    if h.purpose:
        lines.append(f"purpose: {h.purpose}")
    lines += [_robots_line(r) for r in h.robots] or ["robots.txt: not read by this run"]
    if h.terms:
        what = f"sha256 {h.terms.sha256}" if h.terms.sha256 else h.terms.error
        lines.append(f"terms {h.terms.url}: {what}")
    lines.append(f"completion rate: {h.completion.line()}")
    if h.retention_days:
        lines.append(f"retention: {h.retention_days} days")
    if not h.store_raw:
        lines.append("raw pages: not kept (store_raw: false)")
    return lines


def header_markdown(h: PolicyHeader | None) -> list[str]:
    """The header as Markdown lines (a bullet list, then the stop and its diff)."""
    if h is None:
        return []
    out = [f"- {line}" for line in _lines(h)]
    for what, urls in (
        ("robots-excluded", h.completion.excluded),
        ("gone (404/410)", h.completion.gone),
    ):
        if urls:
            out.append(f"- {what}: " + ", ".join(urls[:20]))
    stop = h.stop
    if stop:
        out += ["", f"**Stopped ({stop.cause}):** {stop.reason}", ""]
        if stop.diff:
            out += ["```diff", stop.diff, "```"]
        out.append("Lift the stop after review: `anchorpath resume SITE --by NAME --reason TEXT`")
    return [*out, ""]


def header_html(h: PolicyHeader | None) -> list[str]:
    """The header as HTML (a list, then the stop and its diff)."""
    if h is None:
        return []
    out = ["<ul class=policy>"]
    out += [f"<li>{html.escape(line)}</li>" for line in _lines(h)]
    out.append("</ul>")
    stop = h.stop
    if stop:
        out.append(
            f"<p class=stopped><b>Stopped ({html.escape(stop.cause)}):</b> "
            f"{html.escape(stop.reason)}</p>"
        )
        if stop.diff:
            out.append(f"<pre>{html.escape(stop.diff)}</pre>")
    return out
