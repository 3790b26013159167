"""The drift gate: is this run's output still what the selectors were written for?

Pure (no I/O). A run is summarised by :func:`~anchorpath.runner.drift.stats.field_stats` into a
:class:`~anchorpath.runner.drift.stats.RunStats` and compared with a rolling baseline of accepted
runs by :func:`check_drift`. The baseline is not kept anywhere but the store: the gate
(:func:`anchorpath.runner.drift.gate.baseline`) rebuilds it from the last committed runs each
time. :func:`seed_baseline` builds the first baseline from the selector file's fixtures.

The model (after RAPTURE, Kushmerick 1999, and Lerman, Minton & Knoblock 2003)
----------------------------------------------------------------------------------
Content changes every day, so the gate never asks "is it the same as yesterday?". It asks "how
likely is this run's *shape* of data under the distribution of shapes seen in accepted runs?".

Per field and run we keep features of the extracted values (over the records of one page type):

==================  ===================================================  ====================
feature             definition                                           model
==================  ===================================================  ====================
``empty``           share of records where the field is null/empty       binomial (two-sided)
``length``          mean string length, on a log scale ``ln(1+mean)``    normal (two-sided)
``spread``          standard deviation of length, ``ln(1+sd)``           normal (two-sided)
``numeric``         share of filled values that are numbers              binomial (two-sided)
``date``            share of filled values that parse as dates           binomial (two-sided)
``distinct``        distinct filled values / filled values, every run    binomial (two-sided)
                    rarefied to the smallest sample first (see below)
``shape``           share of values whose token-shape signature was      binomial (one-sided:
                    seen in the baseline (RAPTURE's pattern check)       only drops count)
``pattern``         share of values matching the field's ``pattern``     binomial (one-sided)
``value``           categorical fields (≤ 30 distinct values, ≤ half     binomial (one-sided)
                    the values, not dates or numbers): share of values
                    seen in the baseline
==================  ===================================================  ====================

A *token-shape signature* maps every character to its class (``A`` upper case, ``a`` lower case,
``9`` digit, ``H`` Hangul/CJK, ``L`` other letters, punctuation kept literally), collapses
repeats, and keeps the first three white-space separated tokens: ``수1402-1-ND`` → ``H9-9-A``,
``2024-03-04`` → ``9-9-9``, ``The Old Man and`` → ``Aa Aa Aa…``. The expected conformance of a
fresh run is estimated from the baseline Witten-Bell style (1 − D/(N+D), D distinct signatures
among N values), so free text with many shapes is not held to the standard of a registration
number. Values are kept as 48-bit hashes (top 40 per field), never as text; the same
Witten-Bell estimate gives the expected share of already-seen values of a categorical field (a
status column that suddenly holds country names fails it even though both are capitalised
words).

The distinct ratio falls as a sample grows (values start to repeat): a seed of 6 fixture records
is nearly all distinct, a run of 64 is not. So every run's ratio is rarefied (Hurlbert 1971:
the expected distinct count of ``m`` values drawn without replacement) to the smallest sample
size among this run and the baseline before the test; without it the demo's first run failed
against a fixture seed of a few detail pages (distinct-ratio "drift" on every categorical
detail field).

Each feature is compared with the baseline window by a z-score whose variance is the sum of
(a) the between-run variance of the feature over the window, (b) the sampling variance of this
run's estimate (``p(1-p)/n`` for shares, ``(cv²)/n`` for log mean lengths) and (c) a *variance
floor* ``τ²`` per feature (τ = 0.08 for shares, 0.15 for ``distinct`` and ``value``, 0.35 for
``length``, 0.6 for ``spread``). The floor is what lets normal churn pass when the window is
short (a baseline seeded from one fixture has no between-run variance at all); shares are smoothed
(``(x+0.5)/(n+1)``) so a feature that was always 0 or 1 still has a finite variance. The tail
probability ``p`` of the z-score (two- or one-sided as above) is the feature's evidence.

A field's p-value combines its features two ways and keeps the stronger: Bonferroni
(``m · min p``) for one glaring change, Fisher (``-2 Σ ln p ~ χ²(2m)``) for several moderate
ones. The field's **score** is ``-log10`` of that p-value; the run's score is the highest field
score. The verdict is ``drift`` when any field scores at least :data:`DRIFT_THRESHOLD`
(default 2.5, i.e. p ≤ 0.003 — a recall-leaning threshold: a missed break ships wrong data,
a false alarm costs a glance).

Structural signals weigh heavily; they are not averaged away with the value features:

* an anchor label (``FieldSpec.anchor`` of kind ``label-text``) present on ≥ 80 % of the
  baseline's pages but on at most half of this run's pages scores :data:`HARD_SCORE` for its
  field once the field's values corroborate it (value score ≥ 1, or mostly empty); with values
  that still look normal (a fallback XPath carrying the field) it adds 2 to the field's score —
  a 100:1 likelihood ratio, so any mild value evidence tips the verdict (a partial loss is a
  binomial test on the presence share);
* record-root collapse — the mean record-root match count per page falls below a quarter of the
  baseline's or most pages match none — scores :data:`HARD_SCORE` for every field of the page
  type (a record-root count growing fourfold likewise: the root now matches the wrong nodes);
* a field that is empty on every record of this run while every baseline run had it on ≥ 90 %
  of its records ("field vanished") scores :data:`HARD_SCORE` — the binomial test alone cannot
  see this on one-record-per-page types, and it is the classic selector break;
* a page type with no records at all where the baseline had some, and a jump in the share of
  pages matching no page type, are reported in ``structural`` with :data:`HARD_SCORE`;
* **zero churn** — a field that held one and the same text on every record of every baseline
  run is template text, not content (a menu entry, a tab label, a heading): an *implicit
  anchor*. When more than half of this run's values are other text, the field scores
  ``(CONSTANT_SCORE + log10 N) · min(1, 2ν)``: N agreeing baseline records (one per run on
  a single-record page type, so the weight grows with the runs that agree), ν the share of
  the text that is new — 1 minus the Jaccard similarity of the case-folded word tokens and
  of the character bigrams (digit runs read as ``0``), whichever is more similar. Other text
  in its place (``Find a Store`` → ``Apple Music``, ``亚马逊`` → ``当当``: ν ≈ 1) is drift on its
  own from a single agreeing observation (:data:`CONSTANT_SCORE` is the threshold); a copy
  edit of the same text (``Hello. Sign in`` → ``Hello, Sign in``, a version bump
  ``4.0`` → ``6.0``: ν < ½) is scaled down in proportion. Numbers and dates are exempt (they
  move on by nature), and a field declared as the value beside a label (a ``label-text``
  anchor) whose label is still on the page gets :data:`ANCHOR_WEIGHT` taken off — the mirror
  of a lost label: the author declared that text content, and the template around it held.

What real redesigns did (``bench/drift_real.py``, news sites 2005 → 2017) adds four signals:

* **template text added** — most of this run's values (≥ 3 and more than half of the distinct
  ones) share a token prefix or suffix that no baseline run's values shared (a site name
  appended to every headline read from ``<title>``): ``CONSTANT_SCORE + log10 k``
  (:func:`~anchorpath.runner.drift.features.affix_test`);
* **boilerplate** — a field whose baseline values were all different repeats one value on
  most records ("Share this on:" on every article): the same score
  (:func:`~anchorpath.runner.drift.features.boilerplate_test`); shared by only two records,
  either adds :data:`ANCHOR_WEIGHT` to the field's other evidence instead;
* **shape distance** — the character-class profile (digit, punctuation, upper-case shares) as
  a χ²(3) feature beside mean length and token shapes;
* **template values** — the share of values that are the text of the page's navigation,
  header or footer and of nothing in the content
  (:mod:`anchorpath.runner.drift.template`), a one-sided share test.

**Young baselines.** Fewer than :data:`MIN_BASELINE_RUNS` real runs or
:data:`MIN_BASELINE_RECORDS` records of a field cannot estimate its statistics: the statistical
features are then compared with the seeded pseudo-run — the selector file's fixtures, or the
fields' ``examples`` (:func:`seed_baseline`) — or, with neither, count as evidence only
(capped at :data:`YOUNG_CAP`). Share and length tests also carry the baseline estimate's own
sampling variance, so a seed of three examples is held loosely. Zero churn needs either two
agreeing baseline records or the same page (URL) seen before: one value seen on another page
says nothing about template text.

**Accepted runs widen, never narrow.** A run a person accepted (``anchorpath accept``) says
"this too is normal". In a young baseline it outranks the seed, so the next run like it is
``ok``; but the seed and the runs the gate passed stay normal as well. While the seed is still
in the window and a person accepted a run of it, the run is therefore judged twice: against the
window without the seed (the accepted runs as the reference) and, when that alarms, against the
window without the accepted runs (the baseline as it was before anyone accepted). It is ``ok``
when either passes it: an accept never makes the gate alarm on a run the baseline before the
accept would have passed.

Why a policy score rather than a p-value for zero churn: with one value per run and a few runs,
no frequency test can call a new value unlikely (after k unchanged runs, the rule of
succession gives the next run a 1/(k+2) chance of change: p ≈ 0.17 at k = 4). Every break the
value features missed on webevo was of this kind. The price is paid by page types with one
record per run whose *content* stays put for days and then changes (a site notice rewritten
every ten days, a status without a label anchor): the first such change is flagged. On pages
with many records per run it cannot fire unless most records change at once.

Evidence lines name what moved and by how much; they do not repeat the field name (the key of
:attr:`DriftResult.fields` carries it), so reports print ``field: evidence`` once.

A baseline run that lacks a feature (a seeded baseline has no page-level signals) simply does
not vote on it. With no baseline at all the verdict is ``ok`` with a note: nothing to compare.
Telling an empty source (the site has no records) from a broken record root is the pipeline's
call (verdict ``empty-source``), made before the gate.

Code layout: the statistics of one run are in :mod:`anchorpath.runner.drift.stats`, the
feature tests (and the zero-churn test) in :mod:`anchorpath.runner.drift.features`; this module
holds the thresholds, the verdict and the baseline window. The gate one run passes through is
:mod:`anchorpath.runner.drift.gate`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anchorpath.runner.drift.features import (
    FEATURE_LABELS,
    affix_test,
    boilerplate_test,
    constant_test,
    field_features,
    fisher,
    log_test,
    score_of,
    share_test,
)
from anchorpath.runner.drift.stats import (
    FieldStats,
    PageTypeStats,
    RunStats,
    field_stats,
    merge_stats,
)
from anchorpath.runner.verdict import DriftVerdict
from anchorpath.selectors.model import PageType, SelectorFile

__all__ = [
    "BASELINE_WINDOW",
    "DRIFT_THRESHOLD",
    "HARD_SCORE",
    "MIN_BASELINE_RECORDS",
    "MIN_BASELINE_RUNS",
    "DriftResult",
    "baseline_window",
    "check_drift",
    "example_seed",
    "is_young",
    "needs_seed",
    "seed_baseline",
]

#: Accepted runs kept in the drift gate's rolling baseline.
BASELINE_WINDOW = 14
#: A field (or structural signal) scoring at least this (-log10 p) makes the run ``drift``.
DRIFT_THRESHOLD = 2.5
#: Score given to structural breaks (anchor label gone, record-root collapse).
HARD_SCORE = 12.0
#: A lost anchor label is decisive (HARD_SCORE) once the field's values corroborate it with at
#: least this score (or the field is mostly empty); otherwise it adds ANCHOR_WEIGHT (a 100:1
#: likelihood ratio) to the field's score.
ANCHOR_CORROBORATION = 1.0
ANCHOR_WEIGHT = 2.0
#: Score of a zero-churn field whose text was replaced (one baseline observation, text wholly
#: new): the drift threshold itself, so such a field is drift on its own; log10 of the number of
#: agreeing baseline records is added, and a copy edit (under half the text new) is scaled down.
CONSTANT_SCORE = DRIFT_THRESHOLD
#: Features scoring at least this are listed as evidence even when the field passes.
EVIDENCE_SCORE = 1.5
#: A baseline of fewer real (not seeded) runs than this, or fewer records of the field than
#: :data:`MIN_BASELINE_RECORDS`, is *young*: its statistics are not trusted to decide. The
#: statistical features are then compared with the selector file's fixtures or examples (the
#: seeded pseudo-run) instead, or, without those, count as evidence only (capped at
#: :data:`YOUNG_CAP`).
MIN_BASELINE_RUNS = 2
MIN_BASELINE_RECORDS = 6
YOUNG_CAP = ANCHOR_WEIGHT


# ----------------------------------------------------------------------------------------------
# the verdict


@dataclass
class DriftResult:
    """The gate's verdict.

    ``fields`` maps each drifting field to its evidence lines (field names are qualified as
    ``page_type.field`` when the run has several page types; the lines themselves do not repeat
    the name); ``field_scores`` has every field's score; ``structural`` lists page-level
    evidence (record roots, unmatched pages).
    """

    verdict: DriftVerdict
    score: float
    fields: dict[str, list[str]] = field(default_factory=dict)
    field_scores: dict[str, float] = field(default_factory=dict)
    structural: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    threshold: float = DRIFT_THRESHOLD
    baseline_runs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "score": round(self.score, 3),
            "threshold": self.threshold,
            "baseline_runs": self.baseline_runs,
            "fields": {k: list(v) for k, v in self.fields.items()},
            "field_scores": {k: round(v, 3) for k, v in self.field_scores.items()},
            "structural": list(self.structural),
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DriftResult:
        return cls(
            verdict="drift" if d.get("verdict") == "drift" else "ok",
            score=d.get("score", 0.0),
            fields={k: list(v) for k, v in d.get("fields", {}).items()},
            field_scores=dict(d.get("field_scores", {})),
            structural=list(d.get("structural", [])),
            notes=list(d.get("notes", [])),
            threshold=d.get("threshold", DRIFT_THRESHOLD),
            baseline_runs=d.get("baseline_runs", 0),
        )


def _structural(
    name: str, cur: PageTypeStats, base: Sequence[PageTypeStats]
) -> tuple[float, list[str]]:
    """Record-root and record-count signals of one page type: (score, evidence)."""
    evidence: list[str] = []
    score = 0.0
    with_roots = [b for b in base if b.root_pages and b.root_total]
    if cur.root_pages and with_roots:
        base_mean = sum(b.root_total / b.root_pages for b in with_roots) / len(with_roots)
        mean = cur.root_total / cur.root_pages
        zero_share = cur.root_zero / cur.root_pages
        base_zero = sum(b.root_zero / b.root_pages for b in with_roots) / len(with_roots)
        if mean < 0.25 * base_mean or (zero_share >= 0.5 and base_zero < 0.2):
            score = HARD_SCORE
            evidence.append(
                f"record root of {name!r} collapsed: {mean:.1f} matches per page "
                f"(baseline {base_mean:.1f}), {cur.root_zero}/{cur.root_pages} pages match none"
            )
        elif mean > 4 * base_mean and base_mean >= 1:
            score = HARD_SCORE
            evidence.append(
                f"record root of {name!r} exploded: {mean:.1f} matches per page "
                f"(baseline {base_mean:.1f}); it now matches other nodes"
            )
        else:
            feat = log_test(
                "roots",
                mean,
                cur.root_pages,
                0.5,
                [b.root_total / b.root_pages for b in with_roots],
            )
            if feat is not None and feat.score >= EVIDENCE_SCORE:
                score = feat.score
                evidence.append(f"record-root matches per page {feat.shown}")
    if cur.records == 0 and any(b.records for b in base):
        score = HARD_SCORE
        evidence.append(f"page type {name!r} yielded no records (baseline had some)")
    return score, evidence


def check_drift(
    stats: RunStats, baseline: list[RunStats], *, threshold: float = DRIFT_THRESHOLD
) -> DriftResult:
    """Score this run against the baseline window; see the module docstring for the model
    (and for why a window holding both the seed and an accepted run is judged twice)."""
    if not (any(b.seeded for b in baseline) and any(b.reviewed for b in baseline)):
        return _check_window(stats, baseline, threshold)
    # The accepted runs outrank the seed: the next run like them is ok.
    accepted = _check_window(stats, [b for b in baseline if not b.seeded], threshold)
    if accepted.verdict == "ok":
        return accepted
    # Accepting only widens: the baseline as it was before anyone accepted still passes a run.
    before = _check_window(stats, [b for b in baseline if not b.reviewed], threshold)
    if before.verdict != "ok":
        return accepted
    before.notes.append(
        "off the run(s) a person accepted, but ok against the baseline before the accept "
        f"(score {accepted.score:.1f} against the accepted runs): an accept only widens the "
        "baseline"
    )
    return before


def _check_window(stats: RunStats, baseline: list[RunStats], threshold: float) -> DriftResult:
    """:func:`check_drift` of the run against one window, as it is."""
    result = DriftResult("ok", 0.0, threshold=threshold, baseline_runs=len(baseline))
    if not baseline:
        result.notes.append("no baseline yet: nothing to compare, run accepted as the first")
        return result
    qualify = len(stats.page_types) > 1
    young_reviewed: list[str] = []  # young baseline: statistics against the accepted runs
    young_seeded: list[str] = []  # young baseline: statistics against the fixtures/examples
    young_alone: list[str] = []  # young baseline, nothing seeded: statistics are evidence only
    for pt_name, cur in stats.page_types.items():
        base_pts = [b.page_types[pt_name] for b in baseline if pt_name in b.page_types]
        if not base_pts:
            result.notes.append(f"page type {pt_name!r} has no baseline yet")
            continue
        if cur.pages == 0 and cur.records == 0:
            # No page of this type was visited (say, no detail page needed a visit today):
            # absence of evidence, not a broken selector.
            result.notes.append(f"page type {pt_name!r}: no pages this run, not judged")
            continue
        s_score, s_evidence = _structural(pt_name, cur, base_pts)
        result.structural += s_evidence
        # Did the baseline see any of this run's pages? (unknown: runs stored before)
        seen_keys = {k for b in base_pts for k in b.page_keys}
        same_pages = not seen_keys or not cur.page_keys or bool(seen_keys & set(cur.page_keys))
        for fname, fcur in cur.fields.items():
            key = f"{pt_name}.{fname}" if qualify else fname
            runs = [
                (b, b.page_types[pt_name].fields[fname])
                for b in baseline
                if pt_name in b.page_types and fname in b.page_types[pt_name].fields
            ]
            fbase = [f for _, f in runs]
            if not fbase:
                result.notes.append(f"field {key!r} has no baseline yet")
                continue
            real = [f for b, f in runs if not b.seeded]
            seeds = [f for b, f in runs if b.seeded]
            reviewed = [f for b, f in runs if b.reviewed]
            stat_base, cap = fbase, None
            if len(real) < MIN_BASELINE_RUNS or sum(b.count for b in real) < MIN_BASELINE_RECORDS:
                if reviewed:
                    stat_base = reviewed
                    young_reviewed.append(key)
                elif seeds:
                    stat_base = seeds
                    young_seeded.append(key)
                else:
                    cap = YOUNG_CAP
                    young_alone.append(key)
            score, evidence = _field_score(fcur, fbase, stat_base, cap)
            score = _weigh_constant(fcur, fbase, score, evidence, same_pages, key, result.notes)
            score = _weigh_anchor(fcur, fbase, score, evidence)
            if s_score >= threshold:
                score = max(score, s_score)
                evidence = [*s_evidence, *evidence]
            score = _weigh_vanished(fcur, fbase, score, evidence)
            result.field_scores[key] = score
            if score >= threshold:
                result.fields[key] = evidence or [f"combined score {score:.1f}"]
        result.score = max(result.score, s_score)
    real_runs = sum(1 for b in baseline if not b.seeded)
    result.notes += _young_notes(real_runs, young_reviewed, young_seeded, young_alone)
    _weigh_unmatched_pages(stats, baseline, threshold, result)
    if result.field_scores:
        result.score = max(result.score, *result.field_scores.values())
    if result.fields or result.score >= threshold:
        result.verdict = "drift"
    return result


def _young_notes(
    real_runs: int, reviewed: Sequence[str], seeded: Sequence[str], alone: Sequence[str]
) -> list[str]:
    """What a young baseline compared each field with: the runs a person accepted, the
    fixtures or examples, or nothing (its statistics then count as evidence only)."""
    young = f"baseline too young for statistics ({real_runs} run(s))"
    out = []
    if reviewed:
        out.append(
            f"{young}: {len(reviewed)} field(s) compared with the run(s) a person accepted instead"
        )
    if seeded:
        out.append(
            f"{young}: {len(seeded)} field(s) compared with the selector file's fixtures or "
            "examples instead"
        )
    if alone:
        out.append(
            f"{young}, no fixtures or examples: the statistics of {len(alone)} field(s) count "
            "as evidence only"
        )
    return out


def _field_score(
    fcur: FieldStats,
    fbase: list[FieldStats],
    stat_base: list[FieldStats],
    cap: float | None,
) -> tuple[float, list[str]]:
    """One field's score and the evidence lines behind it: the feature tests against
    ``stat_base`` combined (capped at ``cap`` for a young baseline without seed), then the
    template-text and boilerplate tests against the whole baseline ``fbase``."""
    evidence: list[str] = []
    feats = field_features(fcur, stat_base)
    ps = [f.p for f in feats]
    p_field = min(1.0, len(ps) * min(ps), fisher(ps)) if ps else 1.0
    score = score_of(p_field)
    if cap is not None:
        score = min(score, cap)
    for f in sorted(feats, key=lambda f: -f.score):
        if f.score >= EVIDENCE_SCORE:
            evidence.append(f"{FEATURE_LABELS[f.name]} {f.shown} (p={f.p:.1e})")
    # template text added to every value, and a diverse field collapsing to one value
    for test in (affix_test, boilerplate_test):
        found = test(fcur, fbase, CONSTANT_SCORE, ANCHOR_WEIGHT)
        if found is not None:
            t_score, t_line, weighed = found
            evidence.insert(0, t_line)
            # shared by two records only: a 100:1 weight on the field's other evidence
            score = score + t_score if weighed else max(score, t_score)
    return score, evidence


def _weigh_constant(
    fcur: FieldStats,
    fbase: list[FieldStats],
    score: float,
    evidence: list[str],
    same_pages: bool,
    key: str,
    notes: list[str],
) -> float:
    """Zero churn: the field's text never varied in the baseline and now did. One baseline
    value seen on another page says nothing about template text (``same_pages`` False)."""
    constant = constant_test(fcur, fbase, CONSTANT_SCORE)
    if constant is None:
        return score
    if sum(b.filled for b in fbase) < 2 and not same_pages:
        notes.append(
            f"field {key!r}: text differs from the one baseline value, seen on another page: "
            "not taken for replaced template text"
        )
        return score
    c_score, c_line = constant
    if fcur.anchor_pages and fcur.anchor_present > 0.5 * fcur.anchor_pages:
        # The field is declared as the value beside a label, and the label is still there:
        # the text under it is content by declaration. The mirror of a lost label: the same
        # 100:1 weight, now against drift.
        c_score = max(0.0, c_score - ANCHOR_WEIGHT)
        c_line += "; its anchor label is still in place (weighed down)"
    if c_score >= EVIDENCE_SCORE:
        evidence.insert(0, c_line)
    return max(score, c_score)


def _weigh_anchor(
    fcur: FieldStats, fbase: list[FieldStats], score: float, evidence: list[str]
) -> float:
    """The anchor label: structural, weighs heavily."""
    anchored = [b for b in fbase if b.anchor_pages]
    if not (fcur.anchor_pages and anchored):
        return score
    base_share = sum(b.anchor_present / b.anchor_pages for b in anchored) / len(anchored)
    share = fcur.anchor_present / fcur.anchor_pages
    if base_share >= 0.8 and share <= 0.5:
        line = (
            f"anchor label missing on {fcur.anchor_pages - fcur.anchor_present}"
            f"/{fcur.anchor_pages} pages (baseline present on {base_share:.0%})"
        )
        if score >= ANCHOR_CORROBORATION or fcur.empty_ratio >= 0.5:
            score = max(score, HARD_SCORE)
        else:
            # The values still look like the baseline (a fallback XPath, or an XPath that
            # never needed the label): heavy evidence, not a verdict.
            score += ANCHOR_WEIGHT
            line += "; the values still look normal"
        evidence.insert(0, line)
        return score
    feat = share_test(
        "anchor",
        fcur.anchor_present,
        fcur.anchor_pages,
        [(b.anchor_present, b.anchor_pages) for b in anchored],
        one_sided_drop=True,
    )
    if feat is not None and feat.score >= EVIDENCE_SCORE:
        score = max(score, feat.score)
        evidence.append(f"{FEATURE_LABELS['anchor']} {feat.shown}")
    return score


def _weigh_vanished(
    fcur: FieldStats, fbase: list[FieldStats], score: float, evidence: list[str]
) -> float:
    """The XPath found nothing on any record, where every baseline run found it on nearly all
    records: with one record per page (detail pages) the binomial test alone cannot tell this
    from chance, but it is the classic selector break. No records at all is decisive too."""
    if fcur.count and not fcur.filled and all(b.count and b.filled >= 0.9 * b.count for b in fbase):
        score = max(score, HARD_SCORE)
        evidence.insert(
            0,
            f"field vanished: empty on all {fcur.count} records "
            f"(baseline filled on ≥ 90 % in all {len(fbase)} runs)",
        )
    if fcur.count == 0 and any(b.count for b in fbase):
        score = max(score, HARD_SCORE)
        evidence.insert(0, "no values at all (no records)")
    return score


def _weigh_unmatched_pages(
    stats: RunStats, baseline: list[RunStats], threshold: float, result: DriftResult
) -> None:
    """Pages matching no page type at all, against their share in the baseline."""
    base_pages = [(b.unmatched_pages, b.total_pages) for b in baseline if b.total_pages]
    if stats.total_pages and base_pages:
        feat = share_test("unmatched", stats.unmatched_pages, stats.total_pages, base_pages)
        if feat is not None and feat.score >= threshold:
            result.structural.append(f"pages matching no page type: {feat.shown}")
            result.score = max(result.score, feat.score)


# ----------------------------------------------------------------------------------------------
# the baseline


def _page_type_of(sf: SelectorFile, record: Mapping[str, Any]) -> PageType | None:
    """The page type whose field names best cover a fixture record's keys."""
    pt_name = record.get("_page_type")
    if isinstance(pt_name, str) and pt_name in sf.page_types:
        return sf.page_types[pt_name]
    keys = {k for k in record if not k.startswith("_")}
    best, best_overlap = None, 0
    for pt in sf.page_types.values():
        overlap = len(keys & set(pt.fields))
        if overlap > best_overlap:
            best, best_overlap = pt, overlap
    return best


