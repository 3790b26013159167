"""Renderings of a :class:`~anchorpath.review.model.DiffReport`: terminal text, Markdown, JSON.

* ``render_text`` returns rich ``Text`` lines (colours in a terminal, plain text in a pipe);
* ``render_markdown`` is made for a pull-request comment: a summary line per file, the crawl
  and page-type settings as a table, one collapsible ``<details>`` per changed field with its
  setting changes and replayed value examples, cut at ``max_chars`` (GitHub refuses comments
  over 65,536 characters) with a note of what was left out;
* ``render_json`` is ``DiffReport.to_dict`` as text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from rich.text import Text

from anchorpath.review.model import (
    CATEGORIES,
    Category,
    DiffReport,
    FieldDiff,
    FileDiff,
    SettingChange,
)

__all__ = [
    "MD_LIMIT",
    "render_json",
    "render_markdown",
    "render_text",
    "show",
    "summary",
]

#: Default cap of the Markdown rendering, under GitHub's 65,536-character comment limit.
MD_LIMIT = 60_000
_VALUE_WIDTH = 80


def show(value: Any, width: int = _VALUE_WIDTH) -> str:
    """A value on one line: strings quoted, lists joined, long ones shortened with …"""
    if value is None:
        return "(none)"
    if isinstance(value, list | tuple):
        text = "[" + ", ".join(show(v, width) for v in value) + "]"
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = _escape_odd(" ".join(text.split()))
    return text if len(text) <= width else text[: width - 1] + "…"


def _escape_odd(text: str) -> str:
    """Characters JSON leaves as they are but a terminal acts on (C1 controls such as the
    8-bit CSI, bidi overrides, other non-printables) as ``\\uXXXX``: values come from pages."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in text)


def _short_url(url: str) -> str:
    """Path and query of a URL: the origin is the same on every page of a site."""
    parts = urlsplit(url)
    if not parts.netloc:
        return url
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _total(fd: FileDiff, category: Category) -> int:
    return sum(f.replay.delta(category).count for f in fd.changed_fields if f.replay)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _versions(fd: FileDiff) -> str:
    old = f"v{fd.old.version}" if fd.old else "(new file)"
    new = f"v{fd.new.version}" if fd.new else "(deleted)"
    return f"{old} → {new}"


def _records(fd: FileDiff) -> str:
    parts = [
        f"{p.name} {p.records.old} → {p.records.new}"
        for p in fd.page_types
        if p.records is not None
    ]
    return ", ".join(parts)


def _sources(fd: FileDiff) -> str:
    return ", ".join(
        f"{_plural(s.pages, 'page')} of {'the ' + s.label if s.kind == 'fixtures' else s.label}"
        for s in fd.sources
    )


def _setting_count(fd: FileDiff) -> int:
    return len(fd.settings) + sum(len(p.changes) for p in fd.page_types)


def summary(fd: FileDiff) -> str:
    """What changed in the file and what that does on the replayed pages (one line)."""
    if not fd.differs:
        out = "no difference in what is collected"
    else:
        bits = []
        if fd.changed_fields:
            bits.append(f"{_plural(len(fd.changed_fields), 'field')} changed")
        if _setting_count(fd):
            bits.append(f"{_plural(_setting_count(fd), 'setting')} changed")
        out = ", ".join(bits) or "changed"
    if fd.sources:
        out += (
            f"; replayed on {_sources(fd)}: {_plural(_total(fd, 'changed'), 'value')} changed, "
            f"{_total(fd, 'appeared')} appeared, {_total(fd, 'disappeared')} disappeared"
        )
        if _records(fd):
            out += f"; records {_records(fd)}"
    return out


def _change_text(c: SettingChange) -> str:
    if isinstance(c.old, list) or isinstance(c.new, list):
        old, new = list(c.old or []), list(c.new or [])
        added = [show(v, 200) for v in new if v not in old]
        removed = [show(v, 200) for v in old if v not in new]
        if not added and not removed:
            return f"{c.setting}: reordered {show(old, 200)} → {show(new, 200)}"
        return f"{c.setting}: " + " ".join([*(f"+{a}" for a in added), *(f"-{r}" for r in removed)])
    return f"{c.setting}: {show(c.old, 200)} → {show(c.new, 200)}"


