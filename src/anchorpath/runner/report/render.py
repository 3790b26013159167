"""Per-run report files: ``report.json``, ``report.md`` and a self-contained ``report.html``.

:func:`write_reports` takes one :class:`~anchorpath.runner.report.model.RunReport` (the
pipeline builds it; ``accept`` changes it) and renders it three ways, reading nothing else, in
the order a person reads them: the verdict and its reason, the counts, the events, duplicate
keys and the drift gate's reasons first; statistics, politeness counters and errors after.
The HTML report has no external references: no scripts, fonts, stylesheets or images from
anywhere; plots are inline SVG.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from anchorpath._errors import RunError
from anchorpath.runner.drift.stats import FieldStats, RunStats
from anchorpath.runner.policy.header import header_html, header_markdown
from anchorpath.runner.report.model import RunReport
from anchorpath.runner.store.database import Event

__all__ = ["render_html", "render_markdown", "report_json", "write_reports"]

#: Field statistics shown in the tables and plotted over recent runs.
_COLUMNS = (
    ("count", "records"),
    ("empty_ratio", "empty"),
    ("len_mean", "mean len"),
    ("numeric_share", "numeric"),
    ("date_share", "date"),
    ("distinct_ratio", "distinct"),
    ("pattern_share", "pattern"),
    ("anchor_share", "anchor"),
)
_PLOTTED = ("empty_ratio", "len_mean", "distinct_ratio")


def _field_summary(f: FieldStats) -> dict[str, float | None]:
    """The headline numbers of one field's statistics (``None``: nothing to divide by)."""
    count, filled = f.count, f.filled

    def share(x: int | None, n: int) -> float | None:
        return round(x / n, 4) if n and x is not None else None

    return {
        "count": count,
        "empty_ratio": round(1 - filled / count, 4) if count else None,
        "len_mean": round(f.len_mean, 2) if filled else None,
        "numeric_share": share(f.numeric, filled),
        "date_share": share(f.dates, filled),
        "distinct_ratio": share(f.distinct, filled),
        "pattern_share": share(f.pattern_ok, filled),
        "anchor_share": share(f.anchor_present, f.anchor_pages),
    }


def _fields_of(
    stats: RunStats | None, qualify: bool | None = None
) -> dict[str, dict[str, float | None]]:
    """``{field or page_type.field: summary}`` of one run's statistics (names qualified when
    it has several page types, or as ``qualify`` says: history follows the current run)."""
    if stats is None:
        return {}
    pts = stats.page_types
    if qualify is None:
        qualify = len(pts) > 1
    out = {}
    for pt_name, pt in pts.items():
        for fname, fd in pt.fields.items():
            out[f"{pt_name}.{fname}" if qualify else fname] = _field_summary(fd)
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) >= 10 else f"{v:.3f}".rstrip("0").rstrip(".") or "0"
    return str(v)


def _event_line(ev: Event) -> tuple[str, str, str]:
    """Kind, key and what changed (a new record: its values as they are)."""
    if ev.kind == "new":
        detail = "; ".join(f"{k}: {_short(n)}" for k, (_o, n) in ev.fields.items())
    else:
        detail = "; ".join(f"{k}: {_short(o)} → {_short(n)}" for k, (o, n) in ev.fields.items())
    return ev.kind, ev.key, detail


def _short(v: Any, limit: int = 80) -> str:
    text = "" if v is None else str(v)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------------------------
# Markdown


_DUPLICATES_NOTE = (
    "Different records carried the same key in this run: they were not merged and not stored "
    "(each key keeps its stored version). The selector file's key does not identify one "
    "record; choose another key."
)


_CHARSET_NOTE = (
    "The charset these pages declare (HTTP Content-Type) does not decode their bytes, another "
    "one does: their text values hold U+FFFD replacement characters, which is what breaks "
    "their schema, not the selectors. Ask the site to fix the header."
)
_EXTRACTION_NOTE = (
    "Values were still produced, but an XPath matched more than it should (the first node "
    "was used) or an element with markup inside where a text was expected. Tighten the field's "
    "XPath (anchorpath author edit) if the value read is not the one meant."
)


def _duplicates_markdown(report: RunReport) -> list[str]:
    if not report.duplicates:
        return []
    lines = ["", f"## Duplicate keys ({len(report.duplicates)})", "", _DUPLICATES_NOTE, ""]
    lines += [f"- **{d.key}**: {', '.join(d.pages)}" for d in report.duplicates]
    return lines


