"""``author new-site``'s decisions as a library call: where the file goes, the field requests,
the key and the start URLs, with a person's answers through ``Questions`` (none in a
script); nothing is written."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from anchorpath._config import Settings
from anchorpath._errors import AuthoringError
from anchorpath.authoring.key import KeyChoice
from anchorpath.authoring.newsite import (
    NewSiteRequest,
    author_new_site,
    example_fields,
    llm_fields,
    read_fields,
    uses_browser,
)
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.seeds import SeedPage

# Two different "Game Over" rows, one without an author: no field identifies every record.
INSEPARABLE = [("Game Over", "Kim"), ("Emma", "Austen"), ("Game Over", ""), ("Ulysses", "Joyce")]
OTHER = [("Dune", "Herbert"), ("Beloved", "Morrison"), ("Ivanhoe", "Scott")]


def _page(rows: Sequence[tuple[str, str]]) -> str:
    lis = "".join(f"<li class='r'><h3>{t}</h3><p class='by'>{a}</p></li>" for t, a in rows)
    return f"<html><body><h1>Results</h1><ul class='results'>{lis}</ul></body></html>"


def _list_site(tmp_path: Path) -> NewSiteRequest:
    pages = {"s1.html": INSEPARABLE, "s2.html": OTHER}
    examples = {}
    for name, rows in pages.items():
        (tmp_path / name).write_text(_page(rows), encoding="utf-8")
        examples[name] = {"title": [t for t, _ in rows], "author": [a for _, a in rows]}
    (tmp_path / "ex.json").write_text(json.dumps(examples), encoding="utf-8")
    return NewSiteRequest(
        "Search",
        tuple(str(tmp_path / n) for n in pages),
        seed_urls=("https://b.test/search?q=1", "https://b.test/search?q=2"),
        examples_path=str(tmp_path / "ex.json"),
        selectors_dir=tmp_path / "sel",
    )


class _Person:
    """Answers as a person at the terminal would; records what was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def seed_url(self, page: SeedPage) -> str:
        self.asked.append(f"url {Path(page.source).name}")
        return f"https://books.example/book/{Path(page.source).stem}"

    def key(self, choice: KeyChoice, names: Sequence[str]) -> tuple[tuple[str, ...], str]:
        self.asked.append(f"key {','.join(names)}")
        return ("title", "author"), "chosen at the prompt"


def _detail_site(tmp_path: Path) -> NewSiteRequest:
    """Two detail pages that declare no URL (no <base>, canonical link or og:url)."""
    examples = {}
    for i, (title, price) in enumerate([("Emma", "12.50"), ("Dune", "9.99")], start=1):
        html = (
            f"<html><body><h1>{title}</h1><table><tr><th>Price</th><td>{price}</td></tr>"
            "</table></body></html>"
        )
        (tmp_path / f"{i}.html").write_text(html, encoding="utf-8")
        examples[f"{i}.html"] = {"title": title, "price": price}
    (tmp_path / "ex.json").write_text(json.dumps(examples), encoding="utf-8")
    return NewSiteRequest(
        "My Books",
        (str(tmp_path / "1.html"), str(tmp_path / "2.html")),
        examples_path=str(tmp_path / "ex.json"),
        types={"price": "number"},
        selectors_dir=tmp_path / "sel",
    )


def test_examples_in_a_script_decide_path_key_and_unrunnable_start(tmp_path: Path) -> None:
    notes: list[str] = []
    site = author_new_site(_detail_site(tmp_path), Settings(), ask=None, note=notes.append)
    assert site.target == tmp_path / "sel" / "my-books.json" and not site.target.exists()
    assert site.existing is None and not site.llm and not site.rendered and not notes
    assert site.examples is not None and set(site.examples) == {"1.html", "2.html"}
    assert site.selector_file.page_types["detail"].fields["price"].type == "number"
    assert site.key_why and site.selector_file.key
    # the files declare no URL and no --start-url/--match was given: the file cannot run yet,
    # and its start URL is the first seed's (file) URL
    assert site.unrunnable and len(site.urls_unknown) == 2
    assert site.selector_file.fetch.start_urls == (site.pages[0].url,)
    assert not site.partial


def test_a_person_gives_the_seed_urls_the_pages_do_not_declare(tmp_path: Path) -> None:
    person = _Person()
    site = author_new_site(_detail_site(tmp_path), Settings(), ask=person, note=lambda _: None)
    assert person.asked == ["url 1.html", "url 2.html"]
    assert [p.url for p in site.pages] == [
        "https://books.example/book/1",
        "https://books.example/book/2",
    ]
    assert not site.unrunnable and site.selector_file.fetch.start_urls == (site.pages[0].url,)


def test_no_key_is_an_error_in_a_script_and_a_question_at_a_terminal(tmp_path: Path) -> None:
    request = _list_site(tmp_path)
    with pytest.raises(AuthoringError, match="--key FIELD"):
        author_new_site(request, Settings(), ask=None, note=lambda _: None)
    person = _Person()
    site = author_new_site(request, Settings(), ask=person, note=lambda _: None)
    assert person.asked == ["key title,author"]
    assert site.selector_file.key == ("title", "author")
    assert site.key_why == "chosen at the prompt"


def test_given_key_and_options_are_used(tmp_path: Path) -> None:
    request = _list_site(tmp_path)
    options = AuthoringOptions(page_type="results", match=r"/search\?q=")
    site = author_new_site(
        NewSiteRequest(
            request.name,
            request.seeds,
            request.seed_urls,
            request.examples_path,
            keys=("title", "author"),
            start_urls=("https://b.test/search?q=1",),
            selectors_dir=request.selectors_dir,
            options=options,
        ),
        Settings(),
        ask=None,
        note=lambda _: None,
    )
    pt = site.selector_file.page_types["results"]
    assert pt.match == r"/search\?q=" and pt.record_root
    assert site.key_why == "--key" and site.selector_file.key == ("title", "author")
    assert site.selector_file.fetch.start_urls == ("https://b.test/search?q=1",)


def test_field_requests_from_examples_and_from_field_flags(tmp_path: Path) -> None:
    examples = {"a.html": {"title": "T", "price": "1"}, "b.html": {"title": "U", "isbn": "9"}}
    fields = example_fields(examples, {"price": "number"}, ["isbn"])
    assert [(f.name, f.type, f.required) for f in fields] == [
        ("title", "string", False),
        ("price", "number", False),
        ("isbn", "string", True),
    ]
    with pytest.raises(AuthoringError, match="not in the examples: prise"):
        example_fields(examples, {"prise": "number"}, [])
    assert llm_fields([], {}, []) is None  # the model proposes the fields
    with pytest.raises(AuthoringError, match="--required needs --field"):
        llm_fields([], {}, ["title"])
    path = tmp_path / "fields.json"
    path.write_text(json.dumps({"title": "string", "price": "number"}), encoding="utf-8")
    given = read_fields(str(path))
    asked = llm_fields(given, {"price": "string"}, ["title"])
    assert asked is not None
    assert [(f.name, f.type, f.required) for f in asked] == [
        ("title", "string", True),
        ("price", "string", False),
    ]
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(AuthoringError, match=r"fields\.json: expected"):
        read_fields(str(path))


def test_seeds_given_as_urls_are_rendered_by_default() -> None:
    assert uses_browser(None, ["https://x.test/1", "a.html"])
    assert not uses_browser(None, ["a.html"])
    assert not uses_browser("http", ["https://x.test/1"])
    assert uses_browser("browser", ["a.html"])
