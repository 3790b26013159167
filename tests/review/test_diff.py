"""diff_versions / diff_pairs: semantic changes joined with the replay, notes on what is missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anchorpath.review.diff import diff_pairs, diff_versions
from anchorpath.review.model import VersionRef
from anchorpath.review.replay import Page
from anchorpath.review.sources import Version


def _version(shop: Any, data: dict[str, Any], label: str, pages: tuple[Page, ...] = ()) -> Version:
    sf = shop.selector(data)
    return Version(VersionRef(label, sf.version), sf, "shop.json", pages)


def test_field_diff_carries_its_replay_and_counts(shop: Any) -> None:
    page = Page(
        f"{shop.ORIGIN}/item?id=A", shop.item_page("A", "Alpha", "1", "Acme"), "fixtures", "a.html"
    )
    new = shop.data()
    new["page_types"]["item"]["fields"]["name"]["xpath"] = (
        "//th[.='Maker']/following-sibling::td[1]"
    )
    fd = diff_versions(
        _version(shop, shop.data(), "old", (page,)), _version(shop, new, "new", (page,))
    )
    assert fd.differs and fd.status == "changed"
    (name,) = fd.changed_fields
    assert name.qualified == "item.name" and name.replay is not None
    assert name.replay.changed.examples[0].new == "Acme"
    assert [(s.kind, s.pages) for s in fd.sources] == [("fixtures", 1)]  # same page once
    item = next(p for p in fd.page_types if p.name == "item")
    assert item.records is not None and (item.records.old, item.records.new) == (1, 1)


def test_no_pages_and_no_run_are_noted(shop: Any, tmp_path: Path) -> None:
    from anchorpath.runner.store.database import Store

    Store.in_state_dir(tmp_path).close()
    v = _version(shop, shop.data(), "v")
    (fd,) = diff_pairs([(v, v)], state_dir=tmp_path)
    assert not fd.differs and fd.status == "unchanged"
    assert fd.notes == (
        "no pages to replay (no golden fixtures; pass --state for the latest run)",
        f"no run of shop in {tmp_path}: replayed on the fixtures only",
    )


def test_added_file(shop: Any) -> None:
    fd = diff_versions(None, _version(shop, shop.data(), "new"))
    assert fd.status == "added" and fd.differs and fd.old is None
