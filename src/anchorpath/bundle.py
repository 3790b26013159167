"""The drift bundle: what a drifted run hands to re-authoring, written by the runner and read by
authoring. The format is defined here once, below both sides, so neither imports the other.

Layout (``BUNDLE_DIR`` inside the run's directory)::

    bundle.json                     manifest: format, site, selector version, files, fields, command
    README.md                       the same for a human, with the next command
    selector.json                   byte copy of the selector file the run used
    failing_fields.json             {"fields": {field: [evidence, ...]}, "drift": {...}}
    last_good/index.json            [{"url", "file", "sha256"}] of the last good snapshots
    last_good/records.json          the records those snapshots gave (accepted run)
    last_good/NNN.html              the snapshots, bytes exactly as fetched
    failing/index.json              the same for this run's pages
    failing/records.json            what this run extracted (only when given)
    failing/NNN.html

The next command is ``anchorpath author repair SITE --bundle DIR``; authoring reads
``bundle.json`` and finds everything else through it, so the bundle can be moved or mailed.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anchorpath._errors import AnchorpathError, BundleError
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "BUNDLE_DIR",
    "BUNDLE_FORMAT",
    "Bundle",
    "Snapshot",
    "read_bundle",
    "repair_command",
    "write_bundle",
]

#: The bundle's directory name inside a run directory.
BUNDLE_DIR = "bundle"
#: ``format`` of ``bundle.json``; a reader refuses any other.
BUNDLE_FORMAT = "anchorpath.bundle.v1"


def repair_command(site: str, bundle: Path) -> str:
    """The exact shell command that starts the repair of ``site`` from ``bundle``."""
    return f"anchorpath author repair {shlex.quote(site)} --bundle {shlex.quote(str(bundle))}"


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


# ---------------------------------------------------------------------------------- reading


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BundleError(f"{path}: cannot read bundle file: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{path}: bundle file is not valid JSON: {exc}") from exc


def _read_snapshots(bundle: Path, index: Any, what: str) -> tuple[Snapshot, ...]:
    if not isinstance(index, list):
        raise BundleError(f"{bundle / 'bundle.json'}: {what!r} must be a list of snapshots")
    out = []
    for i, entry in enumerate(index):
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            raise BundleError(f"{bundle / 'bundle.json'}: {what}[{i}] has no url")
        path = bundle / str(entry.get("file", ""))
        try:
            body = path.read_bytes()
        except OSError as exc:
            raise BundleError(f"{path}: cannot read snapshot: {exc.strerror or exc}") from exc
        want = entry.get("sha256")
        if want and hashlib.sha256(body).hexdigest() != want:
            raise BundleError(f"{path}: snapshot bytes do not match the bundle's sha256")
        out.append(Snapshot(entry["url"], body, str(path)))
    return tuple(out)


def read_bundle(bundle_dir: str | Path) -> Bundle:
    """Read and check a re-authoring bundle (``bundle.json`` and everything it names)."""
    path = Path(bundle_dir)
    if path.is_file() and path.name == "bundle.json":
        path = path.parent
    manifest = _read_json(path / "bundle.json")
    if not isinstance(manifest, dict):
        raise BundleError(f"{path / 'bundle.json'}: not a bundle manifest")
    fmt = manifest.get("format")
    if fmt != BUNDLE_FORMAT:
        raise BundleError(
            f"{path / 'bundle.json'}: unsupported bundle format {fmt!r} (expected {BUNDLE_FORMAT})"
        )
    sel_path = path / str(manifest.get("selector_file") or "selector.json")
    try:
        selector = parse_selector_data(_read_json(sel_path), str(sel_path))
    except BundleError:
        raise
    except AnchorpathError as exc:
        raise BundleError(f"{sel_path}: {exc}") from exc
    records = _read_json(path / str(manifest.get("last_good_records") or "last_good/records.json"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise BundleError(f"{path}: last good records must be a list of objects")
    failing_fields = manifest.get("failing_fields") or {}
    version = manifest.get("selector_version")
    return Bundle(
        path=path,
        site=str(manifest.get("site") or selector.site.id),
        selector=selector,
        selector_version=version if isinstance(version, int) else None,
        run_id=manifest.get("run_id"),
        selector_source=manifest.get("selector_source"),
        last_good=_read_snapshots(path, manifest.get("last_good", []), "last_good"),
        last_good_records=tuple(records),
        failing=_read_snapshots(path, manifest.get("failing", []), "failing"),
        failing_fields=failing_fields if isinstance(failing_fields, dict) else {},
    )


# ---------------------------------------------------------------------------------- writing


def _selector_meta(path: Path) -> tuple[str, int | None]:
    """Site id and version from the selector file (the file stem if it cannot be read)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        site = data.get("site", {}).get("id") or path.stem
        version = data.get("version")
        return str(site), version if isinstance(version, int) else None
    except (OSError, ValueError, AttributeError):
        return path.stem, None


