"""The session driven through a pipe, as scripts and the README do: one line per prompt."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.review.check import check_file
from anchorpath.selectors.load import load_selector_file


@pytest.fixture
def session_cli(shop: Path, seed_args: list[str]) -> Callable[..., tuple[int, str]]:
    def run(answers: str, *extra: str) -> tuple[int, str]:
        return _session(shop, seed_args, answers, *extra)

    return run


def _session(shop: Path, seeds: list[str], answers: str, *extra: str) -> tuple[int, str]:
    args = ["author", "new-site", "shop", *seeds, "--examples", str(shop / "ex.json")]
    args += ["--selectors", str(shop / "sel"), "--required", "isbn", "--no-screenshots", *extra]
    res = CliRunner().invoke(main, args, input=answers)
    return res.exit_code, res.output


def test_accept_everything_writes_file_and_fixtures(
    shop: Path, session_cli: Callable[..., tuple[int, str]]
) -> None:
    code, out = session_cli("\n" * 4)
    assert code == 0, out
    assert "■ isbn (string)" in out and "robustness" in out and "fallback 1" in out
    sf = load_selector_file(shop / "sel" / "shop.json")
    assert sf.version == 1 and list(sf.page_types["detail"].fields) == [
        "title",
        "isbn",
        "publisher",
    ]
    assert [f.page for f in sf.fixtures] == [f"fixtures/shop/detail-{k}.html" for k in (1, 2, 3)]
    recs = json.loads((shop / "sel" / "fixtures/shop/detail-1.records.json").read_text())
    assert recs[0]["_url"] == "https://shop.test/b/0" and recs[0]["isbn"]
    assert check_file(shop / "sel" / "shop.json").ok  # the fixtures replay to their records


def test_wrong_xpath_is_rejected_then_accepted(
    shop: Path, session_cli: Callable[..., tuple[int, str]]
) -> None:
    code, out = session_cli("\nx\n//div\n\n\n\n")
    assert code == 0, out
    assert "rejected: //div" in out and "matches 8 nodes on seed 1" in out
    sf = load_selector_file(shop / "sel" / "shop.json")
    assert sf.page_types["detail"].fields["isbn"].xpath != "//div"


def test_edit_xpath_that_changes_values_needs_a_yes(
    shop: Path, session_cli: Callable[..., tuple[int, str]]
) -> None:
    code, out = session_cli("x\n//h1/following::a[1]\n" + "\n" * 5)
    assert code == 0, out
    assert "the values change on 3 seed(s)" in out
    sf = load_selector_file(shop / "sel" / "shop.json")
    assert sf.page_types["detail"].fields["title"].xpath != "//h1/following::a[1]"


def test_drop_a_field(shop: Path, session_cli: Callable[..., tuple[int, str]]) -> None:
    code, out = session_cli("\n\nd\n\n")
    assert code == 0, out
    assert "dropped publisher" in out
    sf = load_selector_file(shop / "sel" / "shop.json")
    assert list(sf.page_types["detail"].fields) == ["title", "isbn"]
    recs = json.loads((shop / "sel" / "fixtures/shop/detail-2.records.json").read_text())
    assert "publisher" not in recs[0]


def test_add_field_by_value_and_preview(
    shop: Path, session_cli: Callable[..., tuple[int, str]]
) -> None:
    values = [
        json.loads((shop / "series.json").read_text())[f"p{i}.html"]["series"] for i in range(3)
    ]
    code, out = session_cli("\n\n\n+ series\n" + "\n".join(values) + "\n\np\nw\n")
    assert code == 0, out
    assert "■ series (string)" in out and "seed 1: " in out and "(1 records)" in out
    sf = load_selector_file(shop / "sel" / "shop.json")
    assert "series" in sf.page_types["detail"].fields


def test_quit_leaves_nothing_behind(
    shop: Path, session_cli: Callable[..., tuple[int, str]]
) -> None:
    for answers in ("q\n", "\n\n\nq\n", "\n"):  # q at a field, q at the file, end of input
        code, out = session_cli(answers)
        assert code == 1 and "nothing written" in out, out
        assert not (shop / "sel").exists()
