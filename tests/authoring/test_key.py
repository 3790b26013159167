"""The default key of a new site: a field with a different value in every seed record (the
README's example shop lists two books titled "Game Over"), else no default — an error naming
the repeats under ``--yes``, a question at a terminal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.authoring.induce import author_page_type
from anchorpath.authoring.key import default_key
from anchorpath.authoring.options import AuthoringOptions
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import seed_from_html
from anchorpath.cli import main
from anchorpath.selectors.load import load_selector_file

BOOKS = Path(__file__).resolve().parents[2] / "examples" / "books"
LIST_EXAMPLES = json.loads((BOOKS / "list-examples.json").read_text(encoding="utf-8"))


def _list_result(fields: list[FieldRequest]):  # type: ignore[no-untyped-def]
    seeds = [
        seed_from_html((BOOKS / p).read_text("utf-8"), f"https://books.example/{p}", source=p)
        for p in LIST_EXAMPLES
    ]
    ex = {p: {f.name: LIST_EXAMPLES[p][f.name] for f in fields} for p in LIST_EXAMPLES}
    return author_page_type(seeds, fields, ex)


def _page(rows: list[tuple[str, str]]) -> str:
    """A generated search-result page: one ``li`` per (title, author) row."""
    lis = "".join(f"<li class='r'><h3>{t}</h3><p class='by'>{a}</p></li>" for t, a in rows)
    return f"<html><body><h1>Results</h1><ul class='results'>{lis}</ul></body></html>"


_OTHER_PAGE = [("Dune", "Herbert"), ("Beloved", "Morrison"), ("Ivanhoe", "Scott")]
# A row shown twice, identical in every field: one record to the store.
IDENTICAL = [("Emma", "Austen"), ("Dune", "Herbert"), ("Dune", "Herbert"), ("Ulysses", "Joyce")]
# Two different books titled "Game Over"; "Kim" wrote two books: only the pair is a key.
NAMESAKES = [("Game Over", "Kim"), ("Game Over", "Lee"), ("Harbour", "Kim"), ("Ulysses", "Joyce")]
# Two different "Game Over" rows, one without an author: nothing identifies both.
INSEPARABLE = [("Game Over", "Kim"), ("Emma", "Austen"), ("Game Over", ""), ("Ulysses", "Joyce")]


# A row without a title ("Kim" wrote two books): titles are distinct where there is one.
UNTITLED = [("Emma", "Kim"), ("Dune", "Kim"), ("", "Lee"), ("Ulysses", "Joyce")]


def _generated(first_page: list[tuple[str, str]], fields: list[str]):  # type: ignore[no-untyped-def]
    pages = {"s1.html": first_page, "s2.html": _OTHER_PAGE}
    seeds = [
        seed_from_html(_page(rows), f"https://b.test/search?q={p}", source=p)
        for p, rows in pages.items()
    ]
    ex = {
        p: {f: [row[i] for row in rows[:2]] for i, f in enumerate(fields)}
        for p, rows in pages.items()
    }
    return author_page_type(
        seeds, [FieldRequest(f) for f in fields], ex, AuthoringOptions(list_page=True)
    )


def test_a_repeating_first_field_is_not_the_default_key() -> None:
    choice = default_key(_list_result([FieldRequest("title"), FieldRequest("author")]))
    assert choice.key == ("author",)
    assert choice.rejected == {"title": "'Game Over' on 2 different records (list/1.html)"}
    assert "6 distinct seed record(s)" in choice.why and "not title" in choice.why


def test_required_fields_come_first() -> None:
    fields = [FieldRequest("title"), FieldRequest("author", required=True)]
    choice = default_key(_list_result(fields))
    assert choice.key == ("author",) and "first required field" in choice.why
    assert choice.rejected == {}


@pytest.mark.parametrize("fields", [["title"], ["title", "author"]])
def test_an_identical_repeated_row_is_one_record_and_keeps_the_title_key(
    fields: list[str],
) -> None:
    """The store merges records identical in every field (README: "identical repeats ... are
    one record"), so a row shown twice on one page does not disqualify its title."""
    choice = default_key(_generated(IDENTICAL, fields))
    assert choice.key == ("title",) and choice.rejected == {}
    assert "6 distinct seed record(s)" in choice.why


def test_the_readme_shop_with_titles_only_keeps_the_title_key() -> None:
    """With only ``title`` authored, the two "Game Over" rows of the example shop are the same
    record to the store: ``title`` identifies every record there is."""
    assert default_key(_list_result([FieldRequest("title")])).key == ("title",)


def test_two_books_of_one_title_get_the_smallest_combination() -> None:
    choice = default_key(_generated(NAMESAKES, ["title", "author"]))
    assert choice.key == ("title", "author") and choice.combined
    assert choice.rejected == {
        "title": "'Game Over' on 2 different records (s1.html)",
        "author": "'Kim' on 2 different records (s1.html)",
    }
    assert "title + author is the smallest combination" in choice.why


def test_pairs_come_before_triples_in_field_order() -> None:
    rows = [("Game Over", "Kim"), ("Game Over", "Lee"), ("Harbour", "Kim")]
    result = _generated(rows, ["author", "title"])
    assert default_key(result).key == ("author", "title")


def test_nothing_separates_two_records_means_no_default() -> None:
    choice = default_key(_generated(INSEPARABLE, ["title", "author"]))
    assert choice.key is None and not choice.combined
    assert "choose it with --key FIELD" in choice.refusal()
    assert "title: 'Game Over' on 2 different records (s1.html)" in choice.refusal()
    assert "author: no value on s1.html" in choice.refusal()


def test_a_long_repeated_value_is_shown_as_an_excerpt() -> None:
    long = "A Very Long Title " * 8
    choice = default_key(
        _generated([(long, "Kim"), (long, "Lee"), ("x", "Kim")], ["title", "author"])
    )
    shown = choice.rejected["title"]
    assert shown.startswith("'A Very Long Title") and "…' on 2 different records" in shown
    assert len(shown) < 100


def test_a_record_on_two_seed_list_pages_is_one_record_not_a_repeat() -> None:
    """Two search-result pages (two keywords) may both list one book: on list pages only a
    repeat within one page disqualifies a key."""

    def page(titles: list[str]) -> str:
        rows = "".join(f"<li class='r'><h3>{t}</h3><p>by x</p></li>" for t in titles)
        return f"<html><body><ul class='results'>{rows}</ul></body></html>"

    pages = {"s1.html": ["Dune", "Emma", "Ulysses"], "s2.html": ["Dune", "Beloved", "Ivanhoe"]}
    seeds = [
        seed_from_html(page(t), f"https://b.test/{p}?q={p}", source=p) for p, t in pages.items()
    ]
    ex = {p: {"title": t[:2]} for p, t in pages.items()}
    result = author_page_type(seeds, [FieldRequest("title")], ex, AuthoringOptions(list_page=True))
    assert default_key(result).key == ("title",)


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "books"
    shutil.copytree(BOOKS, d)
    monkeypatch.chdir(d)
    return d


def test_cli_default_key_under_yes(shop: Path) -> None:
    seeds = ["--seed", "list/1.html", "--seed", "list/2.html"]
    runner = CliRunner()
    ok = runner.invoke(
        main, ["author", "new-site", "books", *seeds, "--examples", "list-examples.json", "--yes"]
    )
    assert ok.exit_code == 0, ok.output
    assert "key: author (default: the first field with a different value" in ok.output
    assert load_selector_file(shop / "selectors" / "books.json").key == ("author",)


def _new_site(
    tmp_path: Path, first_page: list[tuple[str, str]], *extra: str, answers: str | None = None
) -> tuple[int, str, Path]:
    """``author new-site gen --list-page`` on two generated search pages, examples of title
    and author (two rows each); exit code, output and the selector file's path."""
    pages = {"s1.html": first_page, "s2.html": _OTHER_PAGE}
    args = ["author", "new-site", "gen", "--list-page", "--no-screenshots"]
    ex = {}
    for p, rows in pages.items():
        (tmp_path / p).write_text(_page(rows), encoding="utf-8")
        args += ["--seed", str(tmp_path / p), "--seed-url", f"https://b.test/search?q={p}"]
        ex[str(tmp_path / p)] = {
            "title": [r[0] for r in rows[:2]],
            "author": [r[1] for r in rows[:2]],
        }
    (tmp_path / "ex.json").write_text(json.dumps(ex), encoding="utf-8")
    res = CliRunner().invoke(
        main, [*args, "--examples", str(tmp_path / "ex.json"), *extra], input=answers
    )
    return res.exit_code, res.output, tmp_path / "selectors" / "gen.json"


def test_cli_yes_takes_the_smallest_combination_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, path = _new_site(tmp_path, NAMESAKES, "--yes")
    assert code == 0, out
    assert load_selector_file(path).key == ("title", "author")
    line = next(x for x in out.splitlines() if x.strip().startswith("key:"))
    assert line.strip().startswith("key: title, author (default: no single field identifies")
    assert "title: 'Game Over' on 2 different records" in line and "author: 'Kim' on 2" in line


def test_cli_yes_keeps_title_over_an_identical_repeated_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, path = _new_site(tmp_path, IDENTICAL, "--yes")
    assert code == 0, out
    assert load_selector_file(path).key == ("title",)


def test_cli_yes_refuses_when_nothing_separates_two_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, path = _new_site(tmp_path, INSEPARABLE, "--yes")
    assert code == 1 and "Traceback" not in out
    assert "no field identifies every record of the seeds" in out
    assert "title: 'Game Over' on 2 different records" in out and "--key FIELD" in out
    assert not path.exists()
    code, out, path = _new_site(tmp_path, INSEPARABLE, "--yes", "--key", "title")
    assert code == 0, out


def test_at_a_terminal_the_combination_is_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("anchorpath.cli.author._interactive", lambda yes: not yes)
    code, out, path = _new_site(tmp_path, NAMESAKES, answers="\n" * 14)
    assert "key field(s), comma-separated (title, author) [title,author]:" in out
    assert code == 0, out
    assert load_selector_file(path).key == ("title", "author")


def test_typos_in_key_and_field_names_get_a_did_you_mean(shop: Path) -> None:
    runner = CliRunner()
    base = ["author", "new-site", "books", "--seed", "book/1.html", "--seed", "book/2.html"]
    base += ["--examples", "detail-examples.json", "--yes"]
    key = runner.invoke(main, [*base, "--key", "isbm"])
    assert (
        key.exit_code == 1 and "key field(s) isbm not authored (did you mean 'isbn'?)" in key.output
    )
    req = runner.invoke(main, [*base, "--required", "tilte"])
    assert req.exit_code == 1 and "(did you mean 'title'?)" in req.output
    typ = runner.invoke(main, [*base, "--type", "athor=list"])
    assert typ.exit_code == 1 and "(did you mean 'author'?)" in typ.output


def test_at_a_terminal_the_key_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("anchorpath.cli.author._interactive", lambda yes: not yes)
    code, out, path = _new_site(tmp_path, INSEPARABLE, answers="tilte\ntitle\n" + "\n" * 12)
    assert "author: no value on " in out and "s1.html)\nkey field(s)" in out
    assert "not a field: tilte (did you mean 'title'?)" in out
    assert code == 0, out
    assert load_selector_file(path).key == ("title",)


def test_a_first_field_missing_only_on_some_rows_is_a_key_with_gaps() -> None:
    choice = default_key(_generated(UNTITLED, ["title", "author"]))
    assert choice.key == ("title",) and choice.gaps is not None
    assert "key 'title': 1 of the 7 distinct seed record(s) have no title (s1.html)" in (
        choice.gaps
    )
    assert "withdraws no record" in choice.gaps
    assert default_key(_generated(INSEPARABLE, ["title", "author"])).key is None


def test_cli_yes_writes_a_key_with_gaps_as_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: when only rows without a value fault the first field as the key (no value
    shared), the file is written with it and named partial (exit 5), not refused: those rows
    make a run's crawl incomplete, so it withdraws nothing (the gate stays closed)."""
    monkeypatch.chdir(tmp_path)
    code, out, path = _new_site(tmp_path, UNTITLED, "--yes")
    assert code == 5, out
    assert "partial: key 'title': 1 of the 7 distinct seed record(s) have no title" in out
    assert load_selector_file(path).key == ("title",)
