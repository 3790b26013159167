"""Highlighted seed screenshots: Chromium renders the seed with every field outlined."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath.authoring.induce import assemble_site, author_page_type
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.authoring.session.core import Session
from anchorpath.authoring.session.screenshot import (
    _OVERLAY,
    _marked_html,
    field_colors,
    render_highlights,
)
from anchorpath.cli import main
from anchorpath.fetch.browser import chromium_executable

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(not Path(chromium_executable()).exists(), reason="no chromium"),
]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_screenshots_outline_matched_nodes(session: Session, tmp_path: Path) -> None:
    marked = render_highlights(session.pages, session.matched_nodes(), tmp_path, stem="detail")
    plain = render_highlights(
        session.pages, session.matched_nodes(), tmp_path, overlay=False, stem="plain"
    )
    names = [f"detail-{i}{s}.png" for i in (1, 2, 3) for s in ("", "-full")]
    assert [p.name for p in marked] == names
    for m, p in zip(marked, plain, strict=True):
        assert _png_size(m)[0] == 1280
        assert m.read_bytes() != p.read_bytes()  # outlines drawn where nodes matched


# A detail template whose ISBN-13 and publisher are text nodes of one cell among others.
PAGE = """<!doctype html><html><head><title>{t}</title><style>
body {{ font: 16px sans-serif; margin: 40px }} td, th {{ border: 1px solid #ccc; padding: 8px }}
</style></head><body><h1>{t}</h1><p>An introduction that fills a line or so.</p><table>
<tr><th>Details</th><td>Paperback: {p} pages<br>Publisher: {pub}<br>ISBN-10: {i10}<br>
ISBN-13: {i13}<br>Language: English</td></tr><tr><th>Price</th><td>{price} EUR</td></tr>
</table><div style="height: 2400px"></div><footer>the end</footer></body></html>"""
BOOKS = [
    {"t": "Game Over", "p": "320", "pub": "Northwind", "i10": "0306406152",
     "i13": "978-0306406157", "price": "12.50"},
    {"t": "Harbour Lights", "p": "288", "pub": "Lantern House", "i10": "0306406160",
     "i13": "978-0306406164", "price": "9.99"},
]  # fmt: skip


@pytest.fixture
def cell_session() -> Session:
    seeds, ex = [], {}
    for n, b in enumerate(BOOKS):
        seed = seed_from_html(PAGE.format(**b), f"https://b.test/book/{n}")
        seeds.append(seed)
        ex[seed.url] = {"title": b["t"], "isbn13": b["i13"], "publisher": b["pub"]}
        ex[seed.url]["price"] = b["price"]
    fields = [FieldRequest("title"), FieldRequest("isbn13", required=True)]
    fields += [FieldRequest("publisher"), FieldRequest("price")]
    result = author_page_type(seeds, fields, ex)
    return Session(assemble_site("b", [result], key=["isbn13"]), result.page_type.name, seeds)


def _overlay(session: Session) -> dict[str, Any]:
    """What the overlay drew on the first seed: per value its boxes and its label."""
    from playwright.sync_api import sync_playwright

    html, marks = _marked_html(session.pages[0], session.matched_nodes()[0], ())
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_executable(), headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_content(html)
            cell = page.evaluate(
                "() => document.querySelector('td').getBoundingClientRect().height"
            )
            colors = field_colors(["title", "isbn13", "publisher", "price"])
            drawn: dict[str, Any] = page.evaluate(_OVERLAY, {"colors": colors, "marks": marks})
        finally:
            browser.close()
    drawn["cell"] = cell
    return drawn


def _hit(a: dict[str, float], b: dict[str, float]) -> bool:
    return a["x0"] < b["x1"] and b["x0"] < a["x1"] and a["y0"] < b["y1"] and b["y0"] < a["y1"]


def test_a_text_node_field_is_outlined_exactly_and_no_label_covers_a_value(
    cell_session: Session,
) -> None:
    drawn = _overlay(cell_session)
    by_field = {p["field"]: p for p in drawn["placed"]}
    assert set(by_field) == {"title", "isbn13", "publisher", "price"}
    for name in ("isbn13", "publisher", "price"):
        (box,) = by_field[name]["boxes"]
        assert by_field[name]["exact"]  # the text's own Range, not the cell
        assert box["y1"] - box["y0"] < 30 < drawn["cell"]  # one line of a five-line cell
    isbn, publisher = by_field["isbn13"]["boxes"][0], by_field["publisher"]["boxes"][0]
    assert isbn["y0"] > publisher["y1"] - 2  # two lines apart, not one box for both
    price = by_field["price"]["boxes"][0]
    assert price["x1"] - price["x0"] < 60  # "12.50", without " EUR"
    boxes = [b for p in drawn["placed"] for b in p["boxes"]]
    for p in drawn["placed"]:
        assert p["label"] is not None
        assert not any(_hit(p["label"], b) for b in boxes), p["field"]


def test_the_view_is_cut_to_the_values_and_the_full_page_is_kept(
    cell_session: Session, tmp_path: Path
) -> None:
    shots = render_highlights(cell_session.pages, cell_session.matched_nodes(), tmp_path)
    names = [f"seed-{i}{s}.png" for i in (1, 2) for s in ("", "-full")]
    assert [p.name for p in shots] == names
    view, full = _png_size(shots[0]), _png_size(shots[1])
    assert full[1] > 2400 and view[1] < 500  # the values, not 2400 px of empty page


def test_session_writes_screenshots_and_cleans_up(shop: Path, seed_args: list[str]) -> None:
    before = set(Path(tempfile.gettempdir()).glob("anchorpath-session-*"))
    base = ["author", "new-site", "shop", *seed_args, "--examples", str(shop / "ex.json")]
    base += ["--selectors", str(shop / "sel"), "--required", "isbn"]
    res = CliRunner().invoke(main, base, input="q\n")
    assert res.exit_code == 1 and "screenshot: " in res.output
    assert not (shop / "sel").exists()
    res = CliRunner().invoke(main, base, input="\n" * 4)
    assert res.exit_code == 0, res.output
    shots = sorted((shop / "sel/fixtures/shop/screenshots").glob("*.png"))
    assert [p.name for p in shots] == [
        f"detail-{i}{s}.png" for i in (1, 2, 3) for s in ("-full", "")
    ]
    assert set(Path(tempfile.gettempdir()).glob("anchorpath-session-*")) == before
