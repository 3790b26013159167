"""Field statistics of one run (``anchorpath.runner.drift.stats``): what each value counts as
(numbers, dates, shapes, character profile), on tricky values — dates in many formats, digits of
other scripts, Korean, empty and non-string values. The expected figures were computed by the
straightforward per-character implementation this module replaced; they must not move."""

from __future__ import annotations

import dataclasses
import math
import sys
from collections import Counter
from typing import Any

import pytest

from anchorpath.runner.drift.stats import (
    FieldStats,
    PageTypeStats,
    RunStats,
    field_stats,
    shape_signature,
)
from anchorpath.selectors.model import FieldSpec, PageType

PAGE_TYPE = PageType("t", "/", {"v": FieldSpec("v", "//x", pattern=r"^\d")})

# value, filled, numeric, dates, shapes, profile (digit, punctuation, upper-case shares)
CASES: list[tuple[Any, int, int, int, list[str], list[float]]] = [
    ("2024-03-04", 1, 0, 1, ["9-9-9"], [0.8, 0.2, 0.0]),
    ("2024. 3. 4.", 1, 1, 1, ["9. 9. 9."], [0.5455, 0.2727, 0.0]),
    ("2024/3/4 10:30", 1, 0, 1, ["9/9/9 9:9"], [0.7143, 0.2143, 0.0]),
    ("2024-03-04T10:30:00Z", 1, 0, 1, ["9-9-9A9:9:9A"], [0.7, 0.2, 1.0]),
    ("3/4/24", 1, 0, 1, ["9/9/9"], [0.6667, 0.3333, 0.0]),
    ("04.03.2024", 1, 1, 1, ["9.9.9"], [0.8, 0.2, 0.0]),
    ("2024년 3월 4일", 1, 0, 1, ["9H 9H 9H"], [0.5455, 0.0, 0.0]),
    ("2024년3월4일 (월)", 1, 0, 1, ["9H9H9H (H)"], [0.4615, 0.1538, 0.0]),
    ("March 4, 2024", 1, 0, 1, ["Aa 9, 9"], [0.3846, 0.0769, 0.2]),
    ("4 Mar 2024", 1, 0, 1, ["9 Aa 9"], [0.5, 0.0, 0.3333]),
    ("Mar. 4, 2024", 1, 0, 1, ["Aa. 9, 9"], [0.4167, 0.1667, 0.3333]),
    ("20240304", 1, 1, 1, ["9"], [1.0, 0.0, 0.0]),
    ("20241304", 1, 1, 0, ["9"], [1.0, 0.0, 0.0]),
    ("Mar 4 2024", 1, 0, 0, ["Aa 9 9"], [0.5, 0.0, 0.3333]),
    ("12345", 1, 1, 0, ["9"], [1.0, 0.0, 0.0]),
    ("1,234.50", 1, 1, 0, ["9,9.9"], [0.75, 0.25, 0.0]),
    ("$ 12", 1, 1, 0, ["$ 9"], [0.5, 0.25, 0.0]),
    ("₩1,000원", 1, 0, 0, ["₩9,9H"], [0.5714, 0.2857, 0.0]),
    ("-3.5kg", 1, 1, 0, ["-9.9a"], [0.3333, 0.3333, 0.0]),
    ("１２３", 1, 1, 0, ["9"], [1.0, 0.0, 0.0]),
    ("٣٤٥", 1, 1, 0, ["9"], [1.0, 0.0, 0.0]),
    ("x²", 1, 0, 0, ["a9"], [0.5, 0.0, 0.0]),
    ("수1402-1-ND", 1, 0, 0, ["H9-9-A"], [0.5, 0.2, 0.6667]),
    ("아세트아미노펜 (Acetaminophen)", 1, 0, 0, ["H (Aa)"], [0.0, 0.087, 0.05]),
    ("ǅemal", 1, 0, 0, ["La"], [0.0, 0.0, 0.0]),
    ("Ⅻ", 1, 0, 0, ["Ⅻ"], [0.0, 0.0, 0.0]),
    ("ひらがな カタカナ 漢字", 1, 0, 0, ["H H H"], [0.0, 0.0, 0.0]),
    ("ÄÖÜ äöü ß", 1, 0, 0, ["A a a"], [0.0, 0.0, 0.4286]),
    ("http://example.com/a?b=1", 1, 0, 0, ["a:/a.a/a?a=9"], [0.0417, 0.2917, 0.0]),
    ("Share this on:", 1, 0, 0, ["Aa a a:"], [0.0, 0.0714, 0.0909]),
    ("The Old Man and the Sea", 1, 0, 0, ["Aa Aa Aa…"], [0.0, 0.0, 0.2222]),
    ("a--b...c", 1, 0, 0, ["a-a.a"], [0.0, 0.625, 0.0]),
    ("", 0, 0, 0, [], []),
    ("   ", 0, 0, 0, [], []),
    ("\xa0\u3000", 0, 0, 0, [], []),
    (None, 0, 0, 0, [], []),
    ([], 0, 0, 0, [], []),
    (["12", None, "34"], 1, 0, 0, ["9 9"], [0.8, 0.0, 0.0]),
    (("a", "b"), 1, 0, 0, ["a a"], [0.0, 0.0, 0.0]),
    (7, 1, 1, 0, ["9"], [1.0, 0.0, 0.0]),
    (2.5, 1, 1, 0, ["9.9"], [0.6667, 0.3333, 0.0]),
    (True, 1, 0, 0, ["Aa"], [0.0, 0.0, 0.25]),
    ("\ud800x", 1, 0, 0, ["\ud800a"], [0.0, 0.5, 0.0]),
]


