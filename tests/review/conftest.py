"""A temporary git repository holding the demo's selector file and its golden fixtures."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

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
