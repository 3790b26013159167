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


def test_a_repeating_first_field_is_not_the_default_key() -> None:
    choice = default_key(_list_result([FieldRequest("title"), FieldRequest("author")]))
    assert choice.key == ("author",)
    assert choice.rejected == {"title": "'Game Over' twice (list/1.html)"}
    assert "6 seed record(s)" in choice.why and "not title" in choice.why


def test_required_fields_come_first() -> None:
    fields = [FieldRequest("title"), FieldRequest("author", required=True)]
    choice = default_key(_list_result(fields))
    assert choice.key == ("author",) and "first required field" in choice.why
    assert choice.rejected == {}


def test_no_unique_field_means_no_default() -> None:
    choice = default_key(_list_result([FieldRequest("title")]))
    assert choice.key is None
    assert "choose it with --key FIELD" in choice.refusal()
    assert "title: 'Game Over' twice (list/1.html)" in choice.refusal()


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
    result = author_page_type(seeds, [FieldRequest("title")], ex, list_page=True)
    assert default_key(result).key == ("title",)


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "books"
    shutil.copytree(BOOKS, d)
    monkeypatch.chdir(d)
    return d


def test_cli_default_key_and_refusal_under_yes(shop: Path) -> None:
    seeds = ["--seed", "list/1.html", "--seed", "list/2.html"]
    runner = CliRunner()
    ok = runner.invoke(
        main, ["author", "new-site", "books", *seeds, "--examples", "list-examples.json", "--yes"]
    )
    assert ok.exit_code == 0, ok.output
    assert "key: author (default: the first field with a different value" in ok.output
    assert load_selector_file(shop / "selectors" / "books.json").key == ("author",)
    only_title = {p: {"title": v["title"]} for p, v in LIST_EXAMPLES.items()}
    (shop / "titles.json").write_text(json.dumps(only_title), encoding="utf-8")
    args = ["author", "new-site", "other", *seeds, "--examples", "titles.json", "--yes"]
    refused = runner.invoke(main, args)
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert "no field identifies every record of the seeds" in refused.output
    assert not (shop / "selectors" / "other.json").exists()
    chosen = runner.invoke(main, [*args, "--key", "title"])
    assert chosen.exit_code == 0, chosen.output


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


def test_at_a_terminal_the_key_is_asked_for(shop: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    only_title = {p: {"title": v["title"]} for p, v in LIST_EXAMPLES.items()}
    (shop / "titles.json").write_text(json.dumps(only_title), encoding="utf-8")
    monkeypatch.setattr("anchorpath.cli.author._interactive", lambda yes: not yes)
    args = ["author", "new-site", "books", "--seed", "list/1.html", "--seed", "list/2.html"]
    args += ["--examples", "titles.json", "--no-screenshots"]
    res = CliRunner().invoke(main, args, input="tilte\ntitle\n" + "\n" * 12)
    assert "(title: 'Game Over' twice (list/1.html))\nkey field(s)" in res.output
    assert "not a field: tilte (did you mean 'title'?)" in res.output
    assert res.exit_code == 0, res.output
    assert load_selector_file(shop / "selectors" / "books.json").key == ("title",)
