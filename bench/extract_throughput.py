"""Extraction throughput: anchorpath vs bare lxml parse vs parsel vs BeautifulSoup.

Generates (deterministically) ~100 KB product pages with 20 label/value fields buried in
realistic noise (nav, sidebar, scripts, reviews, a long specification table), then measures
pages per second on one core for:

  anchorpath     ``anchorpath.extract(sf, body_bytes, url)`` -> typed records
  lxml parse     ``lxml.html.fromstring(body_bytes)`` only (no XPath): the floor
  parsel         ``Selector(body=...)`` + ``.xpath(same anchored XPath).get()`` per field
  parsel //th    same, with the common ``//th[normalize-space()='L']/following-sibling::td[1]``
  bs4            ``BeautifulSoup(html, "lxml")`` + find th by text -> next td

Every contender runs on the same page bytes in the same process; repetitions are interleaved
(so machine drift hits all of them alike) and the median pass is reported.

Run:  .venv/bin/python bench/extract_throughput.py [--pages 40] [--reps 7] [--write]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml
import lxml.html

import anchorpath
from anchorpath.selectors.load import parse_selector_data

# (label, field name, type, value generator)
FIELDS: list[tuple[str, str, str]] = [
    ("Brand", "brand", "string"),
    ("Model", "model", "string"),
    ("SKU", "sku", "string"),
    ("Price", "price", "number"),
    ("Availability", "availability", "string"),
    ("Color", "color", "string"),
    ("Material", "material", "string"),
    ("Weight", "weight", "number"),
    ("Dimensions", "dimensions", "string"),
    ("Warranty", "warranty", "string"),
    ("Country of origin", "origin", "string"),
    ("Release date", "release_date", "date"),
    ("Rating", "rating", "number"),
    ("Review count", "review_count", "integer"),
    ("Category", "category", "string"),
    ("Manufacturer", "manufacturer", "string"),
    ("Power", "power", "string"),
    ("Battery life", "battery_life", "string"),
    ("Screen size", "screen_size", "string"),
    ("User manual", "manual", "url"),
]
OVERVIEW = 8  # the first N fields sit in the overview table near the top; the rest in specs

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "steel",
    "carbon",
    "matte",
    "glossy",
    "compact",
    "portable",
    "wireless",
    "premium",
    "classic",
    "urban",
    "outdoor",
    "studio",
]
BRANDS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"]
COLORS = ["Black", "White", "Silver", "Midnight Blue", "Forest Green", "Crimson"]
COUNTRIES = ["Germany", "Japan", "Korea", "Vietnam", "Mexico", "Portugal"]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _values(rng: random.Random, i: int) -> dict[str, str]:
    """Raw cell text per field name (what the page shows)."""
    return {
        "brand": rng.choice(BRANDS),
        "model": f"{rng.choice(WORDS).title()} {rng.randint(100, 999)}",
        "sku": f"SKU-{i:05d}-{rng.randint(1000, 9999)}",
        "price": f"{rng.randint(10, 2999)}.{rng.randint(0, 99):02d}",
        "availability": rng.choice(["In stock", "Backorder", "Only 3 left"]),
        "color": rng.choice(COLORS),
        "material": rng.choice(["Aluminium", "Polycarbonate", "Oak", "Stainless steel"]),
        "weight": f"{rng.randint(1, 40)}.{rng.randint(0, 9)}",
        "dimensions": f"{rng.randint(5, 90)} x {rng.randint(5, 90)} x {rng.randint(1, 30)} cm",
        "warranty": f"{rng.randint(1, 5)} years",
        "origin": rng.choice(COUNTRIES),
        "release_date": f"20{rng.randint(10, 25)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "rating": f"{rng.randint(1, 4)}.{rng.randint(0, 9)}",
        "review_count": f"{rng.randint(0, 9999)}",
        "category": f"{rng.choice(WORDS).title()} / {rng.choice(WORDS).title()}",
        "manufacturer": f"{rng.choice(BRANDS)} Industries Ltd.",
        "power": f"{rng.randint(5, 2000)} W",
        "battery_life": f"{rng.randint(2, 48)} h",
        "screen_size": f"{rng.randint(4, 85)} in",
        "manual": f"/manuals/{i}/guide-{rng.randint(1, 9)}.pdf",
    }


def _cell(name: str, raw: str) -> str:
    if name == "manual":
        return f'<a class="dl" href="{raw}">Download PDF</a>'
    if name == "weight":
        return f"{raw}&nbsp;kg"
    return raw


def _row(label: str, cell: str, rng: random.Random) -> str:
    # Vary the markup around the label the way real templates do (white space, nbsp, classes).
    pad = rng.choice(["", "\n        ", " "])
    return (
        f'<tr class="spec-row {rng.choice(WORDS)}"><th scope="row" class="label">{pad}{label}'
        f'{pad}</th><td class="value">{cell}</td></tr>\n'
    )


def make_page(i: int) -> tuple[bytes, dict[str, str]]:
    """One deterministic ~100 KB product page and the raw text of its 20 fields."""
    rng = random.Random(1000 + i)
    vals = _values(rng, i)
    out: list[str] = []
    w = out.append
    w('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">')
    w(f"<title>{vals['brand']} {vals['model']} | Shop</title>")
    w('<meta name="viewport" content="width=device-width, initial-scale=1">')
    for k in range(6):
        w(f'<link rel="stylesheet" href="/static/css/bundle-{k}.css?v={rng.randint(1, 10**6)}">')
    w(
        "<style>"
        + "".join(f".c{k}{{margin:{k}px;padding:{k % 7}px}}" for k in range(120))
        + "</style>"
    )
    for k in range(4):
        js = ";".join(
            f"window.__d{k}_{j}={{id:{rng.randint(1, 10**6)},n:'{_words(rng, 3)}'}}"
            for j in range(60)
        )
        w(f"<script>{js}</script>")
    w("</head><body class='product-page'>")
    # Header + mega-menu navigation.
    w('<header><div class="topbar"><div class="wrap"><a class="logo" href="/">Shop</a>')
    w('<nav class="main-nav"><ul>')
    for a in range(12):
        w(f'<li class="menu"><a href="/c/{a}">{_words(rng, 2).title()}</a><ul class="sub">')
        for b in range(14):
            w(f'<li><a href="/c/{a}/{b}">{_words(rng, 2)}</a></li>')
        w("</ul></li>")
    w("</ul></nav></div></div>")
    w(
        '<ol class="breadcrumbs">'
        + "".join(f"<li><a href='/b/{k}'>{_words(rng, 1)}</a></li>" for k in range(5))
        + "</ol></header>"
    )
    w('<div class="container"><div class="row">')
    # Sidebar with filters (tables of th/td too, to make label lookups work for it).
    w('<aside class="sidebar"><div class="filters">')
    for g in range(6):
        w(f'<div class="filter-group"><h4>{_words(rng, 2).title()}</h4><table class="facet">')
        for k in range(8):
            w(
                f'<tr><th>{_words(rng, 1).title()} {k}</th><td><input type="checkbox" name="f{g}{k}"> ({rng.randint(1, 500)})</td></tr>'
            )
        w("</table></div>")
    w("</div></aside>")
    w('<main class="content"><div class="product"><div class="inner"><div class="head">')
    w(f"<h1>{vals['brand']} {vals['model']}</h1></div>")
    w(
        '<div class="gallery">'
        + "".join(
            f'<div class="thumb"><img src="/img/{i}/{k}.jpg" alt="{_words(rng, 3)}"></div>'
            for k in range(12)
        )
        + "</div>"
    )
    # Overview table: the first fields, interleaved with a few noise rows.
    w('<div class="overview"><div class="box"><table class="overview-table"><tbody>')
    for idx, (label, name, _t) in enumerate(FIELDS[:OVERVIEW]):
        w(_row(label, _cell(name, vals[name]), rng))
        if idx % 3 == 1:
            w(_row(f"{_words(rng, 1).title()} note", _words(rng, 4), rng))
    w("</tbody></table></div></div>")
    w(
        '<div class="description">'
        + "".join(f"<p>{_words(rng, 40)}</p>" for _ in range(16))
        + "</div>"
    )
    # Long specification table: the remaining fields spread among ~110 noise rows.
    spec_fields = FIELDS[OVERVIEW:]
    slots = sorted(rng.sample(range(120), len(spec_fields)))
    w(
        '<div class="specs"><h2>Specifications</h2><div class="wrap"><table class="spec-table"><tbody>'
    )
    f_iter = iter(spec_fields)
    for r in range(120):
        if r in slots:
            label, name, _t = next(f_iter)
            w(_row(label, _cell(name, vals[name]), rng))
        else:
            w(_row(f"{_words(rng, 2).title()} {r}", _words(rng, 3), rng))
    w("</tbody></table></div></div></div></div>")
    # Reviews.
    w('<section class="reviews"><h2>Reviews</h2>')
    for _k in range(90):
        w(
            f'<div class="review"><div class="meta"><span class="author">{_words(rng, 2).title()}</span>'
            f'<span class="stars">{rng.randint(1, 5)}</span></div><div class="body"><p>{_words(rng, 30)}</p>'
            f"</div></div>"
        )
    w("</section>")
    w('<section class="related"><h2>Related</h2><div class="cards">')
    for k in range(60):
        w(
            f'<div class="card"><a href="/p/{rng.randint(1, 99999)}"><img src="/img/r{k}.jpg" alt="">'
            f'<span class="name">{_words(rng, 3).title()}</span></a><span class="price">{rng.randint(5, 999)}.99</span></div>'
        )
    w("</div></section></main></div></div>")
    w('<footer><div class="cols">')
    for c in range(8):
        w(
            "<ul>"
            + "".join(f"<li><a href='/f/{c}/{k}'>{_words(rng, 2)}</a></li>" for k in range(12))
            + "</ul>"
        )
    w("</div><p class='legal'>" + _words(rng, 30) + "</p></footer>")
    w("<script>" + ";".join(f"track('{_words(rng, 2)}',{k})" for k in range(120)) + "</script>")
    w("</body></html>\n")
    return "".join(out).encode("utf-8"), vals


def anchored(label: str) -> str:
    return f"/descendant::th[normalize-space()='{label}'][1]/following-sibling::td[1]"


def field_xpath(label: str, name: str, anchor: Callable[[str], str] = anchored) -> str:
    xp = anchor(label)
    return xp + "/a/@href" if name == "manual" else xp


def selector_data() -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for label, name, typ in FIELDS:
        spec: dict[str, Any] = {
            "xpath": field_xpath(label, name),
            "type": typ,
            "required": name in ("brand", "sku", "price"),
            "anchor": {"kind": "label-text", "value": label, "axis": "following-sibling::td[1]"},
        }
        if name == "weight":
            spec["normalize"] = {"strip_suffix": r"\s*kg"}
        fields[name] = spec
    return {
        "$schema": "https://anchorpath.dev/schema/selector.v1.json",
        "schema_version": 1,
        "site": {"id": "bench-shop", "name": "Benchmark shop"},
        "version": 1,
        "parent_version": None,
        "fetch": {"start_urls": ["https://shop.example/p/1"]},
        "page_types": {"product": {"match": r"/p/\d+", "fields": fields}},
        "key": ["sku"],
    }


def expected(vals: dict[str, str], url: str) -> dict[str, Any]:
    """What anchorpath's typed record should hold for a page's raw values."""
    out: dict[str, Any] = {}
    for _label, name, typ in FIELDS:
        raw = vals[name]
        if typ == "number":
            out[name] = float(raw)
        elif typ == "integer":
            out[name] = int(raw)
        elif typ == "url":
            out[name] = "https://shop.example" + raw
        else:
            out[name] = raw
    return out


# -- contenders ---------------------------------------------------------------------------------


def run_anchorpath(sf: Any, pages: list[tuple[bytes, str]]) -> list[Any]:
    return [anchorpath.extract(sf, body, url) for body, url in pages]


def run_lxml(pages: list[tuple[bytes, str]]) -> list[Any]:
    return [lxml.html.fromstring(body) for body, _url in pages]


def make_parsel(xpaths: list[str]) -> Callable[[list[tuple[bytes, str]]], list[Any]]:
    from parsel import Selector

    def run(pages: list[tuple[bytes, str]]) -> list[Any]:
        out = []
        for body, _url in pages:
            sel = Selector(body=body, encoding="utf-8")
            out.append([sel.xpath(x).get() for x in xpaths])
        return out

    return run


def run_bs4(pages: list[tuple[bytes, str]]) -> list[Any]:
    from bs4 import BeautifulSoup

    labels = [(label, name) for label, name, _t in FIELDS]
    out = []
    for body, _url in pages:
        soup = BeautifulSoup(body, "lxml")
        rec: dict[str, Any] = {}
        for label, name in labels:
            th = soup.find(
                lambda t, lb=label: t.name == "th" and " ".join(t.get_text().split()) == lb
            )
            td = th.find_next_sibling("td") if th is not None else None
            if td is None:
                rec[name] = None
            elif name == "manual":
                a = td.find("a")
                rec[name] = a.get("href") if a is not None else None
            else:
                rec[name] = " ".join(td.get_text().split())
        out.append(rec)
    return out


def _text(html: str | None) -> str | None:
    if html is None:
        return None
    return (
        " ".join(lxml.html.fromstring(html).text_content().split())
        if html.startswith("<")
        else html
    )


def check(
    sf: Any,
    pages: list[tuple[bytes, str]],
    vals: list[dict[str, str]],
    parsel_runs: dict[str, Callable[[list[tuple[bytes, str]]], list[Any]]],
) -> None:
    """Every contender must find the same 20 values before any timing counts."""
    for rec, v, (_b, url) in zip(run_anchorpath(sf, pages), vals, pages, strict=True):
        assert len(rec) == 1 and not rec[0].flagged, rec
        assert dict(rec[0].values) == expected(v, url), (dict(rec[0].values), expected(v, url))
    names = [n for _l, n, _t in FIELDS]
    raw = [[v[n] if n != "weight" else v[n] + " kg" for n in names] for v in vals]
    for label, run in parsel_runs.items():
        got = [[_text(x) for x in row] for row in run(pages)]
        assert got == raw, f"{label} disagrees"
    got_bs = [[r[n] for n in names] for r in run_bs4(pages)]
    assert got_bs == raw, "bs4 disagrees"


def machine_note() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import bs4
    import parsel

    return (
        f"{cpu}, {os.cpu_count()} cores (pinned to core 0), Python {platform.python_version()}, "
        f"lxml {lxml.__version__} (libxml2 {'.'.join(map(str, lxml.etree.LIBXML_VERSION))}), "
        f"parsel {parsel.__version__}, beautifulsoup4 {bs4.__version__}, anchorpath "
        f"{anchorpath.__version__}; load average at the end {_load()} (other work shares the "
        "machine, so compare rows of one run, not runs)"
    )


def _load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=40)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--chunk", type=int, default=4, help="pages per turn of each contender")
    ap.add_argument("--write", action="store_true", help="replace this section of bench/RESULTS.md")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})

    generated = [make_page(i) for i in range(args.pages)]
    pages = [(body, f"https://shop.example/p/{i}") for i, (body, _v) in enumerate(generated)]
    vals = [v for _b, v in generated]
    avg_kb = sum(len(b) for b, _u in pages) / len(pages) / 1024
    sf = parse_selector_data(selector_data(), "bench-shop.json")
    parsel_same = make_parsel([field_xpath(lb, n) for lb, n, _t in FIELDS])
    parsel_slash = make_parsel(
        [
            field_xpath(lb, n, lambda s: f"//th[normalize-space()='{s}']/following-sibling::td[1]")
            for lb, n, _t in FIELDS
        ]
    )
    check(sf, pages, vals, {"parsel": parsel_same, "parsel //th": parsel_slash})

    Run = Callable[[list[tuple[bytes, str]]], object]
    contenders: list[tuple[str, Run]] = [
        ("anchorpath `extract` (bytes → typed records)", lambda ps: run_anchorpath(sf, ps)),
        ("lxml `html.fromstring` (parse only, no XPath)", run_lxml),
        ("parsel, same anchored XPaths", parsel_same),
        ("parsel, `//th[...]` XPaths", parsel_slash),
        ('BeautifulSoup(html, "lxml") find th → td', run_bs4),
    ]
    for _name, fn in contenders:  # warm-up: compile caches, imports
        fn(pages)
    # CPU time of this process (pinned to one core), not wall time: on a shared machine, time
    # spent waiting for the core is someone else's work. Contenders take turns every few pages
    # (not every pass) in a rotating order, so what load remains (cache pollution) hits all of
    # them alike; a repetition's time is the sum of its chunks.
    chunks = [pages[i : i + args.chunk] for i in range(0, len(pages), args.chunk)]
    times: dict[str, list[float]] = {name: [] for name, _fn in contenders}
    for _rep in range(args.reps):
        total = dict.fromkeys(times, 0.0)
        for c, chunk in enumerate(chunks):
            # Rotate who goes first: whoever follows BeautifulSoup finds the caches cold.
            k = c % len(contenders)
            for name, fn in contenders[k:] + contenders[:k]:
                t0 = time.process_time()
                fn(chunk)
                total[name] += time.process_time() - t0
                # BeautifulSoup trees are cyclic: collect them here, untimed, instead of in
                # whichever contender's turn the collector happens to fire.
                gc.collect()
        for name, t in total.items():
            times[name].append(t)

    med = {name: statistics.median(ts) for name, ts in times.items()}
    best = {name: min(ts) for name, ts in times.items()}
    pps = {name: args.pages / t for name, t in med.items()}
    ap_name, lx_name, ps_name, pss_name, _bs_name = (n for n, _f in contenders)
    rows = [
        "| contender | pages/s (median) | ms/page (median) | ms/page (best) "
        "| anchorpath speed-up (median) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, _fn in contenders:
        rows.append(
            f"| {name} | {pps[name]:.1f} | {1000 * med[name] / args.pages:.2f} | "
            f"{1000 * best[name] / args.pages:.2f} | {pps[ap_name] / pps[name]:.2f}× |"
        )
    vs_parsel = pps[ap_name] / pps[ps_name]
    vs_parsel_slash = pps[ap_name] / pps[pss_name]
    vs_lxml = med[ap_name] / med[lx_name]
    ceiling = med[ps_name] / med[lx_name]
    goal = [
        f"- anchorpath vs parsel (same anchored XPaths): {vs_parsel:.2f}× "
        f"({'meets' if vs_parsel >= 2 else 'misses'} the ≥ 2× goal; best passes "
        f"{best[ps_name] / best[ap_name]:.2f}×)",
        f"- anchorpath vs parsel (`//th` XPaths): {vs_parsel_slash:.2f}× "
        f"({'meets' if vs_parsel_slash >= 2 else 'misses'} the ≥ 2× goal; best passes "
        f"{best[pss_name] / best[ap_name]:.2f}×)",
        f"- anchorpath time / bare lxml parse time: {vs_lxml:.2f} "
        f"({'meets' if vs_lxml <= 2 else 'misses'} the ≤ 2× goal; best passes "
        f"{best[ap_name] / best[lx_name]:.2f})",
        f"- Ceiling: parsel with the same XPaths costs {ceiling:.2f}× a bare parse, so an engine "
        "that parses with libxml2 can be at most that much faster than it even if its own "
        "lookups cost nothing; "
        + (
            "the ≥ 2× goal against it is within reach only by a thin margin."
            if ceiling >= 2
            else "the ≥ 2× goal against it is out of reach on this run."
        ),
        "- Before the engine work (issue 2), the same bench (20 pages, 3 repetitions) measured "
        "anchorpath at 5.17 ms/page: "
        "0.72× parsel (same XPaths), 3.11× the bare parse time. The gains: one walk (stopping at "
        "the last label) finds every "
        "label anchor instead of one walk per field, `anchors_present` (a clean-up of the whole "
        "page text) is computed only by `evaluate_page`, the compile cache works for the "
        "(unhashable) models, `<base>` is looked up only when a URL needs it, and UTF-8 bytes "
        "go to libxml2 without a decode/encode round trip.",
    ]
    table = "\n".join(rows)
    cmd = "taskset -c 0 .venv/bin/python bench/extract_throughput.py " + " ".join(sys.argv[1:])
    summary = (
        f"{args.pages} generated product pages, {avg_kb:.0f} KB each on average, 20 label/value "
        f"fields per page; {args.reps} interleaved repetitions, median pass; all contenders "
        f"checked to return the same 20 values first; contenders take turns every {args.chunk} "
        "pages; times are the process's CPU time on one core."
    )
    print(summary)
    print()
    print(table)
    print()
    print("\n".join(goal))
    if args.write:
        section = "\n".join(
            [
                "## Extraction throughput (bench/extract_throughput.py)",
                "",
                f"Command (from the repo root): `{cmd.strip()}`",
                "",
                f"Machine: {machine_note()}.",
                "",
                summary,
                "",
                table,
                "",
                *goal,
                "",
            ]
        )
        write_section(Path(__file__).with_name("RESULTS.md"), section)
        print(f"\nwrote {Path(__file__).with_name('RESULTS.md')}")
    return 0


def write_section(path: Path, section: str) -> None:
    """Replace only our own ``## `` section of RESULTS.md (other benches own the rest)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    head = "## Extraction throughput (bench/extract_throughput.py)"
    pattern = re.compile(rf"^{re.escape(head)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _m: section + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
