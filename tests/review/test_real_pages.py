"""Replay on real, messy third-party pages (../shared/data/html/readability): never crashes,
and the per-field tallies add up. Read from ../shared only; skipped when it is absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchorpath.review.model import CATEGORIES
from anchorpath.review.replay import Page, replay

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "html" / "readability"


def test_replay_on_real_pages(shop: Any) -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/data/html/readability not present")
    files = sorted(CORPUS.glob("*.html"))
    assert len(files) > 100
    pages = [
        Page(f"http://real.example/item/{f.stem}", f.read_bytes(), "run", f.name) for f in files
    ]
    fields = {
        "title": {"xpath": "//title", "type": "string"},
        "heading": {"xpath": "//h1", "type": "string"},
        "links": {"xpath": "//a/@href", "type": "list"},
    }
    old = shop.data(page_types={"page": {"match": "/item/", "fields": fields}}, key=["title"])
    new = shop.data(
        page_types={
            "page": {
                "match": "/item/",
                "fields": {**fields, "heading": {"xpath": "//h2", "type": "string"}},
            }
        },
        key=["title"],
    )
    result = replay(shop.selector(old), shop.selector(new), pages)
    assert (
        result.records["page"].old
        == result.records["page"].new
        == len(pages) - len(result.problems)
    )
    heading = result.fields["page", "heading"]
    total = heading.unchanged + sum(heading.delta(c).count for c in CATEGORIES)
    assert total == heading.compared == result.records["page"].new
    assert heading.changed.count > 0 and heading.appeared.count > 0
    assert not result.fields["page", "title"].differs
    assert not result.fields["page", "links"].differs
