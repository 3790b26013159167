"""The verdict of one run, decided from what the run saw: one decision shared by ``run``
(:mod:`~anchorpath.runner.pipeline`, against the store) and ``replay``
(:mod:`~anchorpath.runner.replay.gate`, against the runs it replays), so that a replay of the same
archive with the same selector version reaches the same verdict and the same events.

Pure: the caller gathers what the run saw (:class:`Observed`) and a :class:`Baseline`
provider (store-backed or in memory, read only when the drift gate runs), and acts on the
:class:`Decision` afterwards (commit, quarantine, alert, report). :func:`gone_evidence` is the
one rule for a page that answered 404/410: evidence that its record was withdrawn, or an
error."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.drift.gate import gate
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.model import InvalidRecord
from anchorpath.runner.verdict import Verdict
from anchorpath.selectors.model import SelectorFile

__all__ = ["Baseline", "Decision", "Observed", "decide", "gone_evidence"]


class Baseline(Protocol):
    """The drift baseline of the site at this run: the statistics of its last committed runs,
    oldest first (seeded while young). Store-backed for ``run``, in memory for ``replay``
    (:mod:`anchorpath.runner.drift.gate`)."""

    def history(self) -> list[RunStats]: ...


@dataclass(frozen=True)
class Observed:
    """What a run saw, as the verdict needs it: the wall that stopped it (``blocked``), the
    selector file's own failure (``fatal``), how many pages it read and whether they look
    like an empty site (:func:`~anchorpath.runner.drift.gate.looks_empty`), the failed pages
    (``errors``), how many records it emitted, its statistics, its emitted records that broke
    their schema, and its pages whose declared charset does not fit their bytes."""

    blocked: str | None
    fatal: str | None
    pages: int
    looks_empty: bool
    errors: Sequence[str]
    records: int
    stats: RunStats
    invalid_emitted: Sequence[InvalidRecord]
    charset_notes: Sequence[str] = ()
    #: why the site stops (the rules of collection changed or it refused for good, see
    #: :mod:`anchorpath.runner.policy.judge`); ``run`` only
    stopped: str | None = None


@dataclass(frozen=True)
class Decision:
    """A run's verdict, the one-line reason for any verdict but ``ok``, and the drift gate's
    result when the gate ran."""

    verdict: Verdict
    reason: str | None = None
    drift: DriftResult | None = None


def gone_evidence(sf: SelectorFile, url: str, status: int | None) -> bool:
    """Whether a page that answered ``status`` is evidence that its record was withdrawn:
    a 404/410 of any page but a listing (a page type with a record root), however the crawl
    reached it (a start URL, a followed link, ``--url``). A gone listing is an error: it says
    nothing about the records it used to list."""
    if status not in (404, 410):
        return False
    pt = sf.page_type_for(url)
    return pt is None or not pt.record_root


def decide(seen: Observed, baseline: Baseline, sf: SelectorFile) -> Decision:
    """In order: a stop (``stopped``), a refusal (``blocked``), a selector file at fault
    (``fatal``, an ``error``), no page at all (``error``), a site that listed nothing but
    looked as usual (``empty-source``); otherwise the drift gate's ``ok`` or ``drift``
    against ``baseline.history()``. Charset notes are named first in the reason of a
    ``drift`` or ``error``: garbled values fail their schema because of the encoding."""
    if seen.stopped:
        return Decision("stopped", seen.stopped)
    decision = _decide(seen, baseline, sf)
    notes = seen.charset_notes
    if notes and decision.verdict in ("drift", "error"):
        reason = f"charset mismatch on {len(notes)} page(s) ({notes[0]}); {decision.reason or ''}"
        return replace(decision, reason=reason.rstrip("; "))
    return decision


def _decide(seen: Observed, baseline: Baseline, sf: SelectorFile) -> Decision:
    if seen.blocked:
        return Decision("blocked", seen.blocked)
    if seen.fatal:
        return Decision("error", seen.fatal)
    if not seen.pages:
        first = seen.errors[0] if seen.errors else ""
        cause = re.search(r"cannot connect to \S+ \([^)]*\)", first)
        if cause:
            why = f"{cause.group(0)}: no page could be fetched (first: {first.split(': ')[0]})"
        else:
            why = "no page could be fetched" + (f": {first}" if first else "")
        return Decision("error", why)
    if seen.records == 0 and seen.looks_empty:
        return Decision(
            "empty-source", "the site answered with its usual pages but listed no records"
        )
    drift, verdict, reason = gate(
        seen.stats, baseline.history(), seen.invalid_emitted, seen.records, sf
    )
    return Decision(verdict, reason, drift)
