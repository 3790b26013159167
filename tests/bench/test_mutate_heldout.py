"""The benchmark's held-out mutations change structure but never the gold values' text."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from anchorpath.selectors.evaluate import parse_html


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "_mutate_heldout.py"
    spec = importlib.util.spec_from_file_location("_mutate_heldout", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["_mutate_heldout"] = module
    spec.loader.exec_module(module)
    return module


M = _load()

PAGE = """<html><head><title>Book</title></head><body>
<div id="nav-17" class="nav"><a href="/">Home</a> <a href="/b">Books</a></div>
<div id="content" class="main"><h2>The Café Book<span class="sub"> (Paperback)</span></h2>
<h3 class="author">by <a href="/a/1">Ann Écrivain</a></h3>
<ul class="details"><li><strong>ISBN-13</strong>: 9780000000001</li>
<li><strong>Publisher</strong>: Small Press</li><li>Pages: 300</li></ul>
<table class="specs"><tr><th>Format</th><td>Paperback</td></tr>
<tr><th>Language</th><td>English</td></tr></table>
<p>Blurb one.</p><p>Blurb two.</p><div>Other</div></div>
</body></html>"""
VALUES = ["The Café Book", "Ann Écrivain", "9780000000001", "Small Press", "English"]


def _text(html: str) -> str:
    body = parse_html(html).find("body")
    assert body is not None
    return re.sub(r"\s+", " ", body.text_content()).casefold()


@pytest.mark.parametrize("op", list(M.OPERATORS))
def test_operator_keeps_values_and_is_deterministic(op: str) -> None:
    html, log = M.mutate_page(PAGE, VALUES, [op], "seed-1", parse_html)
    again, _ = M.mutate_page(PAGE, VALUES, [op], "seed-1", parse_html)
    assert html == again
    assert log and log[0].startswith(op)
    text = _text(html)
    for v in VALUES:
        assert v.casefold() in text, (op, v)


def test_operators_change_the_page() -> None:
    plain = M.serialize(parse_html(PAGE))
    changed = {
        op for op in M.OPERATORS if M.mutate_page(PAGE, VALUES, [op], "s", parse_html)[0] != plain
    }
    # reorder_attributes may draw the same order; every other operator must change something.
    assert set(M.OPERATORS) - changed <= {"reorder_attributes"}


def test_decoy_copies_the_label_not_the_value() -> None:
    for seed in ("a", "b", "c", "d"):
        html, _ = M.mutate_page(PAGE, VALUES, ["decoy_block"], seed, parse_html)
        doc = parse_html(html)
        side = doc.xpath("//div[@class='sidebar']")
        assert side, seed
        decoy = re.sub(r"\s+", " ", side[0].text_content())
        assert not any(v in decoy for v in VALUES)


def test_ascii_entities() -> None:
    html, _ = M.mutate_page(PAGE, VALUES, ["ascii_entities"], "s", parse_html)
    assert html.isascii()
    assert "&#233;" in html
