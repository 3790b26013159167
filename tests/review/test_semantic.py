"""Semantic diff: settings compared by meaning, per crawl, page type and field."""

from __future__ import annotations

from typing import Any

from anchorpath.review.semantic import crawl_changes, metadata_changes, page_type_diffs


def _fields(shop: Any, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return {
        f.qualified: (f.status, {c.setting: (c.old, c.new) for c in f.changes})
        for p in page_type_diffs(shop.selector(old), shop.selector(new))
        for f in p.fields
        if f.status != "unchanged"
    }


def test_identical_files_and_spelled_out_defaults_are_no_change(shop: Any) -> None:
    new = shop.data()
    new["fetch"]["max_depth"] = 3  # the default, spelled out
    new["fetch"]["render"] = "http"
    new["page_types"]["item"]["fields"]["name"]["normalize"] = {"whitespace": True}
    new["page_types"]["item"]["fields"]["name"]["type"] = "string"
    new["page_types"]["item"]["fields"]["name"]["examples"] = ["Alpha"]  # not behaviour
    old, nsf = shop.selector(), shop.selector(new)
    assert crawl_changes(old, nsf) == ()
    assert all(p.status == "unchanged" for p in page_type_diffs(old, nsf))


def test_field_settings_each_named(shop: Any) -> None:
    new = shop.data(key=["code", "name"])
    price = new["page_types"]["item"]["fields"]["price"]
    price.update(
        xpath="//th[.='Cost']/following-sibling::td[1]",
        type="integer",
        required=True,
        fallbacks=["//td[@class='price']"],
        robustness=0.92,
        anchor={"kind": "label-text", "value": "Cost"},
        normalize={"strip_suffix": "EUR", "number_locale": "de"},
    )
    got = _fields(shop, shop.data(), new)
    assert got["item.price"] == (
        "changed",
        {
            "xpath": (
                "//th[.='Price']/following-sibling::td[1]",
                "//th[.='Cost']/following-sibling::td[1]",
            ),
            "type": ("number", "integer"),
            "required": (False, True),
            "anchor.kind": (None, "label-text"),
            "anchor.value": (None, "Cost"),
            "fallbacks": (None, ["//td[@class='price']"]),
            "robustness": (None, 0.92),
            "normalize.strip_suffix": (None, "EUR"),
            "normalize.number_locale": (None, "de"),
        },
    )
    # Key membership is a field change on the emitted page type only (list has emit false).
    assert got["item.name"] == ("changed", {"key": (False, True)})
    assert "list.name" not in got


def test_added_and_removed_fields_and_page_types(shop: Any) -> None:
    new = shop.data()
    del new["page_types"]["item"]["fields"]["price"]
    new["page_types"]["item"]["fields"]["maker"] = {
        "xpath": "//th[.='Maker']/following-sibling::td[1]",
        "type": "string",
    }
    new["page_types"]["search"] = {
        "match": "/search",
        "fields": {"q": {"xpath": "//h1", "type": "string"}},
    }
    diffs = {p.name: p for p in page_type_diffs(shop.selector(), shop.selector(new))}
    assert diffs["search"].status == "added"
    assert [(f.name, f.status) for f in diffs["item"].fields if f.status != "unchanged"] == [
        ("maker", "added"),
        ("price", "removed"),
    ]
    maker = next(f for f in diffs["item"].fields if f.name == "maker")
    assert maker.changes[0].setting == "xpath" and maker.changes[0].kind == "added"


def test_page_type_settings(shop: Any) -> None:
    new = shop.data()
    new["page_types"]["list"]["record_root"] = "//table/tbody/tr"
    new["page_types"]["list"]["follow"] = ["//a/@href"]
    new["page_types"]["list"]["emit"] = True
    (lst,) = [p for p in page_type_diffs(shop.selector(), shop.selector(new)) if p.name == "list"]
    assert lst.status == "changed"
    assert {c.setting: (c.old, c.new) for c in lst.changes} == {
        "record_root": ("//table/tr[td]", "//table/tbody/tr"),
        "emit": (False, True),
        "follow": (None, ["//a/@href"]),
    }


def test_crawl_settings(shop: Any) -> None:
    new = shop.data()
    new["fetch"].update(
        start_urls=[f"{shop.ORIGIN}/list", f"{shop.ORIGIN}/list?page=2"],
        allow=["^http://shop\\.example/"],
        deny=["logout"],
        pagination={"next_xpath": "//a[@rel='next']/@href", "max_pages": 5},
        max_pages=50,
        max_depth=2,
    )
    got = {c.setting: (c.old, c.new) for c in crawl_changes(shop.selector(), shop.selector(new))}
    assert got == {
        "fetch.start_urls": (
            [f"{shop.ORIGIN}/list"],
            [f"{shop.ORIGIN}/list", f"{shop.ORIGIN}/list?page=2"],
        ),
        "fetch.allow": (None, ["^http://shop\\.example/"]),
        "fetch.deny": (None, ["logout"]),
        "fetch.pagination.next_xpath": (None, "//a[@rel='next']/@href"),
        "fetch.pagination.max_pages": (None, 5),
        "fetch.max_pages": (100, 50),
        "fetch.max_depth": (3, 2),
    }


def test_key_and_metadata(shop: Any) -> None:
    new = shop.data(key=["name"], version=2, parent_version=1, provenance={"method": "repair"})
    new["page_types"]["item"]["fields"]["name"]["required"] = True
    old, nsf = shop.selector(), shop.selector(new)
    assert [(c.setting, c.old, c.new) for c in crawl_changes(old, nsf)] == [
        ("key", ["code"], ["name"])
    ]
    meta = {c.setting: (c.old, c.new) for c in metadata_changes(old, nsf)}
    assert meta == {
        "version": (1, 2),
        "parent_version": (None, 1),
        "provenance.method": (None, "repair"),
    }


def test_one_sided_file(shop: Any) -> None:
    diffs = page_type_diffs(None, shop.selector())
    assert {p.status for p in diffs} == {"added"}
    assert {f.status for p in diffs for f in p.fields} == {"added"}
    assert page_type_diffs(shop.selector(), None)[0].status == "removed"
