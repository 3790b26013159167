"""Authoring that yields a runnable site: seed URLs from the pages themselves, a page type
added to an existing site (``follow`` generated, key kept), key changes explained, and inputs
that used to produce a silently wrong file now refused or warned about.

Uses the README's example shop (``examples/books``, our own pages).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions
from anchorpath.selectors.load import list_versions, load_selector_file

BOOKS = Path(__file__).resolve().parents[2] / "examples" / "books"


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "books"
    shutil.copytree(BOOKS, d)
    monkeypatch.chdir(d)
    return d


def author(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["author", "new-site", "books", *args])
    assert "Traceback" not in res.output
    return res.exit_code, res.output


DETAIL = ("--seed", "book/1.html", "--seed", "book/2.html", "--examples", "detail-examples.json")
LIST = ("--seed", "list/1.html", "--seed", "list/2.html", "--examples", "list-examples.json")


def test_seed_urls_come_from_the_pages_and_decisions_are_printed(shop: Path) -> None:
    code, out = author(*DETAIL, "--required", "isbn", "--yes")
    assert code == 0, out
    sf = load_selector_file(shop / "selectors" / "books.json")
    assert sf.fetch.start_urls == ("https://books.example/book/1.html",)
    assert sf.page_types["detail"].match == r"^https?://[^/]+/book/[^/]*\.html(?:[?#]|$)"
    assert "seed book/1.html: https://books.example/book/1.html (<link rel=canonical>)" in out
    assert "key: isbn (default: the first required field with a different value" in out
    assert "start URL: https://books.example/book/1.html" in out
    assert "page type detail (detail): match '^https?://[^/]+/book/[^/]*\\\\.html(?:[?#]|$)'" in out


def test_adding_a_list_page_type_keeps_the_detail_and_generates_follow(shop: Path) -> None:
    assert author(*DETAIL, "--required", "isbn", "--yes")[0] == 0
    code, out = author(*LIST, "--yes")
    assert code == 0, out
    path = shop / "selectors" / "books.json"
    sf = load_selector_file(path)
    assert list_versions(path) == [1, 2] and sf.version == 2
    assert set(sf.page_types) == {"detail", "list"}
    assert sf.key == ("isbn",)
    listing = sf.page_types["list"]
    assert listing.emit is False and listing.follow
    assert "starts-with(@href, '/book/')" in listing.follow[0]
    assert sf.fetch.start_urls == ("https://books.example/list/1.html",)
    assert sf.fetch.pagination is not None
    assert "key: isbn (kept from version 1)" in out
    assert "follow: list -> detail via" in out


def test_key_change_explains_the_consequence_and_asks(shop: Path) -> None:
    assert author(*DETAIL, "--required", "isbn", "--yes")[0] == 0
    code, out = author(*DETAIL, "--key", "title", "--yes")
    assert code == 0, out
    assert "key change: isbn -> title" in out
    assert "all records are re-issued" in out
    assert "issues every record again as new under the new key" in out
    assert load_selector_file(shop / "selectors" / "books.json").key == ("title",)


def test_unknown_seed_urls_write_a_file_that_run_refuses(shop: Path) -> None:
    for f in ("book/1.html", "book/2.html"):
        p = shop / f
        p.write_text(p.read_text().replace('rel="canonical"', 'rel="author"'))
    code, out = author(*DETAIL, "--required", "isbn", "--yes")
    assert code == 0, out
    assert "WARNING: selectors/books.json cannot run until its URLs are set" in out
    assert "no URL is known for book/1.html, book/2.html" in out
    res = CliRunner().invoke(main, ["run", "books", "--url", "https://books.example/book/1"])
    assert res.exit_code == 1
    assert "cannot run until its URLs are set" in res.output
    assert res.output.count("\n") == 1
    with pytest.raises(Exception, match="cannot run until its URLs are set"):
        run_site(RunOptions("books", shop / "selectors", shop / "state"))


def test_seed_url_is_asked_in_a_session(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for f in ("book/1.html", "book/2.html"):
        p = shop / f
        p.write_text(p.read_text().replace('rel="canonical"', 'rel="author"'))
    runner = CliRunner()
    # the two URLs, then the review session: accept every field, write (empty lines)
    answers = "https://books.example/book/1.html\nhttps://books.example/book/2.html\n" + "\n" * 12
    monkeypatch.setattr("anchorpath.cli.author._interactive", lambda yes: not yes, raising=True)
    res = runner.invoke(
        main,
        ["author", "new-site", "books", *DETAIL, "--required", "isbn", "--no-screenshots"],
        input=answers,
    )
    assert res.exit_code == 0, res.output
    sf = load_selector_file(shop / "selectors" / "books.json")
    assert sf.fetch.start_urls == ("https://books.example/book/1.html",)
    assert sf.unrunnable_reason() is None


def test_required_field_without_values_fails(shop: Path) -> None:
    data = json.loads((shop / "detail-examples.json").read_text())
    for v in data.values():
        v["isbn"] = ""
    (shop / "detail-examples.json").write_text(json.dumps(data))
    code, out = author(*DETAIL, "--required", "isbn", "--yes")
    assert code == 1
    assert "required field(s) isbn have no example value on any seed" in out
    assert not (shop / "selectors" / "books.json").exists()


def test_one_seed_warns(shop: Path) -> None:
    code, out = author(
        "--seed",
        "book/1.html",
        "--examples",
        "detail-examples.json",
        "--required",
        "isbn",
        "--yes",
    )
    assert code == 0, out
    assert "warning: one seed page" in out


def test_list_value_for_a_detail_field_hints_type_list(shop: Path) -> None:
    data = json.loads((shop / "detail-examples.json").read_text())
    data["book/1.html"]["author"] = ["Kim Minji", "Lee Junho"]
    (shop / "detail-examples.json").write_text(json.dumps(data))
    code, out = author(*DETAIL, "--required", "isbn", "--yes")
    assert code == 1
    assert "'author' has several values but 'isbn' has one" in out
    assert "--type author=list" in out


@pytest.mark.slow
def test_key_change_in_a_session_is_refused_unless_confirmed(
    shop: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert author(*DETAIL, "--required", "isbn", "--yes")[0] == 0
    monkeypatch.setattr("anchorpath.cli.author._interactive", lambda yes: not yes)
    res = CliRunner().invoke(
        main,
        ["author", "new-site", "books", *DETAIL, "--key", "title"],
        input="a\na\na\na\nw\nn\nq\n",
    )
    assert res.exit_code == 1
    assert "Change the key and write" in res.output
    assert load_selector_file(shop / "selectors" / "books.json").key == ("isbn",)


def test_detail_added_after_a_list_follows_the_list_url_field() -> None:
    from anchorpath.authoring.extend import add_page_type
    from anchorpath.authoring.reports import AuthoringResult
    from anchorpath.selectors.load import parse_selector_data
    from anchorpath.selectors.model import FieldSpec, PageType

    existing = parse_selector_data(
        {
            "schema_version": 1,
            "policy": {"basis": "robots"},
            "site": {"id": "books", "name": "Books"},
            "version": 1,
            "fetch": {"start_urls": ["https://books.example/list/1.html"]},
            "page_types": {
                "list": {
                    "match": "/list/",
                    "record_root": "//li[@class='book']",
                    "fields": {
                        "title": {"xpath": "a", "type": "string"},
                        "link": {"xpath": "a/@href", "type": "url"},
                    },
                }
            },
            "key": ["title"],
        }
    )
    detail = PageType(
        "detail",
        "/book/",
        {"isbn": FieldSpec.from_dict("isbn", {"xpath": "//td[1]", "type": "string"})},
    )
    ext = add_page_type(existing, AuthoringResult(detail, {}), key=["isbn"])
    sf = ext.selector_file
    assert sf.page_types["list"].follow == ("//li[@class='book']/a/@href",)
    assert set(sf.page_types) == {"list", "detail"} and sf.key == ("isbn",)
    assert ext.key_changed
    assert any("follow: list -> detail" in d for d in ext.decisions)
    assert sf.page_types["list"].emit is False  # its rows have no isbn
