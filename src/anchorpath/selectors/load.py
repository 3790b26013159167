"""Reading, validating and writing selector files.

History: the current version of a site lives in ``<dir>/<site>.json``; when a changed file is
saved, the version it replaces moves to ``<dir>/.history/<site>/v<N>.json``. We keep one
current file (not one file per version) so that a pull request that edits a selector shows
only the changed fields in its diff; the archive keeps every earlier version loadable without
git. ``.gitattributes`` marks the archive as generated so review tools fold it away.

Validation: jsonschema words every schema problem, but walking it costs ~1.7 ms a file (most of
what ``run --all`` spent loading its sites). A check compiled from the same schema
(:mod:`~anchorpath.selectors.schema_check`, ~0.05 ms) recognises data jsonschema certainly
accepts; anything else goes through jsonschema, so the problems reported never change. Each
XPath's verdict (syntax, XPath 1.0 core) is kept per expression: sites share most of them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from lxml import etree

from anchorpath._errors import SelectorFileError, SelectorValidationError
from anchorpath._text import EXCERPT_CHARS, did_you_mean, excerpt, quote_name
from anchorpath._untrusted import (
    MAX_JSON_DEPTH,
    MAX_SELECTOR_FILE_BYTES,
    JSONTooDeep,
    TooLarge,
    confined,
    lexical_problem,
    read_capped,
    too_deep,
)
from anchorpath._version import __version__
from anchorpath.selectors.model import FIELD_TYPES, SelectorFile
from anchorpath.selectors.schema_check import Check, compile_check
from anchorpath.selectors.xpath_core import core_problem

__all__ = [
    "dump_selector_file",
    "find_selector_file",
    "fixture_path",
    "history_dir",
    "list_versions",
    "load_schema",
    "load_selector_file",
    "parse_json",
    "parse_selector_data",
    "save_selector_file",
    "validate_data",
]

PathLike = str | os.PathLike[str]


@cache
def load_schema() -> dict[str, Any]:
    """The shipped JSON Schema (draft 2020-12) of selector files."""
    text = (
        resources.files("anchorpath.selectors")
        .joinpath("schema/selector.v1.json")
        .read_text(encoding="utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema(), format_checker=FormatChecker())


@cache
def _certainly_valid() -> Check:
    """True only for data the schema certainly accepts (:mod:`.schema_check`): a valid file
    skips jsonschema's walk (~1.5 ms a file), any other goes through it for its messages."""
    return compile_check(load_schema(), _validator().format_checker)


def _pointer(path: Iterator[Any] | Any) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else ""


def _schema_message(err: ValidationError) -> str:
    """jsonschema's wording, with the value it repeats cut short (a pull request's file may
    put a megabyte where a string belongs)."""
    if err.validator == "enum" and err.path and err.path[-1] == "type":
        shown = (
            repr(err.instance)
            if len(repr(err.instance)) <= EXCERPT_CHARS
            else excerpt(err.instance)
        )
        return f"unknown field type {shown} (expected one of: {', '.join(FIELD_TYPES)})"
    message = str(err.message)
    if len(message) > 4 * EXCERPT_CHARS:
        message = f"{message[: 2 * EXCERPT_CHARS]} … {message[-EXCERPT_CHARS:]}"
    return message


@lru_cache(maxsize=4096)
def _xpath_problem(xpath: str) -> tuple[Literal["syntax", "core"], str] | None:
    """What is wrong with one XPath, once per expression (sites share many). Only the verdict
    is kept: a compiled XPath serialises the threads that evaluate it (one lock per object),
    so the runner compiles its own."""
    try:
        etree.XPath(xpath)
    except etree.XPathSyntaxError as exc:
        return "syntax", str(exc)
    problem = core_problem(xpath)
    return None if problem is None else ("core", problem)


def _source_problems(spec: dict[str, Any], page_format: object, at: str) -> list[str]:
    """A field reads its value one way: an XPath, or (on a JSON page type) a JSON pointer."""
    out = []
    if ("xpath" in spec) == ("pointer" in spec):
        out.append(f"{at}: give exactly one of xpath and pointer")
    if "pointer" in spec and page_format != "json":
        out.append(f'{at}/pointer: a JSON pointer needs the page type\'s "format": "json"')
    return out


