"""The pure extraction engine (anchorpath.selectors.evaluate) on pages generated here."""

from __future__ import annotations

import random
import warnings
from dataclasses import replace
from typing import Any

import pytest
from lxml import etree

from anchorpath._errors import ExtractionError, NoPageTypeError
from anchorpath.selectors.evaluate import (
    ExtractionWarning,
    compile_selectors,
    evaluate_page,
    extract,
    parse_html,
)
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile

URL = "https://shop.example/p/7"
LIST_URL = "https://shop.example/list?page=1"


def label(text: str, rest: str = "/following-sibling::td[1]") -> str:
    """The label-text anchor form the authoring side writes."""
    return f"/descendant::th[normalize-space()='{text}'][1]{rest}"


def make_sf(
    fields: dict[str, dict[str, Any]],
    *,
    record_root: str | None = None,
    follow: list[str] | None = None,
    next_xpath: str | None = None,
    match: str = r"/p/\d+",
) -> SelectorFile:
    pt: dict[str, Any] = {"match": match, "fields": fields}
    if record_root:
        pt["record_root"] = record_root
    if follow:
        pt["follow"] = follow
    fetch: dict[str, Any] = {"start_urls": [URL]}
    if next_xpath:
        fetch["pagination"] = {"next_xpath": next_xpath}
    return parse_selector_data(
        {
            "schema_version": 1,
            "site": {"id": "test-shop", "name": "Test shop"},
            "version": 1,
            "fetch": fetch,
            "page_types": {"product": pt},
            "key": [next(iter(fields))],
        },
        "test-shop.json",
    )


def f(xpath: str, typ: str = "string", **extra: Any) -> dict[str, Any]:
    return {"xpath": xpath, "type": typ, **extra}


def detail_page(rows: list[tuple[str, str]], *, head: str = "", before: str = "") -> str:
    trs = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return (
        f"{before}<html><head><meta charset='utf-8'>{head}<title>x</title></head><body>"
        "<nav><a href='/'>Home</a><a href='/about'>About</a></nav>"
        f"<div class='product'><div class='inner'><table class='spec'>{trs}</table></div></div>"
        "<footer>© shop</footer></body></html>"
    )


ROWS = [
    ("Brand", "Acme"),
    ("SKU", " SKU-0007 "),
    ("Price", "1,299.00"),
    ("Stock", "42"),
    ("Released", "2024.03.05"),
    ("Manual", "<a href='/manuals/7.pdf'>PDF</a>"),
]


# -- records ------------------------------------------------------------------------------------


def test_page_level_record_with_typed_values() -> None:
    sf = make_sf(
        {
            "brand": f(label("Brand"), required=True),
            "sku": f(label("SKU")),
            "price": f(label("Price"), "number"),
            "stock": f(label("Stock"), "integer"),
            "released": f(label("Released"), "date"),
            "manual": f(label("Manual", "/following-sibling::td[1]/a/@href"), "url"),
        }
    )
    [rec] = extract(sf, detail_page(ROWS).encode("utf-8"), URL)
    assert rec.page_type == "product" and rec.url == URL
    assert dict(rec.values) == {
        "brand": "Acme",
        "sku": "SKU-0007",
        "price": 1299.0,
        "stock": 42,
        "released": "2024-03-05",
        "manual": "https://shop.example/manuals/7.pdf",
    }
    assert not rec.flagged and rec.trace is None
    assert rec.to_dict()["_page_type"] == "product"


def list_page(n: int) -> str:
    rows = "".join(
        f"<tr class='item'><td class='no'>{i}</td><td><a href='/p/{i}'>Item {i}</a></td>"
        f"<td class='price'>{i * 10},5</td><td><span class='tag'>a{i}</span>"
        f"<span class='tag'>b{i}</span></td></tr>"
        for i in range(1, n + 1)
    )
    return (
        "<html><body><table id='list'><thead><tr><th>No</th><th>Name</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        "<div class='pages'><a class='next' href='?page=2'>Next</a></div></body></html>"
    )


