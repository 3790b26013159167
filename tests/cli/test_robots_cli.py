"""``anchorpath robots check``: the acceptance example, stdin, JSON, --fetch, usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.fetch.testing import FaultServer

ROBOTS = "User-agent: *\nDisallow: /\nAllow: /public/\n\nUser-agent: Googlebot\nAllow: /\n"


@pytest.fixture
def robots_file(tmp_path: Path) -> Path:
    path = tmp_path / "robots.txt"
    path.write_text(ROBOTS)
    return path


def test_acceptance_text(robots_file: Path) -> None:
    runner = CliRunner()
    google = runner.invoke(
        main,
        ["robots", "check", "--robots", str(robots_file), "--user-agent", "Googlebot",
         "https://example.com/secret"],
    )  # fmt: skip
    assert google.exit_code == 0, google.output
    assert google.output.startswith("allowed")
    assert "by line 6: Allow: /" in google.output


def test_acceptance_json_from_stdin(robots_file: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["robots", "check", "--robots", str(robots_file), "--user-agent", "Bingbot", "--json"],
        input="https://example.com/secret\nhttps://example.com/public/x\n",
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert rows == [
        {"url": "https://example.com/secret", "allowed": False, "line": 2, "rule": "Disallow: /"},
        {"url": "https://example.com/public/x", "allowed": True, "line": 3,
         "rule": "Allow: /public/"},
    ]  # fmt: skip


def test_warnings_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_text("User-agent: a\nDisallow: /x\nSitemap: /s.xml\nUser-agent: a\nFoo: 1\n")
    result = CliRunner().invoke(
        main, ["robots", "check", "--robots", str(path), "--user-agent", "a", "http://h/x"]
    )
    assert result.exit_code == 0
    assert "relative Sitemap" in result.stderr
    assert "unknown directive 'Foo'" in result.stderr
    assert "disallowed" in result.stdout


def test_usage_errors(robots_file: Path) -> None:
    runner = CliRunner()
    neither = runner.invoke(main, ["robots", "check", "--user-agent", "x", "http://h/"])
    assert neither.exit_code == 2
    both = runner.invoke(
        main,
        [
            "robots",
            "check",
            "--robots",
            str(robots_file),
            "--fetch",
            "--user-agent",
            "x",
            "http://h/",
        ],
    )
    assert both.exit_code == 2


def test_fetch_mode(tmp_path: Path) -> None:
    with FaultServer({}, robots="User-agent: *\nDisallow: /no\n") as server:
        result = CliRunner().invoke(
            main,
            ["robots", "check", "--fetch", "--user-agent", "anchorpath", "--json",
             server.url("/no/x"), server.url("/yes")],
            env={
                "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "true",
                "ANCHORPATH_FETCH__MIN_DELAY": "0.1",
                "ANCHORPATH_PATHS__CACHE_DIR": str(tmp_path / "cache"),
            },
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        assert [r["allowed"] for r in rows] == [False, True]
        assert rows[0]["line"] == 2
        assert server.paths() == ["/robots.txt"]


def test_fetch_mode_refuses_loopback_by_default(tmp_path: Path) -> None:
    with FaultServer({}) as server:
        result = CliRunner().invoke(
            main,
            ["robots", "check", "--fetch", "--user-agent", "anchorpath", server.url("/")],
            env={"ANCHORPATH_PATHS__CACHE_DIR": str(tmp_path / "cache")},
        )
        assert result.exit_code == 1
        assert "non-public address" in result.output
        assert server.paths() == []


@pytest.mark.parametrize(
    "body",
    [b"\x89PNG\r\n\x1a\n\x00\x00IHDR", bytes(range(256)) * 4, b"%PDF-1.7\n"],
)
def test_binary_file_is_one_line(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(body)
    res = CliRunner().invoke(
        main, ["robots", "check", "--robots", str(path), "--user-agent", "a", "http://x/"]
    )
    assert res.exit_code == 1
    assert res.output == f"Error: {path}: not a robots.txt (binary content)\n"


def test_a_robots_file_is_read_up_to_the_cap() -> None:
    # Issue 25: `robots check --robots /dev/zero` read until the OOM killer came.
    res = CliRunner().invoke(
        main,
        ["robots", "check", "--robots", "/dev/zero", "--user-agent", "x", "https://a.example/"],
    )
    assert res.exit_code == 1
    assert (
        res.stderr.strip() == "Error: /dev/zero: cannot read: larger than 20971520 bytes (the cap)"
    )
