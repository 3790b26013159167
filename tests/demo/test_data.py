"""Ground truth of the demo site: deterministic, with exactly the documented day-2 events."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from anchorpath.demo import data
from anchorpath.demo.data import (
    DAY1_COUNT,
    FIELD_NAMES,
    LABELS,
    REG_NO_PATTERN,
    expected_events,
    expected_records,
    records_for_day,
    reference_simhash_distances,
    template_for_day,
)


def test_day1_has_64_valid_unique_records() -> None:
    records = records_for_day(1)
    assert len(records) == DAY1_COUNT == 64
    keys = [r.reg_no for r in records]
    assert len(set(keys)) == len(keys)
    assert all(re.match(REG_NO_PATTERN, k) for k in keys)
    for r in records:
        assert r.registered_on <= r.updated_on < data.day_date(1)
        assert r.status in {"정상", "변경", "보완중"}
        assert len(r.remarks) > 300  # long enough for SimHash to matter
        assert re.fullmatch(r".+ \([A-Za-z0-9 ,.-]+\)", r.ingredient)
    # board order: newest registration first
    assert [r.registered_on for r in records] == sorted(
        (r.registered_on for r in records), reverse=True
    )
    assert list(expected_records(1)[0]) == list(FIELD_NAMES)


@pytest.mark.slow
def test_generation_is_deterministic_across_processes() -> None:
    code = "from anchorpath.demo.data import fingerprint; print(fingerprint(2), fingerprint(6))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split() == [data.fingerprint(2), data.fingerprint(6)]


def test_day2_events_are_exactly_as_documented() -> None:
    ev = expected_events(1, 2)
    day1 = {r.reg_no: r for r in records_for_day(1)}
    day2 = {r.reg_no: r for r in records_for_day(2)}
    assert len(ev.new) == 3 and len(ev.withdrawn) == 2
    assert len(ev.changed) == 1 and len(ev.trivial) == 1
    assert len(day2) == 64 + 3 - 2
    ((key, fields),) = ev.changed.items()
    assert fields == ("applicant", "updated_on")  # the real change: the DMF changed hands
    assert day2[key].updated_on == data.day_date(2)
    assert set(ev.new) == day2.keys() - day1.keys()
    assert set(ev.withdrawn) == day1.keys() - day2.keys()
    for key in ev.new:
        assert day2[key].registered_on == data.day_date(2)
    # the trivial change: punctuation/white space only in 비고, nothing else moves
    (tkey,) = ev.trivial
    a, b = day1[tkey].as_fields(), day2[tkey].as_fields()
    assert a["remarks"] != b["remarks"]
    assert {k for k in a if a[k] != b[k]} == {"remarks"}
    assert re.findall(r"\w+", a["remarks"]) == re.findall(r"\w+", b["remarks"])


def test_day3_is_day2_data_on_the_renewal_template() -> None:
    assert records_for_day(3) == records_for_day(2)
    assert expected_events(2, 3).is_empty and not expected_events(2, 3).trivial
    assert template_for_day(3) == data.TEMPLATE_RENEWAL
    assert {template_for_day(d) for d in (1, 2, 4, 5, 30)} == {data.TEMPLATE_CLASSIC}
    changed = {k for k in FIELD_NAMES if LABELS["classic"][k] != LABELS["renewal"][k]}
    assert changed == {
        "ingredient",
        "applicant",
        "manufacturer",
        "manufacturer_address",
        "registered_on",
        "status",
    }


@pytest.mark.parametrize("day", [4, 5, 9])
def test_later_days_keep_evolving(day: int) -> None:
    ev = expected_events(day - 1, day)
    assert (len(ev.new), len(ev.changed), len(ev.withdrawn), len(ev.trivial)) == (2, 1, 1, 1)
    (fields,) = ev.changed.values()
    assert "updated_on" in fields and len(fields) == 2
    assert expected_events(2, day) == expected_events(3, day)


def test_trivial_edits_are_simhash_near_duplicates() -> None:
    """Every trivial edit up to day 15 stays within Hamming distance 3 under 12 schemes."""
    for day in [2, *range(4, 16)]:
        (key,) = expected_events(day - 1, day).trivial
        before = {r.reg_no: r for r in records_for_day(day - 1)}[key].as_fields()["remarks"]
        after = {r.reg_no: r for r in records_for_day(day)}[key].as_fields()["remarks"]
        assert max(reference_simhash_distances(before, after)) <= 3, day


def test_events_over_several_days_compose() -> None:
    ev = expected_events(1, 5)
    assert set(ev.new) == {r.reg_no for r in records_for_day(5)} - {
        r.reg_no for r in records_for_day(1)
    }
    assert expected_events(4, 4).is_empty


@pytest.mark.parametrize("bad", [0, -1, 401, True])
def test_bad_days_are_rejected(bad: int) -> None:
    with pytest.raises(ValueError, match="demo day"):
        records_for_day(bad)
