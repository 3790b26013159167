"""Prompt templates ship as package data and are hashed into provenance."""

from __future__ import annotations

import pytest

from anchorpath._errors import LLMError
from anchorpath.authoring.llm.templates import TEMPLATE_VERSIONS, load_template, templates_hash


def test_every_template_loads_and_renders() -> None:
    for name in TEMPLATE_VERSIONS:
        t = load_template(name)
        assert t.text and len(t.sha256) == 64
    text = load_template("values").render(
        seed_label="a", url="http://x/", markdown="M", field_list="- f"
    )
    assert "<page>\nM\n</page>" in text


def test_hash_is_stable_and_errors_are_one_line() -> None:
    assert templates_hash() == templates_hash()
    with pytest.raises(LLMError, match="no prompt template"):
        load_template("nope")
    with pytest.raises(LLMError, match=r"values\.v1"):
        load_template("values").render(seed_label="a")
