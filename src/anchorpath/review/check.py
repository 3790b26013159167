"""``check``: is every selector file valid, and does it still reproduce its golden fixtures?

For CI and pre-commit: offline and fast (no network, no browser, pages parsed once). Each
selector file is validated (schema, XPath compilation, key fields), then every golden fixture
page is extracted and compared with its expected records field by field. Records are paired
in order when the counts agree, else by the selector file's key. Each failure names the file,
page type, field, page and record, with the expected and the extracted value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from anchorpath._errors import AnchorpathError, SelectorFileError, SelectorValidationError
from anchorpath._text import excerpt, quote_name
from anchorpath._untrusted import MAX_PAGE_BYTES, loads_json, read_capped
from anchorpath.review.replay import Page, extract_quietly
from anchorpath.selectors.load import fixture_path, load_selector_file
from anchorpath.selectors.model import Fixture, SelectorFile
from anchorpath.selectors.policy import policy_warnings

__all__ = ["CheckProblem", "FileCheck", "check_file", "selector_files"]

ProblemKind = Literal["invalid", "fixture", "records", "value"]


@dataclass(frozen=True)
class CheckProblem:
    """One reason a selector file fails ``check``."""

    kind: ProblemKind
    message: str
    page_type: str | None = None
    field: str | None = None
    page: str | None = None
    record: str | None = None
    expected: Any = None
    got: Any = None

    @property
    def where(self) -> str:
        """``page_type.field`` (or the page type, or the file) the problem belongs to."""
        if self.page_type and self.field:
            return f"{self.page_type}.{self.field}"
        return self.page_type or "(file)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "page_type": self.page_type,
            "field": self.field,
            "page": self.page,
            "record": self.record,
            "expected": self.expected,
            "got": self.got,
            "message": self.message,
        }


@dataclass(frozen=True)
class FileCheck:
    """The outcome for one selector file."""

    path: str
    site: str | None
    version: int | None
    fixtures: int
    records: int
    problems: tuple[CheckProblem, ...]
    #: what the file lacks that does not fail ``check`` (no ``policy.basis``, ...)
    warnings: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "site": self.site,
            "version": self.version,
            "ok": self.ok,
            "fixtures": self.fixtures,
            "records": self.records,
            "problems": [p.to_dict() for p in self.problems],
            "warnings": list(self.warnings),
        }


def selector_files(paths: Iterable[Path]) -> list[Path]:
    """The selector files named by ``paths``: files as given; for a folder, the ``*.json``
    directly in it (``SITE.json``; fixtures and the ``.history`` archive live below)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(q for q in p.glob("*.json") if q.is_file())
        else:
            out.append(p)
    return list(dict.fromkeys(out))


