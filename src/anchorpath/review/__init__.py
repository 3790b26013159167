"""Selector review: ``anchorpath diff`` and ``anchorpath check``.

A selector change is reviewed like code, but a reviewer must see what it does to the data:
``diff`` compares two versions of a selector file setting by setting (``semantic``) and
replays both on the same pages (``replay``): the golden fixtures and, optionally, the latest
run's WARC archive; ``check`` validates selector files and replays their golden fixtures
offline, for CI and pre-commit. Versions come from files, the ``.history`` archive or a git
ref (``sources``, ``git``); ``render`` turns the typed diff model (``model``) into terminal
text, a pull-request comment in Markdown, or JSON.

This layer sits between the CLI and the runner/authoring/demo packages: it reads their
files (selector history, golden fixtures, archived pages) and imports neither the LLM code
nor anything that fetches.
"""

from __future__ import annotations

from anchorpath.review.check import CheckProblem, FileCheck, check_file, selector_files
from anchorpath.review.diff import diff_versions
from anchorpath.review.model import DiffReport, FieldDiff, FileDiff
from anchorpath.review.sources import Version, git_versions, latest_run_pages, load_version

__all__ = [
    "CheckProblem",
    "DiffReport",
    "FieldDiff",
    "FileCheck",
    "FileDiff",
    "Version",
    "check_file",
    "diff_versions",
    "git_versions",
    "latest_run_pages",
    "load_version",
    "selector_files",
]