def _stats(values: list[Any]) -> Any:
    return field_stats([{"v": v} for v in values], PAGE_TYPE, []).page_types["t"].fields["v"]


@pytest.mark.parametrize(("value", "filled", "numeric", "dates", "shapes", "profile"), CASES)
def test_what_one_value_counts_as(
    value: Any, filled: int, numeric: int, dates: int, shapes: list[str], profile: list[float]
) -> None:
    f = _stats([value])
    assert (f.filled, f.numeric, f.dates, list(f.shapes), f.profile) == (
        filled,
        numeric,
        dates,
        shapes,
        profile,
    )


def test_shape_signature_token_limits() -> None:
    assert shape_signature("a b c d") == "a a a…"
    assert shape_signature("a b c ") == "a a a"
    assert shape_signature("x y", 0) == "…"
    assert shape_signature("AAbb  ccDD", 1) == "Aa…"
    assert shape_signature(" 2024-03-04  10:30 ") == "9-9-9 9:9"


def test_repeated_values_count_once_per_record() -> None:
    values = ["Seoul", "5", 5, ["5"], "Busan", "  Seoul ", None, "", "2024-03-04", "Seoul"]
    f = _stats(values)
    assert (f.count, f.filled, f.distinct) == (10, 8, 4)
    assert f.numeric == 2  # "5" and 5; the list ["5"] is not a number
    assert f.dates == 1
    assert f.pattern_ok == 4  # texts starting with a digit
    assert f.shapes == {"Aa": 4, "9": 3, "9-9-9": 1}
    assert sum(f.values.values()) == 8 and sorted(f.values.values()) == [1, 1, 3, 3]
    assert (f.shape_singletons, f.shape_other, f.value_other) == (1, 0, 0)
    assert f.len_mean == pytest.approx(33 / 8)
    assert f.len_std == math.sqrt(sum((x - 33 / 8) ** 2 for x in [5, 1, 1, 1, 5, 5, 10, 5]) / 8)


def test_profile_is_the_mean_over_values_in_their_order() -> None:
    values = ["Ab1", "x", "Ab1", "!!", "Ab1", "ÄB-9"]
    shares = {"Ab1": (1 / 3, 0.0, 1 / 2), "x": (0.0, 0.0, 0.0), "!!": (0.0, 1.0, 0.0)}
    shares["ÄB-9"] = (1 / 4, 1 / 4, 1.0)
    digits = punct = upper = 0.0
    for v in values:
        d, p, u = shares[v]
        digits += d
        punct += p
        upper += u
    expected = [round(digits / 6, 4), round(punct / 6, 4), round(upper / 6, 4)]
    assert _stats(values).profile == expected


def test_one_constant_text_keeps_its_fingerprint_and_affixes_need_two() -> None:
    f = _stats(["Share this on:"] * 3)
    assert f.distinct == 1 and f.const_tokens and f.const_grams
    assert (f.prefix, f.prefix_n, f.suffix, f.suffix_n) == ("", 0, "", 0)
    g = _stats(["Storm hits coast - Forbes.com", "Bank raises rates - Forbes.com", "Other"])
    assert (g.suffix, g.suffix_n) == ("- Forbes.com", 2)
    assert not g.const_tokens


def test_no_hangul_cjk_or_kana_letter_is_upper_case() -> None:
    """The profile counts upper-case letters as the shape class "A": it relies on no letter of
    the "H" class being upper case in this Python's Unicode database."""
    upper_h = [
        ch
        for ch in map(chr, range(sys.maxunicode + 1))
        if ch.isupper() and ch.isalpha() and shape_signature(ch) == "H"
    ]
    assert upper_h == []


def test_to_dict_is_asdict_and_shares_no_container() -> None:
    fs = FieldStats(count=3, filled=2, shapes={"Aa": 2}, values={"h": 1}, const_tokens=["t"])
    odd = FieldStats(values=Counter({"x": 2}), profile=[0.5, 0.0, 1.0], template=None)
    odd.shapes = {"nested": [1, {"k": (2, 3)}]}  # type: ignore[dict-item]  # from odd JSON
    stats = RunStats(
        page_types={"a": PageTypeStats(pages=2, page_keys=["k"], fields={"f": fs, "g": odd})},
        total_pages=2,
        run_id="r",
    )
    out = stats.to_dict()
    assert out == dataclasses.asdict(stats)
    assert list(out["page_types"]["a"]["fields"]["f"]) == [f.name for f in dataclasses.fields(fs)]
    assert type(out["page_types"]["a"]["fields"]["g"]["values"]) is Counter
    out["page_types"]["a"]["fields"]["f"]["shapes"]["Aa"] = 9
    out["page_types"]["a"]["fields"]["g"]["shapes"]["nested"][1]["k"] = ()
    assert fs.shapes == {"Aa": 2} and odd.shapes["nested"][1] == {"k": (2, 3)}
    assert RunStats.from_dict(out).to_dict() == out
