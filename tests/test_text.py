"""``did_you_mean``: the hint that ends an error about unknown field, key or page type names."""

from __future__ import annotations

from anchorpath._text import did_you_mean


def test_a_typo_gets_the_close_name() -> None:
    assert did_you_mean(["isbm"], ["isbn", "title", "author"]) == " (did you mean 'isbn'?)"
    two = did_you_mean(["isbm", "tilte"], ["isbn", "title"])
    assert two == " (did you mean 'isbn' for 'isbm', 'title' for 'tilte'?)"


def test_nothing_close_lists_a_few_known_names_or_nothing() -> None:
    assert did_you_mean(["zzz"], ["isbn", "title"]) == " (known: isbn, title)"
    assert did_you_mean(["zzz"], [f"field_{i}" for i in range(20)]) == ""
    assert did_you_mean(["zzz"], []) == ""
