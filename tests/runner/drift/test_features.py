"""Feature tests of the drift gate on hand-made field statistics: the pooled-baseline tests
(shape expectation, categorical values, boilerplate) read the baseline runs together."""

from __future__ import annotations

from anchorpath.runner.drift.features import (
    _shape_expectation,
    _value_test,
    boilerplate_test,
)
from anchorpath.runner.drift.stats import FieldStats


def fs(values: dict[str, int], **kw: int) -> FieldStats:
    filled = sum(values.values())
    return FieldStats(count=filled, filled=filled, values=values, distinct=len(values), **kw)


def test_boilerplate_needs_a_baseline_of_all_different_values() -> None:
    cur = fs({"share": 3})
    diverse = [fs({"a": 1, "b": 1}), fs({"c": 1, "d": 1})]
    found = boilerplate_test(cur, diverse, 10.0, 2.0)
    assert found is not None
    assert "all 4 baseline values were different" in found[1]
    # one run repeating a value, or two runs sharing one: not a diverse field
    assert boilerplate_test(cur, [fs({"a": 2}), fs({"c": 1, "d": 1})], 10.0, 2.0) is None
    assert boilerplate_test(cur, [fs({"a": 1, "b": 1}), fs({"b": 1, "d": 1})], 10.0, 2.0) is None
    # too few baseline values to tell
    assert boilerplate_test(cur, [fs({"a": 1, "b": 1})], 10.0, 2.0) is None


def test_shape_expectation_pools_the_signatures_of_every_run() -> None:
    base = [
        FieldStats(shapes={"9": 3, "A": 1}, shape_other=1),
        FieldStats(shapes={"9": 2, "a": 1}),
    ]
    seen, expected = _shape_expectation(base)
    assert seen == {"9", "A", "a"}
    # N = 8 values, D = 3 signatures + 1 unkept: 1 - 4 / 12
    assert expected == 1.0 - 4 / 12
    assert _shape_expectation([FieldStats()]) == (set(), 1.0)


def test_value_test_counts_values_seen_in_any_baseline_run() -> None:
    base = [fs({"x": 5, "y": 5}), fs({"x": 4, "z": 6})]
    feat = _value_test(fs({"x": 5, "z": 5}), base)
    assert feat is not None and feat.value == 1.0
    assert _value_test(fs({"x": 5, "z": 5}), [*base, fs({"y": 9}, value_other=1)]) is None
