"""Bounded reads of hostile input: bytes, JSON nesting, paths a file names (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchorpath._untrusted import (
    JSONTooDeep,
    TooLarge,
    confined,
    lexical_problem,
    loads_json,
    read_capped,
)


def test_read_capped_stops_at_the_cap(tmp_path: Path) -> None:
    with pytest.raises(TooLarge, match="larger than 1000 bytes"):
        read_capped("/dev/zero", 1000)
    small = tmp_path / "a"
    small.write_bytes(b"x" * 1000)
    assert read_capped(small, 1000) == b"x" * 1000
    with pytest.raises(OSError, match="not a regular file"):
        read_capped("/dev/zero", 1000, regular=True)


def test_loads_json_refuses_deep_nesting_as_a_value_error() -> None:
    assert loads_json("[" * 64 + "]" * 64) is not None
    for depth in (65, 2000, 100_000):
        with pytest.raises(JSONTooDeep, match="JSON nested deeper than 64 levels"):
            loads_json("[" * depth + "]" * depth)
    deep_obj = '{"a":' * 70 + "1" + "}" * 70
    with pytest.raises(ValueError):
        loads_json(deep_obj)
    assert loads_json(json.dumps({"a": [{"b": "[[[[[[["}]})) == {"a": [{"b": "[[[[[[["}]}


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("fixtures/a.html", None),
        ("./fixtures/x/a.html", None),
        ("../.git/config", "climbs out with '..'"),
        ("fixtures/../../x", "climbs out with '..'"),
        ("/etc/passwd", "is an absolute path"),
        ("C:/x", "is an absolute path"),
        ("a.html", "is not inside the fixtures/ folder"),
        ("fixtures", "is not inside the fixtures/ folder"),
        ("fixtures\\..\\x", "is not a plain relative path"),
        ("", "is not a plain relative path"),
    ],
)
def test_lexical_problem(path: str, problem: str | None) -> None:
    assert lexical_problem(path, "fixtures") == problem


def test_confined_resolves_symlinks(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "s").mkdir(parents=True)
    (tmp_path / "fixtures" / "s" / "a.html").write_text("a")
    (tmp_path / "secret").write_text("s")
    (tmp_path / "fixtures" / "s" / "in.html").symlink_to("a.html")
    (tmp_path / "fixtures" / "s" / "out.html").symlink_to(tmp_path / "secret")
    assert confined(tmp_path, "fixtures/s/in.html", "fixtures") == tmp_path / "fixtures/s/a.html"
    with pytest.raises(OSError, match="resolves outside the fixtures/ folder"):
        confined(tmp_path, "fixtures/s/out.html", "fixtures")
    with pytest.raises(OSError, match="climbs out"):
        confined(tmp_path, "../secret", "fixtures")
