"""Each candidate generator, auto-id rejection, early-stopping forms."""

from __future__ import annotations

from anchorpath.authoring.candidates.ground import DocIndex, ground_value
from anchorpath.authoring.candidates.scoping import container_scopes, split_first_step
from anchorpath.authoring.candidates.xpath_common import (
    absolute_xpath,
    is_auto_class,
    is_auto_id,
    literal,
)
from anchorpath.authoring.candidates.xpathgen import generate_candidates
from anchorpath.authoring.scoring.verify import read_values
from anchorpath.selectors.evaluate import parse_html

PAGE = """<html><body><div id="app-8f3a2c" class="sc-bdVaJa">
<aside><table><tr><th>성분명</th><td>decoy</td></tr></table></aside>
<main id="content">
<h1 class="product-title">Aspirin 100</h1>
<span itemprop="price">$9.99</span>
<table class="specs"><tr><th>성분명</th><td>아스피린</td></tr>
<tr><th>제조국</th><td>한국</td></tr></table>
<dl><dt>Weight</dt><dd>120 g</dd></dl>
<div class="row"><span class="lbl">Translator:</span></div><div class="val">Kim</div>
<ul><li><b>ISBN:</b> 978123</li></ul>
<div class="note">Series: Moon Saga</div>
</main></div></body></html>"""


def cands(value: str, pick: int = 0) -> tuple[list[str], object]:
    doc = parse_html(PAGE)
    t = ground_value(DocIndex(doc, "https://ex.test/"), value)[pick]
    cs = generate_candidates(t, doc, value_norm=value.casefold())
    return cs, doc  # type: ignore[return-value]


def works(c: object, doc: object, value: str) -> bool:
    return read_values(c.xpath, doc, c.normalize) == [value]  # type: ignore[attr-defined]


def test_auto_ids_and_classes() -> None:
    for v in ("app-8f3a2c", "ember123", "sc-bdVaJa", "Header_title__aB3cD", ":r1:", "item-3"):
        assert is_auto_id(v), v
    for v in ("content", "product-title", "main-nav", "price"):
        assert not is_auto_class(v), v


def test_literal_quotes() -> None:
    assert literal("a") == "'a'"
    assert literal("it's") == '"it\'s"'
    assert literal("""a'b"c""") == "concat('a', \"'\", 'b\"c')"


def test_attribute_anchor_itemprop_and_no_auto_id() -> None:
    cs, doc = cands("$9.99")
    xps = [c.xpath for c in cs]  # type: ignore[attr-defined]
    assert "/descendant::span[@itemprop='price'][1]" in xps
    assert not any("app-8f3a2c" in x or "sc-bdVaJa" in x for x in xps)
    assert all(works(c, doc, "$9.99") for c in cs)


def test_label_anchor_th_following_sibling_scoped_against_decoy() -> None:
    cs, doc = cands("아스피린")
    label = [c for c in cs if c.kind == "label-text"]  # type: ignore[attr-defined]
    xps = [c.xpath for c in label]
    # The unscoped label would hit the sidebar decoy first, so only the scoped form is made.
    assert (
        "/descendant::main[@id='content'][1]/descendant::th[normalize-space()='성분명'][1]"
        "/following-sibling::td[1]"
    ) in xps
    assert all(works(c, doc, "아스피린") for c in label)
    a = label[0].anchor
    assert a.kind == "label-text" and a.value == "성분명" and a.axis == "following-sibling::td[1]"


def test_label_anchor_dt_dd_and_parent_axis() -> None:
    cs, doc = cands("120 g")
    assert "/descendant::dt[normalize-space()='Weight'][1]/following-sibling::dd[1]" in [
        c.xpath for c in cs
    ]  # type: ignore[attr-defined]
    cs, doc = cands("Kim")
    xps = [c.xpath for c in cs]  # type: ignore[attr-defined]
    assert (
        "/descendant::span[normalize-space()='Translator:'][1]/parent::*/following-sibling::div[1]"
    ) in xps
    assert all(works(c, doc, "Kim") for c in cs)


