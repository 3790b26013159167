"""Shapes found on real pages (thesis_wrapper's Amazon and IMDb captures, webevo), rebuilt as
the project's own synthetic pages: records in two containers, archive toolbars, values copied
as a person reads them, case, positional steps, ``<title>`` against the visible headline."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorpath.authoring.induce import assemble_site, author_page_type
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.pages.records import detect_pagination
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.selectors.evaluate import extract, parse_html

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "evolution"

# -- records in two containers (Amazon 2014: 3 results above the fold, 9 below) --------------

TOOLBAR = """<div id="wm-ipp"><table><tr><td><a href="/web/2/x" title="Previous capture">
<img alt="Previous capture" src="p.png"></a></td><td><a href="/web/3/x" title="9:28 Mar 1">
<img alt="Next capture" src="n.png"></a></td></tr></table></div>"""


def _book(n: int, page: int) -> str:
    return (
        f'<li id="result_{n}" class="s-result"><div class="img"><a href="/b/{page}-{n}">'
        f'<img src="{n}.jpg" alt=""></a></div><div class="info"><h3><a href="/b/{page}-{n}">'
        f'Book {page}-{n}</a></h3><span class="by">by Author {n}</span></div></li>'
    )


def two_containers(page: int, total: int = 12, above: int = 3, ad_after: int = 5) -> str:
    first = "".join(_book(n, page) for n in range(above))
    rest = ""
    for n in range(above, total):
        rest += _book(n, page)
        if n == ad_after:  # an interleaved ad, not a record
            rest += '<li class="ad"><div class="sponsored">Sponsored: buy things</div></li>'
    return (
        f"<html><head><title>Books page {page}</title></head><body>{TOOLBAR}"
        '<div id="nav"><a href="/">Home</a></div><div id="resultsCol">'
        f'<div id="atfResults"><ul>{first}</ul></div>'
        f'<div id="btfResults"><ul>{rest}</ul></div></div>'
        f'<div id="pagn"><span class="cur">{page}</span>'
        f'<a id="pagnNextLink" title="Next page" href="/s?page={page + 1}">Next »</a></div>'
        "</body></html>"
    )


def _author_titles(pages: dict[int, list[int]], build=two_containers):  # type: ignore[no-untyped-def]
    seeds, ex = [], {}
    for p, picks in pages.items():
        s = seed_from_html(build(p), f"https://shop.test/s?page={p}", source=f"p{p}.html")
        seeds.append(s)
        ex[s.source] = {"title": [f"Book {p}-{n}" for n in picks]}
    return author_page_type(seeds, [FieldRequest("title")], ex, AuthoringOptions(list_page=True))


def _titles(result, html: str, url: str) -> list[str]:  # type: ignore[no-untyped-def]
    sf = assemble_site("t", [result])
    return [str(r.values["title"]) for r in extract(sf, html, url)]


def test_record_root_covers_every_container_when_examples_sit_in_the_first() -> None:
    res = _author_titles({1: [0, 1, 2], 2: [0, 1, 2]})
    got = _titles(res, two_containers(7), "https://shop.test/s?page=7")
    assert got == [f"Book 7-{n}" for n in range(12)]  # the ad is not a record
    assert any("record root selects 12 record(s) on p1.html" in p for p in res.problems)


def test_record_root_from_examples_spanning_both_containers() -> None:
    res = _author_titles({1: [1, 4, 9], 2: [0, 6, 11]})
    got = _titles(res, two_containers(5, total=10, above=2), "https://shop.test/s?page=5")
    assert got == [f"Book 5-{n}" for n in range(10)]


def _featured_then_list(page: int) -> str:
    """A featured block whose records are one level shallower than the main list's."""
    feat = (
        f'<div class="hero"><div class="card"><h2><a href="/f">Book {page}-0</a></h2></div></div>'
    )
    rows = "".join(
        f'<div class="row"><div class="card"><h2><a href="/r{n}">Book {page}-{n}</a></h2>'
        f'<p class="meta">{n} pages</p></div></div>'
        for n in range(1, 8)
    )
    return f"<html><body><main>{feat}<section>{rows}</section></main></body></html>"


def test_record_roots_at_different_depths() -> None:
    res = _author_titles({1: [0, 2, 5], 2: [0, 3, 4]}, build=_featured_then_list)
    got = _titles(res, _featured_then_list(9), "https://shop.test/s?page=9")
    assert got == [f"Book 9-{n}" for n in range(8)]


def test_count_plausibility_warns_when_the_root_misses_look_alikes() -> None:
    from anchorpath.authoring.pages.records import similar_records

    doc = parse_html(two_containers(1))
    roots = doc.xpath("//div[@id='atfResults']//li")
    assert similar_records(doc, roots, "div/h3/a") == 12


