"""The list-page benchmark's comparison, title-column choice and examples on synthetic pages;
one real site from ../shared (skipped when it is absent)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load() -> ModuleType:
    # bench/ is not a package: load the module by path, as the benchmark script does.
    spec = importlib.util.spec_from_file_location("lists_bench", BENCH / "lists.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lists_bench"] = module
    spec.loader.exec_module(module)
    return module


m = _load()


def _page(rows: list[list[str]], body: str) -> object:
    page = m.Page("page1", "https://x.test/s?q=1", f"<html><body>{body}</body></html>", rows)
    page.shown = m.visible_text(m.parse_html(page.html))
    page.visible = m.key(page.shown)
    return page


def test_key_forgives_what_the_csvs_lost() -> None:
    assert m.key('Caf? “Noir”  19" TV') == m.key("Café Noir 19 TV")
    assert m.key("  Mixed   CASE ") == "mixed case"


def test_score_counts_multiset_matches() -> None:
    s = m.score(["A", "B", "B", "X"], ["a", "b", "c"])
    assert (s.predicted, s.gold, s.matched) == (4, 3, 2)
    assert s.precision == 0.5 and round(s.recall, 3) == 0.667


def test_title_column_is_filled_distinct_visible_and_worded() -> None:
    rows = [["", f"$1{i}.99", f"Title number {i}", "Buy"] for i in range(5)]
    body = "".join(f"<li><b>$1{i}.99</b><a>Title number {i}</a>Buy</li>" for i in range(5))
    page = _page(rows, body)
    assert m.choose_column([page]) == (2,)
    site = m.ListSite("x", [page], (2,))
    assert m.examples_for(site, page) == ["Title number 0", "Title number 1", "Title number 2"]


def test_a_question_mark_the_page_shows_is_the_titles_own() -> None:
    """A ``?`` is a letter the CSV lost unless the page shows the title with it."""
    rows = [["Is it safe?"], ["Caf? menu"], ["Plain title"]]
    body = "<li>Is it safe?</li><li>Café menu</li><li>Plain title</li>"
    page = _page(rows, body)
    site = m.ListSite("x", [page], (0,))
    assert m.examples_for(site, page) == ["Is it safe?", "Plain title"]


SHARED = BENCH.parent.parent / "shared" / "data" / "lists"


@pytest.mark.skipif(not (SHARED / "index.json").exists(), reason="../shared absent")
def test_one_real_site_end_to_end(tmp_path: Path) -> None:
    site = m.load_lists(SHARED, ["aa.com"])[0]
    seeds, test = site.pages[:2], site.pages[2]
    authored = m.author(site.name, seeds, [m.examples_for(site, p) for p in seeds], tmp_path)
    assert authored.error is None
    got = m.run_titles(authored, test.html, test.url)
    assert m.score(got, site.titles(test)).f1 >= 0.9
