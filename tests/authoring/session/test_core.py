"""The session's state and actions: rows, XPath checks, fallbacks, values, add and drop."""

from __future__ import annotations

import pytest

from anchorpath._errors import AuthoringError
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.session.core import Session
from anchorpath.authoring.synth import detail_record


def test_rows_show_values_on_every_seed(session: Session) -> None:
    rows = {r.name: r for r in session.rows()}
    assert rows["isbn"].values == tuple(detail_record(i)["isbn"] for i in range(3))
    assert rows["isbn"].anchor.startswith("label-text") and rows["isbn"].robustness == 1.0
    assert len(rows["isbn"].fallbacks) == 2
    assert any("ambiguous anchor" in w for w in rows["publisher"].warnings)


def test_wrong_xpaths_are_rejected(session: Session) -> None:
    bad = session.check_xpath("isbn", "//div")
    assert not bad.ok and "matches 8 nodes on seed 1" in bad.problems[0]
    assert "finds nothing on seed 1" in session.check_xpath("isbn", "//nope").problems[0]
    assert "does not compile" in session.check_xpath("isbn", "//li[").problems[0]
    core = session.check_xpath("isbn", "//li[lower-case(.)='x']")
    assert "not an XPath 1.0 core function" in core.problems[0]
    with pytest.raises(AuthoringError, match="rejected"):
        session.set_xpath("isbn", bad)


def test_a_good_xpath_is_verified_and_rescored(session: Session) -> None:
    check = session.check_xpath("title", "//h1")
    assert check.ok and check.changed_on == () and check.robustness is not None
    assert 0 < check.robustness < 1  # a bare //h1 does not survive a decoy heading
    old = session.fields["title"].spec.xpath
    session.set_xpath("title", check)
    spec = session.fields["title"].spec
    assert spec.xpath == "//h1" and spec.fallbacks[0] == old and spec.robustness == check.robustness
    assert session.values("title")[0] == detail_record(0)["title"]


def test_fallback_becomes_primary(session: Session) -> None:
    old = session.fields["isbn"].spec
    check = session.pick_fallback("isbn", 0)
    assert check.ok
    new = session.fields["isbn"].spec
    assert new.xpath == old.fallbacks[0] and new.fallbacks[0] == old.xpath


def test_edit_values_regrounds(session: Session) -> None:
    values = [detail_record(i)["series"] for i in range(3)]
    session.set_values("publisher", values)
    assert session.values("publisher") == values
    with pytest.raises(AuthoringError):
        session.set_values("publisher", ["not on the page", "x", "y"])


def test_add_and_drop_and_build(session: Session) -> None:
    session.add_field(FieldRequest("series"), [detail_record(i)["series"] for i in range(3)])
    session.drop("publisher")
    with pytest.raises(AuthoringError, match="record key"):
        session.drop("isbn")
    sf = session.build()
    assert list(sf.page_types["detail"].fields) == ["title", "isbn", "series"]
    (rec,) = session.preview()[1]
    assert rec.values["series"] == detail_record(1)["series"] and "publisher" not in rec.values
    with pytest.raises(AuthoringError, match="no values given"):
        session.add_field(FieldRequest("edition"))


def test_matched_nodes_are_owner_elements_with_the_text_read(session: Session) -> None:
    nodes = session.matched_nodes()[0]
    (isbn,) = nodes["isbn"]  # the text after <b>ISBN:</b>
    assert isbn.path == "/html/body/div/main/ul/li[1]"
    assert isbn.text == detail_record(0)["isbn"] and isbn.raw and isbn.text in isbn.raw
    assert nodes["publisher"][0].path.endswith("/td")
    assert nodes["publisher"][0].text == detail_record(0)["publisher"]


def test_list_page_values_reground_under_the_same_record_root() -> None:
    from pathlib import Path

    from anchorpath.authoring.seeds import load_seed
    from anchorpath.selectors.load import load_selector_file

    root = Path(__file__).resolve().parents[3] / "selectors"
    sf = load_selector_file(root / "mfds-dmf.json")
    pages = [load_seed(str(root / f.page), url=f.url) for f in sf.fixtures if "list-" in f.page]
    s = Session(sf, "list", pages)
    assert s.is_list and len(s.values("manufacturer")[0]) == 10
    before = s.values("manufacturer")
    s.set_values("manufacturer", s.example_values("manufacturer"))
    assert s.fields["manufacturer"].changed and s.values("manufacturer") == before
    assert s.check_xpath("manufacturer", "td").problems[0].startswith("matches 8 nodes")
