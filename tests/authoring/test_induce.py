"""End to end: seeds + examples -> selector file that extracts the examples (and unseen
pages) through ``anchorpath.extract``; verification, fallbacks, robustness, clear errors."""

from __future__ import annotations

import warnings

import pytest

from anchorpath._errors import AuthoringError, GroundingError
from anchorpath.authoring.induce import author_page_type, author_site
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.authoring.synth import DETAIL_FIELDS, detail_page, detail_record
from anchorpath.selectors.evaluate import ExtractionWarning, extract
from anchorpath.selectors.load import dump_selector_file, parse_selector_data

FIELDS = [
    FieldRequest(f, "url" if f == "url" else "string", required=f == "isbn")
    for f, _, _ in DETAIL_FIELDS
]


def _seeds(ids=(0, 1, 2), **kw):  # type: ignore[no-untyped-def]
    seeds, ex = [], {}
    for i in ids:
        rec = detail_record(i)
        s = seed_from_html(
            detail_page(rec, seed=i, **kw),
            f"https://shop.test/books/{i}",
            source=f"seeds/p{i}.html",
        )
        seeds.append(s)
        ex[s.source] = rec
    return seeds, ex


@pytest.fixture(scope="module")
def authored():  # type: ignore[no-untyped-def]
    seeds, ex = _seeds()
    return author_site("Shop Test", seeds, FIELDS, ex, author="tester"), seeds, ex


def test_selector_file_is_valid_and_complete(authored) -> None:  # type: ignore[no-untyped-def]
    sf, seeds, _ = authored
    import json

    again = parse_selector_data(json.loads(dump_selector_file(sf)))
    assert again.site.id == "shop-test"
    assert sf.key == ("isbn",)
    assert sf.provenance.method == "examples"
    assert [s.sha256 for s in sf.provenance.seeds] == [s.sha256 for s in seeds]
    assert sf.fetch.start_urls == (seeds[0].url,)
    pt = sf.page_types["detail"]
    assert set(pt.fields) == {f.name for f in FIELDS}
    for spec in pt.fields.values():
        assert spec.robustness is not None and 0.5 <= spec.robustness <= 1
        assert len(spec.fallbacks) <= 2 and spec.examples
        assert not spec.xpath.startswith("//")


def test_label_fields_have_anchor_metadata(authored) -> None:  # type: ignore[no-untyped-def]
    sf, _, _ = authored
    pt = sf.page_types["detail"]
    labelled = [f for f in pt.fields.values() if f.anchor and f.anchor.kind == "label-text"]
    assert len(labelled) >= 5
    assert all(f.anchor.value and f.anchor.axis for f in labelled)
    assert pt.fields["series"].normalize.strip_prefix  # label residue stripped


def test_extracts_examples_on_seeds_and_unseen_pages(authored) -> None:  # type: ignore[no-untyped-def]
    sf, seeds, ex = authored
    for s in seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ExtractionWarning)
            (rec,) = extract(sf, s.html, s.url)
        assert rec.values == ex[s.source]
    for i in (7, 8):
        want = detail_record(i)
        (rec,) = extract(sf, detail_page(want, seed=i), f"https://shop.test/books/{i}")
        assert rec.values == want


def test_fallbacks_extract_too(authored) -> None:  # type: ignore[no-untyped-def]
    sf, seeds, ex = authored
    from anchorpath.authoring.scoring.verify import read_values
    from anchorpath.selectors.evaluate import parse_html

    doc = parse_html(seeds[1].html)
    for name, spec in sf.page_types["detail"].fields.items():
        for fb in spec.fallbacks:
            got = read_values(fb, doc, spec.normalize)
            assert got and got[0].casefold() == ex[seeds[1].source][name].casefold(), (name, fb)


def test_report_has_leave_one_out_and_candidates() -> None:
    seeds, ex = _seeds()
    res = author_page_type(
        seeds, FIELDS[:6], ex, AuthoringOptions(operators=("heading_shift", "decoy_label"))
    )
    for rep in res.fields.values():
        assert rep.leave_one_out_ok is True
        assert rep.candidates_considered >= 3 and rep.ranking[0].xpath == rep.xpath
    assert res.elapsed >= 0