def test_list_records_one_per_record_root() -> None:
    sf = make_sf(
        {
            "no": f("./td[@class='no']", "integer", required=True),
            "name": f("./td[2]/a"),
            "link": f("./td[2]/a/@href", "url"),
            "price": f("./td[@class='price']", "number", normalize={"number_locale": "de"}),
            "tags": f(".//span[@class='tag']", "list"),
        },
        record_root="//table[@id='list']/tbody/tr[@class='item']",
        follow=["//tr[@class='item']/td[2]/a"],
        next_xpath="//a[@class='next']/@href",
        match=r"/list",
    )
    compiled = compile_selectors(sf)
    result = evaluate_page(compiled, parse_html(list_page(3)), LIST_URL)
    assert result.record_root_count == 3
    assert [dict(r.values) for r in result.records] == [
        {
            "no": i,
            "name": f"Item {i}",
            "link": f"https://shop.example/p/{i}",
            "price": i * 10 + 0.5,
            "tags": [f"a{i}", f"b{i}"],
        }
        for i in (1, 2, 3)
    ]
    assert result.links == tuple(f"https://shop.example/p/{i}" for i in (1, 2, 3))
    assert result.next_url == "https://shop.example/list?page=2"
    # extract() gives the same records.
    assert list(result.records) == extract(sf, list_page(3), LIST_URL)


def test_list_page_without_rows_gives_no_records() -> None:
    sf = make_sf({"no": f("./td[1]")}, record_root="//tr[@class='item']", match="/list")
    assert extract(sf, list_page(0), LIST_URL) == []


def test_url_no_page_type_matches_is_an_error_not_an_empty_list() -> None:
    """[] would read as "no records on this page"; a page no page type matches was never
    looked at: a typed error naming the URL and the patterns, unless a page type is forced."""
    sf = make_sf({"brand": f(label("Brand"))})
    with pytest.raises(
        NoPageTypeError, match=r"https://shop.example/about: matches no page type of test-shop"
    ):
        extract(sf, detail_page(ROWS), "https://shop.example/about")
    (rec,) = extract(sf, detail_page(ROWS), "https://shop.example/about", page_type="product")
    assert rec.values["brand"]
    with pytest.raises(NoPageTypeError, match=r"no page type 'nope' \(page types: product"):
        extract(sf, detail_page(ROWS), "https://shop.example/about", page_type="nope")


# -- problems are flagged, not raised ----------------------------------------------------------


def test_missing_required_field_flags_the_record() -> None:
    sf = make_sf(
        {
            "brand": f(label("Brand"), required=True),
            "ean": f(label("EAN"), required=True),
            "tags": f("//li[@class='tag']", "list", required=True),
            "note": f(label("Note")),  # optional: missing is fine
        }
    )
    [rec] = extract(sf, detail_page(ROWS), URL)
    assert rec.values == {"brand": "Acme", "ean": None, "tags": None, "note": None}
    assert rec.missing == ("ean", "tags")
    assert rec.flagged
    assert rec.to_dict()["_missing"] == ["ean", "tags"]


def test_value_that_does_not_fit_its_type_is_a_problem() -> None:
    sf = make_sf({"brand": f(label("Brand"), "integer"), "sku": f(label("SKU"))})
    [rec] = extract(sf, detail_page(ROWS), URL)
    assert rec.values == {"brand": None, "sku": "SKU-0007"}
    assert rec.problems and "brand" in rec.problems[0] and "'Acme'" in rec.problems[0]
    assert rec.flagged


def test_element_with_markup_is_coerced_to_text_with_a_warning() -> None:
    rows = [("Brand", "<b>Acme</b> <i>Tools</i>"), ("SKU", "S1")]
    sf = make_sf({"brand": f(label("Brand")), "sku": f(label("SKU"))})
    with pytest.warns(ExtractionWarning, match="'brand'.*coerced to its text"):
        [rec] = extract(sf, detail_page(rows), URL)
    assert rec.values["brand"] == "Acme Tools"
    # A leaf element's text is unambiguous: no warning for "sku".
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        extract(make_sf({"sku": f(label("SKU"))}), detail_page(rows), URL)


