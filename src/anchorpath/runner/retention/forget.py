"""``anchorpath forget SITE --key K ...``: a deletion request. The records' versions and
events leave the store; their pages' bodies leave the WARC archives (stubs keep the digest
and a deletion note); their values leave run reports, quarantines, bundles, checkpoints,
replays, the fetch cache, the LLM answer cache, golden fixtures and the selector file's
examples; the database is
compacted so no deleted byte stays in it. One append-only audit row says who, when, why, the
keyed hash of each key (never the key), counts and the files rewritten. A forgotten key is
never stored again, by ``run`` or ``replay --into store``
(:mod:`~anchorpath.runner.store.commit`)."""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath._errors import RunError
from anchorpath.fetch.cache import scrub_store
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.retention.needles import Needles, leaves
from anchorpath.runner.retention.scrub import remove_dirs, scrub_json, scrub_tree, scrub_value
from anchorpath.runner.run_types import now
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.runner.store.governance import add_deletion, key_hash
from anchorpath.selectors.load import (
    dump_selector_file,
    find_selector_file,
    history_dir,
    load_selector_file,
    parse_selector_data,
)

__all__ = ["ForgetResult", "forget_keys"]

_EVENTS_TRIGGER = (
    "CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events "
    "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END"
)


@dataclass(frozen=True)
class ForgetResult:
    """What ``forget`` removed (counts by kind) and which files it rewrote or removed."""

    site: str
    key_hashes: tuple[str, ...]
    counts: dict[str, int] = field(default_factory=dict)
    files: tuple[str, ...] = ()


def _rel(path: Path, *bases: Path) -> str:
    for base in bases:
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return str(path)


def _scrub_selectors(sf_path: Path, keys: set[str], needles: Needles) -> list[Path]:
    """Golden fixtures and seed snapshots that hold a deleted value go (their entries too);
    examples and baseline texts lose it, in every archived version as in the current file
    (in place: archiving the old text as a new version would keep it)."""
    changed: list[Path] = []
    data: dict[str, Any] = json.loads(sf_path.read_text(encoding="utf-8"))
    base = sf_path.parent
    fixtures = []
    for fx in data.get("fixtures", []):
        files = [base / fx["page"]] + ([base / fx["records"]] if fx.get("records") else [])
        if any(f.is_file() and needles.in_page(f.read_bytes(), None) for f in files):
            for f in files:
                if f.is_file():
                    f.unlink()
                    changed.append(f)
            continue
        fixtures.append(fx)
    data["fixtures"] = fixtures
    for seed in data.get("provenance", {}).get("seeds", []):
        snap = seed.get("snapshot")
        if snap and (base / snap).is_file() and needles.in_page((base / snap).read_bytes(), None):
            (base / snap).unlink()
            changed.append(base / snap)
            del seed["snapshot"]
    clean = scrub_value(data, keys, needles)
    if clean != json.loads(sf_path.read_text(encoding="utf-8")):
        sf = parse_selector_data(clean, str(sf_path))
        sf_path.write_text(dump_selector_file(sf), encoding="utf-8")
        changed.append(sf_path)
    hdir = history_dir(sf_path, str(data["site"]["id"]))
    if hdir.is_dir():
        for old in sorted(hdir.glob("v*.json")):
            if scrub_json(old, keys, needles):
                changed.append(old)
    return changed


def _leaks(needles: Needles, namespace: str, key: str, value: Any) -> bool:
    """Whether a cache entry names or quotes what is forgotten: its key, an LLM answer's data,
    or a kept page body (the fetcher keeps validators' bodies compressed)."""
    if needles.in_text(key) or needles.in_bytes(key.encode()):
        return True
    if isinstance(value, dict) and "data" in value:  # an LLM answer (authoring)
        return needles.in_text(json.dumps(value["data"], ensure_ascii=False))
    body = value.get("body") if isinstance(value, dict) else None
    if isinstance(body, bytes | bytearray):
        try:
            raw = zlib.decompress(bytes(body)) if namespace == "validators" else bytes(body)
        except zlib.error:
            raw = bytes(body)
        return needles.in_page(raw, None)
    return False


