"""A hostile LLM answer: one value listed N times, through the production client (issue 25).

Three synthetic product pages are the seeds; an OpenAI-compatible server on 127.0.0.1
(``anchorpath.authoring.llm.testing``) answers every value call with the right title and
publisher but the title listed ``N`` times, and ``N`` invented ISBNs (not on the page, so
rejected and re-asked). The client is the one ``author new-site`` uses (``OpenAIClient`` +
response cache + ledger) and :func:`~anchorpath.authoring.llm.author_with_llm` (what the
command calls, with its defaults) does the rest: proposals, grounding, induction.

Reported per ``N``: wall time of authoring (3,000 values took 106 s in the issue's
measurement), the response cache's size on disk afterwards (rejected answers used to stay:
63 MB after one), and which fields were authored.

Run from the repo root (one command; ``--sizes`` to change N):
    .venv/bin/python bench/hostile_llm.py
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from anchorpath._config import LLMConfig  # noqa: E402
from anchorpath._errors import AnchorpathError  # noqa: E402
from anchorpath.authoring.llm import CachedClient, Ledger, author_with_llm  # noqa: E402
from anchorpath.authoring.llm.openai_client import OpenAIClient  # noqa: E402
from anchorpath.authoring.llm.testing import FakeOpenAIServer, requested_fields  # noqa: E402
from anchorpath.authoring.reports import FieldRequest  # noqa: E402
from anchorpath.authoring.seeds import seed_from_html  # noqa: E402

BOOKS = [
    ("The Quiet Harbour", "9780316125581", "Northwind Press"),
    ("Salt and Cedar", "9781420106879", "Lantern House"),
    ("A Map of Small Rivers", "9781439184301", "Northwind Press"),
]


def page(title: str, isbn: str, publisher: str) -> str:
    rows = "".join(f"<li>Related item {k}</li>" for k in range(40))
    return (
        f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
        f"<table><tr><th>ISBN-13</th><td>{isbn}</td></tr>"
        f"<tr><th>Publisher</th><td>{publisher}</td></tr></table><ul>{rows}</ul></body></html>"
    )


def run(n: int) -> dict[str, Any]:
    seeds = [
        seed_from_html(page(*b), f"http://shop.test/book/{100 + i}") for i, b in enumerate(BOOKS)
    ]
    truth = {s.url: b for s, b in zip(seeds, BOOKS, strict=True)}

    def answer(body: Mapping[str, Any]) -> Any:
        text = "".join(str(m.get("content", "")) for m in body.get("messages", []))
        title, _, publisher = next(b for u, b in truth.items() if u in text)
        flood = {
            "title": [title] * n,
            "isbn_13": [f"97800{k:08d}" for k in range(n)],
            "publisher": publisher,
        }
        return {k: flood[k] for k in requested_fields(body)}

    fields = [FieldRequest("title"), FieldRequest("isbn_13"), FieldRequest("publisher")]
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(answer) as srv:
        client = CachedClient(
            OpenAIClient(LLMConfig(base_url=srv.base_url, timeout=120), env={}),
            Path(tmp) / "cache",
            Ledger(None, site="bench"),
        )
        t0 = time.perf_counter()
        try:
            out = author_with_llm("shop", seeds, client, fields, LLMConfig())
            authored = ", ".join(out.result.page_type.fields) if out.result else "-"
        except AnchorpathError as exc:
            authored = f"error: {str(exc)[:60]}"
        took = time.perf_counter() - t0
        client.close()
        size = sum(f.stat().st_size for f in (Path(tmp) / "cache").rglob("*") if f.is_file())
    return {"n": n, "seconds": took, "cache_bytes": size, "authored": authored}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="300,3000,10000", help="N values, comma-separated")
    args = ap.parse_args()
    print("| N | authoring (s) | response cache on disk | fields authored |")
    print("| ---: | ---: | ---: | ---: |")
    for n in (int(x) for x in args.sizes.split(",")):
        r = run(n)
        print(
            f"| {r['n']:,} | {r['seconds']:.2f} | {r['cache_bytes'] / 1024:.0f} KiB "
            f"| {r['authored']} |"
        )


if __name__ == "__main__":
    main()