def test_several_elements_for_a_scalar_warn_and_take_the_first() -> None:
    sf = make_sf({"cell": f("//table[@class='spec']//td")})
    with pytest.warns(ExtractionWarning, match="returned 6 elements; first used"):
        [rec] = extract(sf, detail_page(ROWS), URL)
    assert rec.values["cell"] == "Acme"


def test_xpath_returning_a_number_or_boolean() -> None:
    sf = make_sf(
        {
            "rows": f("count(//table[@class='spec']//tr)", "integer"),
            "has": f("boolean(//nav)"),
            "nan": f("number(//nothing)", "number", required=True),
        }
    )
    [rec] = extract(sf, detail_page(ROWS), URL)
    assert rec.values == {"rows": 6, "has": "true", "nan": None}
    assert rec.missing == ("nan",)


# -- traces -------------------------------------------------------------------------------------


def test_trace_gives_the_xpath_and_the_node_path_of_every_value() -> None:
    manual = label("Manual", "/following-sibling::td[1]/a/@href")
    sf = make_sf(
        {
            "brand": f(label("Brand")),
            "manual": f(manual, "url"),
            "price_text": f(label("Price", "/following-sibling::td[1]/text()"), "number"),
            "missing": f(label("EAN")),
        }
    )
    html = detail_page(ROWS)
    [rec] = extract(sf, html, URL, trace=True)
    assert rec.trace is not None
    assert set(rec.trace) == {"brand", "manual", "price_text"}  # nothing found: no trace
    doc = parse_html(html)
    brand = rec.trace["brand"]
    assert brand.xpath == label("Brand") and brand.fallback is None
    [node] = doc.xpath(brand.nodes[0])
    assert node.text_content() == "Acme"
    assert rec.trace["manual"].xpath == manual
    assert rec.trace["manual"].nodes[0].endswith("/a/@href")
    assert doc.xpath(rec.trace["manual"].nodes[0]) == ["/manuals/7.pdf"]
    assert rec.trace["price_text"].nodes[0].endswith("/td/text()")
    assert rec.to_dict()["_trace"]["brand"] == {"xpath": brand.xpath, "nodes": list(brand.nodes)}
    # Traced and untraced runs agree on the values.
    assert extract(sf, html, URL)[0].values == rec.values


def test_trace_of_list_records_points_into_each_record() -> None:
    sf = make_sf({"name": f("./td[2]/a")}, record_root="//tr[@class='item']", match="/list")
    recs = extract(sf, list_page(2), LIST_URL, trace=True)
    paths = [r.trace["name"].nodes[0] for r in recs if r.trace]
    assert paths == ["/html/body/table/tbody/tr[1]/td[2]/a", "/html/body/table/tbody/tr[2]/td[2]/a"]


# -- fallbacks ----------------------------------------------------------------------------------


def test_fallbacks_are_tried_in_order_and_the_trace_says_which_one() -> None:
    fallbacks = [label("Maker"), label("Manufacturer"), label("Brand")]
    sf = make_sf({"brand": f(label("Make"), fallbacks=fallbacks)})
    rows = [("Brand", "Acme"), ("Manufacturer", "Acme Industries")]
    [rec] = extract(sf, detail_page(rows), URL, trace=True)
    # "Make" and "Maker" miss; "Manufacturer" (fallback 1) hits before "Brand" is tried.
    assert rec.values["brand"] == "Acme Industries"
    assert rec.trace is not None
    assert rec.trace["brand"].fallback == 1
    assert rec.trace["brand"].xpath == label("Manufacturer")


