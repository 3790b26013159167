"""List-page induction: record roots from ≥2 example records, relative fields, pagination."""

from __future__ import annotations

import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.induce import assemble_site, author_page_type
from anchorpath.authoring.pages.records import detect_pagination, induce_roots
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.authoring.synth import list_page, list_records
from anchorpath.selectors.evaluate import extract, parse_html

FIELDS = [
    FieldRequest("title", required=True),
    FieldRequest("price"),
    FieldRequest("author"),
    FieldRequest("link", type="url"),
]


def _seeds(pages: tuple[int, ...] = (1, 2, 3), picks: tuple[int, ...] = (1, 4, 7)):  # type: ignore[no-untyped-def]
    seeds, ex = [], {}
    for p in pages:
        s = seed_from_html(list_page(p), f"https://shop.test/books?page={p}", source=f"l{p}.html")
        recs = list_records(p)
        seeds.append(s)
        ex[s.source] = {
            k: [recs[i][k] for i in picks] for k in ("title", "price", "author", "link")
        }
    return seeds, ex


def test_induce_roots_lowest_common_repeating_ancestor() -> None:
    doc = parse_html(list_page(1))
    a = doc.xpath("//a[contains(., 'Book 101')]")[0]
    b = doc.xpath("//a[contains(., 'Book 105')]")[0]
    roots = induce_roots([[[a]], [[b]]])
    assert roots is not None and [r.tag for r in roots] == ["tr", "tr"]
    assert roots[0] is a.getparent().getparent()


def test_list_page_authoring_extracts_every_record_of_unseen_page() -> None:
    seeds, ex = _seeds()
    res = author_page_type(seeds, FIELDS, ex)
    pt = res.page_type
    assert pt.record_root and pt.record_root.startswith("/descendant::")
    assert all(f.xpath.startswith(".") for f in pt.fields.values())
    assert res.pagination is not None
    sf = assemble_site("shop", [res])
    recs = extract(sf, list_page(4), "https://shop.test/books?page=4")
    want = list_records(4)
    assert len(recs) == len(want)  # header row not taken as a record
    for r, w in zip(recs, want, strict=True):
        assert r.values["title"] == w["title"] and r.values["price"] == w["price"]
        assert r.values["link"] == "https://shop.test" + w["link"]
    assert all(rep.leave_one_out_ok for rep in res.fields.values())


def test_list_page_needs_two_records() -> None:
    seeds, ex = _seeds(picks=(2,))
    with pytest.raises(AuthoringError, match="at least two example records"):
        author_page_type(seeds, FIELDS, ex)


def test_pagination_forms() -> None:
    url = "https://x.test/list?page=2"
    rel = parse_html('<html><body><a href="?page=3" rel="next">→</a></body></html>')
    assert detect_pagination([(rel, url)]) == "/descendant::a[@rel='next'][1]/@href"
    word = parse_html(
        '<html><body><a href="?page=1">이전</a><a href="?page=3">다음</a></body></html>'
    )
    assert "다음" in (detect_pagination([(word, url)]) or "")
    arrow = parse_html('<html><body><a href="?page=3">›</a></body></html>')
    assert "›" in (detect_pagination([(arrow, url)]) or "")
    numbered = parse_html(
        '<html><body><div class="paging"><a href="?page=1">1</a>'
        '<strong>2</strong><a href="?page=3">3</a></div></body></html>'
    )
    expr = detect_pagination([(numbered, url)])
    assert expr is not None and "following-sibling" in expr
    assert numbered.xpath(expr) == ["?page=3"]
    none = parse_html("<html><body><a href='/about'>About</a></body></html>")
    assert detect_pagination([(none, url)]) is None