def test_optional_field_absent_on_one_seed() -> None:
    seeds, ex = [], {}
    for i in range(3):
        rec = detail_record(i)
        omit = ("weight",) if i == 1 else ()
        s = seed_from_html(
            detail_page(rec, seed=i, omit=omit), f"https://s.test/b/{i}", source=f"p{i}"
        )
        if omit:
            rec = {k: v for k, v in rec.items() if k != "weight"}
        seeds.append(s)
        ex[s.source] = rec
    res = author_page_type(seeds, [FieldRequest("weight"), FieldRequest("pages")], ex)
    from anchorpath.authoring.scoring.verify import read_values
    from anchorpath.selectors.evaluate import parse_html

    xp = res.page_type.fields["weight"].xpath
    assert (
        read_values(xp, parse_html(seeds[1].html), res.page_type.fields["weight"].normalize) == []
    )


def test_grounding_failure_names_field_and_page() -> None:
    seeds, ex = _seeds()
    ex[seeds[1].source] = dict(ex[seeds[1].source], price="$1234.56")
    with pytest.raises(GroundingError) as err:
        author_page_type(seeds, [FieldRequest("price")], ex)
    assert "'price'" in str(err.value) and "seeds/p1.html" in str(err.value)
    res = author_page_type(
        seeds, [FieldRequest("price"), FieldRequest("pages")], ex, AuthoringOptions(strict=False)
    )
    assert "price" not in res.page_type.fields and any("'price'" in p for p in res.problems)


def test_inconsistent_values_are_reported() -> None:
    # A value that exists on each page but in unrelated places cannot be reproduced.
    seeds, ex = _seeds()
    ex[seeds[0].source] = dict(ex[seeds[0].source], odd=ex[seeds[0].source]["pages"])
    ex[seeds[1].source] = dict(ex[seeds[1].source], odd=ex[seeds[1].source]["weight"])
    ex[seeds[2].source] = dict(ex[seeds[2].source], odd=ex[seeds[2].source]["isbn"])
    with pytest.raises(AuthoringError, match="field 'odd': no XPath reproduces"):
        author_page_type(seeds, [FieldRequest("odd")], ex)


def test_ambiguous_label_reported() -> None:
    seeds, ex = _seeds()  # seeds 0 and 2 carry a sidebar with another "Publisher" row
    res = author_page_type(seeds, [FieldRequest("publisher")], ex)
    assert any("ambiguous anchor" in p and "'Publisher'" in p for p in res.problems)
    (rec,) = extract(
        author_site("s", seeds, [FieldRequest("publisher")], ex), seeds[0].html, seeds[0].url
    )
    assert rec.values["publisher"] == ex[seeds[0].source]["publisher"]


def test_bad_inputs() -> None:
    seeds, ex = _seeds()
    with pytest.raises(AuthoringError, match="no example values for seed"):
        author_page_type(seeds, FIELDS, {})
    with pytest.raises(AuthoringError, match="unknown type"):
        author_page_type(seeds, [FieldRequest("x", type="money")], ex)
    with pytest.raises(AuthoringError, match="no seed pages"):
        author_page_type([], FIELDS, ex)


def test_list_field_jsonld_and_typed_fields_extract() -> None:
    seeds, ex = [], {}
    for i in range(3):
        tags = [f"tag{i}-{k}" for k in range((1, 8, 9)[i])]  # one item, then many
        html = (
            "<html><head><script type='application/ld+json'>"
            f'{{"@type": "Product", "sku": "SKU-{i}"}}</script></head><body>'
            f"<h1>Item {i}</h1><table><tr><th>Released</th><td>2024.0{i + 1}.15</td></tr>"
            f"<tr><th>Stock</th><td>1,2{i}0</td></tr></table>"
            "<div class='tags'><ul>" + "".join(f"<li>{t}</li>" for t in tags) + "</ul></div>"
            "</body></html>"
        )
        s = seed_from_html(html, f"https://t.test/i/{i}", source=f"i{i}")
        seeds.append(s)
        ex[s.source] = {
            "sku": f"SKU-{i}",
            "released": f"2024-0{i + 1}-15",
            "stock": f"12{i}0",
            "tags": tags,
        }
    fields = [
        FieldRequest("sku"),
        FieldRequest("released", "date"),
        FieldRequest("stock", "integer"),
        FieldRequest("tags", "list"),
    ]
    sf = author_site("t", seeds, fields, ex)
    for s in seeds:
        (rec,) = extract(sf, s.html, s.url)
        want = ex[s.source]
        assert rec.values == {
            "sku": want["sku"],
            "released": want["released"],
            "stock": int(want["stock"]),
            "tags": want["tags"],
        }


# -- decoys before the target, nearest anchors (SWDE findings) -----------------------------------