def test_primary_wins_over_fallbacks() -> None:
    sf = make_sf({"brand": f(label("Brand"), fallbacks=[label("Manufacturer")])})
    rows = [("Manufacturer", "Acme Industries"), ("Brand", "Acme")]
    [rec] = extract(sf, detail_page(rows), URL, trace=True)
    assert rec.values["brand"] == "Acme"
    assert rec.trace is not None and rec.trace["brand"].fallback is None


def test_whitespace_only_result_counts_as_not_found() -> None:
    sf = make_sf(
        {"brand": f(label("Brand", "/following-sibling::td[1]/text()"), fallbacks=[label("Maker")])}
    )
    [rec] = extract(sf, detail_page([("Brand", "   "), ("Maker", "Acme")]), URL)
    assert rec.values["brand"] == "Acme"


# -- types and normalisation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "typ", "normalize", "expected"),
    [
        ("1,234", "integer", {}, 1234),
        ("1.234", "integer", {"number_locale": "de"}, 1234),
        ("1 234,50 €", "number", {"number_locale": "fr"}, 1234.5),
        ("₩ 12,000원", "integer", {"number_locale": "ko"}, 12000),
        ("12.5&nbsp;kg", "number", {"strip_suffix": r"\s*kg"}, 12.5),
        ("2024년 3월 5일", "date", {}, "2024-03-05"),
        ("05/03/2024", "date", {"date_formats": ["%d/%m/%Y"]}, "2024-03-05"),
        ("March 5, 2024", "date", {}, "2024-03-05"),
        ("2024-03-05 09:15", "datetime", {}, "2024-03-05T09:15:00"),
        ("Price: 99", "integer", {"strip_prefix": "Price:"}, 99),
        ("  a \n  b  ", "string", {}, "a b"),
    ],
)
def test_types_and_normalisation(
    cell: str, typ: str, normalize: dict[str, Any], expected: Any
) -> None:
    spec = f(label("V"), typ, normalize=normalize) if normalize else f(label("V"), typ)
    [rec] = extract(make_sf({"v": spec}), detail_page([("V", cell)]), URL)
    assert rec.values["v"] == expected
    assert not rec.problems


def test_url_resolution_against_base_href() -> None:
    sf = make_sf({"manual": f(label("Manual", "/following-sibling::td[1]/a/@href"), "url")})
    rows = [("Manual", "<a href='guide.pdf'>PDF</a>")]
    [plain] = extract(sf, detail_page(rows), URL)
    assert plain.values["manual"] == "https://shop.example/p/guide.pdf"
    head = "<base href='https://cdn.example/files/'>"
    [based] = extract(sf, detail_page(rows, head=head), URL)
    assert based.values["manual"] == "https://cdn.example/files/guide.pdf"
    # A relative <base> resolves against the page URL first.
    [rel] = extract(sf, detail_page(rows, head="<base href='/static/'>"), URL)
    assert rel.values["manual"] == "https://shop.example/static/guide.pdf"
    # A <base> line before <html> (some servers emit one) works too.
    before = "<base href='https://mirror.example/m/'>\n"
    [early] = extract(sf, detail_page(rows, before=before), URL)
    assert early.values["manual"] == "https://mirror.example/m/guide.pdf"


def test_list_type_keeps_every_non_empty_text() -> None:
    html = (
        "<html><body><ul class='f'><li>Fast</li><li> </li><li>Quiet\n  motor</li>"
        "<li><b>Cheap</b></li></ul></body></html>"
    )
    sf = make_sf({"features": f("//ul[@class='f']/li", "list")})
    [rec] = extract(sf, html, URL)
    assert rec.values["features"] == ["Fast", "Quiet motor", "Cheap"]


def test_join_separator_for_several_text_nodes() -> None:
    html = "<html><body><p class='a'>Seoul<br>Gangnam-gu<br>Teheran-ro 1</p></body></html>"
    sf = make_sf({"addr": f("//p[@class='a']/text()", normalize={"join": ", "})})
    [rec] = extract(sf, html, URL)
    assert rec.values["addr"] == "Seoul, Gangnam-gu, Teheran-ro 1"


