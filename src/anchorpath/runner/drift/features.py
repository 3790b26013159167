"""The drift gate's feature tests (pure): one field's statistics in this run against the
baseline window, each feature as a tail probability, plus the zero-churn test of template text.

The model — features, variance floors, how the p-values combine — is described in
:mod:`anchorpath.runner.drift.check`, which owns the thresholds and the verdict; the statistics
come from :mod:`anchorpath.runner.drift.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from anchorpath.runner.drift.stats import FieldStats

__all__ = [
    "CATEGORICAL_MAX",
    "FEATURE_LABELS",
    "Feature",
    "affix_test",
    "boilerplate_test",
    "constant_test",
    "field_features",
    "fisher",
    "log_test",
    "score_of",
    "share_test",
]

#: A field counts as categorical when its pooled baseline has at most this many distinct values
#: and at most half as many distinct values as values.
CATEGORICAL_MAX = 30

# Variance floors (standard deviations) per feature; see the docstring of
# anchorpath.runner.drift.check.
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
    "template": 0.08,
}
# Floors of the character-class profile (digit, punctuation, upper-case shares).
_PROFILE_TAU = (0.05, 0.04, 0.08)
_PROFILE_NAMES = ("digits", "punctuation", "upper case")


def _tail(z: float, two_sided: bool = True) -> float:
    """Normal tail probability of ``z`` (upper tail when one-sided)."""
    if two_sided:
        return math.erfc(abs(z) / math.sqrt(2))
    return 0.5 * math.erfc(z / math.sqrt(2))


def score_of(p: float) -> float:
    return -math.log10(max(p, 1e-300))


def fisher(ps: Sequence[float]) -> float:
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
    v = sum([(x - m) ** 2 for x in xs]) / (len(xs) - 1) if len(xs) > 1 else 0.0
    return m, v


@dataclass
class Feature:
    name: str
    value: float
    mean: float
    sd: float
    p: float
    shown: str  # human-readable value vs baseline

    @property
    def score(self) -> float:
        return score_of(self.p)


def share_test(
    name: str,
    x: float,
    n: int,
    base: Sequence[tuple[float, int]],
    *,
    one_sided_drop: bool = False,
    one_sided_rise: bool = False,
    expected: float | None = None,
) -> Feature | None:
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
    # this run's sampling variance, the between-run variance and the floor; an expectation
    # estimated from the pooled baseline (Witten-Bell conformance) also carries its own
    # sampling variance: from a seed of three examples it is a loose guess
    own = 1 / (total + 1) if expected is not None else 0.0
    var = between + mu_s * (1 - mu_s) * (1 / n + own) + _TAU[name] ** 2
    value = x / n
    z = (value - mu) / math.sqrt(var)
    if one_sided_drop:
        p = _tail(-z, two_sided=False)
    elif one_sided_rise:
        p = _tail(z, two_sided=False)
    else:
        p = _tail(z)
    shown = f"{value:.2f} vs baseline {mu:.2f}±{math.sqrt(var):.2f}"
    return Feature(name, value, mu, math.sqrt(var), p, shown)


def log_test(
    name: str, value: float, n: int, cv: float, base: Sequence[float], *, base_var: float = 0.0
) -> Feature | None:
    """A positive magnitude compared on a log scale (``ln(1+x)``); ``base_var`` is the sampling
    variance of the baseline's own estimate."""
    if n <= 0 or not base:
        return None
    logs = [math.log1p(b) for b in base]
    mu, between = _mean_var(logs)
    var = between + (cv**2) / n + base_var + _TAU[name] ** 2
    x = math.log1p(value)
    z = (x - mu) / math.sqrt(var)
    ref = math.expm1(mu)
    shown = f"{value:.1f} vs baseline {ref:.1f} (×{math.exp(x - mu):.2f})"
    return Feature(name, x, mu, math.sqrt(var), _tail(z), shown)


FEATURE_LABELS = {
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
    "profile": "character classes",
    "template": "share of values that are nav/header/footer text",
}


def _shape_expectation(base: Sequence[FieldStats]) -> tuple[set[str], float]:
    """Signatures seen in the baseline and the expected conformance of a new run."""
    pooled: set[str] = set()  # (a set and a sum: pooling counts would cost a Python loop)
    total = 0
    for b in base:
        pooled.update(b.shapes)
        total += sum(b.shapes.values()) + b.shape_other
    if not total:
        return set(), 1.0
    # Witten-Bell: the chance that the next value shows a new signature is D / (N + D), with D
    # the distinct signatures seen; unlike plain Good-Turing it stays honest on small seeds.
    distinct = len(pooled) + sum(b.shape_other for b in base)
    unseen = distinct / (total + distinct)
    return pooled, max(0.0, 1.0 - unseen)