def needs_seed(accepted: Sequence[RunStats]) -> bool:
    """Whether a baseline of these committed runs is still seeded: fewer than three, or they
    are still young (:func:`is_young`). The seed stays while a person accepted some of them:
    an accept widens the baseline, it does not replace it (:func:`check_drift` judges such a
    window against the accepted runs and, failing that, against the seed and the rest)."""
    return not (len(accepted) >= 3 and not is_young(accepted))


def baseline_window(seed: list[RunStats], accepted: list[RunStats]) -> list[RunStats]:
    """The baseline a run is checked against, oldest first: the last :data:`BASELINE_WINDOW`
    accepted runs, after the fixture ``seed`` while it is needed (:func:`needs_seed`)."""
    if not needs_seed(accepted):
        return accepted[-BASELINE_WINDOW:]
    return [*seed, *accepted][-BASELINE_WINDOW:]


def seed_baseline(
    selector_file: SelectorFile, fixture_records: list[dict[str, Any]]
) -> list[RunStats]:
    """The first baseline: runs stored in the selector file's ``baseline.runs`` (if authoring
    saved any) plus one pseudo-run built from the fixture records (page-level signals unknown),
    or, without fixture records, from the fields' ``examples`` (:func:`example_seed`)."""
    out: list[RunStats] = []
    stored = selector_file.baseline.get("runs") if selector_file.baseline else None
    if isinstance(stored, list):
        out += [RunStats.from_dict(d) for d in stored if isinstance(d, Mapping)]
    if not fixture_records:
        seeded = example_seed(selector_file)
        return [*out, seeded] if seeded.page_types else out
    groups: dict[str, list[dict[str, Any]]] = {}
    for rec in fixture_records:
        pt = _page_type_of(selector_file, rec)
        if pt is not None:
            groups.setdefault(pt.name, []).append(rec)
    if groups:
        seeded = merge_stats(
            field_stats(recs, selector_file.page_types[name], []) for name, recs in groups.items()
        )
        seeded.seeded = True
        seeded.run_id = seeded.run_id or "fixtures"
        out.append(seeded)
    return out


