"""git, through its command line: which selector files differ from a ref, and their old bytes.

``anchorpath diff --git REF`` compares every selector file that differs between ``REF`` and
the working tree (uncommitted edits and untracked new files included), the way a pull
request shows them. git runs as a subprocess with a fixed, non-interactive environment; any
failure becomes one :class:`~anchorpath._errors.ReviewError` line naming the command.

File names come from the pull request: every path given to git is literal
(``GIT_LITERAL_PATHSPECS``, so ``site[2].json`` is not a glob), and blobs are read by object
(``ls-tree`` then ``cat-file``), never through a pathspec; only regular files are read
(a symlink's target text is not a page), at most :data:`MAX_BLOB_BYTES` each.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from anchorpath._errors import ReviewError
from anchorpath._text import quote_name
from anchorpath._untrusted import MAX_PAGE_BYTES

__all__ = ["MAX_BLOB_BYTES", "GitRepo"]

_TIMEOUT = 60.0
#: Largest blob read from git (a selector file or a fixture page).
MAX_BLOB_BYTES = MAX_PAGE_BYTES
_REGULAR = ("100644", "100755")


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
            raise ReviewError(
                f"{quote_name(path)}: not inside the git work tree {quote_name(self.root)}"
            ) from None

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
        names = {n for n in (diff + untracked).decode("utf-8", "surrogateescape").split("\0") if n}
        return sorted(self.root / n for n in names)

    def show(self, relative: str) -> bytes | None:
        """The bytes of the regular file ``relative`` at the ref, or None when the ref has no
        such file (or a symlink, a folder, a submodule, or a blob over the cap there)."""
        if not relative or relative.startswith("/") or ".." in relative.split("/"):
            return None
        listed = _git(["ls-tree", "-z", "-l", "--full-tree", self.ref, "--", relative], self.root)
        for entry in listed.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") != relative:
                continue
            mode, kind, oid, size = meta.decode("ascii", "replace").split()
            if mode not in _REGULAR or kind != "blob" or int(size) > MAX_BLOB_BYTES:
                return None
            return _git(["cat-file", "blob", oid], self.root)
        return None


def _git(args: Sequence[str], cwd: Path) -> bytes:
    exe = shutil.which("git")
    if exe is None:
        raise ReviewError("git not found on PATH (needed by --git)")
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_LITERAL_PATHSPECS": "1"}
    try:
        proc = subprocess.run(
            [exe, *args], cwd=cwd, capture_output=True, timeout=_TIMEOUT, env=env, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReviewError(f"git {args[0]}: {exc}") from exc
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        msg = lines[0] if lines else f"exit status {proc.returncode}"
        detail = quote_name(msg.removeprefix("fatal: "))
        raise ReviewError(f"git {args[0]} failed in {quote_name(cwd)}: {detail}")
    return proc.stdout
