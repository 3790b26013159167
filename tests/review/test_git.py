"""git through its command line: changed files, bytes at a ref, one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorpath._errors import ReviewError
from anchorpath.review.git import GitRepo


def test_changed_includes_untracked_and_show_at_ref(repo: Path) -> None:
    (repo / "selectors" / "new.json").write_text("{}", encoding="utf-8")
    (repo / "selectors" / "mfds-dmf.json").write_text("{}", encoding="utf-8")
    g = GitRepo.open("main", repo / "selectors")
    assert g.changed([repo / "selectors"]) == [
        repo / "selectors" / "mfds-dmf.json",
        repo / "selectors" / "new.json",
    ]
    assert g.show("selectors/new.json") is None
    assert (g.show("selectors/mfds-dmf.json") or b"").startswith(b'{\n  "$schema"')


def test_path_outside_the_work_tree(repo: Path, tmp_path: Path) -> None:
    g = GitRepo.open("main", repo)
    with pytest.raises(ReviewError, match="not inside the git work tree"):
        g.relative(tmp_path / "elsewhere.json")


def test_git_missing(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("anchorpath.review.git.shutil.which", lambda _name: None)
    with pytest.raises(ReviewError, match=r"^git not found on PATH"):
        GitRepo.open("main", repo)
