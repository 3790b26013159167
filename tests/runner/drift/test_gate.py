"""The gate as a run uses it: small runs, young baselines, runs that matched nothing."""

from __future__ import annotations

from typing import Any

import pytest

from anchorpath.runner.drift.check import seed_baseline
from anchorpath.runner.drift.gate import (
    ChecksAhead,
    gate,
    run_stats,
    validate_records,
    wilson_lower,
)
from anchorpath.runner.drift.stats import RunStats, field_stats
from anchorpath.runner.drift.validate import RecordValidator
from anchorpath.runner.model import InvalidRecord, RecordEntry
from anchorpath.selectors.evaluate import PageResult

from ..conftest import news_selector

SF = news_selector(["Storm batters coast", "Bank raises rates", "Museum reopens"])
PT = SF.page_types["article"]


def run(values: list[str | None], page_type: str | None = "article") -> RunStats:
    pages = [PageResult(f"http://127.0.0.1/a/{i}", page_type, ()) for i in range(len(values))]
    recs: list[dict[str, Any]] = [{"headline": v} for v in values] if page_type else []
    stats = field_stats(recs, PT, pages)
    stats.total_pages = len(pages)
    stats.unmatched_pages = 0 if page_type else len(pages)
    return stats


def invalid(n: int) -> list[InvalidRecord]:
    rec = RecordEntry("article", "http://127.0.0.1/a/1", {"headline": None})
    return [InvalidRecord(rec, ("headline: required",))] * n


@pytest.mark.parametrize(
    ("k", "n", "low"), [(1, 3, 0.061), (2, 2, 0.342), (1, 1, 0.206), (3, 20, 0.052), (5, 20, 0.112)]
)
def test_wilson_lower_bound(k: int, n: int, low: float) -> None:
    assert wilson_lower(k, n) == pytest.approx(low, abs=0.001)


def test_one_empty_required_value_in_three_records_does_not_decide_alone() -> None:
    history = [run(["Storm batters coast", "Bank raises rates"]), run(["Museum reopens", "X Y"])]
    result, verdict, _ = gate(
        run(["Farmers brace", None, "City approves budget"]), history, invalid(1), 3, SF
    )
    assert verdict == "ok", result.to_dict()


def test_every_required_value_empty_on_a_small_run_is_drift() -> None:
    result, verdict, reason = gate(run([None, None]), [], invalid(2), 2, SF)
    assert verdict == "drift" and reason is not None
    assert result.fields["headline"] == ["schema: 2 of 2 records invalid"]


def test_pages_matching_no_page_type_are_never_ok_even_on_the_first_run() -> None:
    result, verdict, reason = gate(run(["x", "y"], page_type=None), [], [], 0, SF)
    assert verdict == "drift"
    assert reason == result.structural[0] == "no page type matched any of the 2 fetched page(s)"


def test_no_records_from_pages_that_yielded_them_is_drift() -> None:
    stats = field_stats([], PT, [PageResult("http://127.0.0.1/a/9", "article", ())])
    history = seed_baseline(SF, [])  # the fields' examples: these pages yield records
    result, verdict, _ = gate(stats, history, [], 0, SF)
    assert verdict == "drift"
    assert "page type 'article' yielded no records (baseline had some)" in result.structural


def test_checks_made_page_by_page_equal_the_checks_made_at_the_end() -> None:
    values: list[Any] = ["Storm batters coast", None, "  Bank raises rates ", "", 42, ["a", "b"]]
    records = [
        RecordEntry("article", f"http://127.0.0.1/a/{i}", {"headline": v}, problems=p)
        for i, (v, p) in enumerate(zip(values * 2, [(), ("x: broken",)] * 6, strict=True))
    ]
    pages = [PageResult(r.url, "article", ()) for r in records]
    ahead = ChecksAhead(RecordValidator(SF.page_types))
    for k in (0, 3, 4, 9):  # records arrive with the pages; the list only grows
        ahead.add(records[:k])
    ahead.add(records[:9])
    assert len(ahead.problems) == 9  # the last three are read at the end
    at_end = validate_records(RecordValidator(SF.page_types), records)
    assert validate_records(ahead.validator, records, ahead) == at_end
    assert at_end[1] == {1, 3, 4, 5, 7, 9, 10, 11}  # 42: not a string
    assert run_stats(SF, records, pages, ahead.facts) == run_stats(SF, records, pages)
