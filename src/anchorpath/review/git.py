"""git, through its command line: which selector files differ from a ref, and their old bytes.

``anchorpath diff --git REF`` compares every selector file that differs between ``REF`` and
the working tree (uncommitted edits and untracked new files included), the way a pull
request shows them. git runs as a subprocess with a fixed, non-interactive environment; any
failure becomes one :class:`~anchorpath._errors.ReviewError` line naming the command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from anchorpath._errors import ReviewError

__all__ = ["GitRepo"]

_TIMEOUT = 60.0


@dataclass(frozen=True)
class GitRepo:
    """A git work tree (``root``) and the ref its working copy is compared with."""

    root: Path
    ref: str

    @classmethod
    def open(cls, ref: str, cwd: Path) -> GitRepo:
        """The repository around ``cwd``; checks that ``ref`` names a commit."""
        top = _git(["rev-parse", "--show-toplevel"], cwd).decode("utf-8").strip()
        repo = cls(Path(top), ref)
        try:
            _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], repo.root)
        except ReviewError:
            raise ReviewError(
                f"git: unknown revision {ref!r} (no such branch, tag or commit)"
            ) from None
        return repo

    def relative(self, path: Path) -> str:
        """``path`` relative to the work tree root, in git's spelling (``/``); symlinked
        folders are resolved as git stores their target."""
        absolute = path.resolve() if path.exists() else path.parent.resolve() / path.name
        try:
            return absolute.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            raise ReviewError(f"{path}: not inside the git work tree {self.root}") from None

    def changed(self, paths: Sequence[Path]) -> list[Path]:
        """Files under ``paths`` that differ between the ref and the working tree, tracked or
        untracked (not ignored), as absolute paths in the working tree, sorted."""
        specs = [self.relative(p) or "." for p in paths]
        diff = _git(
            ["diff", "--name-only", "-z", "--no-renames", self.ref, "--", *specs], self.root
        )
        untracked = _git(
            ["ls-files", "-z", "--others", "--exclude-standard", "--", *specs], self.root
        )
        names = {n for n in (diff + untracked).decode("utf-8").split("\0") if n}
        return sorted(self.root / n for n in names)

    def show(self, relative: str) -> bytes | None:
        """The bytes of ``relative`` at the ref, or None when the ref does not have it."""
        try:
            return _git(["show", f"{self.ref}:{relative}"], self.root)
        except ReviewError:
            return None


def _git(args: Sequence[str], cwd: Path) -> bytes:
    exe = shutil.which("git")
    if exe is None:
        raise ReviewError("git not found on PATH (needed by --git)")
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        proc = subprocess.run(
            [exe, *args], cwd=cwd, capture_output=True, timeout=_TIMEOUT, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReviewError(f"git {args[0]}: {exc}") from exc
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        msg = lines[0] if lines else f"exit status {proc.returncode}"
        raise ReviewError(f"git {args[0]} failed in {cwd}: {msg.removeprefix('fatal: ')}")
    return proc.stdout
