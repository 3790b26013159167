"""The anchor a browser render waits for, per page type (``crawl/pages.py``)."""

from __future__ import annotations

from anchorpath.runner.crawl.pages import render_anchor
from anchorpath.selectors.model import FieldSpec, PageType


def _pt(root: str | None, *xpaths: str) -> PageType:
    fields = {f"f{i}": FieldSpec(f"f{i}", x) for i, x in enumerate(xpaths)}
    return PageType(name="t", match=".*", fields=fields, record_root=root)


def test_list_pages_wait_for_their_record_root() -> None:
    assert render_anchor(_pt("//table[@id='b']/tbody/tr", "normalize-space(td[1])")) == (
        "//table[@id='b']/tbody/tr"
    )


def test_detail_pages_wait_for_their_first_element_field() -> None:
    pt = _pt(
        None,
        "normalize-space(//h1)",
        "/descendant::th[.='No'][1]/following-sibling::td[1]/text()[1]",
    )
    assert render_anchor(pt) == "/descendant::th[.='No'][1]/following-sibling::td[1]"
    assert render_anchor(_pt(None, "//a[@id='x']/@href")) == "//a[@id='x']"


def test_nothing_to_wait_for() -> None:
    assert render_anchor(None) is None
    assert render_anchor(_pt(None, "concat(//a, //b)")) is None
