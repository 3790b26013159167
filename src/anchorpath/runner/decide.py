"""The verdict of one run, decided from what the run saw. Pure: the pipeline gathers the
inputs (pages, validation, statistics, the baseline) and acts on the :class:`Decision`
afterwards (commit, quarantine, alert, report)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from anchorpath.runner.checkpoint import InvalidRecord, PageEntry
from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.drift.gate import gate, looks_empty
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.verdict import Verdict
from anchorpath.selectors.model import SelectorFile

__all__ = ["Decision", "decide"]


@dataclass(frozen=True)
class Decision:
    """A run's verdict, the one-line reason for any verdict but ``ok``, and the drift gate's
    result when the gate ran."""

    verdict: Verdict
    reason: str | None = None
    drift: DriftResult | None = None


def decide(
    *,
    blocked: str | None,
    fatal: str | None,
    pages: Sequence[PageEntry],
    errors: Sequence[str],
    records: int,
    stats: RunStats,
    history: list[RunStats],
    invalid_emitted: Sequence[InvalidRecord],
    sf: SelectorFile,
    charset_notes: Sequence[str] = (),
    stopped: str | None = None,
) -> Decision:
    """In order: a stop (``stopped``: the rules of collection changed or the site refused
    for good, see :mod:`anchorpath.runner.policy.judge`), a refusal (``blocked``), a
    selector file at fault (``fatal``, an ``error``), no page at all (``error``), a site
    that listed nothing but looked as usual (``empty-source``); otherwise the drift gate's
    ``ok`` or ``drift``. ``charset_notes`` (pages whose declared charset does not fit their
    bytes) are named first in the reason of a ``drift`` or ``error``: garbled values fail
    their schema because of the encoding."""
    if stopped:
        return Decision("stopped", stopped)
    decision = _decide(blocked, fatal, pages, errors, records, stats, history, invalid_emitted, sf)
    if charset_notes and decision.verdict in ("drift", "error"):
        n = len(charset_notes)
        reason = f"charset mismatch on {n} page(s) ({charset_notes[0]}); {decision.reason or ''}"
        return replace(decision, reason=reason.rstrip("; "))
    return decision


def _decide(
    blocked: str | None,
    fatal: str | None,
    pages: Sequence[PageEntry],
    errors: Sequence[str],
    records: int,
    stats: RunStats,
    history: list[RunStats],
    invalid_emitted: Sequence[InvalidRecord],
    sf: SelectorFile,
) -> Decision:
    if blocked:
        return Decision("blocked", blocked)
    if fatal:
        return Decision("error", fatal)
    if not pages:
        first = errors[0] if errors else ""
        cause = re.search(r"cannot connect to \S+ \([^)]*\)", first)
        if cause:
            why = f"{cause.group(0)}: no page could be fetched (first: {first.split(': ')[0]})"
        else:
            why = "no page could be fetched" + (f": {first}" if first else "")
        return Decision("error", why)
    if records == 0 and looks_empty(pages):
        return Decision(
            "empty-source", "the site answered with its usual pages but listed no records"
        )
    drift, verdict, reason = gate(stats, history, invalid_emitted, records, sf)
    return Decision(verdict, reason, drift)
