"""The documented mutation set: every operator changes the page, keeps the target values,
is deterministic per seed and can be selected individually."""

from __future__ import annotations

import lxml.html
import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.candidates.ground import itext
from anchorpath.authoring.scoring.mutate import OPERATORS, mutate_html, mutate_tree
from anchorpath.authoring.synth import detail_page, detail_record, list_page
from anchorpath.selectors.evaluate import parse_html
from anchorpath.selectors.normalize import clean_text

DETAIL = detail_page(detail_record(1), seed=0)


def _doc_and_targets() -> tuple[object, list[object]]:
    doc = parse_html(DETAIL)
    main = doc.xpath("//main")[0]
    targets = [
        main.xpath("." + p.replace("//", "//", 1))[0]
        for p in (
            "//th[.='Publisher']/following-sibling::td",
            "//dt[.='Weight']/following-sibling::dd",
            "//h1",
            "//div[@class='val']",
        )
    ]
    return doc, targets


def _html(doc: object) -> str:
    return lxml.html.tostring(doc, encoding="unicode")  # type: ignore[arg-type]


def test_every_operator_applies_and_keeps_target_values() -> None:
    doc, targets = _doc_and_targets()
    before = [clean_text(itext(t)) for t in targets]  # type: ignore[arg-type]
    mutants = mutate_tree(doc, targets=targets, seed=3)  # type: ignore[arg-type]
    assert [m.operator for m in mutants] == list(OPERATORS)
    original = _html(doc)
    for m in mutants:
        assert _html(m.doc) != original, m.operator
        after = [clean_text(itext(t)) for t in m.targets]
        assert after == before, m.operator
        # the copies are in the mutated tree, not the original one
        assert all(t.getroottree().getroot() is m.doc for t in m.targets)
    assert _html(doc) == original  # input untouched


def test_operator_effects() -> None:
    doc, targets = _doc_and_targets()
    by_op = {m.operator: m for m in mutate_tree(doc, targets=targets, seed=1)}  # type: ignore
    h = _html(by_op["heading_shift"].doc)
    assert "<h1" not in h and "<h2" in h
    assert "app-" not in _html(by_op["drop_auto_ids"].doc).split("<main")[0].split("<body")[1]
    assert 'class="sidebar"' in _html(by_op["decoy_label"].doc)
    assert "decoy value" in _html(by_op["decoy_label"].doc)
    assert "wrap-" in _html(by_op["wrap_ancestors"].doc)
    assert "css-" in _html(by_op["hash_classes"].doc)
    assert "Notice:" in _html(by_op["add_rows_above"].doc)
    assert "\u00a0" in _html(by_op["whitespace_entities"].doc) or "\n      " in _html(
        by_op["whitespace_entities"].doc
    )


def test_deterministic_and_seed_dependent() -> None:
    a = [(op, h) for op, h in mutate_html(DETAIL, seed=5)]
    b = [(op, h) for op, h in mutate_html(DETAIL, seed=5)]
    c = [(op, h) for op, h in mutate_html(DETAIL, seed=6)]
    assert a == b
    assert a != c


def test_operator_subset_and_unknown() -> None:
    out = mutate_html(DETAIL, operators=["heading_shift", "rename_classes"], seed=0)
    assert [op for op, _ in out] == ["heading_shift", "rename_classes"]
    with pytest.raises(AuthoringError, match="unknown mutation operator"):
        mutate_html(DETAIL, operators=["explode"])


def test_list_page_mutations_keep_record_roots() -> None:
    doc = parse_html(list_page(2))
    rows = doc.xpath("//tbody/tr")
    mutants = mutate_tree(doc, records=rows[:3], targets=[r[1] for r in rows[:3]], seed=0)
    for m in mutants:
        assert [
            clean_text(itext(r[1 if m.operator != "insert_sibling_before" else 2]))
            for r in m.records
        ] == [clean_text(itext(r[1])) for r in rows[:3]], m.operator
        assert all(r.getroottree().getroot() is m.doc for r in m.records)
    notice = next(m for m in mutants if m.operator == "add_rows_above")
    assert "notice" in _html(notice.doc)


# -- decoy placement and the same-tag block ------------------------------------------------------

BLOCK_PAGE = """<html><body><div id="wrap">
<div id="product-details"><h1><a href="#top"><img src="i.png"></a>The Book</h1>
<div class="product-author">By: <a href="/author/alex">Alex Harris</a></div>
<ul class="overview-details"><li><strong>ISBN-13</strong>: 9781416586593</li>
<li><strong>Publisher</strong>: Jove</li></ul></div>
</div></body></html>"""


