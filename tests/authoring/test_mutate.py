"""The documented mutation set: every operator changes the page, keeps the target values,
is deterministic per seed and can be selected individually."""

from __future__ import annotations

import lxml.html
import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.ground import itext
from anchorpath.authoring.mutate import OPERATORS, mutate_html, mutate_tree
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