def _drift_head(report: RunReport) -> str:
    d = report.drift
    assert d is not None
    return f"score {round(d.score, 3)} (threshold {d.threshold}, {d.baseline_runs} baseline runs)"


def render_markdown(report: RunReport) -> str:
    """The report as Markdown (for terminals, mail and chat)."""
    lines = [
        f"# anchorpath run {report.run_id} — {report.site}",
        "",
        *header_markdown(report.policy),
        f"**Verdict: {report.verdict}**",
        "",
    ]
    lines += [f"- {k}: {v}" for k, v in report.meta()]
    counts = report.counts.to_dict()
    lines += ["", "## Counts", "", "| what | n |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in counts.items()]
    events = report.events
    if events:
        lines += ["", f"## Events ({len(events)})", "", "| kind | key | changes |", "|---|---|---|"]
        for ev in events:
            kind, key, detail = _event_line(ev)
            lines.append(f"| {kind} | {key} | {detail.replace('|', '/')} |")
    lines += _duplicates_markdown(report)
    charset = report.charset
    if charset:
        lines += ["", f"## Charset mismatch ({len(charset)} pages)", "", _CHARSET_NOTE, ""]
        lines += [f"- {c}" for c in charset]
    if report.extraction:
        n = len(report.extraction)
        lines += ["", f"## Extraction notes ({n})", "", _EXTRACTION_NOTE, ""]
        lines += [f"- {x}" for x in report.extraction]
    drift = report.drift
    if drift is not None:
        lines += ["", "## Drift gate", "", _drift_head(report)]
        for fname, evidence in drift.fields.items():
            lines.append(f"- **{fname}**")
            lines += [f"  - {e}" for e in evidence]
        lines += [f"- {s}" for s in drift.structural]
        lines += [f"- note: {s}" for s in drift.notes]
    fields = _fields_of(report.field_stats)
    if fields:
        scores = drift.field_scores if drift is not None else {}
        lines += [
            "",
            "## Field statistics",
            "",
            "| field | " + " | ".join(c[1] for c in _COLUMNS) + " | score |",
            "|---" * (len(_COLUMNS) + 2) + "|",
        ]
        for fname, s in fields.items():
            score = scores.get(fname)
            lines.append(
                f"| {fname} | "
                + " | ".join(_fmt(s[c[0]]) for c in _COLUMNS)
                + f" | {_fmt(None if score is None else round(score, 3))} |"
            )
    if report.change_rate is not None:
        lines += ["", "## Change rate", ""]
        lines += [f"- {k}: {v}" for k, v in report.change_rate.to_dict().items()]
    if report.fetch:
        lines += ["", "## Politeness counters", ""]
        lines += [f"- {k}: {v}" for k, v in report.fetch.items()]
    if report.errors:
        lines += ["", f"## Errors ({len(report.errors)})", ""]
        lines += [f"- {e}" for e in report.errors]
    if report.paths:
        lines += ["", "## Files", ""]
        lines += [f"- {k}: `{v}`" for k, v in report.paths.items()]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 7px;
text-align:left;vertical-align:top}th{background:#f4f4f4}td.n{text-align:right}
.ok,.accepted{color:#176317}.drift,.blocked,.error,.stopped{color:#a31515}.empty-source{color:#8a5b00}
.verdict{font-size:1.3em;font-weight:bold}.bad{background:#fde8e8}.ev{font-size:.9em;color:#555}
svg{vertical-align:middle}
"""


def _sparkline(values: Sequence[float | None], width: int = 110, height: int = 26) -> str:
    """A tiny inline SVG line over the baseline runs; the last point (this run) in red."""
    pts = [(i, v) for i, v in enumerate(values) if v is not None]
    if not pts:
        return ""
    lo = min(v for _, v in pts)
    hi = max(v for _, v in pts)
    span = hi - lo or 1.0
    n = max(len(values) - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return 3 + i * (width - 6) / n, height - 3 - (v - lo) * (height - 6) / span

    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, v) for i, v in pts))
    last_i, last_v = pts[-1]
    lx, ly = xy(last_i, last_v)
    is_current = last_i == len(values) - 1
    title = html.escape(" → ".join(_fmt(v) for v in values))
    return (
        f'<svg width="{width}" height="{height}" role="img"><title>{title}</title>'
        f'<polyline fill="none" stroke="#4a6fa5" stroke-width="1.5" points="{coords}"/>'
        f'<circle cx="{lx:.1f}" cy="{ly:.1f}" r="2.5" '
        f'fill="{"#c0392b" if is_current else "#4a6fa5"}"/></svg>'
    )


def _baseline_note(values: Sequence[float | None]) -> str:
    """The baseline's mean of one statistic, shown small under this run's value."""
    xs = [v for v in values if v is not None]
    if not xs:
        return ""
    return f'<br><span class="ev">base {_h(round(sum(xs) / len(xs), 3))}</span>'


def _h(v: Any) -> str:
    return html.escape(_fmt(v) if not isinstance(v, str) else v)


def _file_links(value: str, base: Path | None) -> str:
    """Links to the run's files (the WARC value lists its segments, comma-separated): relative
    to ``base``, the report's directory, so they resolve wherever the state directory is
    copied or served; absolute ``file:`` URLs without one."""
    links = []
    for part in value.split(", "):
        path = Path(os.path.abspath(part))  # a relative path is the run's working directory's
        if base is not None:
            href = quote(Path(os.path.relpath(path, base)).as_posix())
        else:
            href = path.as_uri()
        links.append(f'<a href="{html.escape(href)}"><code>{html.escape(part)}</code></a>')
    return ", ".join(links)


def render_html(report: RunReport, *, base: Path | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS and SVG, no external URLs; the
    run's files are linked relative to ``base``, the directory the report is written to)."""
    verdict = report.verdict
    title = f"anchorpath run {report.run_id} — {report.site}"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        *header_html(report.policy),
        f'<p class="verdict {html.escape(verdict)}">Verdict: {html.escape(verdict)}</p>',
    ]
    meta = report.meta()
    if meta:
        out.append("<table>")
        out += [f"<tr><th>{_h(k)}</th><td class=n>{_h(v)}</td></tr>" for k, v in meta]
        out.append("</table>")
    counts = report.counts.to_dict()
    # One row of counts across the page: the events below stay above the fold.
    out.append('<table class="counts"><tr>')
    out += [f"<th>{_h(k)}</th>" for k in counts]
    out.append("</tr><tr>")
    out += [f"<td class=n>{_h(v)}</td>" for v in counts.values()]
    out.append("</tr></table>")
    events = report.events
    out.append(f"<h2>Events ({len(events)})</h2>")
    if events:
        out.append("<table><tr><th>kind</th><th>key</th><th>changes</th></tr>")
        for ev in events:
            kind, key, detail = _event_line(ev)
            out.append(
                f"<tr><td>{html.escape(kind)}</td><td>{html.escape(key)}</td>"
                f"<td>{html.escape(detail)}</td></tr>"
            )
        out.append("</table>")
    else:
        out.append("<p>none</p>")
    out += _html_list(
        f"Charset mismatch ({len(report.charset)} pages)", _CHARSET_NOTE, report.charset
    )
    out += _html_list(
        f"Extraction notes ({len(report.extraction)})", _EXTRACTION_NOTE, report.extraction
    )
    if report.duplicates:
        out.append(f"<h2>Duplicate keys ({len(report.duplicates)})</h2>")
        out.append(f"<p class=ev>{html.escape(_DUPLICATES_NOTE)}</p><ul>")
        for d in report.duplicates:
            out.append(f"<li><b>{_h(d.key)}</b>: {html.escape(', '.join(d.pages))}</li>")
        out.append("</ul>")
    out += _html_drift(report)
    out += _html_fields(report)
    out += _html_files(report, base)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _html_list(title: str, note: str, items: Sequence[str]) -> list[str]:
    """A section of notes about some pages (none: no section)."""
    if not items:
        return []
    out = [f"<h2>{html.escape(title)}</h2>", f"<p class=ev>{html.escape(note)}</p><ul>"]
    return [*out, *(f"<li>{html.escape(x)}</li>" for x in items), "</ul>"]


def _html_drift(report: RunReport) -> list[str]:
    """The drift gate's section: score, the fields and structure it flagged, its notes."""
    out: list[str] = []
    drift = report.drift
    if drift is not None:
        out.append("<h2>Drift gate</h2>")
        out.append(f"<p>{html.escape(_drift_head(report))}</p>")
        if drift.fields or drift.structural:
            out.append("<ul>")
            for fname, evidence in drift.fields.items():
                items = "".join(f"<li>{html.escape(str(e))}</li>" for e in evidence)
                out.append(f"<li><b>{html.escape(fname)}</b><ul>{items}</ul></li>")
            out += [f"<li>{html.escape(str(s))}</li>" for s in drift.structural]
            out.append("</ul>")
        out += [f'<p class="ev">{html.escape(str(s))}</p>' for s in drift.notes]

    return out


def _html_fields(report: RunReport) -> list[str]:
    """Each field's statistics against the baseline, with their plots."""
    out: list[str] = []
    drift = report.drift
    current = _fields_of(report.field_stats)
    if current:
        qualify = report.field_stats is not None and len(report.field_stats.page_types) > 1
        history = [_fields_of(h, qualify) for h in report.baseline_history]
        scores = drift.field_scores if drift is not None else {}
        flagged = drift.fields if drift is not None else {}
        out.append("<h2>Field statistics against the baseline</h2>")
        out.append(
            "<p class=ev>Under each value: the mean over the baseline runs. Each plot shows "
            "the baseline runs (oldest first) and this run (red dot); hover for the values.</p>"
        )
        head = "".join(f"<th>{html.escape(c[1])}</th>" for c in _COLUMNS)
        plots = "".join(f"<th>{html.escape(p.replace('_', ' '))}</th>" for p in _PLOTTED)
        out.append(f"<table><tr><th>field</th>{head}<th>score</th>{plots}</tr>")
        for fname, s in current.items():
            cls = ' class="bad"' if fname in flagged else ""
            cells = "".join(
                f"<td class=n>{_h(s[c[0]])}"
                f"{_baseline_note([h.get(fname, {}).get(c[0]) for h in history])}</td>"
                for c in _COLUMNS
            )
            series = "".join(
                "<td>"
                + _sparkline([h.get(fname, {}).get(p) for h in history] + [s.get(p)])
                + "</td>"
                for p in _PLOTTED
            )
            score = scores.get(fname)
            out.append(
                f"<tr{cls}><td>{html.escape(fname)}</td>{cells}"
                f"<td class=n>{_h(None if score is None else round(score, 3))}</td>{series}</tr>"
            )
        out.append("</table>")

    return out


def _html_files(report: RunReport, base: Path | None) -> list[str]:
    """Change rate, politeness counters, errors and the run's files."""
    out: list[str] = []
    if report.change_rate is not None:
        out.append("<h2>Change rate</h2><table>")
        rate = report.change_rate.to_dict().items()
        out += [f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in rate]
        out.append("</table>")
    out.append("<h2>Politeness counters</h2>")
    if report.fetch:
        out.append("<table>")
        out += [
            f"<tr><th>{_h(k)}</th><td class=n>{_h(v)}</td></tr>" for k, v in report.fetch.items()
        ]
        out.append("</table>")
    else:
        out.append("<p>none</p>")
    out.append(f"<h2>Errors ({len(report.errors)})</h2>")
    if report.errors:
        out.append("<ul>" + "".join(f"<li>{html.escape(e)}</li>" for e in report.errors) + "</ul>")
    if report.paths:
        out.append("<h2>Files</h2><ul>")
        out += [f"<li>{_h(k)}: {_file_links(v, base)}</li>" for k, v in report.paths.items()]
        out.append("</ul>")
    return out


#: Compact, C-accelerated (no ``indent``); stateless, so shared by every thread.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


def _json_at(value: Any, levels: int, pad: str) -> str:
    inner = pad + "  "
    if levels > 0 and isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        items = [
            f"{inner}{_ENCODER.encode(k)}: {_json_at(v, levels - 1, inner)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if levels > 0 and isinstance(value, list | tuple) and value:
        items = [f"{inner}{_json_at(v, levels - 1, inner)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return _ENCODER.encode(value)


def report_json(data: dict[str, Any], levels: int = 2) -> str:
    """``data`` (a report's :meth:`~RunReport.to_dict`) as JSON: the first ``levels`` levels
    one entry a line (indented by two), anything deeper on the line of its key.

    Parsed, it is exactly ``json.dumps(data, indent=2, default=str)``. The field statistics
    and their baseline history make most of a report, and ``indent`` would send all of it
    through the json module's pure-Python encoder (its C encoder only writes without indent):
    that cost ~1.5 ms of CPU per run and site, under the GIL, for every site of ``run --all``.
    """
    return _json_at(data, levels, "") + "\n"


def write_reports(run_dir: Path, report: RunReport) -> None:
    """Write ``report.json``, ``report.md`` and ``report.html`` into ``run_dir`` (created)."""
    run_dir = Path(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "report.json").write_text(report_json(report.to_dict()), encoding="utf-8")
        (run_dir / "report.md").write_text(render_markdown(report), encoding="utf-8")
        (run_dir / "report.html").write_text(
            render_html(report, base=run_dir.resolve()), encoding="utf-8"
        )
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write the run report: {exc}") from exc
