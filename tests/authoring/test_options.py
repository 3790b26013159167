"""``AuthoringOptions``: one frozen object for the settings every authoring entry point shares,
each default defined once (the CLI's flags default to it)."""

from __future__ import annotations

import dataclasses

import pytest

from anchorpath.authoring.options import AuthoringOptions
from anchorpath.cli import main


def test_options_are_frozen_and_replaced_not_edited() -> None:
    options = AuthoringOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.mutation_seed = 1  # type: ignore[misc]
    other = dataclasses.replace(options, list_page=True, page_type="list")
    assert (options.list_page, other.list_page, other.page_type) == (None, True, "list")


def test_cli_flags_default_to_the_options_defaults() -> None:
    defaults = AuthoringOptions()
    author = main.commands["author"]
    for name in ("new-site", "edit"):
        cmd = author.commands[name]  # type: ignore[attr-defined]
        params = {p.name: p for p in cmd.params}
        assert params["mutation_seed"].default == defaults.mutation_seed
        if name == "new-site":
            assert params["list_page"].default is defaults.list_page
            assert params["page_type"].default is defaults.page_type
            assert params["match"].default is defaults.match
