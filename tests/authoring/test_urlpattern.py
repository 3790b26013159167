"""Page-type URL patterns from the shape of the seed URLs, checked against the seeds' links;
on our own generated URLs of the shapes real sites use."""

from __future__ import annotations

import re

import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.induce import author_page_type
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.authoring.urlpattern import Link, induce_url_pattern, seed_links
from anchorpath.selectors.evaluate import parse_html


def _rx(urls: list[str], links: list[Link] | None = None) -> re.Pattern[str]:
    return re.compile(induce_url_pattern(urls, links or []).regex)


def test_seeds_from_one_city_match_every_city_and_state() -> None:
    """The issue's directory: three seeds from one city; the state is a breadcrumb level
    (the page links to ``/ca/``), the city a slug, the restaurant a slug and an id."""
    seeds = [
        "https://eat.test/ca/san-francisco/tacos-el-gordo/123/",
        "https://eat.test/ca/san-francisco/nopa/456/",
        "https://eat.test/ca/san-francisco/zuni-cafe/789/",
    ]
    links = [
        Link("https://eat.test/ca/", chrome=False),
        Link("https://eat.test/ca/san-francisco/", chrome=False),
        Link("https://eat.test/ca/san-francisco/state-bird/991/", chrome=False, group="g"),
        Link("https://eat.test/about", chrome=True),
    ]
    pattern = induce_url_pattern(seeds, links)
    rx = re.compile(pattern.regex)
    assert rx.search("https://eat.test/ny/new-york/katzs/55/")
    assert rx.search("https://eat.test/ca/oakland/commis/7")
    assert not rx.search("https://eat.test/ca/san-francisco/")
    assert not rx.search("https://eat.test/about")
    assert any("'ca' generalised" in n for n in pattern.notes)
    assert pattern.describe() == "matches 1 of the seeds' 1 links of the same shape"


def test_category_codes_and_ids_generalise_type_words_stay() -> None:
    """SWDE-like job pages: ``/job/<category code>/<id>/<slug>.html``; seeds from one
    category match another category's pages, not the site's other templates."""
    rx = _rx(
        [
            "http://jobs.test/job/lw13/1867/flex_java_ui_developer.html",
            "http://jobs.test/job/lw13/1865/office_manager.html",
            "http://jobs.test/job/lw13/1863/mechanical_engineer.html",
        ]
    )
    assert rx.search("http://jobs.test/job/ltun/204/mechanical_engineer.html")
    assert rx.search("http://www.jobs.test/job/ab22/9/x.html?src=rss")
    assert not rx.search("http://jobs.test/company/lw13/page.html")
    assert not rx.search("http://jobs.test/job/lw13/")


def test_product_ids_starting_with_digits_and_paths_of_two_depths() -> None:
    """Seeds with and without an author segment, ids ending in a letter on other pages."""
    rx = _rx(
        [
            "http://books.test/know-your-bible/george-knight/9781602600157/pd/600150",
            "http://books.test/pray-the-best/john-wesley/9781602600140/pd/600143",
            "http://books.test/lydias-charm/9781602600638/pd/600631",
        ]
    )
    assert rx.search("http://books.test/christy-miller/robin-gunn/9781590525852/pd/52585X")
    assert rx.search("http://books.test/jesus-calling/9781591451884/pd/451884")
    assert not rx.search("http://books.test/category/fiction")


def test_several_words_in_a_related_list_make_a_category_level() -> None:
    """A shop whose product pages sit under their category: the page's related-items list
    links to products under three other categories: the category is data."""
    seeds = ["https://shop.test/books/1001", "https://shop.test/books/1002"]
    related = [
        Link(f"https://shop.test/{c}/{n}", chrome=False, group="related")
        for c, n in (("books", 7), ("music", 8), ("toys", 9), ("garden", 10))
    ]
    rx = _rx(seeds, related)
    assert rx.search("https://shop.test/music/5")
    # one other word beside it (a film page linking to people) marks another template
    film = ["https://movies.test/film/1", "https://movies.test/film/2"]
    links = [
        Link("https://movies.test/film/3", chrome=False, group="similar"),
        Link("https://movies.test/people/4", chrome=False, group="cast"),
    ]
    assert not _rx(film, links).search("https://movies.test/people/4")


def test_query_parameters_in_any_order_switches_kept_incidentals_dropped() -> None:
    rx = _rx(
        [
            "https://wiki.test/w/index.php?search=cpu&title=Special:Search&go=Go",
            "https://wiki.test/w/index.php?search=gpu&title=Special:Search&go=Go",
        ]
    )
    assert rx.search("https://wiki.test/w/index.php?title=Special:Search&fulltext=1&search=x")
    # mode=view is a switch: the detail pages link back to mode=list of the same path
    detail = [
        "http://gov.test/board.do?mode=view&seq=1",
        "http://gov.test/board.do?mode=view&seq=2",
    ]
    back = [Link("http://gov.test/board.do?mode=list&page=1", chrome=False)]
    board = _rx(detail, back)
    assert board.search("http://gov.test/board.do?seq=9&mode=view")
    assert not board.search("http://gov.test/board.do?mode=list&seq=2")


def test_links_of_a_page_know_the_chrome_and_their_list() -> None:
    html = (
        "<html><head><base href='https://s.test/x/'></head><body>"
        "<nav><a href='/about'>About</a></nav>"
        "<ul><li><a href='item/1'>One</a></li><li><a href='item/2'>Two</a></li></ul>"
        "<a href='javascript:void(0)'>js</a><a href='#top'>top</a></body></html>"
    )
    links = seed_links(parse_html(html), "https://s.test/page")
    assert [(ln.url, ln.chrome) for ln in links] == [
        ("https://s.test/about", True),
        ("https://s.test/x/item/1", False),
        ("https://s.test/x/item/2", False),
    ]
    assert links[1].group == links[2].group != links[0].group


def test_files_without_a_known_address_still_match_their_pattern() -> None:
    urls = ["file:///tmp/seeds/a.html", "file:///tmp/seeds/b.html"]
    rx = _rx(urls)
    assert all(rx.search(u) for u in urls)


def test_a_given_match_that_is_no_regex_or_misses_a_seed_is_refused() -> None:
    seeds = [
        seed_from_html(f"<html><body><h1>T{i}</h1></body></html>", f"https://s.test/p/{i}")
        for i in (1, 2)
    ]
    ex = {s.url: {"title": f"T{i}"} for i, s in enumerate(seeds, 1)}
    fields = [FieldRequest("title")]
    with pytest.raises(AuthoringError, match=r"--match '/q/' does not match the seed URL"):
        author_page_type(seeds, fields, ex, AuthoringOptions(match="/q/"))
    with pytest.raises(AuthoringError, match=r"--match '\(' is not a regular expression"):
        author_page_type(seeds, fields, ex, AuthoringOptions(match="("))
    res = author_page_type(seeds, fields, ex, AuthoringOptions(match="/p/"))
    assert res.page_type.match == "/p/" and res.url_pattern is not None