# -- the label-index fast path gives what libxml2 would --------------------------------------


TRICKY = (
    "<html><body>"
    "<table><tr><th>Lead</th><td>no</td></tr></table>"
    "<table>"
    "<tr><th>  Brand\n </th><td>first brand</td></tr>"  # white space around the label
    "<tr><th>Brand</th><td>second brand</td></tr>"  # duplicate label: first one wins
    "<tr><th><b>Model</b> </th><td>nested <i>markup</i></td></tr>"
    "<tr><th>Maker's mark</th><td>quote</td></tr>"
    "<tr><th>Colour</th></tr>"  # the first Colour has no td: empty, not the next one
    "<tr><th>Colour</th><td>red</td></tr>"
    "<tr><th>Brand\ue000Model</th><td>separator in page text</td></tr>"
    "<tr><th>Size\u00a0cm</th><td>nbsp in label</td></tr>"
    "<tr><th>Links</th><td><a href='/a'>A</a> <a href='/b'>B</a></td></tr>"
    "</table>"
    "<div><th>Orphan</th></div>"
    "</body></html>"
)

FAST_FORMS = [
    label("Brand"),
    label("Model"),
    label("Maker's mark").replace("'Maker's mark'", '"Maker\'s mark"'),
    label("Colour"),
    label("Size\u00a0cm"),
    label("Links", "//a/@href"),
    label("Links", "/following-sibling::td[1]/a[2]/text()"),
    label("Links", "/following-sibling::*[1]/a[last()]"),
    label("Brand", ""),
    "/descendant::th[normalize-space(.)='Brand'][1]/following-sibling::td[1]",
    "/descendant::th[normalize-space() = 'Model'][1]/following-sibling::td[1]/i",
    label("Missing"),
    label("Orphan"),
    label("Lead"),
    # Forms the fast path must leave to libxml2 (their meaning depends on the whole expression).
    label("Brand", "/following-sibling::td[1] | //th[1]"),
    label("Brand", "/following-sibling::td[1] = 'first brand'"),
    label("Missing", "/following-sibling::td[1] = 'x'"),
    label("Brand", "/following-sibling::td[1]*2"),
    label("Brand", "/following-sibling::td[1]-1"),
    label("Brand", "/following-sibling::td[1]/self::td-x"),
]


@pytest.mark.parametrize("xpath", FAST_FORMS)
def test_anchored_fast_path_matches_plain_xpath_evaluation(xpath: str) -> None:
    sf = make_sf({"v": f(xpath, "list")})
    doc = parse_html(TRICKY)
    [rec] = evaluate_page(compile_selectors(sf), doc, URL).records
    raw = etree.XPath(xpath)(doc)
    if isinstance(raw, float) and raw != raw:
        raw = []  # NaN: no value
    elif not isinstance(raw, list):
        raw = [str(raw).lower() if isinstance(raw, bool) else str(raw)]
    texts = [
        " ".join((x.text_content() if hasattr(x, "text_content") else str(x)).split()) for x in raw
    ]
    texts = [t for t in texts if t]
    assert rec.values["v"] == (texts or None)


def test_anchored_lookups_use_one_walk_per_tag() -> None:
    sf = make_sf({"a": f(label("Brand")), "b": f(label("Model")), "c": f("//td[1]")})
    cpt = compile_selectors(sf).page_types[0]
    assert list(cpt.label_queries) == ["th"]
    lookups = [cf.lookups[0] for cf in cpt.fields]
    assert [lk.label for lk in lookups] == ["Brand", "Model", None]


# -- compile cache, drift signals ---------------------------------------------------------------