def test_the_example_that_does_not_fit_is_named_and_left_out() -> None:
    """Rule: when the other examples line up as records, the odd one (here a text copied
    from the navigation) costs that example, not the page type: it is left out and named in
    ``shortfalls`` (the CLI writes the file and exits 5)."""

    def page(p: int) -> str:
        return two_containers(p).replace(
            '<div id="nav"><a href="/">Home</a></div>',
            f'<div id="nav"><a href="/">Home</a><span>Odd {p}</span></div>',
        )

    seeds, ex = [], {}
    for p in (1, 2):
        s = seed_from_html(page(p), f"https://shop.test/s?page={p}", source=f"p{p}.html")
        seeds.append(s)
        ex[s.source] = {"title": [f"Odd {p}", f"Book {p}-1", f"Book {p}-2"]}
    res = author_page_type(seeds, [FieldRequest("title")], ex, AuthoringOptions(list_page=True))
    assert any("p1.html: example record 1 ('Odd 1'" in p for p in res.shortfalls)
    assert any("example record 1 ('Odd 1'" in p and "left out" in p for p in res.problems)
    assert _titles(res, two_containers(3), "https://shop.test/s?page=3")[:2] == [
        "Book 3-0",
        "Book 3-1",
    ]


# -- pagination from the site's own navigation, never the archive toolbar ---------------------


def test_pagination_ignores_archive_toolbar_next_capture() -> None:
    pages = [(parse_html(two_containers(p)), f"https://shop.test/s?page={p}") for p in (1, 2)]
    assert detect_pagination(pages) == "/descendant::a[normalize-space()='Next »'][1]/@href"


def test_pagination_words_in_korean_and_arrows() -> None:
    def board(p: int, word: str) -> str:
        return (
            f'<html><body><table><tr><td>row {p}</td></tr></table><div class="paging">'
            f'<strong>{p}</strong><a href="?page={p + 1}">{p + 1}</a>'
            f'<a href="?page={p + 1}">{word}</a></div></body></html>'
        )

    for word in ("다음", "›"):
        pages = [(parse_html(board(p, word)), f"https://board.test/?page={p}") for p in (1, 2)]
        expr = detect_pagination(pages)
        assert expr is not None
        assert pages[0][0].xpath(expr) == ["?page=2"]


@pytest.mark.skipif(not (SHARED / "thesis_wrapper").exists(), reason="../shared absent")
def test_thesis_wrapper_amazon_pagination_is_the_sites_own() -> None:
    files = sorted((SHARED / "thesis_wrapper").glob("amazon-*.html"))[:2]
    pages = [
        (parse_html(f.read_bytes().decode("utf-8", "replace")), f"https://archive.test/{f.name}")
        for f in files
    ]
    expr = detect_pagination(pages)
    assert expr is not None and "capture" not in expr.lower()
    href = str(pages[0][0].xpath(expr)[0])
    assert "page=2" in href


# -- values as people copy them --------------------------------------------------------------

MOVIES = [
    ("Gone Girl", "(2014)"),
    ("Homeland", "(2011 TV Series)"),
    ("Interstellar", "(2014)"),
    ("The Walking Dead", "(2010 TV Series)"),
    ("Fury", "(2014)"),
    ("Gotham", "(2014 TV Series)"),
]


def imdb_like(page: int) -> str:
    rows = "".join(
        f'<tr><td class="number">{i + 1}.</td><td class="image"><img src="x.jpg"></td>'
        f'<td class="title"><a href="/t/{page}{i}">{t} {page}</a> '
        f'<span class="year_type">{y}</span><div class="outline">Plot {i}</div></td></tr>'
        for i, (t, y) in enumerate(MOVIES)
    )
    return f'<html><body><div id="main"><table class="results">{rows}</table></div></body></html>'


def test_year_copied_without_parentheses_or_series_label() -> None:
    seeds, ex = [], {}
    for p in (1, 2):
        s = seed_from_html(imdb_like(p), f"https://movies.test/chart?p={p}", source=f"m{p}.html")
        seeds.append(s)
        ex[s.source] = {
            "title": [f"Gone Girl {p}", f"Homeland {p}"],
            "year": ["2014", "2011"],
        }
    res = author_page_type(
        seeds, [FieldRequest("title"), FieldRequest("year")], ex, AuthoringOptions(list_page=True)
    )
    got = extract(assemble_site("m", [res]), imdb_like(3), "https://movies.test/chart?p=3")
    assert [r.values["year"] for r in got] == ["2014", "2011", "2014", "2010", "2014", "2014"]


def numbered_list(page: int) -> str:
    items = ["Design", "Build", "Test", "Ship"]
    lis = "".join(
        f'<li><span class="n">{i + 1}.</span> <a href="/s/{page}/{i}">{w} {page}</a></li>'
        for i, w in enumerate(items)
    )
    return f'<html><body><ol class="steps">{lis}</ol></body></html>'


