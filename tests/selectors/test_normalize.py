"""Value clean-up and typing (anchorpath.selectors.normalize)."""

from __future__ import annotations

import pytest

from anchorpath.selectors.model import Normalize
from anchorpath.selectors.normalize import apply_strips, clean_text, convert

PAGE = "https://shop.example/p/1"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Acme \n\t Corp  ", "Acme Corp"),
        ("12.5\u00a0kg", "12.5 kg"),  # no-break space
        ("서울\u3000특별시", "서울 특별시"),  # ideographic space
        ("zero\u200bwidth", "zero width"),
        ("\ufeffBOM", "BOM"),
        ("", ""),
        (" \n ", ""),
    ],
)
def test_clean_text_collapses_every_kind_of_white_space(raw: str, expected: str) -> None:
    assert clean_text(raw) == expected


def test_clean_text_without_whitespace_collapse_only_strips() -> None:
    assert clean_text("  a  \n  b  ", whitespace=False) == "a  \n  b"


def test_strip_prefix_and_suffix_are_regexes_anchored_at_the_ends() -> None:
    norm = Normalize(strip_prefix=r"(Price|가격)\s*:", strip_suffix=r"\s*(EUR|원)")
    assert apply_strips("Price: 12.50 EUR", norm) == "12.50"
    assert apply_strips("가격: 1,200원", norm) == "1,200"
    # Only at the ends: the same words in the middle stay.
    assert apply_strips("Best Price: EUR deals", Normalize(strip_prefix="Price")) == (
        "Best Price: EUR deals"
    )


def test_string_and_list_pass_through() -> None:
    assert convert("Acme", "string", Normalize(), PAGE) == "Acme"
    assert convert("a", "list", Normalize(), PAGE) == "a"


@pytest.mark.parametrize(
    ("text", "locale", "expected"),
    [
        ("1,234", "en", 1234),
        ("1.234", "de", 1234),
        ("1 234", "fr", 1234),
        ("1,234원", "ko", 1234),
        ("-17", "en", -17),
        ("USD 2,000", "en", 2000),
    ],
)
def test_integer_with_locales(text: str, locale: str, expected: int) -> None:
    value = convert(text, "integer", Normalize(number_locale=locale), PAGE)
    assert value == expected and isinstance(value, int)


@pytest.mark.parametrize(
    ("text", "locale", "expected"),
    [
        ("1,234.56", "en", 1234.56),
        ("1.234,56", "de", 1234.56),
        ("1 234,5", "fr", 1234.5),
        ("1\u202f234,5", "fr", 1234.5),  # narrow no-break space as thousands separator
        ("3.5", "en", 3.5),
        ("€ 19,99", "de", 19.99),
    ],
)
def test_number_with_locales(text: str, locale: str, expected: float) -> None:
    assert convert(text, "number", Normalize(number_locale=locale), PAGE) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("12.5", "integer"), ("n/a", "number"), ("", "integer"), ("soon", "date")],
)
def test_values_that_do_not_fit_raise_value_error(text: str, kind: str) -> None:
    with pytest.raises(ValueError):
        convert(text, kind, Normalize(), PAGE)


def test_unknown_type_raises_value_error() -> None:
    with pytest.raises(ValueError, match="unknown type"):
        convert("x", "colour", Normalize(), PAGE)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-05", "2024-03-05"),
        ("2024.03.05", "2024-03-05"),
        ("2024/03/05", "2024-03-05"),
        ("2024. 03. 05.", "2024-03-05"),
        ("2024.3.5.", "2024-03-05"),
        ("2024년 3월 5일", "2024-03-05"),
        ("20240305", "2024-03-05"),
        ("05.03.2024", "2024-03-05"),
        ("March 5, 2024", "2024-03-05"),
        ("Mar 5, 2024", "2024-03-05"),
        ("5 March 2024", "2024-03-05"),
    ],
)
def test_default_date_formats(text: str, expected: str) -> None:
    assert convert(text, "date", Normalize(), PAGE) == expected


def test_explicit_date_formats_replace_the_defaults() -> None:
    norm = Normalize(date_formats=("%d/%m/%Y",))
    assert convert("05/03/2024", "date", norm, PAGE) == "2024-03-05"
    with pytest.raises(ValueError):
        convert("2024.03.05", "date", norm, PAGE)  # a default format, but not listed


def test_datetimes() -> None:
    assert convert("2024-03-05 14:30", "datetime", Normalize(), PAGE) == "2024-03-05T14:30:00"
    assert convert("2024.03.05 14:30:07", "datetime", Normalize(), PAGE) == ("2024-03-05T14:30:07")
    # ISO forms with an offset go through fromisoformat.
    assert convert("2024-03-05T14:30:00+09:00", "datetime", Normalize(), PAGE) == (
        "2024-03-05T14:30:00+09:00"
    )
    # A date-only value is a valid datetime at midnight.
    assert convert("2024-03-05", "datetime", Normalize(), PAGE) == "2024-03-05T00:00:00"


@pytest.mark.parametrize(
    ("text", "base", "expected"),
    [
        ("/manuals/1.pdf", PAGE, "https://shop.example/manuals/1.pdf"),
        ("guide.pdf", "https://cdn.example/files/", "https://cdn.example/files/guide.pdf"),
        ("https://other.example/x", PAGE, "https://other.example/x"),
        ("?page=2", "https://shop.example/list?page=1", "https://shop.example/list?page=2"),
    ],
)
def test_urls_resolve_against_the_base(text: str, base: str, expected: str) -> None:
    assert convert(text, "url", Normalize(), base) == expected
