"""The SWDE benchmark's normalisation and page-level F1 on synthetic values (no shared data)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _load() -> ModuleType:
    # bench/ is not a package: load the module by path, as the benchmark script does.
    path = Path(__file__).resolve().parents[2] / "bench" / "swde_metrics.py"
    spec = importlib.util.spec_from_file_location("swde_metrics", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["swde_metrics"] = module
    spec.loader.exec_module(module)
    return module


m = _load()


@pytest.mark.parametrize(
    ("raw", "attribute", "expected"),
    [
        (": 9780316125581", "isbn_13", "9780316125581"),
        ("Date Posted: 05/20/2011", "date_posted", "05/20/2011"),
        ("ISBN-13: 9780316125581", "isbn_13", "9780316125581"),
        ("&nbsp;The Four Loves", "title", "The Four Loves"),
        ("Say &amp;#34;Hi&amp;#34;", "title", 'Say "Hi"'),
        ("  Game\n\t Over  ", "title", "Game Over"),
        # A colon inside a title is not label residue: the label must be the attribute's name.
        ("Know Your Bible: All 66 Books", "title", "Know Your Bible: All 66 Books"),
        ("Rise Up & Sing", "title", "Rise Up & Sing"),
    ],
)
def test_clean_example(raw: str, attribute: str, expected: str) -> None:
    assert m.clean_example(raw, attribute) == expected


def test_canon_is_case_insensitive_and_handles_none() -> None:
    assert m.canon("PG-13", "mpaa_rating") == m.canon("pg-13", "mpaa_rating")
    assert m.canon(None) == ""
    assert m.canon(2008, "publication_date") == "2008"


def test_label_key() -> None:
    assert m.label_key("ISBN-13") == m.label_key("isbn_13") == "isbn13"


def test_values_of() -> None:
    assert m.values_of(None) == []
    assert m.values_of("x") == ["x"]
    assert m.values_of(["a", None, "b"]) == ["a", "b"]
    assert m.values_of(7) == ["7"]


def test_page_correct_sets_and_joined_strings() -> None:
    gold = ["Alex Harris", "Brett Harris"]
    assert m.page_correct(["brett harris", "Alex Harris"], gold, "author")
    assert m.page_correct(["Alex Harris, Brett Harris"], gold, "author")
    assert not m.page_correct(["Alex Harris"], gold, "author")
    assert not m.page_correct([], gold, "author")
    assert not m.page_correct(["x"], [], "author")
    assert m.page_correct(["05/20/2011"], ["Date Posted: 05/20/2011"], "date_posted")


def test_f1() -> None:
    assert m.f1(0.0, 0.0) == 0.0
    assert m.f1(1.0, 1.0) == 1.0
    assert m.f1(0.5, 1.0) == pytest.approx(2 / 3)


def test_field_score_counts_precision_recall() -> None:
    gold = {"p1": ["A"], "p2": ["B"], "p3": ["C"], "p4": []}
    pred = {"p1": ["a"], "p2": ["wrong"], "p4": ["spurious"]}
    s = m.score_field("title", pred, gold)
    assert (s.pages, s.predicted, s.gold, s.correct) == (4, 3, 3, 1)
    assert s.precision == pytest.approx(1 / 3)
    assert s.recall == pytest.approx(1 / 3)
    assert s.f1 == pytest.approx(1 / 3)
    assert [f[0] for f in s.failures] == ["p2", "p3", "p4"]


def test_field_score_empty_field_is_perfect_only_without_predictions() -> None:
    assert m.score_field("x", {}, {"p": []}).f1 == 1.0
    assert m.score_field("x", {"p": ["v"]}, {"p": []}).f1 == 0.0


def test_top1_versus_exact() -> None:
    gold = ["Sidney Lumet"]
    noisy = ["Sidney Lumet", "Reginald Rose"]
    assert m.page_top1(noisy, gold, "director")
    assert not m.page_correct(noisy, gold, "director")
    # All of several values as one string is exact, hence also top-1 correct.
    assert m.page_top1(["Alex Harris, Brett Harris"], ["Alex Harris", "Brett Harris"], "author")
    assert not m.page_top1(["ComedyRomance", "Comedy"], ["Comedy", "Romance"], "genre")
    s = m.score_field("director", {"p1": noisy, "p2": ["Sidney Lumet"]}, {"p1": gold, "p2": gold})
    assert s.f1 == 1.0
    assert s.f1_exact == pytest.approx(0.5)
    assert [f[0] for f in s.exact_failures] == ["p1"]
