"""The drift gate as one run uses it: validation, field statistics, baseline, check.

:mod:`anchorpath.runner.drift.check` holds the statistics and the test; this module feeds it one
run's records and pages, builds the rolling baseline from the store's committed runs (seeded
from the selector file's fixtures or the fields' examples while it is young) and adds what only
the run knows: schema validation (the invalid share's Wilson lower bound above
:data:`INVALID_SHARE_DRIFT` is drift), pages that matched no page type, and page types whose
pages gave no records where the baseline had some — never ``ok``, never a baseline.

The gate imports its parts directly: a broken drift module fails the run, never passes it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from anchorpath._untrusted import MAX_PAGE_BYTES, loads_json, read_capped
from anchorpath.runner.drift.check import (
    BASELINE_WINDOW,
    DriftResult,
    baseline_window,
    check_drift,
    needs_seed,
    seed_baseline,
)
from anchorpath.runner.drift.stats import RunStats, TextFacts, field_stats, merge_stats
from anchorpath.runner.drift.validate import RecordValidator
from anchorpath.runner.model import InvalidRecord, PageEntry, RecordEntry
from anchorpath.runner.store.database import RunRow, Store
from anchorpath.runner.verdict import COMMITTED, DriftVerdict
from anchorpath.selectors.evaluate import PageResult
from anchorpath.selectors.load import fixture_path
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "INVALID_SHARE_DRIFT",
    "ChecksAhead",
    "RollingBaseline",
    "StoreBaseline",
    "add_validation_evidence",
    "baseline",
    "check",
    "committed_history",
    "fixture_records",
    "gate",
    "looks_empty",
    "page_result",
    "run_stats",
    "seed_for",
    "stats_of",
    "validate_records",
    "wilson_lower",
]

#: Share of emitted records breaking their schema above which the run counts as drift: the
#: lower bound of the share's 95 % Wilson interval must exceed it, so a small run needs more
#: than one invalid record in three before this decides alone (1 of 3: bound 0.06; 2 of 2:
#: 0.34; 1 of 1: 0.21; 3 of 20: 0.05; 5 of 20: 0.11).
INVALID_SHARE_DRIFT = 0.10
_WILSON_Z = 1.96


def page_result(p: PageEntry) -> PageResult:
    """The drift-relevant part of a page, rebuilt from the checkpoint."""
    return PageResult(
        p.url,
        p.page_type,
        (),
        record_root_count=p.record_root_count,
        anchors_present=dict(p.anchors_present),
    )


class ChecksAhead:
    """A run's records validated, and their texts read for the statistics
    (:class:`~anchorpath.runner.drift.stats.TextFacts`), page by page while the run is
    crawled: the crawl waits for its origin's next turn anyway, and what is left for
    :func:`validate_records` and :func:`run_stats` after the last page is then small (in
    ``run --all`` the sites of a worker end together and this work queued behind the GIL).
    The results are the same as without it."""

    def __init__(self, validator: RecordValidator) -> None:
        self.validator = validator
        self.facts = TextFacts()
        #: the problems of the records read so far (a prefix of the run's records)
        self.problems: list[tuple[str, ...]] = []

    def add(self, records: Sequence[RecordEntry]) -> None:
        """Read the records of ``records`` past those read before (the run's records are
        only ever appended to)."""
        for r in records[len(self.problems) :]:
            self.problems.append((*self.validator.problems(r.page_type, r.values), *r.problems))
            self.facts.add(r.values.values())


def validate_records(
    validator: RecordValidator,
    records: Sequence[RecordEntry],
    ahead: ChecksAhead | None = None,
) -> tuple[list[InvalidRecord], set[int]]:
    """Every record against its page type's schema: the invalid records (with their schema
    problems) and their indices in ``records``. ``ahead`` holds the records validated during
    the crawl (with ``validator``)."""
    invalid: list[InvalidRecord] = []
    bad: set[int] = set()
    if ahead is not None:
        ahead.add(records)
        problems = ahead.problems
    else:
        problems = [(*validator.problems(r.page_type, r.values), *r.problems) for r in records]
    for i, (r, probs) in enumerate(zip(records, problems, strict=False)):
        if probs:
            bad.add(i)
            invalid.append(InvalidRecord(r, probs))
    return invalid, bad


def run_stats(
    sf: SelectorFile,
    records: Sequence[RecordEntry],
    pages: list[PageResult],
    known: TextFacts | None = None,
) -> RunStats:
    """The run's field statistics (``known``: texts read during the crawl)."""
    parts = []
    for name, pt in sf.page_types.items():
        own = [r for r in records if r.page_type == name]
        recs = [r.values for r in own]
        # which values are also the page's nav/header/footer text (None: not recorded)
        marks = [r.template for r in own]
        template = [m for m in marks if m is not None] if None not in marks else None
        if recs or any(p.page_type == name for p in pages):
            parts.append(field_stats(recs, pt, pages, template, known))
    stats = merge_stats(parts)
    stats.total_pages = len(pages)
    stats.unmatched_pages = sum(1 for p in pages if p.page_type is None)
    return stats


