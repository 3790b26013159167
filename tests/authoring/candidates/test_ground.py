"""Grounding: values traced to text nodes, attributes, meta, JSON-LD; clear failures."""

from __future__ import annotations

import pytest

from anchorpath._errors import GroundingError
from anchorpath.authoring.candidates.ground import DocIndex, consistent_targets, ground_value, norm
from anchorpath.selectors.evaluate import parse_html


def idx(html: str, url: str = "https://ex.test/p/1") -> DocIndex:
    return DocIndex(parse_html(html), url)


def test_norm_whitespace_case_nfkc() -> None:
    assert norm("  Hello\u00a0 WORLD\n") == "hello world"
    assert norm("ＡＢＣ") == "abc"  # full-width folded by NFKC


def test_exact_text_prefers_deepest_but_keeps_identical_parents() -> None:
    ix = idx(
        "<html><body><table><tr><th>Name</th><td><a href='/x'>Aspirin</a></td></tr>"
        "</table></body></html>"
    )
    ts = ground_value(ix, "aspirin")
    tags = [t.element.tag for t in ts if t.mode == "element"]
    assert tags[:2] == ["a", "td"]


def test_value_split_across_inline_children_and_entities() -> None:
    ix = idx("<html><body><p class='p'><b>12</b>&nbsp;mg &amp; more</p></body></html>")
    ts = ground_value(ix, "12 mg & more")
    assert ts[0].element.tag == "p" and ts[0].exact


def test_label_residue_in_same_text_node() -> None:
    ix = idx("<html><body><div>ISBN-13: 9780316125581</div></body></html>")
    t = ground_value(ix, "9780316125581")[0]
    assert t.element.tag == "div" and t.prefix == "ISBN-13: " and not t.exact


def test_mixed_content_text_node() -> None:
    ix = idx("<html><body><li><b>ISBN:</b> 978123</li></body></html>")
    ts = ground_value(ix, "978123")
    text_targets = [t for t in ts if t.mode == "text"]
    assert text_targets and text_targets[0].exact and text_targets[0].text_index == 1


def test_attributes_meta_and_relative_links() -> None:
    ix = idx(
        "<html><head><meta property='og:image' content='https://ex.test/i.png'></head>"
        "<body><a href='/buy/1'>Buy</a><img alt='Cover art' src='c.png'></body></html>"
    )
    assert ground_value(ix, "https://ex.test/i.png")[0].zone == "meta"
    link = ground_value(ix, "https://ex.test/buy/1")[0]
    assert link.mode == "attr" and link.attr == "href"
    assert ground_value(ix, "Cover art")[0].attr == "alt"


def test_jsonld() -> None:
    ix = idx(
        '<html><head><script type="application/ld+json">{"@type": "Book", "sku": "S-1"}'
        "</script></head><body><p>nothing</p></body></html>"
    )
    t = ground_value(ix, "S-1")[0]
    assert t.mode == "jsonld" and t.json_key == "sku"


def test_script_text_is_not_grounded() -> None:
    ix = idx("<html><body><script>var x = 'secret';</script><p>ok</p></body></html>")
    with pytest.raises(GroundingError):
        ground_value(ix, "secret")


def test_grounding_error_names_field_and_page() -> None:
    ix = idx("<html><body><p>hello</p></body></html>")
    with pytest.raises(GroundingError) as err:
        ground_value(ix, "missing value", field="price", page="seed2.html")
    msg = str(err.value)
    assert "'price'" in msg and "seed2.html" in msg and "missing value" in msg


def test_consistent_targets_prefers_structure_recurring_on_all_seeds() -> None:
    pages = [
        "<html><head><title>A</title></head><body><h1>A</h1><nav><span>A</span></nav></body>"
        "</html>",
        "<html><head><title>B</title></head><body><h1>B</h1><div>B</div></body></html>",
    ]
    per_seed = [ground_value(idx(p), v) for p, v in zip(pages, "AB", strict=True)]
    kept, notes = consistent_targets(per_seed)
    assert not notes
    assert {t.element.tag for t in kept[0]} == {"title", "h1"}
    assert {t.element.tag for t in kept[1]} == {"title", "h1"}


def test_targets_at_keeps_the_node_read_then_inside_then_around() -> None:
    from anchorpath.authoring.candidates.ground import targets_at

    doc = parse_html(
        "<html><body><aside><p>KX-1</p></aside><div><span><b>KX-1</b></span></div></body></html>"
    )
    ts = ground_value(DocIndex(doc, "http://x/"), "KX-1", field="code", page="p")
    paths = {t.describe() for t in targets_at(ts, "/html/body/div/span")}
    assert paths and all(p.startswith("/html/body/div/span") for p in paths)
    assert all(
        t.describe().startswith("/html/body/aside") for t in targets_at(ts, "/html/body/aside/p")
    )
    assert targets_at(ts, "/html/body/section") == []