def _xpath_problems(data: dict[str, Any], where: str) -> list[str]:
    """Compile every XPath up front; report syntax errors and anything outside XPath 1.0's
    core (extension functions, variables, namespace prefixes) with the field name."""
    problems: list[str] = []

    def check(xpath: Any, pointer: str, what: str) -> None:
        if not isinstance(xpath, str):
            return
        found = _xpath_problem(xpath)
        if found is None:
            return
        kind, message = found
        if kind == "syntax":
            problems.append(
                f"{where}:{pointer}: XPath syntax error in {what}: {message}: {xpath!r}"
            )
        else:
            problems.append(f"{where}:{pointer}: {what}: {message}: {xpath!r}")

    pag = data.get("fetch", {}).get("pagination") if isinstance(data.get("fetch"), dict) else None
    if isinstance(pag, dict):
        check(pag.get("next_xpath"), "/fetch/pagination/next_xpath", "pagination")
    page_types = data.get("page_types")
    if not isinstance(page_types, dict):
        return problems
    for pname, pt in page_types.items():
        if not isinstance(pt, dict):
            continue
        base = f"/page_types/{pname}"
        check(pt.get("record_root"), f"{base}/record_root", f"record_root of page type {pname!r}")
        for i, xp in enumerate(pt.get("follow", []) or []):
            check(xp, f"{base}/follow/{i}", f"follow link of page type {pname!r}")
        fields = pt.get("fields")
        if not isinstance(fields, dict):
            continue
        for fname, spec in fields.items():
            if not isinstance(spec, dict):
                continue
            problems += _source_problems(spec, pt.get("format"), f"{where}:{base}/fields/{fname}")
            check(spec.get("xpath"), f"{base}/fields/{fname}/xpath", f"field {fname!r}")
            for i, xp in enumerate(spec.get("fallbacks", []) or []):
                check(
                    xp, f"{base}/fields/{fname}/fallbacks/{i}", f"fallback {i} of field {fname!r}"
                )
    return problems


def _semantic_problems(data: dict[str, Any], where: str) -> list[str]:
    problems: list[str] = []
    page_types = data.get("page_types")
    key = data.get("key")
    if isinstance(page_types, dict) and isinstance(key, list):
        emitted = [
            pt for pt in page_types.values() if isinstance(pt, dict) and pt.get("emit", True)
        ]
        for i, k in enumerate(key):
            if not any(k in (pt.get("fields") or {}) for pt in emitted):
                problems.append(
                    f"{where}:/key/{i}: key field {k!r} is not a field of any emitted page type"
                )
    return problems


#: The folder next to a selector file that holds every file it names (fixture pages, their
#: expected records, screenshots): a file from an untrusted pull request reads nothing else.
FIXTURES_FOLDER = "fixtures"


def _fixture_entries(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    fixtures = data.get("fixtures")
    if not isinstance(fixtures, list):
        return
    for i, fx in enumerate(fixtures):
        if isinstance(fx, dict):
            for key in ("page", "records"):
                if isinstance(fx.get(key), str):
                    yield f"/fixtures/{i}/{key}", fx[key]


def _path_problems(data: dict[str, Any], where: str, base: Path | None) -> list[str]:
    """Every path the file names must stay in ``fixtures/`` next to it: on the text, and
    (with ``base``, the file's folder) once symlinks are resolved."""
    problems = []
    for pointer, rel in _fixture_entries(data):
        problem = lexical_problem(rel, FIXTURES_FOLDER)
        if problem is None and base is not None:
            try:
                confined(base, rel, FIXTURES_FOLDER)
            except OSError as exc:
                problem = str(exc.strerror).removeprefix("refused: ")
        if problem is not None:
            problems.append(
                f"{where}:{pointer}: path {quote_name(rel)} {problem}; a selector file names only "
                f"files inside the {FIXTURES_FOLDER}/ folder next to it"
            )
    return problems


def fixture_path(selector_path: str | os.PathLike[str], relative: str) -> Path:
    """The file a selector file at ``selector_path`` names as ``relative`` (a fixture page,
    its records), symlinks resolved; :class:`OSError` when it would leave ``fixtures/``."""
    return confined(Path(selector_path).parent, relative, FIXTURES_FOLDER)


def validate_data(
    data: Any, where: str = "<selector file>", *, base: Path | None = None
) -> list[str]:
    """All problems of ``data`` as ``WHERE:/json/pointer: message`` lines (empty if valid).
    ``base``: the folder the file lives in (paths it names are then checked on disk too)."""
    if not isinstance(data, dict):
        return [f"{where}: top level must be a JSON object"]
    problems = []
    if not _certainly_valid()(data):
        if too_deep(data):  # before jsonschema walks it (and repeats it in its messages)
            return [f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels"]
        problems = [
            f"{where}:{_pointer(err.absolute_path)}: {_schema_message(err)}"
            for err in sorted(
                _validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))
            )
        ]
    problems += _xpath_problems(data, where)
    problems += _path_problems(data, where, base)
    if not problems:
        problems += _semantic_problems(data, where)
    return problems


def parse_selector_data(
    data: Any, where: str = "<selector file>", *, base: Path | None = None
) -> SelectorFile:
    """Validate ``data`` and build the model (``base``: see :func:`validate_data`).

    Raises SelectorValidationError listing every problem."""
    problems = validate_data(data, where, base=base)
    if problems:
        raise SelectorValidationError(where, problems)
    return SelectorFile.from_dict(data, path=where)