def test_mixed_content_label_following_text() -> None:
    doc = parse_html(PAGE)
    ts = ground_value(DocIndex(doc, "u"), "978123")
    t = next(t for t in ts if t.mode == "text")
    cs = generate_candidates(t, doc)
    xps = [c.xpath for c in cs]
    assert "/descendant::b[normalize-space()='ISBN:'][1]/following-sibling::text()[1]" in xps
    assert all(works(c, doc, "978123") for c in cs)


def test_residue_gives_strip_prefix() -> None:
    cs, doc = cands("Moon Saga")
    starts = [c for c in cs if "starts-with" in c.xpath]  # type: ignore[attr-defined]
    assert starts and starts[0].normalize.strip_prefix == r"^.*?:\s*"
    assert all(works(c, doc, "Moon Saga") for c in cs)


def test_structural_and_absolute_last() -> None:
    cs, doc = cands("Aspirin 100")
    kinds = [c.kind for c in cs]  # type: ignore[attr-defined]
    assert kinds[-1] == "absolute" and "structure" in kinds
    assert cs[-1].xpath == absolute_xpath(cs and doc.xpath("//h1")[0])  # type: ignore
    # Early-stopping forms, no full-tree // scans.
    assert not any(c.xpath.startswith("//") for c in cs)  # type: ignore[attr-defined]


def test_relative_column_header_candidate() -> None:
    html = (
        "<html><body><table><thead><tr><th>No</th><th>Name</th></tr></thead><tbody>"
        "<tr><td>1</td><td>Alpha</td></tr><tr><td>2</td><td>Beta</td></tr></tbody></table>"
        "</body></html>"
    )
    doc = parse_html(html)
    row = doc.xpath("//tbody/tr[2]")[0]
    t = next(t for t in ground_value(DocIndex(doc, "u"), "Beta") if t.element.tag == "td")
    cs = generate_candidates(t, row, relative=True)
    col = [c for c in cs if c.anchor and c.anchor.axis == "column"]
    assert col and read_values(col[0].xpath, row, col[0].normalize) == ["Beta"]
    assert all(c.xpath.startswith(".") for c in cs)


def test_heading_level_blind_and_wrap_tolerant_label_axis() -> None:
    html = (
        "<html><body><div class='info'><h4>MPAA Rating</h4><ul><li>PG-13</li></ul>"
        "<h4>Released</h4><ul><li>2008</li></ul></div></body></html>"
    )
    doc = parse_html(html)
    t = next(t for t in ground_value(DocIndex(doc, "u"), "PG-13") if t.element.tag == "li")
    xps = [c.xpath for c in generate_candidates(t, doc)]
    blind = [x for x in xps if "self::h4 or self::h5" in x and "following-sibling::*[1]" in x]
    assert blind
    # h4 -> h5 and the <ul> wrapped in a div: the blind form still reads the value
    mutated = parse_html(
        html.replace("h4", "h5").replace(
            "<ul><li>PG-13</li></ul>", "<div><ul><li>PG-13</li></ul></div>"
        )
    )
    from anchorpath.selectors.model import Normalize

    assert read_values(blind[0], mutated, Normalize()) == ["PG-13"]


def test_typed_example_grounds_to_displayed_form() -> None:
    doc = parse_html(
        "<html><body><table><tr><th>등록일자</th><td>2024.03.04</td></tr></table></body></html>"
    )
    t = ground_value(DocIndex(doc, "u"), "2024-03-04", ftype="date")[0]
    assert t.element.tag == "td"


# -- labels and classes scoped by the nearest stable container ----------------------------------

SCOPED_PAGE = """<html><body><div id="content" class="wrap"><div class="module">
<ul class="overview-details"><li><strong>ISBN-13</strong>: 9781416586593</li>
<li><strong>Publisher</strong>: Jove</li></ul>
<div class="genres"><h4>Genre</h4><ul><li><a href="/g/1">Drama</a></li></ul></div>
</div></div></body></html>"""


def test_split_first_step_skips_brackets_in_literals() -> None:
    x = "/descendant::strong[normalize-space()='a]['][1]/following-sibling::text()[1]"
    assert split_first_step(x) == (
        "/descendant::strong[normalize-space()='a]['][1]",
        "/following-sibling::text()[1]",
    )
    assert split_first_step("/descendant::*[self::h1 or self::h2][1]/a") == (
        "/descendant::*[self::h1 or self::h2][1]",
        "/a",
    )
    assert split_first_step("/html/body/div") is None
    assert split_first_step("./descendant::td[1]") is None


