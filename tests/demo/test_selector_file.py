"""The hand-written demo selector file: valid, canonical, shipped, and right on the demo pages."""

from __future__ import annotations

import json
from pathlib import Path

from anchorpath.demo import SELECTOR_ORIGIN, selector_text
from anchorpath.selectors.load import dump_selector_file, load_selector_file, parse_selector_data

REPO = Path(__file__).resolve().parents[2]
TOP = REPO / "selectors" / "mfds-dmf.json"
PACKAGED = REPO / "src" / "anchorpath" / "demo" / "mfds-dmf.json"


def test_packaged_copy_is_identical() -> None:
    assert TOP.read_bytes() == PACKAGED.read_bytes()
    assert selector_text() == TOP.read_text(encoding="utf-8")


def test_valid_and_canonical() -> None:
    sf = load_selector_file(TOP)
    assert sf.site.id == "mfds-dmf" and sf.key == ("reg_no",)
    assert dump_selector_file(sf) == TOP.read_text(encoding="utf-8")
    assert sf.fetch.start_urls == (f"{SELECTOR_ORIGIN}/dmf/list.do?page=1",)


def test_anchors_are_labels_not_positions_or_classes() -> None:
    sf = load_selector_file(TOP)
    for pt in sf.page_types.values():
        for name, spec in pt.fields.items():
            assert "@class" not in spec.xpath, name
            assert "/tr[" not in spec.xpath and "div[" not in spec.xpath, name
            assert spec.anchor is not None
            if name != "detail_url":
                assert spec.anchor.kind == "label-text" and spec.anchor.value in spec.xpath


def test_selector_text_rewrites_the_origin() -> None:
    text = selector_text("http://127.0.0.1:40123/")
    assert "8765" not in text
    sf = parse_selector_data(json.loads(text))
    assert sf.fetch.start_urls == ("http://127.0.0.1:40123/dmf/list.do?page=1",)
    assert sf.fetch.allow == (r"^http://127\.0\.0\.1:40123/dmf/(list|view)\.do\?",)
