"""Reading input that may be hostile, within bounds: local files, JSON, paths a file names.

A selector file may come from an untrusted pull request, a page or an LLM answer from
anywhere, and a path argument may name ``/dev/zero``. Three bounds hold wherever such input
is read:

* bytes: :func:`read_capped` reads at most a cap from a file (a device or a huge file is an
  :class:`OSError` naming the cap, caught where any unreadable file is);
* nesting: :func:`loads_json` refuses JSON nested deeper than :data:`MAX_JSON_DEPTH` with a
  :class:`ValueError` (as malformed JSON is), before anything walks it recursively;
* paths: :func:`confined` resolves a relative path a file names (symlinks included) and
  refuses one that leaves its folder.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from anchorpath._config import FetchConfig

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_PAGE_BYTES",
    "MAX_SELECTOR_FILE_BYTES",
    "JSONTooDeep",
    "TooLarge",
    "confined",
    "lexical_problem",
    "loads_json",
    "read_capped",
    "too_deep",
]

#: Deepest JSON accepted anywhere (a selector file needs about 8 levels; Python's own parser
#: and every recursive walk after it fail near 1,000).
MAX_JSON_DEPTH = 64
#: Largest saved page read (a fixture, an ``extract`` argument, a robots.txt file): what a
#: fetch accepts once decompressed, so any page anchorpath saved reads back.
MAX_PAGE_BYTES = FetchConfig.max_decompressed_bytes
#: Largest selector file read (the biggest real ones are a few hundred KiB).
MAX_SELECTOR_FILE_BYTES = 16 * 1024 * 1024


class TooLarge(OSError):
    """A file (or device) holds more than the cap: an :class:`OSError` whose ``strerror``
    names the cap, so every ``except OSError`` that reports ``strerror`` words it."""

    def __init__(self, path: str | os.PathLike[str], limit: int) -> None:
        super().__init__(errno.EFBIG, f"larger than {limit} bytes (the cap)", str(path))


class JSONTooDeep(ValueError):
    """JSON nested deeper than the limit (raised instead of parsing or walking it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")


def read_capped(path: str | os.PathLike[str], limit: int, *, regular: bool = False) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them: :class:`TooLarge` past it.

    ``regular``: refuse anything but a regular file (a device, FIFO or socket named by a
    file someone else wrote), with ``strerror`` "not a regular file"."""
    with open(path, "rb") as f:
        if regular and not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path, limit)
    return data


def too_deep(value: Any, max_depth: int = MAX_JSON_DEPTH) -> bool:
    """Whether parsed JSON ``value`` nests containers deeper than ``max_depth`` levels."""
    return isinstance(value, dict | list) and _too_deep(value, max_depth - 1)


def _too_deep(value: Any, budget: int) -> bool:
    """Whether ``value`` nests containers deeper than ``budget`` levels below it (recursion
    at most ``budget`` deep; about as long as parsing the text took)."""
    for child in value.values() if isinstance(value, dict) else value:
        if isinstance(child, dict | list) and (budget < 1 or _too_deep(child, budget - 1)):
            return True
    return False


def loads_json(data: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses nesting deeper than ``max_depth`` (:class:`JSONTooDeep`,
    a :class:`ValueError` like malformed JSON), so nothing after it recurses without bound."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise JSONTooDeep(max_depth) from None
    if too_deep(value, max_depth):
        raise JSONTooDeep(max_depth)
    return value


def lexical_problem(relative: str, folder: str) -> str | None:
    """Why ``relative`` (a path a file names, ``/``-separated, relative to that file's
    folder) cannot stay inside ``folder/`` of it, judged on the text alone, or None."""
    if (
        relative.startswith(folder + "/")
        and ".." not in relative
        and "\\" not in relative
        and "\0" not in relative
        and len(relative) > len(folder) + 1
    ):
        return None  # the common case, decided without splitting
    if not relative or "\0" in relative or "\\" in relative:
        return "is not a plain relative path"
    if relative.startswith("/") or (len(relative) > 1 and relative[1] == ":"):
        return "is an absolute path"
    parts = relative.split("/")
    if ".." in parts:
        return "climbs out with '..'"
    inner = [p for p in parts if p not in ("", ".")]
    if len(inner) < 2 or inner[0] != folder:
        return f"is not inside the {folder}/ folder"
    return None


def confined(base: Path, relative: str, folder: str) -> Path:
    """``base / relative`` with symlinks resolved, checked to lie inside ``base / folder``
    (itself resolved only as far as ``base``: a ``folder`` that is a symlink elsewhere is
    refused too). Raises :class:`OSError` (``strerror`` says why) otherwise."""
    problem = lexical_problem(relative, folder)
    if problem is not None:
        raise OSError(errno.EACCES, f"refused: {problem}", relative)
    root = base.resolve() / folder
    target = (base / relative).resolve()
    if not target.is_relative_to(root) or target == root:
        raise OSError(
            errno.EACCES, f"refused: resolves outside the {folder}/ folder (symlink)", relative
        )
    return target
