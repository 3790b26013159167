"""What ``author edit`` reopens: the page type (named, else the only one with fields) and its
seeds (given, else the file's golden fixtures), each wrong choice a one-line error."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.session.core import Session
from anchorpath.authoring.session.fixtures import save_with_fixtures
from anchorpath.authoring.session.reopen import EDIT_SEEDS, pick_page_type, reopen
from anchorpath.selectors.load import save_selector_file


def _saved(session: Session, tmp_path: Path) -> Path:
    target = tmp_path / "sel" / "shop.json"
    save_with_fixtures(session.build(), target, session.pages, "detail", changed=["title"])
    return target


def test_reopens_on_the_golden_fixtures_of_the_only_page_type(
    session: Session, tmp_path: Path
) -> None:
    target = _saved(session, tmp_path)
    opened = reopen("shop", target.parent)
    assert opened.path == target and opened.page_type == "detail"
    assert 0 < len(opened.pages) <= EDIT_SEEDS
    assert {p.url for p in opened.pages} <= {f"https://shop.test/b/{i}" for i in range(3)}


def test_given_seeds_replace_the_fixtures(session: Session, shop: Path, tmp_path: Path) -> None:
    target = _saved(session, tmp_path)
    opened = reopen(
        "shop",
        target.parent,
        page_type="detail",
        seeds=(str(shop / "p1.html"),),
        seed_urls=("https://shop.test/b/1",),
    )
    assert [p.url for p in opened.pages] == ["https://shop.test/b/1"]


def test_unknown_page_type_and_missing_fixtures_are_one_line_errors(
    session: Session, tmp_path: Path
) -> None:
    sf = session.build()
    with pytest.raises(AuthoringError, match=r"no page type 'detial'.*detail"):
        pick_page_type(sf, "detial")
    target = tmp_path / "bare" / "shop.json"
    target.parent.mkdir()
    save_selector_file(sf, target)
    with pytest.raises(AuthoringError, match="no golden fixture of page type 'detail'"):
        reopen("shop", target.parent)
