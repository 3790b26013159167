"""The feature tests' helpers: rarefaction of the distinct-value count."""

from __future__ import annotations

import math

import pytest

from anchorpath.runner.drift.features import _rarefied_distinct
from anchorpath.runner.drift.stats import FieldStats


def _hurlbert(counts: list[float], n: int, m: int) -> float:
    """E[distinct among m of n draws] = sum over values of 1 - C(n - c, m) / C(n, m)."""
    return sum(
        1.0 - (math.comb(n - int(c), m) / math.comb(n, m) if n - c >= m else 0.0) for c in counts
    )


@pytest.mark.parametrize("m", [1, 3, 7, 12])
def test_rarefied_distinct_is_hurlbert_rarefaction(m: int) -> None:
    # values seen once, twice and five times: the repeated counts are read once each
    values = {f"h{i}": c for i, c in enumerate([1] * 6 + [2] * 3 + [5])}
    fs = FieldStats(count=17, filled=17, distinct=len(values), values=values)
    assert _rarefied_distinct(fs, m) == pytest.approx(_hurlbert(list(values.values()), 17, m))


def test_rarefied_distinct_of_a_sample_no_larger_than_m_is_its_distinct_count() -> None:
    fs = FieldStats(count=4, filled=4, distinct=3, values={"a": 2, "b": 1, "c": 1})
    assert _rarefied_distinct(fs, 4) == 3.0
