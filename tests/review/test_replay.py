"""Replay: both versions on the same pages, values compared record by record."""

from __future__ import annotations

from typing import Any

from anchorpath.review.replay import EXAMPLES, Page, pair, replay
from anchorpath.selectors.evaluate import Record


def _rec(code: str, name: str = "x") -> Record:
    return Record("list", "u", {"code": code, "name": name})


def test_pair_in_order_when_counts_agree() -> None:
    old, new = [_rec("A"), _rec("B")], [_rec("X"), _rec("Y")]
    assert [(o.values["code"], n.values["code"]) for o, n in pair(old, new, ["code"])] == [  # type: ignore[union-attr]
        ("A", "X"),
        ("B", "Y"),
    ]


def test_pair_by_key_when_counts_differ() -> None:
    old, new = [_rec("A"), _rec("B"), _rec("C")], [_rec("C"), _rec("A")]
    got = [
        (o.values["code"] if o else None, n.values["code"] if n else None)
        for o, n in pair(old, new, ["code"])
    ]
    assert got == [("A", "A"), ("B", None), ("C", "C")]


def test_pair_in_order_without_usable_key() -> None:
    old, new = [_rec(""), _rec("")], [_rec("")]
    got = [(o is not None, n is not None) for o, n in pair(old, new, ["code"])]
    assert got == [(True, True), (True, False)]


def _pages(shop: Any) -> list[Page]:
    items = [("A-1", "Alpha", "12", "Acme"), ("B-2", "Beta", "30", "Borg")]
    items += [(f"C-{i}", f"Gamma {i}", "7", "Cyb") for i in range(3, 8)]
    pages = [
        Page(f"{shop.ORIGIN}/item?id={c}", shop.item_page(c, n, p, m), "fixtures", f"{c}.html")
        for c, n, p, m in items
    ]
    rows = [(c, n) for c, n, _, _ in items]
    pages.append(Page(f"{shop.ORIGIN}/list", shop.list_page(rows), "fixtures", "list.html"))
    return pages


def test_changed_appeared_disappeared_and_counts(shop: Any) -> None:
    new = shop.data()
    fields = new["page_types"]["item"]["fields"]
    fields["name"]["xpath"] = "//th[.='Maker']/following-sibling::td[1]"  # another label
    fields["price"]["xpath"] = "//th[.='Cost']/following-sibling::td[1]"  # nothing any more
    fields["maker"] = {"xpath": "//th[.='Maker']/following-sibling::td[1]", "type": "string"}
    new["page_types"]["list"]["record_root"] = "(//table/tr[td])[position() <= 3]"
    result = replay(shop.selector(), shop.selector(new), _pages(shop))
    name = result.fields["item", "name"]
    assert (name.compared, name.unchanged, name.changed.count) == (7, 0, 7)
    assert len(name.changed.examples) == EXAMPLES
    ex = name.changed.examples[0]
    assert (ex.record, ex.old, ex.new, ex.url) == (
        "A-1",
        "Alpha",
        "Acme",
        f"{shop.ORIGIN}/item?id=A-1",
    )
    assert result.fields["item", "price"].disappeared.count == 7
    assert result.fields["item", "price"].disappeared.examples[0].old == 12
    assert result.fields["item", "maker"].appeared.count == 7
    code = result.fields["item", "code"]
    assert (code.unchanged, code.differs) == (7, False)
    # The list page: 7 rows before, 3 after; the 3 pair by key and are unchanged.
    assert (result.records["list"].old, result.records["list"].new) == (7, 3)
    assert result.records["item"].delta == 0
    assert result.fields["list", "name"].compared == 3
    assert not result.fields["list", "name"].differs


def test_missing_side_extracts_nothing(shop: Any) -> None:
    result = replay(None, shop.selector(), _pages(shop))
    assert result.records["item"].old == 0 and result.records["item"].new == 7
    assert result.fields == {}