def _dump(path: Path, data: Any) -> None:
    path.write_text(
        json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
    )


def _write_snapshots(
    folder: Path, pages: Sequence[tuple[str, bytes]], records: Sequence[Mapping[str, Any]] | None
) -> list[dict[str, str]]:
    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for i, (url, body) in enumerate(pages, 1):
        name = f"{i:03d}.html"
        (folder / name).write_bytes(body)
        index.append(
            {
                "url": url,
                "file": f"{folder.name}/{name}",
                "sha256": hashlib.sha256(body).hexdigest(),
            }
        )
    _dump(folder / "index.json", index)
    if records is not None:
        _dump(folder / "records.json", list(records))
    return index


def write_bundle(
    bundle: Path,
    selector_file_path: Path,
    last_good: Sequence[tuple[str, bytes]],
    last_good_records: Sequence[Mapping[str, Any]],
    failing: Sequence[tuple[str, bytes]],
    *,
    failing_fields: Mapping[str, Sequence[str]],
    structural: Sequence[str] = (),
    score: float = 0.0,
    evidence: Mapping[str, Any] | None = None,
    failing_records: Sequence[Mapping[str, Any]] | None = None,
    run_id: str | None = None,
) -> dict[str, Any]:
    """Write a bundle into the directory ``bundle`` (replacing one already there); return its
    manifest (``bundle.json``).

    ``last_good`` and ``failing`` are ``(url, body)`` snapshots; ``last_good_records`` are the
    records the last accepted run extracted from them; ``failing_fields`` names each broken
    field with its evidence; ``evidence`` is the gate's full result, kept beside them.
    """
    selector_file_path = Path(selector_file_path)
    site, version = _selector_meta(selector_file_path)
    command = repair_command(site, bundle)
    try:
        if bundle.exists():  # a resumed run rewrites its bundle from scratch
            shutil.rmtree(bundle)
        bundle.mkdir(parents=True)
        shutil.copyfile(selector_file_path, bundle / "selector.json")
        good_index = _write_snapshots(bundle / "last_good", last_good, last_good_records)
        bad_index = _write_snapshots(bundle / "failing", failing, failing_records)
        fields = {k: list(v) for k, v in failing_fields.items()}
        _dump(bundle / "failing_fields.json", {"fields": fields, "drift": dict(evidence or {})})
        manifest = {
            "format": BUNDLE_FORMAT,
            "site": site,
            "selector_version": version,
            "run_id": run_id,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "selector_file": "selector.json",
            "selector_source": str(selector_file_path),
            "last_good": good_index,
            "last_good_records": "last_good/records.json",
            "failing": bad_index,
            "failing_records": "failing/records.json" if failing_records is not None else None,
            "failing_fields": fields,
            "structural": list(structural),
            "score": round(score, 3),
            "next_command": command,
        }
        _dump(bundle / "bundle.json", manifest)
        (bundle / "README.md").write_text(_readme(manifest), encoding="utf-8")
    except OSError as exc:
        raise BundleError(f"{bundle}: cannot write the bundle: {exc}") from exc
    return manifest


def _readme(m: Mapping[str, Any]) -> str:
    lines = [
        f"# Drift alert: {m['site']} (selector version {m['selector_version']})",
        "",
        f"Run {m['run_id'] or '?'} produced data that no longer looks like the accepted runs "
        f"(score {m['score']}). Nothing was written to the store; the run is quarantined.",
        "",
        "## Failing fields",
        "",
    ]
    for name, evidence in m["failing_fields"].items():
        lines.append(f"- **{name}**")
        lines += [f"  - {e}" for e in evidence]
    lines += [f"- {s}" for s in m["structural"]]
    lines += [
        "",
        f"Last good snapshots: {len(m['last_good'])} (`last_good/`), "
        f"failing snapshots: {len(m['failing'])} (`failing/`).",
        "",
        "## Next",
        "",
        "```sh",
        m["next_command"],
        "```",
        "",
    ]
    return "\n".join(lines)