def _plain(value: Any) -> Any:
    """A value as it reads back from JSON (tuples become lists, dates strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _label(values: Mapping[str, Any], key: Sequence[str], index: int) -> str:
    parts = [values.get(k) for k in key]
    if key and all(v not in (None, "", []) for v in parts):
        return " / ".join(str(v) for v in parts)
    return f"record {index + 1}"


def _pair(
    want: list[dict[str, Any]], got: list[dict[str, Any]], key: Sequence[str]
) -> list[tuple[int, dict[str, Any] | None, dict[str, Any] | None]]:
    if len(want) == len(got) or not key:
        n = max(len(want), len(got))
        return [
            (i, want[i] if i < len(want) else None, got[i] if i < len(got) else None)
            for i in range(n)
        ]
    index = {_label(g, key, i): g for i, g in enumerate(got)}
    out: list[tuple[int, dict[str, Any] | None, dict[str, Any] | None]] = []
    for i, w in enumerate(want):
        out.append((i, w, index.pop(_label(w, key, i), None)))
    out += [(len(want) + j, None, g) for j, g in enumerate(index.values())]
    return out


def _fixture_problem(message: str, fx: Fixture, page_type: str | None = None) -> CheckProblem:
    return CheckProblem("fixture", message, page_type=page_type, page=fx.page)


def _check_fixture(sf: SelectorFile, sf_path: Path, fx: Fixture) -> tuple[int, list[CheckProblem]]:
    try:
        body = read_capped(fixture_path(sf_path, fx.page), MAX_PAGE_BYTES, regular=True)
    except OSError as exc:
        return 0, [
            CheckProblem(
                "fixture",
                f"fixture page {quote_name(fx.page)} cannot be read: {exc.strerror}",
                page=fx.page,
            )
        ]
    pt = sf.page_type_for(fx.url)
    if pt is None:
        return 0, [
            CheckProblem("fixture", f"no page type matches the fixture URL {fx.url}", page=fx.page)
        ]
    try:
        records = extract_quietly(sf, Page(fx.url, body, "fixtures", fx.page))
    except AnchorpathError as exc:
        return 0, [_fixture_problem(f"{quote_name(fx.page)}: {exc}", fx, pt.name)]
    if fx.records is None:
        return len(records), []
    try:
        path = fixture_path(sf_path, fx.records)
        expected = loads_json(read_capped(path, MAX_PAGE_BYTES, regular=True).decode("utf-8"))
    except (OSError, ValueError) as exc:
        msg = exc.strerror if isinstance(exc, OSError) else str(exc)
        return 0, [
            CheckProblem(
                "fixture",
                f"expected records {quote_name(fx.records)} cannot be read: {msg}",
                page=fx.page,
            )
        ]
    if not isinstance(expected, list) or not all(isinstance(r, dict) for r in expected):
        return 0, [
            CheckProblem(
                "fixture",
                f"{quote_name(fx.records)}: expected a JSON list of records",
                page=fx.page,
            )
        ]
    got = [_plain({"_page_type": r.page_type, **r.values}) for r in records]
    problems: list[CheckProblem] = []
    if len(got) != len(expected):
        problems.append(
            CheckProblem(
                "records",
                f"{len(expected)} records expected, {len(got)} extracted",
                page_type=pt.name,
                page=fx.page,
                expected=len(expected),
                got=len(got),
            )
        )
    key = list(sf.key)
    for i, want, have in _pair(expected, got, key):
        if want is None or have is None:
            continue
        label = _label(want, key, i)
        ptype = str(want.get("_page_type") or pt.name)
        if have.get("_page_type") != ptype:
            problems.append(
                CheckProblem(
                    "records",
                    f"page type {excerpt(ptype)} expected, got {excerpt(have.get('_page_type'))}",
                    page_type=ptype,
                    page=fx.page,
                    record=label,
                    expected=ptype,
                    got=have.get("_page_type"),
                )
            )
            continue
        names = [k for k in want if not k.startswith("_")]
        names += [k for k in have if not k.startswith("_") and k not in want]
        for name in names:
            e, g = want.get(name), have.get(name)
            if _plain(e) != g:
                problems.append(
                    CheckProblem(
                        "value",
                        f"expected {excerpt(e)}, got {excerpt(g)}",
                        page_type=ptype,
                        field=name,
                        page=fx.page,
                        record=label,
                        expected=e,
                        got=g,
                    )
                )
    return len(got), problems


def check_file(path: Path, *, allow_empty: bool = False) -> FileCheck:
    """Validate one selector file and replay its golden fixtures. A file with no fixture
    whose records are written down verifies nothing: that fails, unless ``allow_empty``."""
    try:
        sf = load_selector_file(path, check_files=True)
    except SelectorValidationError as exc:
        invalid = tuple(CheckProblem("invalid", line) for line in exc.problems)
        return FileCheck(str(path), None, None, 0, 0, invalid)
    except SelectorFileError as exc:
        return FileCheck(str(path), None, None, 0, 0, (CheckProblem("invalid", str(exc)),))
    problems: list[CheckProblem] = []
    records = 0
    for fx in sf.fixtures:
        n, found = _check_fixture(sf, path, fx)
        records += n
        problems += found
    if not allow_empty and not any(fx.records is not None for fx in sf.fixtures):
        problems.append(
            CheckProblem(
                "fixture",
                "no golden fixture with expected records, so nothing was verified (a file "
                "written by `anchorpath author` has them; --allow-empty to accept a file "
                "without)",
            )
        )
    return FileCheck(
        str(path),
        sf.site.id,
        sf.version,
        len(sf.fixtures),
        records,
        tuple(problems),
        tuple(policy_warnings(sf, str(path))),
    )