def test_value_spanning_two_nodes_grounds_to_their_parent() -> None:
    seeds, ex = [], {}
    for p in (1, 2):
        s = seed_from_html(numbered_list(p), f"https://howto.test/{p}", source=f"h{p}.html")
        seeds.append(s)
        ex[s.source] = {"step": [f"1. Design {p}", f"2. Build {p}"]}
    res = author_page_type(seeds, [FieldRequest("step")], ex, AuthoringOptions(list_page=True))
    got = extract(assemble_site("h", [res]), numbered_list(5), "https://howto.test/5")
    assert [r.values["step"] for r in got] == [
        "1. Design 5",
        "2. Build 5",
        "3. Test 5",
        "4. Ship 5",
    ]


# -- exact case wins; case-insensitive and partial matches are reported -----------------------


def tutorial(topic: str, n: int) -> str:
    return (
        f"<html><head><title>Lesson {n}</title></head><body><article><h1>Lesson {n}</h1>"
        "<pre><code>&lt;!DOCTYPE html&gt;\n&lt;html lang='en'&gt;</code></pre>"
        f'<p>Some text about markup.</p><div class="meta">Topic: <span class="topic">{topic}'
        "</span></div></article></body></html>"
    )


def test_exact_case_beats_a_case_insensitive_match_in_a_code_sample() -> None:
    from anchorpath.authoring.induce import author_site

    seeds, ex = [], {}
    for n, topic in enumerate(["HTML", "CSS", "HTML"]):
        s = seed_from_html(tutorial(topic, n), f"https://learn.test/l/{n}", source=f"t{n}.html")
        seeds.append(s)
        ex[s.source] = {"topic": topic}
    sf = author_site("learn", seeds, [FieldRequest("topic")], ex)
    for s, want in zip(seeds, ["HTML", "CSS", "HTML"], strict=True):
        assert extract(sf, s.html, s.url)[0].values["topic"] == want
    assert extract(sf, tutorial("JavaScript", 9), "https://learn.test/l/9")[0].values == {
        "topic": "JavaScript"
    }


def test_case_insensitive_and_partial_matches_are_reported() -> None:
    seeds, ex = [], {}
    for n, topic in enumerate(["HTML", "CSS"]):
        s = seed_from_html(tutorial(topic, n), f"https://learn.test/l/{n}", source=f"t{n}.html")
        seeds.append(s)
        ex[s.source] = {"topic": topic.lower(), "lesson": str(n)}
    res = author_page_type(seeds, [FieldRequest("topic"), FieldRequest("lesson")], ex)
    assert any("'css' matched case-insensitively (the page shows 'CSS')" in p for p in res.problems)
    assert any("'0' is part of 'Lesson 0'" in p for p in res.problems)


# -- visible content before <title>; anchors before positions --------------------------------


def article(n: int, *, site_in_title: bool = False) -> str:
    head = f"Headline number {n}" + (" | The Daily Test" if site_in_title else "")
    return (
        f"<html><head><title>{head}</title><meta property='og:title' content='{head}'></head>"
        f"<body><div class='page'><h1 class='headline'>Headline number {n}</h1>"
        f"<p>Body of story {n}.</p></div></body></html>"
    )


def test_visible_headline_beats_title_element() -> None:
    from anchorpath.authoring.induce import author_site

    seeds, ex = [], {}
    for n in range(3):
        s = seed_from_html(article(n), f"https://news.test/{n}", source=f"a{n}.html")
        seeds.append(s)
        ex[s.source] = {"headline": f"Headline number {n}"}
    sf = author_site("news", seeds, [FieldRequest("headline")], ex)
    later = article(7, site_in_title=True)  # the site's name now in every <title>
    assert extract(sf, later, "https://news.test/7")[0].values["headline"] == "Headline number 7"


def taglines(n: int, shift: bool = False) -> str:
    extra = "<div><p>New promo block</p></div>" if shift else ""
    return (
        f"<html><body><div id='main'>{extra}<div><p>Nav {n}</p></div><div><p>Intro {n}</p></div>"
        f"<div><p>Tagline {n}</p></div></div></body></html>"
    )


def test_positional_xpath_is_warned_in_report_and_selector_file() -> None:
    import json

    from anchorpath.authoring.induce import author_page_type as apt
    from anchorpath.selectors.load import dump_selector_file

    seeds, ex = [], {}
    for n in range(3):
        s = seed_from_html(taglines(n), f"https://co.test/{n}", source=f"c{n}.html")
        seeds.append(s)
        ex[s.source] = {"tagline": f"Tagline {n}"}
    res = apt(seeds, [FieldRequest("tagline")], ex)
    rep = res.fields["tagline"]
    assert rep.warnings and "positional" in rep.warnings[0]
    assert any("positional XPath" in p for p in res.problems)
    data = json.loads(dump_selector_file(assemble_site("co", [res])))
    assert "positional" in data["page_types"]["detail"]["fields"]["tagline"]["warnings"][0]