def _read_json(path: Path) -> Any:
    try:
        text = read_capped(path, MAX_SELECTOR_FILE_BYTES).decode("utf-8")
    except FileNotFoundError as exc:
        raise SelectorFileError(f"{path}: selector file not found") from exc
    except TooLarge as exc:
        raise SelectorFileError(f"{path}: cannot read selector file: {exc.strerror}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise SelectorFileError(f"{path}: cannot read selector file: {exc}") from exc
    return parse_json(text, str(path))


def parse_json(text: str | bytes, where: str) -> Any:
    """JSON text of a selector file, nesting bounded (:data:`MAX_JSON_DEPTH`); any problem
    is a :class:`SelectorValidationError` naming ``where``.

    The schema closes every part of a selector file but ``baseline`` and the fields'
    ``examples``, and nothing walks a closed part deeper than the schema does: only those
    two are measured (walking the whole file cost as much as parsing it)."""
    try:
        data = json.loads(text)
        if isinstance(data, dict) and any(too_deep(part) for part in _free_parts(data)):
            raise JSONTooDeep(MAX_JSON_DEPTH)
        return data
    except (RecursionError, JSONTooDeep):
        raise SelectorValidationError(
            where, [f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels"]
        ) from None
    except json.JSONDecodeError as exc:
        raise SelectorValidationError(
            where, [f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"]
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise SelectorValidationError(where, [f"{where}: invalid JSON: {exc}"]) from exc


def _free_parts(data: dict[str, Any]) -> Iterator[Any]:
    """The parts of a selector file the schema leaves open: ``baseline``, every field's
    ``examples`` (anything else nested is refused by the schema, one level at a time)."""
    yield data.get("baseline")
    page_types = data.get("page_types")
    for pt in page_types.values() if isinstance(page_types, dict) else ():
        fields = pt.get("fields") if isinstance(pt, dict) else None
        for spec in fields.values() if isinstance(fields, dict) else ():
            if isinstance(spec, dict):
                yield spec.get("examples")


def history_dir(path: PathLike, site_id: str) -> Path:
    return Path(path).parent / ".history" / site_id


def list_versions(path: PathLike) -> list[int]:
    """Every version of the selector file at ``path`` that can still be loaded."""
    current = load_selector_file(path)
    versions = {current.version}
    hdir = history_dir(path, current.site.id)
    if hdir.is_dir():
        for p in hdir.glob("v*.json"):
            m = re.fullmatch(r"v(\d+)\.json", p.name)
            if m:
                versions.add(int(m.group(1)))
    return sorted(versions)


def load_selector_file(
    path: PathLike, *, version: int | None = None, check_files: bool = False
) -> SelectorFile:
    """Load and validate a selector file (optionally an archived earlier ``version``).

    The paths it names are always checked on their text (inside ``fixtures/``, no ``..``,
    not absolute); with ``check_files`` (``validate``, ``check``, ``diff``: the commands that
    read them) also on disk, symlinks resolved. Whatever reads one goes through
    :func:`fixture_path`, which checks on disk again."""
    p = Path(path)
    base = p.parent if check_files else None
    sf = parse_selector_data(_read_json(p), str(p), base=base)
    if version is None or version == sf.version:
        return sf
    old = history_dir(p, sf.site.id) / f"v{version}.json"
    if not old.is_file():
        raise SelectorFileError(f"{p}: version {version} not found (looked in {old})")
    return parse_selector_data(_read_json(old), str(old), base=base)


def find_selector_file(site: str, selectors_dir: PathLike) -> Path:
    """The current selector file of ``site`` (a site id or a path to a .json file)."""
    if site.endswith(".json") or os.sep in site:
        p = Path(site)
    else:
        p = Path(selectors_dir) / f"{site}.json"
    if not p.is_file():
        known = sorted(q.stem for q in p.parent.glob("*.json")) if p.parent.is_dir() else []
        raise SelectorFileError(
            f"{p}: no selector file for site {site!r}" + did_you_mean([p.stem], known)
        )
    return p


def dump_selector_file(sf: SelectorFile) -> str:
    """Canonical text: schema key order, 2-space indent, UTF-8 as is, trailing newline."""
    return json.dumps(sf.to_dict(), indent=2, ensure_ascii=False) + "\n"


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def save_selector_file(
    sf: SelectorFile, path: PathLike, *, bump: bool = True, now: str | None = None
) -> SelectorFile:
    """Write ``sf`` canonically to ``path`` and return what was written.

    With ``bump`` (the default), saving over an existing file whose content differs archives the
    old version under ``.history/`` and writes ``version = old + 1``, ``parent_version = old``.
    Saving an unchanged model writes the same bytes (and bumps nothing).
    """
    p = Path(path)
    problems = validate_data(sf.to_dict(), str(p))
    if problems:
        raise SelectorValidationError(str(p), problems)
    if bump and p.is_file():
        old = load_selector_file(p)
        same = replace(
            sf,
            version=old.version,
            parent_version=old.parent_version,
            created_at=old.created_at,
            provenance=replace(sf.provenance, tool_version=old.provenance.tool_version),
        )
        if dump_selector_file(same) == dump_selector_file(old):
            _write_atomic(p, dump_selector_file(old))
            return old
        archive = history_dir(p, old.site.id) / f"v{old.version}.json"
        _write_atomic(archive, dump_selector_file(old))
        sf = replace(
            sf,
            version=old.version + 1,
            parent_version=old.version,
            created_at=now or _now(),
            provenance=replace(sf.provenance, tool_version=__version__),
        )
    _write_atomic(p, dump_selector_file(sf))
    return replace(sf, path=str(p))
