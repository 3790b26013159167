"""Turning page bytes into text: HTTP charset > BOM > <meta> > detection.

Every page is generated here; the Korean and Japanese texts are long enough for detection to
have something to go on, and '똠' (U+B620) is one of the syllables EUC-KR cannot encode but
CP949 (what Korean servers really send under the EUC-KR label) can.
"""

from __future__ import annotations

import codecs

import pytest
from lxml import etree

from anchorpath.selectors.decode import decode_html, normalize_charset, sniff_encoding
from anchorpath.selectors.evaluate import extract, parse_html
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile

KO_TEXT = "의약품 원료 등록 공고 성분명 신청인 제조소 등록일자 상태 똠방각하 뙠 햏"
JA_TEXT = "医薬品の登録番号とメーカーのカタログ、ひらがなとカタカナのテキストです"


def page(
    body: str, *, meta: str | None = None, http_equiv: str | None = None, label: str = "name"
) -> str:
    head = ""
    if meta:
        head += f'<meta charset="{meta}">'
    if http_equiv:
        head += f'<meta http-equiv="Content-Type" content="text/html; charset={http_equiv}">'
    return (
        f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body>"
        f'<table><tr><th>{label}</th><td id="v">{body}</td></tr></table></body></html>'
    )


def value_of(doc: etree._Element) -> str:
    return str(doc.xpath("string(//td[@id='v'])"))


# -- charset labels ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("EUC-KR", "cp949"),
        ("ks_c_5601-1987", "cp949"),
        ("Shift_JIS", "cp932"),
        ("sjis", "cp932"),
        ("ISO-8859-1", "cp1252"),
        ("UTF-8", "utf-8"),
        ('"utf-8"', "utf-8"),
        ("gb2312", "gb18030"),
        ("x-no-such-charset", None),
        ("", None),
        (None, None),
    ],
)
def test_charset_labels_map_the_way_browsers_do(label: str | None, codec: str | None) -> None:
    assert normalize_charset(label) == codec


# -- precedence ------------------------------------------------------------------------------


def test_plain_utf8_without_any_declaration_is_detected() -> None:
    body = page(KO_TEXT).encode("utf-8")
    text, codec = decode_html(body)
    assert codec == "utf-8"
    assert KO_TEXT in text


def test_utf8_bom_wins_over_meta_and_is_removed() -> None:
    body = codecs.BOM_UTF8 + page(KO_TEXT, meta="euc-kr").encode("utf-8")
    text, codec = decode_html(body)
    assert codec == "utf-8"
    assert not text.startswith("\ufeff")
    assert KO_TEXT in text
    assert value_of(parse_html(body)) == KO_TEXT


def test_utf16_bom() -> None:
    body = codecs.BOM_UTF16_LE + page(KO_TEXT).encode("utf-16-le")
    _text, codec = decode_html(body)
    assert codec == "utf-16-le"
    assert value_of(parse_html(body)) == KO_TEXT


def test_cp949_with_meta() -> None:
    body = page(KO_TEXT, meta="cp949").encode("cp949")
    assert sniff_encoding(body) == "cp949"
    assert value_of(parse_html(body)) == KO_TEXT


def test_cp949_without_meta_is_detected_as_korean() -> None:
    body = page(KO_TEXT).encode("cp949")
    assert sniff_encoding(body) == "cp949"
    assert value_of(parse_html(body)) == KO_TEXT


def test_euc_kr_labelled_page_with_cp949_only_syllables() -> None:
    with pytest.raises(UnicodeDecodeError):
        "똠".encode("cp949").decode("euc-kr")  # why the label has to be read as CP949
    body = page(KO_TEXT, http_equiv="euc-kr").encode("cp949")
    text, codec = decode_html(body)
    assert codec == "cp949"
    assert "똠방각하" in text and "\ufffd" not in text


def test_shift_jis_with_meta_and_by_detection() -> None:
    labelled = page(JA_TEXT, meta="Shift_JIS").encode("cp932")
    assert sniff_encoding(labelled) == "cp932"
    assert value_of(parse_html(labelled)) == JA_TEXT
    unlabelled = page(JA_TEXT, label="名前").encode("cp932")
    assert sniff_encoding(unlabelled) == "cp932"
    assert value_of(parse_html(unlabelled)) == JA_TEXT


def test_http_charset_overrides_meta_and_bom_detection() -> None:
    # The server says EUC-KR, the (wrong) meta says UTF-8: the HTTP header wins.
    body = page(KO_TEXT, meta="utf-8").encode("cp949")
    text, codec = decode_html(body, http_charset="euc-kr")
    assert codec == "cp949"
    assert KO_TEXT in text
    assert value_of(parse_html(body, "EUC-KR")) == KO_TEXT