def _value_test(cur: FieldStats, base: Sequence[FieldStats]) -> Feature | None:
    """Categorical fields: the share of this run's values already seen in the baseline."""
    pooled: set[str] = set()
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
    return share_test(
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
    :data:`~.fieldstats.MAX_VALUES` are taken as equally frequent."""
    n = fs.filled
    if m >= n or n <= 0:
        return float(fs.distinct)
    counts = [float(c) for c in fs.values.values()]
    rest = fs.distinct - len(fs.values)
    if rest > 0 and fs.value_other > 0:
        counts += [fs.value_other / rest] * rest

    known: dict[float, float] = {}  # counts repeat (most values are seen once): each once

    def absent(c: float) -> float:  # P(a value seen c times is not among m draws)
        p = known.get(c)
        if p is None:
            p = known[c] = (
                0.0
                if n - c < m
                else math.exp(
                    math.lgamma(n - c + 1)
                    + math.lgamma(n - m + 1)
                    - math.lgamma(n + 1)
                    - math.lgamma(n - c - m + 1)
                )
            )
        return p

    return sum(1.0 - absent(c) for c in counts)


def _jaccard(a: Sequence[str], b: Sequence[str]) -> float | None:
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) if sa or sb else None


def constant_test(
    cur: FieldStats, base: Sequence[FieldStats], constant_score: float
) -> tuple[float, str] | None:
    """Zero churn: a field that held one and the same text in every baseline run (an implicit
    anchor label: template text, not content) and now holds other text: (score, evidence).

    ``constant_score`` is :data:`anchorpath.runner.drift.check.CONSTANT_SCORE` (passed in: the
    threshold belongs to the model, and drift.py imports this module)."""
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
    score = (constant_score + math.log10(records)) * min(1.0, 2.0 * novelty)
    line = (
        f"template text replaced: one value in all {records} record(s) of {runs} baseline "
        f"run(s) (zero churn), now a different one on {cur.filled - same}/{cur.filled}; "
        f"{novelty:.0%} of the text is new"
    )
    if novelty < 0.5:
        line += " (a copy edit of the same text, weighed down)"
    return score, line


def _chi2_sf3(x: float) -> float:
    """Survival function of χ² with 3 degrees of freedom (closed form)."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)


def _profile_test(cur: FieldStats, base: Sequence[FieldStats]) -> Feature | None:
    """Shape distance: the run's character-class profile (digit, punctuation, upper-case
    shares) against the baseline's, a χ² over the three z-scores (each with its floor)."""
    ref = [b.profile for b in base if len(b.profile) == 3 and b.filled]
    if len(cur.profile) != 3 or not cur.filled or not ref:
        return None
    chi2 = 0.0
    parts = []
    for i, tau in enumerate(_PROFILE_TAU):
        mu, between = _mean_var([r[i] for r in ref])
        var = between + 0.01 / cur.filled + tau**2
        z = (cur.profile[i] - mu) / math.sqrt(var)
        chi2 += z * z
        if abs(z) >= 2:
            parts.append(f"{_PROFILE_NAMES[i]} {cur.profile[i]:.2f} vs {mu:.2f}")
    p = _chi2_sf3(chi2)
    shown = ("off the baseline: " + ", ".join(parts)) if parts else f"χ²={chi2:.1f}"
    return Feature("profile", chi2, 0.0, 1.0, p, shown)


def _template_test(cur: FieldStats, base: Sequence[FieldStats]) -> Feature | None:
    """The share of values that are the page's nav/header/footer text, against the baseline's
    (one-sided: only a rise counts)."""
    ref = [(b.template, b.filled) for b in base if b.template is not None and b.filled]
    if cur.template is None or not cur.filled or not ref:
        return None
    return share_test(
        "template", cur.template, cur.filled, [(float(x), n) for x, n in ref], one_sided_rise=True
    )


def affix_test(
    cur: FieldStats, base: Sequence[FieldStats], decisive: float, weight: float
) -> tuple[float, str, bool] | None:
    """Template text added to the values: a token prefix or suffix shared by most of this
    run's values that no baseline run's values shared: (score, evidence).

    Baseline runs with two distinct values or more vote (a run of one value cannot show an
    affix); the affix is new when none of them had it (nor a part of it). Shared by three
    values or more it scores ``decisive + log10 k`` — three unrelated headlines ending in the
    same " - Forbes.com" is no coincidence; by two, ``weight`` added to the field's score (the
    third element is True then: evidence to add, not a verdict)."""
    voters = [b for b in base if b.distinct >= 2]
    if not voters:
        return None
    best: tuple[float, str, bool] | None = None
    sides = (("starts", cur.prefix, cur.prefix_n), ("ends", cur.suffix, cur.suffix_n))
    for side, text, n in sides:
        if not text or n < 2:
            continue
        olds = [b.prefix if side == "starts" else b.suffix for b in voters]
        if any(o and (o in text or text in o) for o in olds):
            continue
        score = decisive + math.log10(n) if n >= 3 else weight
        line = (
            f"template text added: {n} of {cur.distinct} distinct values now {side} with "
            f"{text!r} (no baseline run's values did, {len(voters)} run(s))"
        )
        if best is None or score > best[0]:
            best = (score, line, n < 3)
    return best


def boilerplate_test(
    cur: FieldStats, base: Sequence[FieldStats], decisive: float, weight: float
) -> tuple[float, str, bool] | None:
    """Distinct-value collapse: a field whose baseline values were all different (content) now
    repeats one value on most records (boilerplate such as "Share this on:"): (score,
    evidence). Numbers and dates are exempt (a day's records may share today's date).
    Repeated on three records or more it scores ``decisive + log10 k``; on two, ``weight`` is
    added to the field's score (third element True), as for :func:`affix_test`."""
    if not cur.values or cur.filled < 2:
        return None
    top = max(cur.values.values())
    if top < 2 or top <= 0.5 * cur.filled:
        return None
    # The baseline's values pooled: all different when no run repeated one and no two runs
    # shared one (counts are occurrences, so at least 1).
    pooled: set[str] = set()
    total = kept = 0
    for b in base:
        if not b.filled:
            continue
        if b.numeric > 0.5 * b.filled or b.dates > 0.5 * b.filled:
            return None
        if b.values and max(b.values.values()) > 1:
            return None  # the baseline repeated values too: not a diverse field
        pooled.update(b.values)
        total += sum(b.values.values())
        kept += len(b.values)
    if total < 3 or len(pooled) < kept:
        return None  # (or two runs shared a value)
    score = decisive + math.log10(top) if top >= 3 else weight
    line = (
        f"boilerplate: one value repeated on {top} of {cur.filled} records (all {total} "
        f"baseline values were different)"
    )
    return score, line, top < 3


def field_features(cur: FieldStats, base: Sequence[FieldStats]) -> list[Feature]:
    feats: list[Feature | None] = []
    feats.append(
        share_test(
            "empty",
            cur.count - cur.filled,
            cur.count,
            [(b.count - b.filled, b.count) for b in base],
        )
    )
    filled_base = [b for b in base if b.filled]
    if cur.filled and filled_base:
        cv = cur.len_std / cur.len_mean if cur.len_mean else 0.0
        # the baseline's own uncertainty: a seed of three examples pins the mean loosely
        k = len(filled_base)
        base_var = sum(
            (b.len_std / b.len_mean) ** 2 / b.filled for b in filled_base if b.len_mean
        ) / (k * k)
        feats.append(
            log_test(
                "length",
                cur.len_mean,
                cur.filled,
                cv,
                [b.len_mean for b in filled_base],
                base_var=base_var,
            )
        )
        if cur.filled > 2 and all(b.filled > 2 for b in filled_base):
            feats.append(
                log_test("spread", cur.len_std, cur.filled, 0.7, [b.len_std for b in filled_base])
            )
        pairs = [(b.numeric, b.filled) for b in filled_base]
        feats.append(share_test("numeric", cur.numeric, cur.filled, pairs))
        feats.append(
            share_test("date", cur.dates, cur.filled, [(b.dates, b.filled) for b in filled_base])
        )
        if cur.filled >= 5 and all(b.filled >= 5 for b in filled_base):
            # The distinct ratio falls as a sample grows (values start to repeat), so a run of
            # 64 records is never compared with a seed of 6 as they are: every run is
            # rarefied to the smallest sample size first.
            m = min(cur.filled, *(b.filled for b in filled_base))
            feats.append(
                share_test(
                    "distinct",
                    _rarefied_distinct(cur, m),
                    m,
                    [(_rarefied_distinct(b, m), m) for b in filled_base],
                )
            )
        seen, expected = _shape_expectation(filled_base)
        conform = sum(c for s, c in cur.shapes.items() if s in seen)
        feats.append(
            share_test(
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
                share_test(
                    "pattern",
                    cur.pattern_ok,
                    cur.filled,
                    [(b.pattern_ok or 0, b.filled) for b in with_pattern],
                    one_sided_drop=True,
                )
            )
        feats.append(_profile_test(cur, filled_base))
    feats.append(_template_test(cur, base))
    return [f for f in feats if f is not None]
