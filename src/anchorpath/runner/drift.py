"""The drift gate: is this run's output still what the selectors were written for?

Pure (no I/O). A run is summarised by :func:`field_stats` into a :class:`RunStats`, compared with
a rolling baseline of accepted runs by :func:`check_drift`, and the baseline is advanced with
:func:`update_baseline` only after an accepted run. :func:`seed_baseline` builds the first
baseline from the selector file's fixtures (the authoring seeds).

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
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from anchorpath.selectors.evaluate import PageResult
from anchorpath.selectors.model import PageType, SelectorFile

__all__ = [
    "DRIFT_THRESHOLD",
    "HARD_SCORE",
    "DriftResult",
    "FieldStats",
    "PageTypeStats",
    "RunStats",
    "check_drift",
    "field_stats",
    "merge_stats",
    "seed_baseline",
    "shape_signature",
    "update_baseline",
]

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
#: How many distinct shape signatures a field keeps (the rest are counted as "other").
MAX_SHAPES = 60
#: How many distinct values (as short hashes) a field keeps; categorical fields fit in this.
MAX_VALUES = 40
#: How many token / bigram hashes a constant value keeps (sorted, so the cut is stable).
MAX_FINGERPRINT = 128
#: A field counts as categorical when its pooled baseline has at most this many distinct values
#: and at most half as many distinct values as values.
CATEGORICAL_MAX = 30

# Variance floors (standard deviations) per feature; see the module docstring.
_TAU = {
    "empty": 0.08,
    "numeric": 0.08,
    "date": 0.08,
    "distinct": 0.15,
    "shape": 0.08,
    "value": 0.15,
    "pattern": 0.08,
    "length": 0.35,
    "spread": 0.6,
    "anchor": 0.1,
    "unmatched": 0.1,
    "roots": 0.5,
}


# ----------------------------------------------------------------------------------------------
# statistics


@dataclass
class FieldStats:
    """Statistics of one field's values over the records of one page type in one run."""

    count: int = 0  # records seen
    filled: int = 0  # records with a non-empty value
    len_mean: float = 0.0
    len_std: float = 0.0
    numeric: int = 0  # filled values that are numbers
    dates: int = 0  # filled values that parse as dates
    distinct: int = 0  # distinct filled values
    shapes: dict[str, int] = field(default_factory=dict)  # signature -> count (top MAX_SHAPES)
    shape_other: int = 0  # filled values whose signature is not in ``shapes``
    shape_singletons: int = 0  # filled values whose signature occurs once in this run
    values: dict[str, int] = field(default_factory=dict)  # value hash -> count (top MAX_VALUES)
    value_other: int = 0  # filled values not in ``values``
    pattern_ok: int | None = None  # filled values matching FieldSpec.pattern (None: no pattern)
    anchor_pages: int = 0  # pages where the field's anchor label was looked for
    anchor_present: int = 0  # ... and found
    # Only when every filled value of this run is one and the same text (a candidate template
    # text): hashes of its word tokens and character bigrams, to tell a copy edit of that text
    # from other text taking its place (see ``_constant_test``).
    const_tokens: list[str] = field(default_factory=list)
    const_grams: list[str] = field(default_factory=list)

    @property
    def empty_ratio(self) -> float:
        return 1.0 - self.filled / self.count if self.count else 1.0

    @property
    def distinct_ratio(self) -> float:
        return self.distinct / self.filled if self.filled else 0.0

    @property
    def numeric_share(self) -> float:
        return self.numeric / self.filled if self.filled else 0.0

    @property
    def date_share(self) -> float:
        return self.dates / self.filled if self.filled else 0.0

    def summary(self) -> dict[str, float | None]:
        """The headline numbers (for reports)."""
        return {
            "count": self.count,
            "empty_ratio": round(self.empty_ratio, 4),
            "len_mean": round(self.len_mean, 2),
            "len_std": round(self.len_std, 2),
            "numeric_share": round(self.numeric_share, 4),
            "date_share": round(self.date_share, 4),
            "distinct_ratio": round(self.distinct_ratio, 4),
            "pattern_share": round(self.pattern_ok / self.filled, 4)
            if self.pattern_ok is not None and self.filled
            else None,
            "anchor_share": round(self.anchor_present / self.anchor_pages, 4)
            if self.anchor_pages
            else None,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FieldStats:
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        known["shapes"] = dict(known.get("shapes", {}))
        known["values"] = dict(known.get("values", {}))
        known["const_tokens"] = list(known.get("const_tokens", []))
        known["const_grams"] = list(known.get("const_grams", []))
        return cls(**known)


@dataclass
class PageTypeStats:
    """One page type's statistics in one run: structural signals plus per-field statistics."""

    pages: int = 0  # pages of this type seen (0: unknown, e.g. a seeded baseline)
    records: int = 0
    root_pages: int = 0  # pages with a record root
    root_total: int = 0  # record-root matches summed over those pages
    root_zero: int = 0  # pages where the record root matched nothing
    fields: dict[str, FieldStats] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PageTypeStats:
        return cls(
            pages=d.get("pages", 0),
            records=d.get("records", 0),
            root_pages=d.get("root_pages", 0),
            root_total=d.get("root_total", 0),
            root_zero=d.get("root_zero", 0),
            fields={k: FieldStats.from_dict(v) for k, v in d.get("fields", {}).items()},
        )


@dataclass
class RunStats:
    """Statistics of one run (or one fixture set): per page type, plus pages no type matched.

    ``run_id`` labels the run in reports and baseline history (the pipeline sets it).
    """

    page_types: dict[str, PageTypeStats] = field(default_factory=dict)
    total_pages: int = 0
    unmatched_pages: int = 0
    run_id: str | None = None
    seeded: bool = False  # built from fixtures, not from a run

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (round-trips through :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RunStats:
        return cls(
            page_types={k: PageTypeStats.from_dict(v) for k, v in d.get("page_types", {}).items()},
            total_pages=d.get("total_pages", 0),
            unmatched_pages=d.get("unmatched_pages", 0),
            run_id=d.get("run_id"),
            seeded=d.get("seeded", False),
        )


_NUMBER = re.compile(r"^[+\-−]?[$€£¥₩]?\s?\d[\d,. ]*(?:[%]|[A-Za-z]{0,3})?$")
_DATE_RX = (
    re.compile(r"^\d{4}[-./]\s?\d{1,2}[-./]\s?\d{1,2}\.?(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?"),
    re.compile(r"^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$"),
    re.compile(r"^\d{4}년\s?\d{1,2}월\s?\d{1,2}일"),
)
_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%b. %d, %Y", "%Y%m%d")


def _is_numeric(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return bool(_NUMBER.match(str(value).strip()))


def _is_date(value: Any) -> bool:
    text = str(value).strip()
    if any(rx.match(text) for rx in _DATE_RX):
        return True
    if len(text) > 20 or not any(c.isdigit() for c in text):
        return False
    for fmt in _DATE_FORMATS:
        try:
            datetime.strptime(text, fmt)
        except ValueError:
            continue
        return True
    return False


def _char_class(ch: str) -> str:
    if ch.isdigit():
        return "9"
    if ch.isalpha():
        if ch.isascii():
            return "A" if ch.isupper() else "a"
        name = unicodedata.name(ch, "")
        if name.startswith(("HANGUL", "CJK", "HIRAGANA", "KATAKANA")):
            return "H"
        return "A" if ch.isupper() else ("a" if ch.islower() else "L")
    return ch


def shape_signature(value: Any, tokens: int = 3) -> str:
    """RAPTURE-style token shape: character classes, repeats collapsed, first ``tokens`` tokens."""
    parts = str(value).split()
    shapes = []
    for tok in parts[:tokens]:
        out: list[str] = []
        for ch in tok:
            c = _char_class(ch)
            if not out or out[-1] != c:
                out.append(c)
        shapes.append("".join(out))
    sig = " ".join(shapes)
    return sig + "…" if len(parts) > tokens else sig


def _value_hash(text: str) -> str:
    """A short stable digest: baselines keep value identities, not the values themselves."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"\w+")


def _fingerprint(text: str) -> tuple[list[str], list[str]]:
    """Hashed word tokens and character bigrams of ``text`` (case-folded, every digit run
    read as ``0`` so a version or count bump, "4.0" → "6.0", is an edit, not new text)."""
    folded = _DIGITS.sub("0", text.casefold())
    tokens = sorted({t for t in _WORD.findall(folded)})[:MAX_FINGERPRINT]
    letters = "".join(_WORD.findall(folded))
    grams = sorted({letters[i : i + 2] for i in range(len(letters) - 1)})[:MAX_FINGERPRINT]
    short = 4  # 32-bit digests: collisions among ≤ MAX_FINGERPRINT items are negligible
    return (
        [_value_hash(t)[: 2 * short] for t in tokens],
        [_value_hash(g)[: 2 * short] for g in grams],
    )


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value if v is not None)
    return str(value)


def _field_stats(
    values: Sequence[Any], pattern: re.Pattern[str] | None, anchor: tuple[int, int]
) -> FieldStats:
    texts = [_as_text(v).strip() for v in values]
    filled = [(v, t) for v, t in zip(values, texts, strict=True) if t]
    lengths = [len(t) for _, t in filled]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    var = sum((x - mean) ** 2 for x in lengths) / len(lengths) if lengths else 0.0
    shapes = Counter(shape_signature(t) for _, t in filled)
    top = dict(shapes.most_common(MAX_SHAPES))
    values_seen = Counter(_value_hash(t) for _, t in filled)
    top_values = dict(values_seen.most_common(MAX_VALUES))
    tokens: list[str] = []
    grams: list[str] = []
    if len(values_seen) == 1:
        tokens, grams = _fingerprint(filled[0][1])
    return FieldStats(
        count=len(values),
        filled=len(filled),
        len_mean=mean,
        len_std=math.sqrt(var),
        numeric=sum(1 for v, _ in filled if _is_numeric(v)),
        dates=sum(1 for _, t in filled if _is_date(t)),
        distinct=len({t for _, t in filled}),
        shapes=top,
        shape_other=len(filled) - sum(top.values()),
        shape_singletons=sum(1 for c in shapes.values() if c == 1),
        values=top_values,
        value_other=len(filled) - sum(top_values.values()),
        pattern_ok=sum(1 for _, t in filled if pattern.search(t)) if pattern else None,
        anchor_pages=anchor[0],
        anchor_present=anchor[1],
        const_tokens=tokens,
        const_grams=grams,
    )


def field_stats(
    records: list[dict[str, Any]], page_type: PageType, page_results: list[PageResult]
) -> RunStats:
    """Statistics of one page type's records (``Record.values`` dicts) in one run.

    ``page_results`` may hold every page of the run: pages of other types are ignored except
    for the count of pages no page type matched. Combine several page types with
    :func:`merge_stats`.
    """
    own = [p for p in page_results if p.page_type == page_type.name]
    roots = [p.record_root_count for p in own if p.record_root_count is not None]
    pts = PageTypeStats(
        pages=len(own),
        records=len(records),
        root_pages=len(roots),
        root_total=sum(roots),
        root_zero=sum(1 for r in roots if r == 0),
    )
    for name, spec in page_type.fields.items():
        pattern = None
        if spec.pattern:
            try:
                pattern = re.compile(spec.pattern)
            except re.error:  # the selector loader validates patterns; be lenient here
                pattern = None
        seen = [p.anchors_present[name] for p in own if name in p.anchors_present]
        pts.fields[name] = _field_stats(
            [r.get(name) for r in records], pattern, (len(seen), sum(seen))
        )
    return RunStats(
        page_types={page_type.name: pts},
        total_pages=len(page_results),
        unmatched_pages=sum(1 for p in page_results if p.page_type is None),
    )


def merge_stats(parts: Iterable[RunStats]) -> RunStats:
    """One RunStats from per-page-type ones (page counts are taken as the largest seen)."""
    out = RunStats()
    for part in parts:
        out.page_types.update(part.page_types)
        out.total_pages = max(out.total_pages, part.total_pages)
        out.unmatched_pages = max(out.unmatched_pages, part.unmatched_pages)
        out.run_id = out.run_id or part.run_id
        out.seeded = out.seeded or part.seeded
    return out


# ----------------------------------------------------------------------------------------------
# probability helpers


def _tail(z: float, two_sided: bool = True) -> float:
    """Normal tail probability of ``z`` (upper tail when one-sided)."""
    if two_sided:
        return math.erfc(abs(z) / math.sqrt(2))
    return 0.5 * math.erfc(z / math.sqrt(2))


def _score(p: float) -> float:
    return -math.log10(max(p, 1e-300))


def _fisher(ps: Sequence[float]) -> float:
    """Fisher's combined p-value: survival of χ²(2m) at -2 Σ ln p (closed form, even df)."""
    if not ps:
        return 1.0
    half = -sum(math.log(max(p, 1e-300)) for p in ps)  # = X / 2
    term, total = 1.0, 1.0
    for j in range(1, len(ps)):
        term *= half / j
        total += term
    return min(1.0, math.exp(-half) * total)


def _mean_var(xs: Sequence[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    v = sum((x - m) ** 2 for x in xs) / (len(xs) - 1) if len(xs) > 1 else 0.0
    return m, v


@dataclass
class _Feature:
    name: str
    value: float
    mean: float
    sd: float
    p: float
    shown: str  # human-readable value vs baseline

    @property
    def score(self) -> float:
        return _score(self.p)


def _share_test(
    name: str,
    x: float,
    n: int,
    base: Sequence[tuple[float, int]],
    *,
    one_sided_drop: bool = False,
    expected: float | None = None,
) -> _Feature | None:
    """Binomial share ``x/n`` against baseline shares (normal approximation with floors)."""
    base = [(bx, bn) for bx, bn in base if bn > 0]
    if n <= 0 or not base:
        return None
    shares = [bx / bn for bx, bn in base]
    mu, between = _mean_var(shares)
    if expected is not None:
        mu = expected
    total = sum(bn for _, bn in base)
    mu_s = (mu * total + 0.5) / (total + 1)  # smoothed: never exactly 0 or 1
    var = between + mu_s * (1 - mu_s) / n + _TAU[name] ** 2
    value = x / n
    z = (value - mu) / math.sqrt(var)
    p = _tail(-z, two_sided=False) if one_sided_drop else _tail(z)
    shown = f"{value:.2f} vs baseline {mu:.2f}±{math.sqrt(var):.2f}"
    return _Feature(name, value, mu, math.sqrt(var), p, shown)


def _log_test(name: str, value: float, n: int, cv: float, base: Sequence[float]) -> _Feature | None:
    """A positive magnitude compared on a log scale (``ln(1+x)``)."""
    if n <= 0 or not base:
        return None
    logs = [math.log1p(b) for b in base]
    mu, between = _mean_var(logs)
    var = between + (cv**2) / n + _TAU[name] ** 2
    x = math.log1p(value)
    z = (x - mu) / math.sqrt(var)
    ref = math.expm1(mu)
    shown = f"{value:.1f} vs baseline {ref:.1f} (×{math.exp(x - mu):.2f})"
    return _Feature(name, x, mu, math.sqrt(var), _tail(z), shown)


_LABELS = {
    "empty": "null/empty ratio",
    "length": "mean length",
    "spread": "length spread",
    "numeric": "numeric share",
    "date": "date-parse share",
    "distinct": "distinct ratio",
    "shape": "shape conformance",
    "pattern": "pattern conformance",
    "value": "share of values seen before (categorical field)",
    "anchor": "anchor label present on share of pages",
}


def _shape_expectation(base: Sequence[FieldStats]) -> tuple[set[str], float]:
    """Signatures seen in the baseline and the expected conformance of a new run."""
    pooled: Counter[str] = Counter()
    other = 0
    for b in base:
        pooled.update(b.shapes)
        other += b.shape_other
    total = sum(pooled.values()) + other
    if not total:
        return set(), 1.0
    # Witten-Bell: the chance that the next value shows a new signature is D / (N + D), with D
    # the distinct signatures seen; unlike plain Good-Turing it stays honest on small seeds.
    distinct = len(pooled) + other
    unseen = distinct / (total + distinct)
    return set(pooled), max(0.0, 1.0 - unseen)


def _value_test(cur: FieldStats, base: Sequence[FieldStats]) -> _Feature | None:
    """Categorical fields: the share of this run's values already seen in the baseline."""
    pooled: Counter[str] = Counter()
    total = 0
    for b in base:
        if b.value_other:  # the baseline run had more distinct values than we keep
            return None
        if b.dates > 0.5 * b.filled or b.numeric > 0.5 * b.filled:
            return None  # dates and numbers are new every day by nature
        pooled.update(b.values)
        total += b.filled
    distinct = len(pooled)
    if not total or distinct > CATEGORICAL_MAX or distinct > 0.5 * total:
        return None
    expected = 1.0 - distinct / (total + distinct)  # Witten-Bell, as for shapes
    seen = sum(c for h, c in cur.values.items() if h in pooled)
    return _share_test(
        "value",
        seen,
        cur.filled,
        [(round(expected * b.filled), b.filled) for b in base],
        one_sided_drop=True,
        expected=expected,
    )


def _rarefied_distinct(fs: FieldStats, m: int) -> float:
    """Expected number of distinct values among ``m`` of the run's filled values drawn at
    random without replacement (rarefaction, Hurlbert 1971). Values beyond the kept top
    :data:`MAX_VALUES` are taken as equally frequent."""
    n = fs.filled
    if m >= n or n <= 0:
        return float(fs.distinct)
    counts = [float(c) for c in fs.values.values()]
    rest = fs.distinct - len(fs.values)
    if rest > 0 and fs.value_other > 0:
        counts += [fs.value_other / rest] * rest

    def absent(c: float) -> float:  # P(a value seen c times is not among m draws)
        if n - c < m:
            return 0.0
        return math.exp(
            math.lgamma(n - c + 1)
            + math.lgamma(n - m + 1)
            - math.lgamma(n + 1)
            - math.lgamma(n - c - m + 1)
        )

    return sum(1.0 - absent(c) for c in counts)


def _jaccard(a: Sequence[str], b: Sequence[str]) -> float | None:
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) if sa or sb else None


def _constant_test(cur: FieldStats, base: Sequence[FieldStats]) -> tuple[float, str] | None:
    """Zero churn: a field that held one and the same text in every baseline run (an implicit
    anchor label: template text, not content) and now holds other text: (score, evidence)."""
    base = [b for b in base if b.count]  # runs without such records saw nothing either way
    if not base or not cur.filled:
        return None
    for b in base:
        if b.filled < 0.9 * b.count or b.value_other or len(b.values) != 1:
            return None
        if b.numeric == b.filled or b.dates == b.filled:
            return None  # counts and dates move on by nature, even when they sat still so far
    seen = {h for b in base for h in b.values}
    if len(seen) != 1:
        return None
    constant = seen.pop()
    same = cur.values.get(constant, 0)
    if same > 0.5 * cur.filled:
        return None
    runs, records = len(base), sum(b.filled for b in base)
    # How new is the text? 1 - Jaccard similarity of word tokens and of character bigrams, the
    # smaller of the two: either one keeping most of the text marks a copy edit of the same
    # element ("Hello. Sign in" → "Hello, Sign in"); other text taking its place shares little
    # of either ("Find a Store" → "Apple Music"). Without fingerprints (several values now, or
    # a baseline stored before they existed) the text counts as wholly new.
    ref = next((b for b in reversed(base) if b.const_grams or b.const_tokens), None)
    novelty = 1.0
    if ref is not None and (cur.const_grams or cur.const_tokens):
        sims = [
            s
            for s in (
                _jaccard(ref.const_tokens, cur.const_tokens),
                _jaccard(ref.const_grams, cur.const_grams),
            )
            if s is not None
        ]
        novelty = 1.0 - max(sims, default=0.0)
    score = (CONSTANT_SCORE + math.log10(records)) * min(1.0, 2.0 * novelty)
    line = (
        f"template text replaced: one value in all {records} record(s) of {runs} baseline "
        f"run(s) (zero churn), now a different one on {cur.filled - same}/{cur.filled}; "
        f"{novelty:.0%} of the text is new"
    )
    if novelty < 0.5:
        line += " (a copy edit of the same text, weighed down)"
    return score, line


def _field_features(cur: FieldStats, base: Sequence[FieldStats]) -> list[_Feature]:
    feats: list[_Feature | None] = []
    feats.append(
        _share_test(
            "empty",
            cur.count - cur.filled,
            cur.count,
            [(b.count - b.filled, b.count) for b in base],
        )
    )
    filled_base = [b for b in base if b.filled]
    if cur.filled and filled_base:
        cv = cur.len_std / cur.len_mean if cur.len_mean else 0.0
        feats.append(
            _log_test("length", cur.len_mean, cur.filled, cv, [b.len_mean for b in filled_base])
        )
        if cur.filled > 2 and all(b.filled > 2 for b in filled_base):
            feats.append(
                _log_test("spread", cur.len_std, cur.filled, 0.7, [b.len_std for b in filled_base])
            )
        pairs = [(b.numeric, b.filled) for b in filled_base]
        feats.append(_share_test("numeric", cur.numeric, cur.filled, pairs))
        feats.append(
            _share_test("date", cur.dates, cur.filled, [(b.dates, b.filled) for b in filled_base])
        )
        if cur.filled >= 5 and all(b.filled >= 5 for b in filled_base):
            # The distinct ratio falls as a sample grows (values start to repeat), so a run of
            # 64 records is never compared with a seed of 6 as they are: every run is
            # rarefied to the smallest sample size first.
            m = min(cur.filled, *(b.filled for b in filled_base))
            feats.append(
                _share_test(
                    "distinct",
                    _rarefied_distinct(cur, m),
                    m,
                    [(_rarefied_distinct(b, m), m) for b in filled_base],
                )
            )
        seen, expected = _shape_expectation(filled_base)
        conform = sum(c for s, c in cur.shapes.items() if s in seen)
        feats.append(
            _share_test(
                "shape",
                conform,
                cur.filled,
                [(round(expected * b.filled), b.filled) for b in filled_base],
                one_sided_drop=True,
                expected=expected,
            )
        )
        feats.append(_value_test(cur, filled_base))
        with_pattern = [b for b in filled_base if b.pattern_ok is not None]
        if cur.pattern_ok is not None and with_pattern:
            feats.append(
                _share_test(
                    "pattern",
                    cur.pattern_ok,
                    cur.filled,
                    [(b.pattern_ok or 0, b.filled) for b in with_pattern],
                    one_sided_drop=True,
                )
            )
    return [f for f in feats if f is not None]


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

    verdict: str  # "ok" | "drift"
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
            verdict=d["verdict"],
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
            feat = _log_test(
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
    """Score this run against the baseline window; see the module docstring for the model."""
    result = DriftResult("ok", 0.0, threshold=threshold, baseline_runs=len(baseline))
    if not baseline:
        result.notes.append("no baseline yet: nothing to compare, run accepted as the first")
        return result
    qualify = len(stats.page_types) > 1
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
        for fname, fcur in cur.fields.items():
            key = f"{pt_name}.{fname}" if qualify else fname
            fbase = [b.fields[fname] for b in base_pts if fname in b.fields]
            if not fbase:
                result.notes.append(f"field {key!r} has no baseline yet")
                continue
            evidence: list[str] = []
            feats = _field_features(fcur, fbase)
            ps = [f.p for f in feats]
            p_field = min(1.0, len(ps) * min(ps), _fisher(ps)) if ps else 1.0
            score = _score(p_field)
            for f in sorted(feats, key=lambda f: -f.score):
                if f.score >= EVIDENCE_SCORE:
                    evidence.append(f"{_LABELS[f.name]} {f.shown} (p={f.p:.1e})")
            # zero churn: the field's text never varied in the baseline and now did
            constant = _constant_test(fcur, fbase)
            if constant is not None:
                c_score, c_line = constant
                if fcur.anchor_pages and fcur.anchor_present > 0.5 * fcur.anchor_pages:
                    # The field is declared as the value beside a label, and the label is
                    # still there: the text under it is content by declaration. The mirror of
                    # a lost label: the same 100:1 weight, now against drift.
                    c_score = max(0.0, c_score - ANCHOR_WEIGHT)
                    c_line += "; its anchor label is still in place (weighed down)"
                if c_score >= EVIDENCE_SCORE:
                    evidence.insert(0, c_line)
                score = max(score, c_score)
            # anchor label: structural, weighs heavily
            anchored = [b for b in fbase if b.anchor_pages]
            if fcur.anchor_pages and anchored:
                base_share = sum(b.anchor_present / b.anchor_pages for b in anchored) / len(
                    anchored
                )
                share = fcur.anchor_present / fcur.anchor_pages
                if base_share >= 0.8 and share <= 0.5:
                    line = (
                        f"anchor label missing on {fcur.anchor_pages - fcur.anchor_present}"
                        f"/{fcur.anchor_pages} pages (baseline present on {base_share:.0%})"
                    )
                    if score >= ANCHOR_CORROBORATION or fcur.empty_ratio >= 0.5:
                        score = max(score, HARD_SCORE)
                    else:
                        # The values still look like the baseline (a fallback XPath, or an
                        # XPath that never needed the label): heavy evidence, not a verdict.
                        score += ANCHOR_WEIGHT
                        line += "; the values still look normal"
                    evidence.insert(0, line)
                else:
                    feat = _share_test(
                        "anchor",
                        fcur.anchor_present,
                        fcur.anchor_pages,
                        [(b.anchor_present, b.anchor_pages) for b in anchored],
                        one_sided_drop=True,
                    )
                    if feat is not None and feat.score >= EVIDENCE_SCORE:
                        score = max(score, feat.score)
                        evidence.append(f"{_LABELS['anchor']} {feat.shown}")
            if s_score >= threshold:
                score = max(score, s_score)
                evidence = [*s_evidence, *evidence]
            # the XPath found nothing on any record, where every baseline run found it on
            # nearly all records: with one record per page (detail pages) the binomial test
            # alone cannot tell this from chance, but it is the classic selector break
            if (
                fcur.count
                and not fcur.filled
                and all(b.count and b.filled >= 0.9 * b.count for b in fbase)
            ):
                score = max(score, HARD_SCORE)
                evidence.insert(
                    0,
                    f"field vanished: empty on all {fcur.count} records "
                    f"(baseline filled on ≥ 90 % in all {len(fbase)} runs)",
                )
            if fcur.count == 0 and any(b.count for b in fbase):
                score = max(score, HARD_SCORE)
                evidence.insert(0, "no values at all (no records)")
            result.field_scores[key] = score
            if score >= threshold:
                result.fields[key] = evidence or [f"combined score {score:.1f}"]
        result.score = max(result.score, s_score)
    # pages matching no page type at all
    base_pages = [(b.unmatched_pages, b.total_pages) for b in baseline if b.total_pages]
    if stats.total_pages and base_pages:
        feat = _share_test("unmatched", stats.unmatched_pages, stats.total_pages, base_pages)
        if feat is not None and feat.score >= threshold:
            result.structural.append(f"pages matching no page type: {feat.shown}")
            result.score = max(result.score, feat.score)
    if result.field_scores:
        result.score = max(result.score, *result.field_scores.values())
    if result.fields or result.score >= threshold:
        result.verdict = "drift"
    return result


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


def seed_baseline(
    selector_file: SelectorFile, fixture_records: list[dict[str, Any]]
) -> list[RunStats]:
    """The first baseline: runs stored in the selector file's ``baseline.runs`` (if authoring
    saved any) plus one pseudo-run built from the fixture records (page-level signals unknown)."""
    out: list[RunStats] = []
    stored = selector_file.baseline.get("runs") if selector_file.baseline else None
    if isinstance(stored, list):
        out += [RunStats.from_dict(d) for d in stored if isinstance(d, Mapping)]
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


def update_baseline(baseline: list[RunStats], stats: RunStats, window: int = 14) -> list[RunStats]:
    """The window after an accepted run: ``stats`` appended, oldest dropped beyond ``window``.

    The fixture seed is dropped once the window holds enough real runs (it lacks page-level
    signals and reflects the authoring pages rather than the live site).
    """
    runs = [*baseline, stats]
    real = [r for r in runs if not r.seeded]
    if len(real) >= 3:
        runs = real
    return runs[-window:]