def committed_history(store: Store, sf: SelectorFile) -> list[RunStats]:
    """The statistics of the site's last committed runs, oldest first."""
    rows = reversed(store.runs(sf.site.id, verdicts=COMMITTED, limit=BASELINE_WINDOW))
    return [s for s in map(stats_of, rows) if s is not None]


def stats_of(run: RunRow) -> RunStats | None:
    """A committed run's statistics as the baseline reads them (``reviewed`` when a person
    accepted the run), or None when it has none."""
    if not isinstance(run.stats, dict):
        return None
    stats = RunStats.from_dict(run.stats)
    stats.reviewed = stats.reviewed or run.verdict == "accepted"
    return stats


def seed_for(sf: SelectorFile, sf_path: Path) -> list[RunStats]:
    """The seed of the site's baseline: pure (the selector file and its fixtures), so it can be
    computed ahead, while the run crawls (see :func:`baseline`)."""
    return seed_baseline(sf, fixture_records(sf, sf_path))


def baseline(
    store: Store,
    sf: SelectorFile,
    sf_path: Path,
    seed: Callable[[], list[RunStats]] | None = None,
) -> list[RunStats]:
    """The statistics of the last committed runs, oldest first; seeded from the fixtures (or
    the fields' examples) while fewer than three exist or they are still young
    (:func:`~anchorpath.runner.drift.check.is_young`). ``seed`` gives :func:`seed_for` of the
    site when it was computed ahead."""
    real = committed_history(store, sf)
    if not needs_seed(real):
        return baseline_window([], real)
    return baseline_window(seed() if seed is not None else seed_for(sf, sf_path), real)


class StoreBaseline:
    """The baseline of a run against the store (:func:`baseline`), read once, when first
    asked (a run stopped before the gate may never need it; its report reads it after)."""

    def __init__(
        self,
        store: Store,
        sf: SelectorFile,
        sf_path: Path,
        seed: Callable[[], list[RunStats]] | None = None,
    ) -> None:
        self.store, self.sf, self.sf_path, self.seed = store, sf, sf_path, seed
        self._history: list[RunStats] | None = None

    def history(self) -> list[RunStats]:
        if self._history is None:
            self._history = baseline(self.store, self.sf, self.sf_path, self.seed)
        return self._history


class RollingBaseline:
    """The baseline of runs committed one after another by this process (``replay``): the
    statistics of the last committed runs kept in memory (:meth:`add` after each commit), so
    that the gate reads no database; the same history :func:`baseline` would read from the
    store at that point. The seed from the fixtures is computed once, when first needed."""

    def __init__(self, sf: SelectorFile, sf_path: Path, committed: Sequence[RunStats | None]):
        self.sf, self.sf_path = sf, sf_path
        #: oldest first; None: a committed run without statistics
        self.committed: list[RunStats | None] = list(committed)[-BASELINE_WINDOW:]
        self._seed: list[RunStats] | None = None

    @classmethod
    def from_store(cls, store: Store, sf: SelectorFile, sf_path: Path) -> RollingBaseline:
        """Start from the committed runs ``store`` holds."""
        rows = store.runs(sf.site.id, verdicts=COMMITTED, limit=BASELINE_WINDOW)
        return cls(sf, sf_path, [stats_of(r) for r in reversed(rows)])

    def add(self, stats: RunStats | None) -> None:
        """A run was committed with these statistics (as :func:`stats_of` reads them from the
        store; None: a committed run without statistics)."""
        self.committed.append(stats)
        del self.committed[:-BASELINE_WINDOW]

    def history(self) -> list[RunStats]:
        real = [s for s in self.committed if s is not None]
        if not needs_seed(real):
            return baseline_window([], real)
        if self._seed is None:
            self._seed = seed_for(self.sf, self.sf_path)
        return baseline_window(self._seed, real)


def check(stats: RunStats, history: list[RunStats]) -> DriftResult:
    """:func:`~anchorpath.runner.drift.check.check_drift` of the run against ``history``."""
    return check_drift(stats, history)


