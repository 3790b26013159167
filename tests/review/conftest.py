"""Review test helpers: a temporary git repository holding the demo's selector file and its
golden fixtures, and a small hand-made shop selector file with page builders."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile

REPO = Path(__file__).resolve().parents[2]
SITE = "mfds-dmf"
# The demo selector file's detail.applicant XPath, and the same XPath pointed at another label.
APPLICANT = "/descendant::th[normalize-space()='신청인'][1]/following-sibling::td[1]"
MANUFACTURER = "/descendant::th[normalize-space()='제조소'][1]/following-sibling::td[1]"


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``tmp/repo`` with ``selectors/mfds-dmf.json`` + fixtures committed on ``main``."""
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    root = tmp_path / "repo"
    (root / "selectors").mkdir(parents=True)
    shutil.copyfile(REPO / "selectors" / f"{SITE}.json", root / "selectors" / f"{SITE}.json")
    shutil.copytree(REPO / "selectors" / "fixtures" / SITE, root / "selectors" / "fixtures" / SITE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "selectors")
    return root


@pytest.fixture
def changed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The repository, current directory, with detail.applicant's XPath pointed at the 제조소
    (manufacturer) row instead of 신청인 (applicant), uncommitted."""
    monkeypatch.chdir(repo)
    path = repo / "selectors" / f"{SITE}.json"
    text = path.read_text(encoding="utf-8")
    assert text.count(APPLICANT) == 1
    path.write_text(text.replace(APPLICANT, MANUFACTURER), encoding="utf-8")
    return repo


ORIGIN = "http://shop.example"

SHOP: dict[str, Any] = {
    "$schema": "https://anchorpath.dev/schema/selector.v1.json",
    "schema_version": 1,
    "policy": {"basis": "robots"},
    "site": {"id": "shop", "name": "Shop"},
    "version": 1,
    "parent_version": None,
    "fetch": {"start_urls": [f"{ORIGIN}/list"], "max_pages": 100},
    "page_types": {
        "list": {
            "match": "/list",
            "record_root": "//table/tr[td]",
            "emit": False,
            "fields": {
                "code": {"xpath": "td[1]", "type": "string"},
                "name": {"xpath": "td[2]", "type": "string"},
            },
        },
        "item": {
            "match": "/item",
            "fields": {
                "code": {
                    "xpath": "//th[.='Code']/following-sibling::td[1]",
                    "type": "string",
                    "required": True,
                },
                "name": {"xpath": "//th[.='Name']/following-sibling::td[1]", "type": "string"},
                "price": {"xpath": "//th[.='Price']/following-sibling::td[1]", "type": "number"},
            },
        },
    },
    "key": ["code"],
}


class Shop:
    """Small hand-made selector files and pages of a shop site (no demo data)."""

    ORIGIN = ORIGIN

    @staticmethod
    def data(**changes: Any) -> dict[str, Any]:
        """A deep copy of the base selector file's JSON, top-level keys replaced."""
        return copy.deepcopy(SHOP) | changes

    @staticmethod
    def selector(d: dict[str, Any] | None = None) -> SelectorFile:
        return parse_selector_data(copy.deepcopy(d if d is not None else SHOP), "<test>")

    @staticmethod
    def item_page(code: str, name: str, price: str, maker: str = "Acme") -> bytes:
        return (
            "<html><body><table>"
            f"<tr><th>Code</th><td>{code}</td></tr><tr><th>Name</th><td>{name}</td></tr>"
            f"<tr><th>Price</th><td>{price}</td></tr><tr><th>Maker</th><td>{maker}</td></tr>"
            "</table></body></html>"
        ).encode()

    @staticmethod
    def list_page(rows: list[tuple[str, str]]) -> bytes:
        cells = "".join(f"<tr><td>{c}</td><td>{n}</td></tr>" for c, n in rows)
        head = "<tr><th>Code</th><th>Name</th></tr>"
        return f"<html><body><table>{head}{cells}</table></body></html>".encode()


@pytest.fixture
def shop() -> Shop:
    return Shop()


@pytest.fixture
def git_cmd() -> Any:
    """``git_cmd(cwd, *args)``: run git with a fixed identity and no user config."""
    return git