def _first_value(doc: object, xpath: str) -> str:
    res = doc.xpath(xpath)  # type: ignore[attr-defined]
    return clean_text(str(res[0] if not hasattr(res[0], "tag") else itext(res[0])))


def test_decoy_is_placed_before_the_target_and_keeps_the_label() -> None:
    doc = parse_html(BLOCK_PAGE)
    isbn = doc.xpath("//li[strong='ISBN-13']")[0]
    author = doc.xpath("//div[@class='product-author']/a")[0]
    for seed in range(6):  # every seed: the placement no longer depends on the RNG
        (m,) = mutate_tree(doc, targets=[isbn, author], operators=["decoy_label"], seed=seed)
        body = m.doc.find(".//body")
        first, last = body[0], body[-1]
        assert first.tag == "aside" and last.tag == "aside"
        decoy = _html(first)
        assert "ISBN-13" in decoy and "9781416586593" not in decoy
        assert "Alex Harris" not in decoy and "By:" in decoy
        # the attribute of the copied target is rewritten (the old code rewrote another node)
        assert 'href="decoy"' in decoy and "/author/alex" not in decoy
        # the first-match label anchor now takes the decoy, the scoped one does not
        label = "descendant::strong[normalize-space()='ISBN-13'][1]/following-sibling::text()[1]"
        unscoped = "/" + label
        scoped = "/descendant::div[@id='product-details'][1]/" + label
        assert "decoy value" in _first_value(m.doc, unscoped)
        assert _first_value(m.doc, scoped).endswith("9781416586593")


def test_decoy_of_a_long_block_is_pruned_to_the_target_path() -> None:
    filler = "<div class='ads'>" + "lorem ipsum " * 100 + "</div>"
    page = BLOCK_PAGE.replace(
        '<ul class="overview-details">', filler + '<ul class="overview-details">'
    )
    doc = parse_html(page)
    title = doc.xpath("//h1")[0]
    (m,) = mutate_tree(doc, targets=[title], operators=["decoy_label"], seed=0)
    decoy = _html(m.doc.find(".//body")[0])
    assert "lorem ipsum" not in decoy and "The Book" not in decoy
    assert 'class="product-author"' in decoy  # the block's small neighbours stay


def test_same_tag_above_fools_far_positional_anchor_not_nearest() -> None:
    doc = parse_html(BLOCK_PAGE.replace('<a href="#top"><img src="i.png"></a>', ""))
    author = doc.xpath("//div[@class='product-author']/a")[0]
    far = "/descendant::div[@id='product-details'][1]/descendant::a[1]"
    near = "/descendant::div[contains(@class, 'product-author')][1]/descendant::a[1]"
    assert _first_value(doc, far) == _first_value(doc, near) == "Alex Harris"
    for seed in range(4):
        (m,) = mutate_tree(doc, targets=[author], operators=["same_tag_above"], seed=seed)
        assert _first_value(m.doc, far) == "Sponsored"
        assert _first_value(m.doc, near) == "Alex Harris"
        assert clean_text(itext(m.targets[0])) == "Alex Harris"


def test_same_tag_above_keeps_table_and_record_shapes() -> None:
    doc = parse_html(list_page(2))
    rows = doc.xpath("//tbody/tr")
    shapes = [[c.tag for c in r] for r in rows[:3]]
    targets = [r[1] for r in rows[:3]]
    mutants = mutate_tree(doc, records=rows[:3], targets=targets, operators=["same_tag_above"])
    for m in mutants:
        assert [[c.tag for c in r] for r in m.records] == shapes
        assert not m.doc.xpath("//tr/div | //tbody/div | //table/div | //ul/div")


def test_list_targets_get_decoys_but_no_sibling_inserts() -> None:
    page = (
        "<html><body><div id='content'><div class='genres'><h4>Genre</h4><ul>"
        "<li><a href='/g/1'>Crime</a></li><li><a href='/g/2'>Drama</a></li></ul></div>"
        "</div></body></html>"
    )
    doc = parse_html(page)
    items = doc.xpath("//li/a")
    by_op = {m.operator: m for m in mutate_tree(doc, list_targets=items, seed=0)}
    assert "insert_sibling_before" not in by_op  # nothing but list items: no new items
    assert "wrap_ancestors" in by_op and [
        clean_text(itext(a)) for a in by_op["wrap_ancestors"].doc.xpath("//li/a")
    ] == ["Crime", "Drama"]
    decoy = _html(by_op["decoy_label"].doc.find(".//body")[0])
    assert 'class="genres"' in decoy and "Genre" in decoy
    assert "Crime" not in decoy and "Drama" not in decoy
    assert by_op["same_tag_above"].doc.xpath("//div[@class='promo']/a")