def add_validation_evidence(
    drift_obj: DriftResult, invalid: Sequence[InvalidRecord], records: int, sf: SelectorFile
) -> DriftResult:
    """Mark the run as drift, naming each field with schema problems and how many of the
    ``records`` emitted records broke it."""
    # Name fields as the drift gate does: ``page_type.field`` when several page types ran.
    qualify = len({r.record.page_type for r in invalid}) > 1 or len(sf.page_types) > 1
    by_field: dict[str, int] = {}
    for r in invalid:
        for p in r.schema_problems:
            name = p.split(":", 1)[0]
            name = f"{r.record.page_type}.{name}" if qualify else name
            by_field[name] = by_field.get(name, 0) + 1
    for name, n in sorted(by_field.items()):
        drift_obj.fields.setdefault(name, []).append(f"schema: {n} of {records} records invalid")
    drift_obj.verdict = "drift"
    return drift_obj


def gate(
    stats: RunStats,
    history: list[RunStats],
    invalid_emitted: Sequence[InvalidRecord],
    records: int,
    sf: SelectorFile,
) -> tuple[DriftResult, DriftVerdict, str | None]:
    """The gate's decision on a run that listed records (or looked broken), given the
    baseline ``history``: the drift result, ``ok`` or ``drift``, and for drift the one-line
    reason."""
    drift_obj = check(stats, history)
    if records and wilson_lower(len(invalid_emitted), records) > INVALID_SHARE_DRIFT:
        drift_obj = add_validation_evidence(drift_obj, invalid_emitted, records, sf)
    elif invalid_emitted and drift_obj.verdict == "drift":
        # not decisive alone, but part of the picture of a run that drifted anyway
        drift_obj = add_validation_evidence(drift_obj, invalid_emitted, records, sf)
    if stats.total_pages and stats.unmatched_pages == stats.total_pages:
        drift_obj.verdict = "drift"
        drift_obj.structural.insert(
            0, f"no page type matched any of the {stats.total_pages} fetched page(s)"
        )
    else:
        for name in _dried_up(stats, history):
            drift_obj.verdict = "drift"
            line = f"page type {name!r} yielded no records (baseline had some)"
            if line not in drift_obj.structural:
                drift_obj.structural.insert(0, line)
    if drift_obj.verdict != "drift":
        return drift_obj, "ok", None
    if not drift_obj.fields and drift_obj.structural:
        return drift_obj, "drift", drift_obj.structural[0]
    names = sorted(drift_obj.fields) or ["page structure"]
    more = f" and {len(names) - 6} more" if len(names) > 6 else ""
    reason = f"{len(names)} field(s) off the baseline: " + (", ".join(names[:6]) + more)
    return drift_obj, "drift", reason


def wilson_lower(k: int, n: int, z: float = _WILSON_Z) -> float:
    """Lower bound of the Wilson score interval of the share ``k/n``."""
    if n <= 0:
        return 0.0
    p = k / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, (centre - margin) / (1 + z * z / n))


def _dried_up(stats: RunStats, history: list[RunStats]) -> list[str]:
    """Page types whose pages were fetched this run but gave no records, where a baseline run
    (or the fixtures, or the fields' examples) had records of them."""
    out = []
    for name, pt in stats.page_types.items():
        before = [run.page_types[name] for run in history if name in run.page_types]
        if pt.pages and not pt.records and any(b.records for b in before):
            out.append(name)
    return out


def looks_empty(pages: Sequence[PageEntry]) -> bool:
    """No records, yet every page matched a page type and showed all its anchor labels:
    the site is empty, the selectors are not broken. Without anchors to check, an empty
    result is left to the drift gate (which will call a collapsed record root drift)."""
    if any(p.page_type is None for p in pages):
        return False
    anchors = [v for p in pages for v in p.anchors_present.values()]
    return bool(anchors) and all(anchors)


def fixture_records(sf: SelectorFile, sf_path: Path) -> list[dict[str, Any]]:
    """Expected records of the selector file's fixtures (files relative to the selector file)."""
    out: list[dict[str, Any]] = []
    for fx in sf.fixtures:
        if not fx.records:
            continue
        try:
            path = fixture_path(sf_path, fx.records)
            data = loads_json(read_capped(path, MAX_PAGE_BYTES, regular=True).decode("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            data = data.get("records", [])
        if isinstance(data, list):
            out += [d for d in data if isinstance(d, dict)]
    return out