def _field_head(f: FieldDiff) -> str:
    what = {"added": "new field", "removed": "field removed", "unchanged": "settings unchanged"}
    aspects = what.get(f.status) or ", ".join(dict.fromkeys(c.setting for c in f.changes))
    if f.replay is None:
        return f"{aspects} · not replayed (no page of this type)"
    r = f.replay
    return (
        f"{aspects} · {r.changed.count} changed, {r.appeared.count} appeared, "
        f"{r.disappeared.count} disappeared (of {_plural(r.compared, 'record')})"
    )


# -- text ------------------------------------------------------------------------------------


def render_text(report: DiffReport) -> list[Text]:
    """Lines for a terminal (rich styles) or a pipe (plain)."""
    lines: list[Text] = [Text(report.title, style="bold")]
    if not report.files:
        lines.append(Text("no selector file differs", style="green"))
    for fd in report.files:
        lines.append(Text())
        lines.append(
            Text.assemble(
                (fd.site, "bold cyan"),
                f"  {fd.path}  {_versions(fd)}  ",
                (f"({fd.old.label if fd.old else '-'} → {fd.new.label if fd.new else '-'})", "dim"),
            )
        )
        lines.append(Text("  " + summary(fd)))
        for c in fd.settings:
            lines.append(Text("  ~ " + _change_text(c), style="yellow"))
        for p in fd.page_types:
            for c in p.changes:
                lines.append(Text(f"  ~ page type {p.name}: " + _change_text(c), style="yellow"))
            if p.status in ("added", "removed"):
                lines.append(Text(f"  {'+' if p.status == 'added' else '-'} page type {p.name}"))
        for f in fd.changed_fields:
            mark = {"added": "+", "removed": "-"}.get(f.status, "~")
            lines.append(
                Text.assemble(f"  {mark} ", (f.qualified, "bold"), (f"  {_field_head(f)}", "dim"))
            )
            for c in f.changes:
                lines.append(Text("      " + _change_text(c)))
            if f.replay is None:
                continue
            for name in CATEGORIES:
                delta = f.replay.delta(name)
                for ex in delta.examples:
                    lines.append(
                        Text.assemble(
                            f"      {name:<11} {ex.record}: ",
                            (show(ex.old), "red"),
                            " → ",
                            (show(ex.new), "green"),
                            (f"  {ex.url}", "dim"),
                        )
                    )
                if delta.count > len(delta.examples):
                    more = delta.count - len(delta.examples)
                    lines.append(Text(f"      {'':<11} … {more} more {name}", style="dim"))
        if fd.metadata:
            meta = "; ".join(_change_text(c) for c in fd.metadata)
            lines.append(Text(f"  metadata: {meta}", style="dim"))
        for note in fd.notes:
            lines.append(Text(f"  note: {note}", style="magenta"))
    return lines


# -- Markdown ---------------------------------------------------------------------------------


def _md(value: str) -> str:
    """Text safe in a Markdown table cell and in HTML (``<details>``)."""
    return html.escape(value, quote=False).replace("|", "&#124;").replace("\n", " ")


def _code(value: Any) -> str:
    """A setting's value in a table cell: in full (XPaths are what a reviewer reads), a list
    one item per line."""
    if value is None:
        return "_(none)_"
    if isinstance(value, list | tuple):
        return "<br>".join(_code(v) for v in value) if value else "_(empty)_"
    text = value if isinstance(value, str) else show(value, 2000)
    return f"<code>{_md(text)}</code>"


def _md_value(value: Any) -> str:
    return _md(show(value)) if value is not None else "_(none)_"


def _settings_table(rows: Sequence[tuple[str, SettingChange]]) -> list[str]:
    out = ["| scope | setting | old | new |", "| --- | --- | --- | --- |"]
    for scope, c in rows:
        out.append(f"| {_md(scope)} | {_md(c.setting)} | {_code(c.old)} | {_code(c.new)} |")
    return out


