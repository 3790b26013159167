"""The demo HTML: real EUC-KR/CP949 bytes, label/value tables, pagination, two templates."""

from __future__ import annotations

import lxml.html

from anchorpath.demo import pages
from anchorpath.demo.data import LABELS, records_for_day


def _doc(html: str) -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(
        pages.encode_page(html), parser=lxml.html.HTMLParser(encoding="cp949")
    )


def test_bytes_are_cp949_with_an_euc_kr_declaration() -> None:
    html = pages.render_list(records_for_day(1), 1, template="classic")
    raw = pages.encode_page(html)
    assert b'<meta http-equiv="Content-Type" content="text/html; charset=euc-kr"' in raw
    assert raw.decode("cp949") == html.replace("é", "&#233;").replace("í", "&#237;").replace(
        "è", "&#232;"
    )
    # Hangul really is double-byte EUC-KR, not UTF-8 ...
    assert "원료의약품".encode("euc_kr") in raw
    assert "원료의약품".encode() not in raw
    # ... including a CP949-only syllable (샾): a strict EUC-KR decoder fails, CP949 works.
    assert "샾".encode("cp949") in raw
    try:
        raw.decode("euc_kr")
    except UnicodeDecodeError:
        pass
    else:  # pragma: no cover
        raise AssertionError("expected a byte sequence outside KS X 1001")


def test_characters_outside_cp949_become_character_references() -> None:
    records = records_for_day(1)
    accented = next(r for r in records if "é" in r.manufacturer or "í" in r.manufacturer)
    raw = pages.encode_page(pages.render_detail(accented, template="classic"))
    assert b"&#233;" in raw or b"&#237;" in raw
    assert (
        accented.manufacturer
        in _doc(pages.render_detail(accented, template="classic")).text_content()
    )


def test_list_page_structure() -> None:
    records = records_for_day(1)
    doc = _doc(pages.render_list(records, 1, template="classic"))
    table = doc.xpath("//div[@id='content']//table[@data-board='dmf']")[0]
    headers = [th.text_content() for th in table.xpath("thead/tr/th")]
    assert headers[0] == "번호" and "성분명" in headers and "신청인" in headers
    rows = table.xpath("tbody/tr")
    assert len(rows) == pages.PAGE_SIZE
    first = rows[0].xpath("td/a/@href")[0]
    assert first == pages.detail_path(records[0].reg_no)
    assert first.startswith("/dmf/view.do?regNo=%EC%")  # UTF-8 percent-encoding
    nxt = doc.xpath("//a[@rel='next']")
    assert [a.get("href") for a in nxt] == ["/dmf/list.do?page=2"] and nxt[0].text == "다음"
    # noise a selector must not trip over
    assert doc.xpath("//div[@data-widget='notice']//li")
    assert doc.xpath("//form[@action='/dmf/list.do']//input[@name='searchKeyword']")
    assert doc.xpath("//address") and doc.xpath("//div[@class='location']")


def test_last_and_empty_pages() -> None:
    records = records_for_day(1)
    last = pages.page_count(len(records))
    assert last == 7
    doc = _doc(pages.render_list(records, last, template="classic"))
    assert not doc.xpath("//a[@rel='next']")
    assert len(doc.xpath("//table[@data-board='dmf']/tbody/tr")) == 4
    empty = _doc(pages.render_list(records, 99, template="classic"))
    assert empty.xpath("//td[@class='no_data']")


def test_detail_page_label_value_rows() -> None:
    record = records_for_day(1)[3]
    doc = _doc(pages.render_detail(record, template="classic"))
    values = record.as_fields()
    for name, label in LABELS["classic"].items():
        tds = doc.xpath(f"/descendant::th[normalize-space()='{label}'][1]/following-sibling::td[1]")
        assert tds, label
        assert " ".join(tds[0].text_content().split()) == values[name], name
    # two-column rows: th td th td
    assert doc.xpath("//tr[count(th) = 2 and count(td) = 2]")


def test_renewal_template_breaks_label_anchors_but_keeps_stable_hooks() -> None:
    records = records_for_day(3)
    record = records[0]
    old = _doc(pages.render_detail(record, template="classic"))
    new = _doc(pages.render_detail(record, template="renewal"))
    for name, label in LABELS["classic"].items():
        path = f"/descendant::th[normalize-space()='{label}'][1]"
        assert old.xpath(path)
        assert bool(new.xpath(path)) == (LABELS["renewal"][name] == label), name
    assert new.xpath("//*[@id='content']") and new.xpath("//*[@data-section='basic']")
    assert not new.xpath("//table[contains(@class, 'tbl_view')]")
    assert new.xpath("//div[@class='tbl-wrap']/table[contains(@class, 'board-view')]")
    lst = _doc(pages.render_list(records, 1, template="renewal"))
    headers = [th.text_content() for th in lst.xpath("//table[@data-board='dmf']/thead/tr/th")]
    assert "성분명" not in headers and "주성분명" in headers and "신청업체" in headers
    assert lst.xpath("//div[@class='scroll-x']/table[@data-board='dmf']")
    assert lst.xpath("//a[@rel='next']")  # pagination hook stays


def test_robots_txt() -> None:
    assert "Disallow: /admin/" in pages.robots_txt(deny_all=False)
    assert pages.robots_txt(deny_all=True) == "User-agent: *\nDisallow: /\n"
