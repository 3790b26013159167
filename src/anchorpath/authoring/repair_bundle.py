"""Reading a re-authoring bundle (``bundle.json``, the selector file, the last good records
and the snapshots it names) into a checked :class:`Bundle`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile

BUNDLE_FORMAT = "anchorpath.bundle.v1"


@dataclass(frozen=True)
class Snapshot:
    """One page of a bundle: the URL it was fetched from, its bytes and the file it came from."""

    url: str
    body: bytes
    file: str


@dataclass(frozen=True)
class Bundle:
    """A re-authoring bundle as read from disk."""

    path: Path
    site: str
    selector: SelectorFile
    selector_version: int | None
    run_id: str | None
    selector_source: str | None  # where the drifted run loaded the selector file from
    last_good: tuple[Snapshot, ...]
    last_good_records: tuple[Mapping[str, Any], ...]
    failing: tuple[Snapshot, ...]
    failing_fields: Mapping[str, Any]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AuthoringError(f"{path}: cannot read bundle file: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AuthoringError(f"{path}: bundle file is not valid JSON: {exc}") from exc


def _snapshots(bundle: Path, index: Any, what: str) -> tuple[Snapshot, ...]:
    if not isinstance(index, list):
        raise AuthoringError(f"{bundle / 'bundle.json'}: {what!r} must be a list of snapshots")
    out = []
    for i, entry in enumerate(index):
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise AuthoringError(f"{bundle / 'bundle.json'}: {what}[{i}] has no url")
        path = bundle / str(entry.get("file", ""))
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise AuthoringError(f"{path}: cannot read snapshot: {exc.strerror or exc}") from exc
        want = entry.get("sha256")
        if want and hashlib.sha256(body).hexdigest() != want:
            raise AuthoringError(f"{path}: snapshot bytes do not match the bundle's sha256")
        out.append(Snapshot(entry["url"], body, str(path)))
    return tuple(out)


def read_bundle(bundle_dir: str | Path) -> Bundle:
    """Read and check a re-authoring bundle (``bundle.json`` and everything it names)."""
    path = Path(bundle_dir)
    if path.is_file() and path.name == "bundle.json":
        path = path.parent
    manifest = _read_json(path / "bundle.json")
    if not isinstance(manifest, dict):
        raise AuthoringError(f"{path / 'bundle.json'}: not a bundle manifest")
    fmt = manifest.get("format")
    if fmt != BUNDLE_FORMAT:
        raise AuthoringError(
            f"{path / 'bundle.json'}: unsupported bundle format {fmt!r} (expected {BUNDLE_FORMAT})"
        )
    sel_path = path / str(manifest.get("selector_file") or "selector.json")
    try:
        selector = parse_selector_data(_read_json(sel_path), str(sel_path))
    except AuthoringError:
        raise
    except AnchorpathError as exc:
        raise AuthoringError(f"{sel_path}: {exc}") from exc
    records = _read_json(path / str(manifest.get("last_good_records") or "last_good/records.json"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise AuthoringError(f"{path}: last good records must be a list of objects")
    failing_fields = manifest.get("failing_fields") or {}
    version = manifest.get("selector_version")
    return Bundle(
        path=path,
        site=str(manifest.get("site") or selector.site.id),
        selector=selector,
        selector_version=version if isinstance(version, int) else None,
        run_id=manifest.get("run_id"),
        selector_source=manifest.get("selector_source"),
        last_good=_snapshots(path, manifest.get("last_good", []), "last_good"),
        last_good_records=tuple(records),
        failing=_snapshots(path, manifest.get("failing", []), "failing"),
        failing_fields=failing_fields if isinstance(failing_fields, dict) else {},
    )
