"""``did_you_mean`` (the hint that ends an error about unknown field, key or page type names),
and ``excerpt``/``quote_name`` (what a line may repeat of a value or a file name, issue 25)."""

from __future__ import annotations

import os

from anchorpath._text import did_you_mean, excerpt, quote_name


def test_a_typo_gets_the_close_name() -> None:
    assert did_you_mean(["isbm"], ["isbn", "title", "author"]) == " (did you mean 'isbn'?)"
    two = did_you_mean(["isbm", "tilte"], ["isbn", "title"])
    assert two == " (did you mean 'isbn' for 'isbm', 'title' for 'tilte'?)"


def test_nothing_close_lists_a_few_known_names_or_nothing() -> None:
    assert did_you_mean(["zzz"], ["isbn", "title"]) == " (known: isbn, title)"
    assert did_you_mean(["zzz"], [f"field_{i}" for i in range(20)]) == ""
    assert did_you_mean(["zzz"], []) == ""


def test_excerpt_is_short_escaped_and_quoted() -> None:
    text = excerpt("\x1b]0;title\x07" + "x" * 200 + "\u202e")
    assert text.startswith('"\\x1b]0;title\\x07xxx') and text.endswith("… (+131 chars)")
    assert "\x1b" not in text and "\x07" not in text
    assert excerpt('a"b\\') == '"a\\"b\\\\"'
    assert excerpt(["x", None]) == '["x", null]'
    assert excerpt("신청인") == '"신청인"'


def test_quote_name_quotes_odd_names_only() -> None:
    assert quote_name("selectors/site[2].json") == "selectors/site[2].json"
    assert quote_name("selectors/한글.json") == "selectors/한글.json"
    assert quote_name("a\x1b]0;t\x07.json") == '"a\\x1b]0;t\\x07.json"'
    assert quote_name('a"b') == '"a\\"b"'
    assert quote_name(os.fsdecode(b"bad\xff.json")) == '"bad\\udcff.json"'