def test_selectors_are_compiled_once_per_model_object() -> None:
    sf = make_sf({"brand": f(label("Brand"))})
    assert compile_selectors(sf) is compile_selectors(sf)
    assert compile_selectors(sf, trace=True) is not compile_selectors(sf)
    other = make_sf({"brand": f(label("Brand"))})
    assert compile_selectors(other) is not compile_selectors(sf)


def test_anchors_present_is_a_drift_signal_of_evaluate_page() -> None:
    fields = {
        "brand": f(label("Brand"), anchor={"kind": "label-text", "value": "Brand"}),
        "ean": f(label("EAN"), anchor={"kind": "label-text", "value": "EAN"}),
        "sku": f(
            label("Stock keeping unit"),
            anchor={"kind": "label-text", "value": "Stock keeping unit"},
        ),
        "free": f("//footer", anchor={"kind": "label-text", "value": "© shop"}),
    }
    sf = make_sf(fields)
    rows = [*ROWS, ("Stock\n   keeping unit", "x")]  # found only after white space clean-up
    result = evaluate_page(compile_selectors(sf), parse_html(detail_page(rows)), URL)
    assert result.anchors_present == {"brand": True, "ean": False, "sku": True, "free": True}
    skipped = evaluate_page(
        compile_selectors(sf), parse_html(detail_page(rows)), URL, anchors=False
    )
    assert skipped.anchors_present == {}
    assert skipped.records == result.records


def test_anchor_labels_match_texts_with_or_without_a_trailing_colon() -> None:
    labels = {"a": "Brand", "b": "Brand:", "c": "Model", "d": "Size：", "e": "Color", "g": ":"}
    labels["h"] = "："  # only colons: a text of only the same colon
    fields = {
        name: f("(//td)[1]", anchor={"kind": "label-text", "value": value})
        for name, value in labels.items()
    }
    rows = [("Brand:", "x"), ("Model ：", "y"), (":", "z"), ("Size", "w")]
    result = evaluate_page(compile_selectors(make_sf(fields)), parse_html(detail_page(rows)), URL)
    assert result.anchors_present == {
        "a": True,
        "b": True,
        "c": True,
        "d": True,
        "e": False,
        "g": True,
        "h": False,
    }


def _random_page(rng: random.Random) -> str:
    labels = ["Brand", "Model", "Maker's", "Size cm", "A B", "Other", "Brand Model"]
    rows = []
    for _ in range(rng.randint(0, 12)):
        lab = rng.choice(labels)
        pad = rng.choice(["", " ", "\n  ", "\u00a0"])
        head, _sp, tail = lab.partition(" ")
        th = rng.choice(
            [f"{pad}{lab}{pad}", f"<b>{lab}</b>", f"{lab}<!-- c -->", f"<i>{head}</i> {tail}"]
        )
        td = rng.choice(
            ["", "<td>v1</td>", "<td> 12,5 </td>", "<td><a href='x.pdf'>x</a></td>",
             "<td><b>a</b> c</td><td>2</td>"]
        )  # fmt: skip
        rows.append(f"<tr><th>{th}</th>{td}</tr>")
    base = rng.choice(["", "<base href='https://cdn.example/d/'>"])
    return (
        f"<html><head>{base}</head><body><table>{''.join(rows)}</table>"
        "<dl><dt>Brand</dt><dd>dd</dd></dl></body></html>"
    )


def _random_xpath(rng: random.Random) -> str:
    lab = rng.choice(["Brand", "Model", "Maker's", "Size cm", "A B"])
    q = '"' if "'" in lab else "'"
    tag = rng.choice(["th", "th", "dt", "b"])
    rest = rng.choice(
        ["/following-sibling::td[1]", "/following-sibling::td[1]/a/@href", "/following-sibling::*",
         "", "/following-sibling::td[1]/text()", "/..//td", "/following-sibling::td[2]"]
    )  # fmt: skip
    return f"/descendant::{tag}[normalize-space()={q}{lab}{q}][1]{rest}"