def test_container_scopes_nearest_classes_and_nearest_id() -> None:
    doc = parse_html(SCOPED_PAGE)
    strong = doc.xpath("//strong")[0]
    scopes = container_scopes(strong, doc)
    assert scopes[0].startswith("/descendant::ul[") and "overview-details" in scopes[0]
    assert "module" in scopes[1]
    assert scopes[-1] == "/descendant::div[@id='content'][1]"


def test_mixed_content_label_scoped_by_container() -> None:
    doc = parse_html(SCOPED_PAGE)
    t = next(t for t in ground_value(DocIndex(doc, "u"), "9781416586593") if t.mode == "text")
    cs = generate_candidates(t, doc)
    xps = [c.xpath for c in cs]
    label = "descendant::strong[normalize-space()='ISBN-13'][1]/following-sibling::text()[1]"
    scoped_ul = (
        "/descendant::ul[contains(concat(' ', normalize-space(@class), ' '), ' overview-details ')]"
        "[1]/" + label
    )
    scoped_id = "/descendant::div[@id='content'][1]/" + label
    assert "/" + label in xps and scoped_ul in xps and scoped_id in xps
    # the scoped forms come after the unscoped one (they only win on robustness)
    assert xps.index("/" + label) < xps.index(scoped_ul)
    assert all(works(c, doc, "9781416586593") for c in cs if c.normalize.strip_prefix)
    # a decoy sidebar with the same label in front: only the scoped forms still read the value
    decoy = SCOPED_PAGE.replace(
        "<body>", "<body><aside><ul><li><strong>ISBN-13</strong>: 000</li></ul></aside>"
    )
    mdoc = parse_html(decoy)
    by_xpath = {c.xpath: c for c in cs}
    nz = by_xpath[scoped_ul].normalize
    assert read_values(scoped_ul, mdoc, nz) == ["9781416586593"]
    assert read_values(scoped_id, mdoc, nz) == ["9781416586593"]
    assert read_values("/" + label, mdoc, nz) == ["000"]


def test_neighbour_anchor_child_class_and_sibling() -> None:
    html = (
        "<html><body><div class='module'><h2>Ads</h2><h2>Night Myst<span class='subtitle'>"
        " (Paperback)</span></h2><h3 class='author'>by Jane</h3></div></body></html>"
    )
    doc = parse_html(html)
    t = next(t for t in ground_value(DocIndex(doc, "u"), "Night Myst") if t.element.tag == "h2")
    xps = [c.xpath for c in generate_candidates(t, doc)]
    child = (
        "/descendant::h2[span[contains(concat(' ', normalize-space(@class), ' '), ' subtitle ')]]"
        "[1]/text()[normalize-space()][1]"
    )
    sibling = (
        "/descendant::h3[contains(concat(' ', normalize-space(@class), ' '), ' author ')][1]"
        "/preceding-sibling::h2[1]/text()[normalize-space()][1]"
    )
    assert child in xps and sibling in xps
    from anchorpath.selectors.model import Normalize

    for x in (child, sibling):
        assert read_values(x, doc, Normalize()) == ["Night Myst"]


def test_bare_text_label_before_value_element() -> None:
    html = (
        "<html><body><div id='details'><h1><a href='#top'><img src='i.png'></a>Title</h1>"
        "<div class='product-author'>Edited By: <a href='/e'>Sue Downs</a></div>"
        "<div class='product-author'>By: <a href='/a'>Carrie T</a></div></div></body></html>"
    )
    doc = parse_html(html)
    t = next(t for t in ground_value(DocIndex(doc, "u"), "Carrie T") if t.element.tag == "a")
    cs = generate_candidates(t, doc, value_norm="carrie t")
    by_xpath = {c.xpath: c for c in cs}
    x = "/descendant::text()[normalize-space()='By:'][1]/following-sibling::a[1]"
    assert x in by_xpath
    a = by_xpath[x].anchor
    assert a is not None and a.value == "By:" and a.axis == "following-sibling::a[1]"
    # scoped too (text-node first steps are scoped from their owner's container)
    assert "/descendant::div[@id='details'][1]/" + x[1:] in by_xpath
    assert all(works(c, doc, "Carrie T") for c in cs if "By:" in c.xpath)