def example_seed(selector_file: SelectorFile) -> RunStats:
    """A pseudo-run from the fields' ``examples`` (the seed values authoring kept). Each field
    is measured on its own examples only: fields of one page type may keep different numbers
    of them (a repair gives the fields it re-authored new examples and leaves the others as
    they were), and a field with three examples is not "empty" on a fourth record that only
    its neighbours have. A field without examples has no reference: it does not vote."""
    parts = []
    for pt in selector_file.page_types.values():
        n = max((len(f.examples) for f in pt.fields.values()), default=0)
        if not n:
            continue
        stats = field_stats([{} for _ in range(n)], pt, [])
        own = stats.page_types[pt.name]
        own.fields = {
            name: field_stats([{name: e} for e in spec.examples], pt, [])
            .page_types[pt.name]
            .fields[name]
            for name, spec in pt.fields.items()
            if spec.examples
        }
        parts.append(stats)
    seeded = merge_stats(parts)
    seeded.seeded = True
    seeded.run_id = "examples"
    return seeded


def is_young(runs: Sequence[RunStats]) -> bool:
    """Too few real runs or records for the statistics to decide (see :data:`MIN_BASELINE_RUNS`)."""
    real = [r for r in runs if not r.seeded]
    records = sum(pt.records for r in real for pt in r.page_types.values())
    return len(real) < MIN_BASELINE_RUNS or records < MIN_BASELINE_RECORDS
