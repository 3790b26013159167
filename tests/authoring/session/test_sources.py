"""Value sources: example values by seed path, URL or file name."""

from __future__ import annotations

from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.authoring.session.sources import ExampleValues


def test_example_values() -> None:
    pages = [seed_from_html("<p>a</p>", "https://x.test/1", source="/d/p1.html")]
    src = ExampleValues({"p1.html": {"a": "a"}})
    assert src.values(FieldRequest("a"), pages) == ["a"]
    assert src.values(FieldRequest("b"), pages) is None
    assert src.values(FieldRequest("a"), pages, again=True) is None
    assert src.cost() is None