def forget_keys(
    *,
    state_dir: Path,
    selectors_dir: Path,
    cache_dir: Path,
    site: str,
    llm_cache_dir: Path | None = None,
    keys: Sequence[str],
    by: str,
    reason: str,
) -> ForgetResult:
    """Forget ``keys`` of ``site`` everywhere (see the module docstring). Raises RunError for
    an empty name or reason, an unknown key, or a site being run (its lock is held)."""
    if not by.strip() or not reason.strip():
        raise RunError("forget needs a name (--by) and a reason (--reason)")
    sf_path = find_selector_file(site, selectors_dir)
    sf = load_selector_file(sf_path)
    sid = sf.site.id
    wanted = set(keys)
    with SiteLock(state_dir, sid), Store(state_dir / DB_NAME) as store:
        rows = store.query("SELECT key, values_json FROM records WHERE site = ?", (sid,))
        in_events = {
            k for (k,) in store.query("SELECT DISTINCT key FROM events WHERE site = ?", (sid,))
        }
        known = {k for k, _ in rows} | in_events
        unknown = sorted(wanted - known)
        if unknown:
            raise RunError(
                f"site {sid!r}: no record or event with key(s) {', '.join(map(repr, unknown))}"
                " (keys are the values of the selector file's key fields, as `records` shows)"
            )
        mine = [json.loads(v) for k, v in rows if k in wanted]
        others = [json.loads(v) for k, v in rows if k not in wanted]
        shared = {t for values in others for t in leaves(values)}
        shared |= {k for k, _ in rows if k not in wanted}
        needles = Needles.of(wanted, [t for v in mine for t in leaves(v)], shared)
        hashes = tuple(key_hash(store, sid, k) for k in sorted(wanted))
        at = now()
        note = f"response deleted by anchorpath forget at {at} (audit: deletions table)"

        def stub_uri(url: str) -> str:
            if needles.in_text(url) or needles.in_bytes(url.encode()):
                return f"urn:anchorpath:forgotten:{key_hash(store, sid, url)[:32]}"
            return url

        files: list[Path] = []
        files += scrub_tree(state_dir / "runs" / sid, wanted, needles, stub_uri=stub_uri, note=note)
        replays = state_dir / "replays" / sid
        if replays.is_dir():
            leaking = [
                d
                for d in replays.iterdir()
                if d.is_dir()
                and any(needles.in_bytes(f.read_bytes()) for f in d.rglob("*") if f.is_file())
            ]
            files += remove_dirs(leaking)

        drop_cached = functools.partial(_leaks, needles)
        cached = scrub_store(cache_dir, drop_cached)
        if llm_cache_dir is not None:
            cached += scrub_store(llm_cache_dir, drop_cached)
        files += _scrub_selectors(sf_path, wanted, needles)
        # the store: versions, events, pages whose URL names a key, texts that quote a value
        marks = ",".join("?" * len(wanted))
        args = (sid, *sorted(wanted))
        n_records = store.query(
            f"SELECT COUNT(*) FROM records WHERE site = ? AND key IN ({marks})", args
        )[0][0]
        n_events = store.query(
            f"SELECT COUNT(*) FROM events WHERE site = ? AND key IN ({marks})", args
        )[0][0]
        page_rows = store.query(
            "SELECT run_id, url FROM pages WHERE run_id IN (SELECT id FROM runs WHERE site = ?)",
            (sid,),
        )
        pages = [(r, u) for r, u in page_rows if needles.in_text(u) or needles.in_bytes(u.encode())]
        run_rows = store.query("SELECT id, stats_json, error FROM runs WHERE site = ?", (sid,))
        statements: list[tuple[str, Sequence[Any]]] = [
            ("DROP TRIGGER IF EXISTS events_append_only_d", ()),
            (f"DELETE FROM events WHERE site = ? AND key IN ({marks})", args),
            (_EVENTS_TRIGGER, ()),
            (f"DELETE FROM records WHERE site = ? AND key IN ({marks})", args),
        ]
        statements += [("DELETE FROM pages WHERE run_id = ? AND url = ?", p) for p in pages]
        for run_id, stats, error in run_rows:
            texts = [t for t in (stats, error) if t]
            if any(needles.in_text(t) for t in texts):
                new_stats = (
                    json.dumps(scrub_value(json.loads(stats), wanted, needles), sort_keys=True)
                    if stats
                    else None
                )
                new_error = needles.redact(error) if error else None
                statements.append(
                    ("UPDATE runs SET stats_json = ?, error = ? WHERE id = ?",
                     (new_stats, new_error, run_id))
                )  # fmt: skip
        for stop_id, text in store.query("SELECT id, reason FROM stops WHERE site = ?", (sid,)):
            if needles.in_text(text):
                statements.append(
                    ("UPDATE stops SET reason = ? WHERE id = ?", (needles.redact(text), stop_id))
                )
        counts = {
            "keys": len(wanted),
            "record_versions": int(n_records),
            "events": int(n_events),
            "pages": len(pages),
            "files": len(files),
            "cache_entries": cached,
        }
        rels = [_rel(f, state_dir, selectors_dir) for f in files]
        statements.append(
            add_deletion(
                sid,
                at=at,
                by=by,
                reason=needles.redact(reason),
                kind="forget",
                key_hashes=hashes,
                counts=counts,
                files=[needles.redact(r) for r in rels],
            )
        )
        store.write(statements)
        store.compact()
    return ForgetResult(sid, hashes, counts, tuple(rels))
