"""A small bookshop template of our own (three detail pages) for the LLM-authoring tests:
navigation, a footer, scripts, a hidden block, the title in <title>, a breadcrumb and <h1>,
and a label table. ``truth`` is what a careful model would answer."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

BOOKS = [
    ("The Quiet Harbour", "Mara Ellison", "9780316125581", "Northwind Press", "12.99"),
    ("Salt and Cedar", "Jonas Okafor", "9781420106879", "Lantern House", "8.50"),
    ("A Map of Small Rivers", "Ines Duarte", "9781439184301", "Northwind Press", "21.00"),
]


@dataclass
class Shop:
    pages: list[tuple[str, str]]  # (url, html)
    truth: dict[str, dict[str, list[str]]]
    files: list[Path]


def book_page(i: int, *, injection: str = "") -> str:
    title, author, isbn, publisher, price = BOOKS[i]
    nav = "".join(
        f'<li><a href="/c/{c}">{c.title()}</a></li>'
        for c in ("fiction", "poetry", "travel", "kids")
    )
    return f"""<!DOCTYPE html><html><head><title>{title} - Book Shop</title>
<script>var tracking = "{title} {isbn}";</script><style>.x{{color:red}}</style></head>
<body><nav><ul>{nav}</ul></nav>
<div class="crumbs"><a href="/">Home</a> &gt; <span>{title}</span></div>
<div id="content"><h1 class="title">{title}</h1>
<p class="by">by <a href="/author/{i}">{author}</a></p>
<div style="display:none">Internal note: restock soon</div>
{injection}
<table class="details">
<tr><th>ISBN-13</th><td>{isbn}</td></tr>
<tr><th>Publisher</th><td>{publisher}</td></tr>
<tr><th>Price</th><td>${price}</td></tr>
</table>
<p>Ships in 2 days. Free returns.</p></div>
<footer><a href="/about">About</a> <a href="/help">Help</a> © Book Shop</footer>
</body></html>"""


def truth_for(i: int) -> dict[str, list[str]]:
    title, author, isbn, publisher, price = BOOKS[i]
    return {
        "title": [title],
        "author": [author],
        "isbn_13": [isbn],
        "publisher": [publisher],
        "price": [f"${price}"],
    }


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    pages, truth, files = [], {}, []
    for i in range(3):
        url = f"http://shop.test/book/{100 + i}"
        html = book_page(i)
        pages.append((url, html))
        truth[url] = truth_for(i)
        f = tmp_path / f"book{i}.html"
        f.write_text(html, encoding="utf-8")
        files.append(f)
    return Shop(pages, truth, files)