def _field_block(f: FieldDiff) -> str:
    lines = [
        f"<details><summary><code>{_md(f.qualified)}</code>: {_md(_field_head(f))}</summary>",
        "",
    ]
    if f.changes:
        lines += ["| setting | old | new |", "| --- | --- | --- |"]
        lines += [f"| {_md(c.setting)} | {_code(c.old)} | {_code(c.new)} |" for c in f.changes]
        lines.append("")
    if f.replay is not None:
        for name in CATEGORIES:
            delta = f.replay.delta(name)
            if not delta.count:
                continue
            shown = len(delta.examples)
            more = f", {shown} shown" if delta.count > shown else ""
            lines += [
                f"**{name}** ({delta.count}{more})",
                "",
                "| record | old | new | page |",
                "| --- | --- | --- | --- |",
            ]
            for ex in delta.examples:
                lines.append(
                    f"| {_md(ex.record)} | {_md_value(ex.old)} | {_md_value(ex.new)} "
                    f"| {_md(_short_url(ex.url))} |"
                )
            lines.append("")
    lines += ["</details>", ""]
    return "\n".join(lines)


def _label(label: str) -> str:
    """A version's label (a file name from the pull request) as inline code that no backtick
    in it can end early."""
    return f"`{label}`" if "`" not in label else f"<code>{_md(label)}</code>"


def _file_head(fd: FileDiff) -> str:
    old = _label(fd.old.label) if fd.old else "(none)"
    new = _label(fd.new.label) if fd.new else "(none)"
    lines = [f"#### `{fd.site}` {_versions(fd)}", "", f"{old} → {new}", ""]
    lines += [f"**{_md(summary(fd))}**", ""]
    rows = [("crawl", c) for c in fd.settings]
    rows += [(f"page type {p.name}", c) for p in fd.page_types for c in p.changes]
    rows += [
        (
            f"page type {p.name}",
            SettingChange(
                "page type",
                None if p.status == "added" else p.name,
                None if p.status == "removed" else p.name,
            ),
        )
        for p in fd.page_types
        if p.status in ("added", "removed")
    ]
    if rows:
        lines += [*_settings_table(rows), ""]
    if fd.metadata:
        meta = "; ".join(_md(_change_text(c)) for c in fd.metadata)
        lines += [f"<sub>metadata: {meta}</sub>", ""]
    lines += [f"> note: {_md(n)}" for n in fd.notes]
    if fd.notes:
        lines.append("")
    return "\n".join(lines)


def render_markdown(report: DiffReport, *, max_chars: int = MD_LIMIT) -> str:
    """Markdown for a pull-request comment, at most ``max_chars`` characters."""
    differing = [f for f in report.files if f.differs]
    if not report.files or not differing:
        head = f"### {report.title}\n\nNo difference in what the selector files collect.\n"
        return head[:max_chars]
    head = (
        f"### {report.title}\n\n"
        f"**{_plural(len(differing), 'selector file')} of {len(report.files)} compared "
        f"change{'s' if len(differing) == 1 else ''} what is collected.**\n\n"
    )
    blocks: list[tuple[str, str]] = []  # (what it is, text)
    for fd in report.files:
        blocks.append((f"file {fd.site}", _file_head(fd).rstrip("\n") + "\n\n"))
        blocks += [(f.qualified, _field_block(f).rstrip("\n") + "\n\n") for f in fd.changed_fields]
    reserve = 600  # room for the note on what was cut
    out, used = [head], len(head)
    cut: list[str] = []
    for what, text in blocks:
        if not cut and used + len(text) + reserve <= max_chars:
            out.append(text)
            used += len(text)
        else:
            cut.append(what)
    if cut:
        names = ", ".join(cut[:12]) + (f" and {len(cut) - 12} more" if len(cut) > 12 else "")
        out.append(
            f"\n_… cut to stay under {max_chars:,} characters: {_plural(len(cut), 'section')} "
            f"not shown ({_md(names)}). Run the same `anchorpath diff` locally for all of it._\n"
        )
    return "".join(out)[:max_chars]


# -- JSON -------------------------------------------------------------------------------------


def render_json(report: DiffReport) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n"