@pytest.mark.parametrize("seed", range(60))
def test_fast_path_agrees_with_plain_xpath_on_random_pages(seed: int) -> None:
    rng = random.Random(seed)
    fields = {
        f"f{k}": f(
            _random_xpath(rng),
            rng.choice(["string", "list", "url", "number"]),
            required=rng.random() < 0.5,
            fallbacks=[_random_xpath(rng) for _ in range(rng.randint(0, 2))],
        )
        for k in range(rng.randint(1, 5))
    }
    sf = make_sf(fields, match=".")
    html = _random_page(rng)
    for trace in (False, True):
        fast = compile_selectors(sf, trace=trace)
        assert fast.page_types[0].label_queries  # the fast path is really under test
        plain = replace(fast, page_types=[replace(pt, label_queries={}) for pt in fast.page_types])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExtractionWarning)
            got = evaluate_page(fast, parse_html(html), URL, trace=trace)
            want = evaluate_page(plain, parse_html(html), URL, trace=trace)
        assert got == want


def test_empty_primary_match_falls_back() -> None:
    from anchorpath.selectors.load import parse_selector_data

    sf = parse_selector_data(
        {
            "schema_version": 1,
            "site": {"id": "t", "name": "T"},
            "version": 1,
            "fetch": {"start_urls": ["http://x/"]},
            "key": ["author"],
            "page_types": {
                "p": {
                    "match": ".",
                    "fields": {
                        "author": {
                            "xpath": "/descendant::div[@id='d'][1]/descendant::a[1]",
                            "type": "string",
                            "fallbacks": ["/descendant::div[@class='by'][1]/a"],
                        }
                    },
                }
            },
        }
    )
    html = '<div id="d"><h1><a href="#top"><img src="i.png"></a>T</h1><div class="by"><a>Ann</a></div></div>'
    (rec,) = extract(sf, html, "http://x/", trace=True)
    assert rec.values["author"] == "Ann"
    assert rec.trace is not None and rec.trace["author"].fallback == 0


def test_renamed_label_is_not_present() -> None:
    from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, parse_html
    from anchorpath.selectors.load import parse_selector_data

    def field(label: str) -> dict[str, object]:
        return {
            "xpath": f"/descendant::th[normalize-space()='{label}'][1]/following-sibling::td[1]",
            "type": "string",
            "anchor": {"kind": "label-text", "value": label, "axis": "following-sibling::td[1]"},
        }

    sf = parse_selector_data(
        {
            "schema_version": 1,
            "site": {"id": "t", "name": "T"},
            "version": 1,
            "fetch": {"start_urls": ["http://x/"]},
            "key": ["a"],
            "page_types": {
                "p": {"match": ".", "fields": {"a": field("성분명"), "b": field("상태")}}
            },
        }
    )
    html = (
        "<table><tr><th><span class='label'>주성분명</span></th><td>X</td></tr>"
        "<tr><th><span class='label'>상태</span> <em>*</em></th><td>정상</td></tr></table>"
        "<p>성분명 appears in running text</p>"
    )
    page = evaluate_page(compile_selectors(sf), parse_html(html), "http://x/")
    assert page.anchors_present == {"a": False, "b": True}


def _nested(depth: int) -> bytes:
    return (
        b"<html><body>"
        + b"<div>" * depth
        + b"<p id='sku'>DEEP-1</p>"
        + b"</div>" * depth
        + b"<p id='after'>after</p></body></html>"
    )


def test_deeply_nested_page_is_parsed_whole() -> None:
    # libxml2 cuts at 256 levels by default, silently dropping everything after the cut.
    doc = parse_html(_nested(1000), plain=True)
    assert doc.xpath("//p/@id") == ["sku", "after"]
    assert parse_html(_nested(1000).decode()).xpath("//p/@id") == ["sku", "after"]


def test_page_beyond_the_parser_hard_limit_is_refused_not_cut() -> None:
    with pytest.raises(ExtractionError, match="cannot parse page: Excessive depth in document"):
        parse_html(_nested(3000), plain=True)
