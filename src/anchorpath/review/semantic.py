"""The semantic diff of two selector files: settings compared by meaning, not by text.

Pure: two :class:`~anchorpath.selectors.model.SelectorFile` models in, setting changes out.
Each scope (crawl, page type, field) is flattened from its canonical ``to_dict`` form into
dotted setting names, so a default spelled out on one side and left out on the other is no
change, and a reordered JSON object is none either. Key order of page types and fields
follows the new version, then what only the old one has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from anchorpath.review.model import FieldDiff, PageTypeDiff, SettingChange, Status
from anchorpath.selectors.model import FetchSpec, FieldSpec, Normalize, PageType, SelectorFile

__all__ = ["crawl_changes", "field_changes", "metadata_changes", "page_type_diffs"]

# Field settings shown in a review. ``examples`` are illustrations written by the author
# tooling, not behaviour: leaving them out keeps a repair's diff down to what extracts.
_FIELD_SKIP = frozenset({"examples"})
_DEFAULT_NORMALIZE = Normalize().to_dict()


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping) and value:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


def _flat(d: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _flatten("", d, out)
    return out


def _compare(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[Any]:
    a, b = _flat(old), _flat(new)
    out = []
    for name in [*b, *(k for k in a if k not in b)]:
        ov, nv = a.get(name), b.get(name)
        if _empty(ov) and _empty(nv):
            continue
        if ov != nv:
            out.append(SettingChange(prefix + name, None if _empty(ov) else ov, _nv(nv)))
    return out


def _nv(v: Any) -> Any:
    return None if _empty(v) else v


def _empty(v: Any) -> bool:
    return v is None or v == [] or v == {}


def _fetch_dict(f: FetchSpec | None) -> dict[str, Any]:
    if f is None:
        return {}
    return {"fetch": f.to_dict()}


def crawl_changes(old: SelectorFile | None, new: SelectorFile | None) -> tuple[SettingChange, ...]:
    """Crawl-wide settings: ``fetch.*`` (start URLs, allow/deny, pagination, caps, render,
    politeness) and the record ``key``."""
    a = _fetch_dict(old.fetch if old else None)
    b = _fetch_dict(new.fetch if new else None)
    if old is not None:
        a["key"] = list(old.key)
    if new is not None:
        b["key"] = list(new.key)
    return tuple(_compare(a, b))


def _field_dict(spec: FieldSpec | None, in_key: bool) -> dict[str, Any]:
    if spec is None:
        return {}
    d = {k: v for k, v in spec.to_dict().items() if k not in _FIELD_SKIP}
    # Spell out the defaults that matter to a reviewer, so "added" reads as a real change.
    d.setdefault("required", False)
    d["key"] = in_key
    norm = d.pop("normalize", {}) or {}
    for k, v in norm.items():
        if v != _DEFAULT_NORMALIZE.get(k):
            d[f"normalize.{k}"] = v
    return d


def field_changes(
    old: FieldSpec | None, new: FieldSpec | None, *, old_key: bool, new_key: bool
) -> tuple[SettingChange, ...]:
    """What differs between two versions of one field (``xpath``, ``anchor.*``, ``type``,
    ``normalize.*``, ``fallbacks``, ``robustness``, ``required``, ``key``, ``pattern``, ...).
    A field on one side only lists every setting of the side it is on."""
    return tuple(_compare(_field_dict(old, old_key), _field_dict(new, new_key)))


def _page_dict(pt: PageType | None) -> dict[str, Any]:
    if pt is None:
        return {}
    d = pt.to_dict()
    d.pop("fields", None)
    d["emit"] = pt.emit
    return d


def _status(old: object | None, new: object | None, changed: bool) -> Status:
    if old is None:
        return "added"
    if new is None:
        return "removed"
    return "changed" if changed else "unchanged"


def _names(new: Iterable[str], old: Iterable[str]) -> list[str]:
    names = list(new)
    return names + [n for n in old if n not in names]


def page_type_diffs(old: SelectorFile | None, new: SelectorFile | None) -> tuple[PageTypeDiff, ...]:
    """Every page type of either version with its setting changes and its fields' (no replay
    yet: :func:`anchorpath.review.diff.diff_versions` adds the replayed values)."""
    old_pts: Mapping[str, PageType] = old.page_types if old else {}
    new_pts: Mapping[str, PageType] = new.page_types if new else {}
    old_key = set(old.key) if old else set()
    new_key = set(new.key) if new else set()
    out = []
    for name in _names(new_pts, old_pts):
        opt, npt = old_pts.get(name), new_pts.get(name)
        changes = tuple(_compare(_page_dict(opt), _page_dict(npt)))
        ofields: Mapping[str, FieldSpec] = opt.fields if opt else {}
        nfields: Mapping[str, FieldSpec] = npt.fields if npt else {}
        fields = []
        for fname in _names(nfields, ofields):
            of, nf = ofields.get(fname), nfields.get(fname)
            fc = field_changes(
                of,
                nf,
                old_key=fname in old_key and bool(opt and opt.emit),
                new_key=fname in new_key and bool(npt and npt.emit),
            )
            fields.append(FieldDiff(name, fname, _status(of, nf, bool(fc)), fc))
        status = _status(opt, npt, bool(changes) or any(f.status != "unchanged" for f in fields))
        out.append(PageTypeDiff(name, status, changes, tuple(fields)))
    return tuple(out)


def _meta_dict(sf: SelectorFile | None) -> dict[str, Any]:
    if sf is None:
        return {}
    return {
        "version": sf.version,
        "parent_version": sf.parent_version,
        "created_at": sf.created_at,
        "site": sf.site.to_dict(),
        "provenance": {k: v for k, v in sf.provenance.to_dict().items() if k != "seeds"},
        "fixtures": len(sf.fixtures),
        "baseline": "present" if sf.baseline else None,
    }


def metadata_changes(
    old: SelectorFile | None, new: SelectorFile | None
) -> tuple[SettingChange, ...]:
    """Version, provenance, site details, number of golden fixtures, baseline presence."""
    return tuple(_compare(_meta_dict(old), _meta_dict(new)))