def test_unknown_http_charset_falls_back_to_meta() -> None:
    body = page(KO_TEXT, meta="euc-kr").encode("cp949")
    assert sniff_encoding(body, http_charset="x-bogus") == "cp949"


def test_meta_saying_utf16_in_an_ascii_compatible_page_is_ignored() -> None:
    body = page("plain", meta="utf-16").encode("ascii")
    assert sniff_encoding(body) == "utf-8"


def test_undecodable_bytes_become_replacement_characters() -> None:
    body = page("ok").encode("utf-8").replace(b"ok", b"o\xffk")
    body = body.replace(b"<title>", b'<meta charset="utf-8"><title>')
    text, codec = decode_html(body)
    assert codec == "utf-8"
    assert "o\ufffdk" in text
    assert value_of(parse_html(body)) == "o\ufffdk"


def test_str_input_passes_through() -> None:
    assert decode_html("<p>안녕</p>") == ("<p>안녕</p>", "str")
    assert value_of(parse_html(page(KO_TEXT))) == KO_TEXT


# -- odd page shapes ----------------------------------------------------------------------------


def _sf(field_xpath: str, typ: str = "string") -> SelectorFile:
    return parse_selector_data(
        {
            "schema_version": 1,
            "site": {"id": "t", "name": "t"},
            "version": 1,
            "fetch": {"start_urls": ["https://site.example/"]},
            "page_types": {
                "p": {"match": ".", "fields": {"v": {"xpath": field_xpath, "type": typ}}}
            },
            "key": ["v"],
        }
    )


def test_leading_base_line_before_html() -> None:
    html = '<base href="https://files.example/docs/">\n' + page(
        '<a href="a.pdf">PDF</a>', meta="euc-kr"
    )
    body = html.encode("cp949")
    doc = parse_html(body)
    assert value_of(doc) == "PDF"
    assert doc.xpath("string(//base/@href)") == "https://files.example/docs/"
    [rec] = extract(_sf("//td[@id='v']/a/@href", "url"), body, "https://site.example/x/1")
    assert rec.values["v"] == "https://files.example/docs/a.pdf"


@pytest.mark.parametrize("encoding", ["utf-8", "cp949"])
def test_xml_declaration_is_dropped(encoding: str) -> None:
    meta = "euc-kr" if encoding == "cp949" else None
    html = f'<?xml version="1.0" encoding="{encoding}"?>\n' + page(KO_TEXT, meta=meta)
    body = html.encode(encoding)
    doc = parse_html(body)
    assert value_of(doc) == KO_TEXT
    assert doc.tag == "html"
    [rec] = extract(_sf("//td[@id='v']"), body, "https://site.example/1")
    assert rec.values["v"] == KO_TEXT


@pytest.mark.parametrize("body", [b"", b"   \n", codecs.BOM_UTF8, "   ".encode("utf-16")])
def test_empty_pages_parse_to_an_empty_document(body: bytes) -> None:
    doc = parse_html(body)
    assert doc.tag == "html"
    [rec] = extract(_sf("//td"), body, "https://site.example/1")
    assert rec.values == {"v": None}


@pytest.mark.parametrize(
    "body",
    [
        page(KO_TEXT).encode("utf-8"),
        codecs.BOM_UTF8 + page(KO_TEXT).encode("utf-8"),
        page("a\x00b", meta="utf-8").encode("utf-8"),
        b"<p>no html element at all, \xc3\xa9</p>",
        page(KO_TEXT, meta="utf-8").encode("utf-8").replace(b"</body>", b"\xed\x95"),  # cut
    ],
)
def test_parsing_utf8_bytes_directly_gives_the_same_tree_as_decoding_first(body: bytes) -> None:
    text, _codec = decode_html(body)
    direct = etree.tostring(parse_html(body), encoding="unicode")
    via_text = etree.tostring(parse_html(text), encoding="unicode")
    assert direct == via_text


def test_charset_mismatch_names_the_real_encoding() -> None:
    from anchorpath.selectors.decode import charset_mismatch

    body = "<html><body><td>원료의약품 등록번호</td></body></html>".encode("cp949")
    note = charset_mismatch(body, "utf-8")
    assert note is not None and note.startswith("declared utf-8, but the bytes are cp949")
    assert charset_mismatch(body, "euc-kr") is None  # declaration fits (as cp949)
    assert charset_mismatch(body, None) is None  # nothing declared: detection decides
    assert charset_mismatch(b"<p>ok</p>", "utf-8") is None