BOOK = """<html><body><div id="page">
<div id="product-details"><h1>{icon}{title}</h1>
<div class="product-author">By: <a href="/author/{i}">{author}</a></div>
<ul class="overview-details"><li><strong>ISBN-13</strong>: {isbn}</li>
<li><strong>Publisher</strong>: {publisher}</li></ul></div>
</div>{sidebar}</body></html>"""
BOOKS = [
    {"title": "Night Myst", "author": "Alex Harris", "isbn": "9781416586593", "publisher": "Jove"},
    {"title": "Game Over", "author": "Ron Brackin", "isbn": "9780316125581", "publisher": "Mira"},
    {"title": "Foreign Influence", "author": "Sally Laity", "isbn": "9780758242662",
     "publisher": "Aphrodisia"},
    {"title": "Dead in the Family", "author": "Kristy Dykes", "isbn": "9780515148152",
     "publisher": "Hachette"},
]  # fmt: skip
SIDEBAR = (
    "<div class='quick'><ul class='overview-details'><li><strong>ISBN-13</strong>: 0000000000"
    "</li><li><strong>Publisher</strong>: Nobody</li></ul></div>"
)


def _book(i: int, *, icon: str = "", sidebar: str = "", before: bool = False) -> str:
    html = BOOK.format(i=i, icon=icon, sidebar="" if before else sidebar, **BOOKS[i])
    return html.replace("<body>", "<body>" + sidebar) if before else html


def test_decoy_before_target_prefers_scoped_label_and_nearest_anchor() -> None:
    seeds = [
        seed_from_html(_book(i), f"https://books.test/p/{i}", source=f"b{i}") for i in range(3)
    ]
    fields = [FieldRequest(f) for f in ("title", "author", "isbn", "publisher")]
    ex = {f"b{i}": dict(BOOKS[i]) for i in range(3)}
    res = author_page_type(seeds, fields, ex)
    sf = author_site("books", seeds, fields, ex)
    isbn = res.fields["isbn"].xpath or ""
    # scoped by a stable container: a sidebar repeating the label earlier does not steal it
    assert "descendant::strong[normalize-space()='ISBN-13'][1]" in isbn
    assert not isbn.startswith("/descendant::strong")
    # the author: the nearest anchor, not the far id + first link of the block
    assert (
        res.fields["author"].xpath != "/descendant::div[@id='product-details'][1]/descendant::a[1]"
    )
    unseen = _book(3, icon='<a href="#top"><img src="i.png"></a>', sidebar=SIDEBAR, before=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        (rec,) = extract(sf, unseen, "https://books.test/p/3")
    assert rec.values == {k: BOOKS[3][k] for k in ("title", "author", "isbn", "publisher")}


def test_class_anchored_primary_keeps_a_class_free_fallback() -> None:
    # without the "By:" label the author is best told apart by its block's class
    seeds = [
        seed_from_html(_book(i).replace("By: ", ""), f"https://books.test/p/{i}", source=f"b{i}")
        for i in range(3)
    ]
    fields = [FieldRequest("author")]
    ex = {f"b{i}": {"author": BOOKS[i]["author"]} for i in range(3)}
    rep = author_page_type(seeds, fields, ex).fields["author"]
    assert rep.xpath and "@class" in rep.xpath
    assert any("@class" not in x for x in rep.fallbacks)


def test_list_field_with_plain_string_examples_is_a_one_item_list() -> None:
    """``--type author=list`` with ``"author": "Kim"`` per seed (each seed shows one author):
    the string is that seed's one-item list, not "0 candidates tried"."""
    page = (
        "<html><body><h1>{t}</h1><table><tr><th>ISBN</th><td>{i}</td></tr>"
        "<tr><th>Author</th><td><ul>{a}</ul></td></tr></table></body></html>"
    )
    books = [("Game Over", "978-1", ["Kim Minji"]), ("Harbour", "978-2", ["Lee Junho", "Park"])]
    seeds, ex = [], {}
    for n, (title, isbn, authors) in enumerate(books):
        items = "".join(f"<li>{a}</li>" for a in authors)
        s = seed_from_html(page.format(t=title, i=isbn, a=items), f"https://b.test/book/{n}")
        seeds.append(s)
        ex[s.url] = {"isbn": isbn, "author": authors[0] if n == 0 else authors}
    fields = [FieldRequest("isbn"), FieldRequest("author", "list")]
    res = author_page_type(seeds, fields, ex)
    spec = res.page_type.fields["author"]
    assert spec.type == "list" and spec.examples[0] == ["Kim Minji"]
