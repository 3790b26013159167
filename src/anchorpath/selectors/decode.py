"""Turning page bytes into text: HTTP charset > BOM > ``<meta>`` > detection.

Labels are mapped the way browsers do (WHATWG Encoding): ``euc-kr`` is really windows-949,
``shift_jis`` is windows-31j and ``iso-8859-1`` is windows-1252. Servers of Korean public
bodies routinely label CP949 pages as EUC-KR, so decoding strictly as EUC-KR would fail on
the first extended Hangul syllable.
"""

from __future__ import annotations

import codecs
import re
from functools import lru_cache

from anchorpath._errors import DecodeError

__all__ = ["charset_mismatch", "decode_html", "normalize_charset", "sniff_encoding"]

_ALIASES = {
    "euc-kr": "cp949",
    "euckr": "cp949",
    "ks_c_5601-1987": "cp949",
    "ks_c_5601": "cp949",
    "korean": "cp949",
    "windows-949": "cp949",
    "x-windows-949": "cp949",
    "uhc": "cp949",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "ms_kanji": "cp932",
    "windows-31j": "cp932",
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "gb2312": "gb18030",
    "gbk": "gb18030",
}

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

_META_CHARSET = re.compile(
    rb"""<meta[^>]+?charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]+)""", re.IGNORECASE
)


def normalize_charset(label: str | None) -> str | None:
    """A Python codec name for an HTTP/HTML charset label, or None if unknown."""
    if not label:
        return None
    return _codec_for(label)


@lru_cache(maxsize=256)  # a handful of labels recur on every page of a run
def _codec_for(label: str) -> str | None:
    name = label.strip().strip("\"'").lower()
    name = _ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _detect(body: bytes) -> str:
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    best, best_score = "cp1252", -1.0
    for codec in ("cp949", "cp932", "gb18030"):
        try:
            text = body.decode(codec)
        except UnicodeDecodeError:
            continue
        hangul = sum(1 for ch in text if "\uac00" <= ch <= "\ud7a3")
        kana = sum(1 for ch in text if "\u3040" <= ch <= "\u30ff")
        han = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
        score = {"cp949": hangul * 2 + han * 0.1, "cp932": kana * 2 + han, "gb18030": han}[codec]
        if score > best_score:
            best, best_score = codec, score
    return best


def sniff_encoding(body: bytes, http_charset: str | None = None) -> str:
    """The codec to decode ``body`` with, by the precedence in the module docstring."""
    declared = normalize_charset(http_charset)
    if declared:
        return declared
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return codec
    m = _META_CHARSET.search(body[:4096])
    if m:
        meta = normalize_charset(m.group(1).decode("ascii", "replace"))
        # A page that says UTF-16 in a meta tag cannot be read as ASCII to find that tag.
        if meta and not meta.startswith("utf-16"):
            return meta
    return _detect(body[:65536] if len(body) > 65536 else body)


def charset_mismatch(body: bytes, http_charset: str | None) -> str | None:
    """When the charset the server declared cannot decode ``body`` but another encoding
    decodes all of it, say so (``declared utf-8, but the bytes are cp949: 12 bytes
    undecodable``); None when the declaration fits or nothing fits better. Decoding still
    follows the declaration (as browsers do); this names the cause of the U+FFFD characters
    that values then hold."""
    declared = normalize_charset(http_charset)
    if not declared or not body:
        return None
    try:
        body.decode(declared)
        return None
    except UnicodeDecodeError:
        pass
    except LookupError:  # pragma: no cover - normalize_charset already looked it up
        return None
    sample = body[:65536]
    actual = _detect(sample)
    if actual == declared:
        return None
    try:
        sample.decode(actual)
    except UnicodeDecodeError:
        return None
    bad = body.decode(declared, errors="replace").count("\ufffd")
    return (
        f"declared {http_charset}, but the bytes are {actual}: {bad} character(s) undecodable "
        "(U+FFFD in values)"
    )


def decode_html(body: bytes | str, http_charset: str | None = None) -> tuple[str, str]:
    """Decode page bytes; returns ``(text, codec)``. A str passes through as ``(body, "str")``.

    Undecodable bytes become U+FFFD rather than failing the page: one bad byte in a footer must
    not cost the day's records.
    """
    if isinstance(body, str):
        return body, "str"
    codec = sniff_encoding(body, http_charset)
    try:
        text = body.decode(codec, errors="replace")
    except LookupError as exc:  # pragma: no cover - normalize_charset already looked it up
        raise DecodeError(f"unknown encoding {codec!r}") from exc
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, codec
