"""What a repair reports (:class:`RepairResult`, its field changes and verification) and
how it is shown to a person: the semantic diff and the preview of the repaired file."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchorpath.selectors.model import Anchor, SelectorFile

#: Mismatches kept per field in a verification report (the rest are only counted).
MAX_MISMATCHES_PER_FIELD = 3


@dataclass(frozen=True)
class FieldChange:
    """One re-authored field: its XPath and anchor before and after."""

    page_type: str
    field: str
    old_xpath: str
    new_xpath: str
    old_anchor: Anchor | None = None
    new_anchor: Anchor | None = None
    robustness: float | None = None
    fallbacks: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.old_xpath != self.new_xpath


@dataclass(frozen=True)
class Mismatch:
    """A last good value the (repaired) selectors do not reproduce on a failing snapshot."""

    page_type: str
    field: str
    url: str
    key: str
    want: Any
    got: Any

    def describe(self) -> str:
        return (
            f"{self.page_type}.{self.field} on {self.url} (key {self.key}): "
            f"expected {_short(self.want)}, got {_short(self.got)}"
        )


@dataclass(frozen=True)
class Verification:
    """Whether a selector file extracts the last good records from the failing snapshots."""

    records_checked: int
    values_checked: int
    mismatches: tuple[Mismatch, ...] = ()
    mismatch_counts: Mapping[str, int] = field(default_factory=dict)  # "pt.field" -> count
    problems: tuple[str, ...] = ()  # e.g. required fields left empty on unmatched records

    @property
    def ok(self) -> bool:
        return self.records_checked > 0 and not self.mismatch_counts and not self.problems

    def reason(self) -> str:
        """Why the check failed, in one line (the first mismatch or problem, and a count)."""
        items = [m.describe() for m in self.mismatches] + list(self.problems)
        if not items:
            return "no last good record was checked" if not self.records_checked else "passed"
        more = sum(self.mismatch_counts.values()) + len(self.problems) - 1
        return items[0] + (f" (and {more} more)" if more > 0 else "")

    @property
    def failed_fields(self) -> tuple[str, ...]:
        """``page_type.field`` names that could not be reproduced, in first-seen order."""
        return tuple(self.mismatch_counts)


@dataclass(frozen=True)
class RepairResult:
    """What a repair found, changed and proved. ``adopted`` only if verification passed."""

    site: str
    bundle: Path
    old: SelectorFile
    new: SelectorFile
    broken: Mapping[str, tuple[str, ...]]  # page type -> fields the old XPaths get wrong
    changes: tuple[FieldChange, ...]
    record_roots: Mapping[str, tuple[str | None, str | None]]  # page type -> (old, new)
    verification: Verification
    matched: Mapping[str, int]  # page type -> matched records
    notes: tuple[str, ...] = ()
    verified_pages: tuple[str, ...] = ()  # failing snapshot URLs whose records were checked
    target: Path | None = None  # where it was (or would be) saved
    saved: SelectorFile | None = None  # what was written (None: dry run or not adopted)

    @property
    def adopted(self) -> bool:
        return self.verification.ok and bool(self.matched)

    @property
    def unreproduced(self) -> tuple[str, ...]:
        """Fields the repaired file could not reproduce (empty when adopted)."""
        out = list(self.verification.failed_fields)
        for p in self.verification.problems:
            m = re.match(r"field (\S+):", p)
            if m and m.group(1) not in out:
                out.append(m.group(1))
        return tuple(out)


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _anchor_text(a: Anchor | None) -> str:
    if a is None:
        return "no anchor"
    parts = [a.kind]
    if a.value:
        parts.append(repr(a.value))
    if a.attribute:
        parts.append(f"@{a.attribute}")
    return " ".join(parts)


def render_diff(result: RepairResult) -> list[str]:
    """The semantic per-field diff: old XPath → new XPath and anchors, record roots, checks."""
    lines = []
    for pt_name, (old_root, new_root) in result.record_roots.items():
        if old_root != new_root:
            lines += [f"{pt_name} record root:", f"  - {old_root}", f"  + {new_root}"]
    kept = {
        n: [
            f
            for f in result.old.page_types[n].fields
            if f not in {c.field for c in result.changes if c.page_type == n}
        ]
        for n in result.broken
    }
    for c in result.changes:
        if not c.changed:
            lines.append(f"{c.page_type}.{c.field}: NOT REPAIRED (old XPath kept: {c.old_xpath})")
            continue
        rob = f", robustness {c.robustness}" if c.robustness is not None else ""
        lines.append(
            f"{c.page_type}.{c.field}: anchor {_anchor_text(c.old_anchor)} → "
            f"{_anchor_text(c.new_anchor)}{rob}"
        )
        lines.append(f"  - {c.old_xpath}")
        lines.append(f"  + {c.new_xpath}")
        for fb in c.fallbacks:
            lines.append(f"    fallback {fb}")
    for n, names in kept.items():
        if names:
            lines.append(f"{n}: unchanged (still right): {', '.join(names)}")
    v = result.verification
    lines.append(
        f"verification: {v.records_checked} last good records, {v.values_checked} values on "
        f"{len(result.matched)} page type(s): "
        + ("all reproduced" if v.ok else f"{sum(v.mismatch_counts.values())} mismatches")
    )
    return lines
