"""Template text: values that are the page's navigation/header/footer text rather than content."""

from __future__ import annotations

from anchorpath.runner.drift.template import template_fields, template_texts
from anchorpath.selectors.evaluate import parse_html

PAGE = b"""<html><body>
<header><a href="/">Daily News</a><nav><ul><li>World</li><li>Asia</li><li>Sport</li></ul></nav>
</header>
<div class="cnnOverlayMenu"><h6>Share this on:</h6></div>
<article><header><h1>Storm batters coast</h1></header><p>Thousands left their homes.</p></article>
<aside><h3>Most read</h3><ol><li>Storm batters coast</li><li>Bank raises rates</li></ol></aside>
<div id="footer">Contact us</div></body></html>"""


def test_values_in_template_regions_only_are_template_text() -> None:
    texts = template_texts(parse_html(PAGE, plain=True))
    values = {"a": "Asia", "b": "Share this on:", "c": "contact US", "d": "Storm batters coast"}
    # the article's own <header> is content; a headline also listed in the sidebar is content
    assert template_fields(values, texts) == ["a", "b", "c"]
    assert template_fields({"x": "Thousands left their homes.", "n": None}, texts) == []


def test_page_level_header_is_a_region_an_article_header_is_not() -> None:
    texts = template_texts(parse_html(PAGE, plain=True))
    assert "daily news" in texts.template
    assert "storm batters coast" in texts.content


TRICKY = (
    b"<html><head><title>Board</title><script>var x = 1;</script></head><body>"
    b"<div id='siteNavBar'>Home<!-- hidden --> | <b>Notices</b><?pi skip?>Board</div>"
    b"<div class='item'><span>Stra\xc3\x9fe</span>\xc2\xa0 <i>12</i></div>"
    b"<div role='NAVIGATION'>Tab<script>code()</script></div>"
    b"<article><footer>By staff</footer></article>"
    b"<ul class='menu'>" + b"".join(b"<li>Item %d</li>" % i for i in range(40)) + b"</ul>"
    b"<p>" + b"word " * 250 + b"</p>"
    b"</body></html>"
)


def test_element_texts_are_their_string_value_normalised() -> None:
    texts = template_texts(parse_html(TRICKY, plain=True))
    # comments and processing instructions add their tails only; scripts count in their
    # parent's text but are not listed; NBSP is white space; case-folded (ß → ss)
    assert texts.template == {
        "home | noticesboard",
        "notices",
        "tabcode()",
        *(f"item {i}" for i in range(40)),
    }
    # the list (over 200 characters), the long paragraph, body and html are not listed
    assert texts.content == {"12", "by staff", "strasse", "strasse 12"}
