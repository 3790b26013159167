"""The exception tree: one root, and the docstring draws every class."""

from __future__ import annotations

import anchorpath._errors as errors


def test_every_error_derives_from_the_root_and_is_drawn() -> None:
    doc = errors.__doc__ or ""
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.AnchorpathError), name
        assert name in doc, f"{name} missing from the tree in the module docstring"


def test_all_is_sorted() -> None:
    assert list(errors.__all__) == sorted(errors.__all__)
