"""Pruning to Markdown: what goes, what stays, and node ids that map back to the DOM."""

from __future__ import annotations

from lxml import etree

from anchorpath.prune import prune_page

PAGE = """<html><head><title>Item 7</title><script>var secret = 1;</script></head><body>
<nav><a href="/a">A</a><a href="/b">B</a></nav>
<div id="topmenu"><a href="/1">One</a> <a href="/2">Two</a> <a href="/3">Three</a></div>
<header><a href="/">Logo</a></header>
<main><header><h1>Item 7</h1></header>
<p hidden>hidden text</p><p style="display: none">also hidden</p><p aria-hidden="true">aria</p>
<svg><text>vector</text></svg><iframe src="/ad"></iframe>
<p>Price: <b>12 €</b> &amp; more_text*</p>
<table><tr><th>Code</th><td>X-1</td></tr><tr><th>Maker</th><td>ACME</td></tr></table>
<input type="hidden" value="token"></main>
<aside>Related items</aside><footer>Imprint</footer></body></html>"""


def test_drops_non_content_and_boilerplate() -> None:
    p = prune_page(PAGE, "http://x/7")
    md = p.markdown
    for gone in ("secret", "hidden text", "also hidden", "aria", "vector", "Related", "Imprint",
                 "Logo", "One", "token"):  # fmt: skip
        assert gone not in md, gone
    assert "# Item 7" in md and "Price: **12 €** & more_text*" in md  # verbatim, no escaping
    assert "| Code | X-1 |" in md.replace("  ", " ") or "Code" in md
    assert p.removed["nav"] == 1 and p.removed["iframe"] == 1 and p.removed["hidden"] >= 3
    assert p.tokens < p.tokens_raw


def test_table_rows_are_chunks() -> None:
    p = prune_page(PAGE)
    rows = [c for c in p.chunks if c.table]
    assert any("X-1" in c.markdown for c in rows) and any("ACME" in c.markdown for c in rows)
    assert all("X-1" not in c.markdown or "ACME" not in c.markdown for c in rows)


def test_spans_map_back_to_nodes() -> None:
    p = prune_page(PAGE)
    doc = etree.HTML(PAGE)
    spans = p.spans_with("Item 7")
    assert [s.path for s in spans] == ["/html/head/title", "/html/body/main/header/h1"]
    for s in spans:
        assert "Item 7" in "".join(doc.xpath(s.path)[0].itertext())
    assert p.spans_with("ACME")[0].path.endswith("/td")
    assert prune_page(PAGE).spans == p.spans  # stable ids and paths


def test_links_kept_on_request() -> None:
    html = '<html><body><p><a href="/d/1">Details</a></p></body></html>'
    assert "(/d/1)" in prune_page(html, keep_links=True).markdown
    assert "(/d/1)" not in prune_page(html).markdown
