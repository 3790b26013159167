"""Per-run report files: ``report.json``, ``report.md`` and a self-contained ``report.html``.

:func:`write_reports` takes one *summary* dict (JSON-ready; the pipeline builds it) and renders
it three ways, in the order a person reads them: the verdict and its reason, the counts, the
events, duplicate keys and the drift gate's reasons first; statistics, politeness counters and
errors after. The HTML report has no external references: no scripts, fonts, stylesheets or
images from anywhere; plots are inline SVG.

Summary keys (all optional except ``run_id``, ``site`` and ``verdict``; unknown keys are kept in
``report.json`` and ignored by the renderers):

``run_id`` (str)
    The run's id.
``site`` (str)
    The site id of the selector file.
``verdict`` (str)
    ``ok`` | ``drift`` | ``blocked`` | ``empty-source`` | ``error`` | ``accepted`` (a drift
    run a person accepted later: ``accepted_by`` and ``accepted_at`` say who and when,
    ``drift_verdict`` keeps the gate's verdict, ``reason`` its one-line why).
``policy`` (dict)
    What the report opens with: ``basis``, ``robots`` (per origin: fetch time, sha256),
    ``terms``, ``completion`` (rate, formula, robots-excluded and gone URLs) and ``stop``
    (:class:`anchorpath.runner.policy.header.PolicyHeader`).
``reason`` (str)
    One line on why the verdict is what it is (e.g. ``drift: applicant, date``).
``selector_version`` (int)
    Version of the selector file the run used.
``resumed`` / ``complete`` (bool)
    Whether the run resumed a checkpoint, and whether its crawl of the listing was complete.
``started_at`` / ``finished_at`` (str)
    ISO 8601 times.
``counts`` (dict[str, int])
    E.g. ``pages``, ``records``, ``flagged``, ``new``, ``changed``, ``withdrawn``, ``unchanged``.
``events`` (list[dict])
    ``{"kind": "new"|"changed"|"withdrawn", "key": str, "changes": {field: [old, new]}}``;
    ``changes`` only for ``changed``; a ``new`` event has ``values`` (``{field: value}``).
``charset`` (list[str])
    ``"URL: declared X, but the bytes are Y ..."`` per page whose charset does not fit.
``extraction`` (list[str])
    What extraction coerced or guessed: ``"field 'x': XPath returned 2 elements; first used
    (on N page(s), first URL)"``.
``duplicates`` (list[dict])
    ``{"key": str, "pages": [url, ...]}``: keys that different records carried in one run.
``drift`` (dict)
    :meth:`anchorpath.runner.drift.check.DriftResult.to_dict` of the gate's result.
``field_stats`` (dict)
    :meth:`anchorpath.runner.drift.check.RunStats.to_dict` of this run.
``baseline_history`` (list[dict])
    ``RunStats.to_dict()`` of the baseline window, oldest first (plotted with this run).
``fetch`` (dict[str, int | float])
    Politeness counters of the fetcher (requests, 304s, retries, robots denials, waits, ...).
``errors`` (list[str | dict])
    One line per error, or ``{"url": ..., "message": ...}``.
``change_rate`` (dict)
    ``lambda_hat`` (per day), ``lambda_recent``, ``runs``, ``burst`` (bool), ``silent_stop``
    (bool), ``note`` (str).
``paths`` (dict[str, str])
    Where things went: ``warc``, ``database``, ``bundle``, ``quarantine``, ...
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from anchorpath._errors import RunError
from anchorpath.runner.policy.header import header_html, header_markdown

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
_META = (
    "reason",
    "selector_version",
    "renderer",
    "started_at",
    "finished_at",
    "resumed",
    "complete",
    "accepted_by",
    "accepted_at",
)


def _field_summary(d: Mapping[str, Any]) -> dict[str, float | None]:
    """The headline numbers of one serialised FieldStats (mirrors ``FieldStats.summary``)."""
    count = d.get("count", 0) or 0
    filled = d.get("filled", 0) or 0

    def share(x: Any, n: int) -> float | None:
        return round(x / n, 4) if n and x is not None else None

    return {
        "count": count,
        "empty_ratio": round(1 - filled / count, 4) if count else None,
        "len_mean": round(d.get("len_mean", 0.0), 2) if filled else None,
        "numeric_share": share(d.get("numeric"), filled),
        "date_share": share(d.get("dates"), filled),
        "distinct_ratio": share(d.get("distinct"), filled),
        "pattern_share": share(d.get("pattern_ok"), filled),
        "anchor_share": share(d.get("anchor_present"), d.get("anchor_pages", 0) or 0),
    }


def _fields_of(
    stats: Mapping[str, Any] | None, qualify: bool | None = None
) -> dict[str, dict[str, float | None]]:
    """``{field or page_type.field: summary}`` of one serialised RunStats (names qualified
    when it has several page types, or as ``qualify`` says: history follows the current run)."""
    if not stats:
        return {}
    pts = stats.get("page_types", {})
    if qualify is None:
        qualify = len(pts) > 1
    out = {}
    for pt_name, pt in pts.items():
        for fname, fd in pt.get("fields", {}).items():
            out[f"{pt_name}.{fname}" if qualify else fname] = _field_summary(fd)
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) >= 10 else f"{v:.3f}".rstrip("0").rstrip(".") or "0"
    return str(v)


def _event_line(ev: Mapping[str, Any]) -> tuple[str, str, str]:
    changes = ev.get("changes") or {}
    detail = "; ".join(
        f"{k}: {_short(v[0])} → {_short(v[1])}"
        if isinstance(v, Sequence) and not isinstance(v, str) and len(v) == 2
        else f"{k}: {_short(v)}"
        for k, v in changes.items()
    )
    values = ev.get("values") or {}
    if values:  # a new record: its values as they are
        detail = "; ".join(f"{k}: {_short(v)}" for k, v in values.items())
    return str(ev.get("kind", "")), str(ev.get("key", "")), detail


def _short(v: Any, limit: int = 80) -> str:
    text = "" if v is None else str(v)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_line(e: Any) -> str:
    if isinstance(e, Mapping):
        where = e.get("url") or e.get("where") or ""
        return f"{where}: {e.get('message', '')}" if where else str(e.get("message", e))
    return str(e)


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


def _duplicates_markdown(duplicates: Sequence[Mapping[str, Any]]) -> list[str]:
    if not duplicates:
        return []
    lines = ["", f"## Duplicate keys ({len(duplicates)})", "", _DUPLICATES_NOTE, ""]
    for d in duplicates:
        pages = ", ".join(str(p) for p in d.get("pages", []))
        lines.append(f"- **{d.get('key')}**: {pages}")
    return lines


def render_markdown(summary: Mapping[str, Any]) -> str:
    """The report as Markdown (for terminals, mail and chat)."""
    lines = [
        f"# anchorpath run {summary.get('run_id', '?')} — {summary.get('site', '?')}",
        "",
        *header_markdown(summary.get("policy")),
        f"**Verdict: {summary.get('verdict', '?')}**",
        "",
    ]
    meta = [(k, summary.get(k)) for k in _META if summary.get(k) is not None]
    lines += [f"- {k}: {v}" for k, v in meta]
    counts = summary.get("counts") or {}
    if counts:
        lines += ["", "## Counts", "", "| what | n |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in counts.items()]
    events = summary.get("events") or []
    if events:
        lines += ["", f"## Events ({len(events)})", "", "| kind | key | changes |", "|---|---|---|"]
        for ev in events:
            kind, key, detail = _event_line(ev)
            lines.append(f"| {kind} | {key} | {detail.replace('|', '/')} |")
    lines += _duplicates_markdown(summary.get("duplicates") or [])
    charset = summary.get("charset") or []
    if charset:
        lines += ["", f"## Charset mismatch ({len(charset)} pages)", "", _CHARSET_NOTE, ""]
        lines += [f"- {c}" for c in charset]
    extraction = summary.get("extraction") or []
    if extraction:
        lines += ["", f"## Extraction notes ({len(extraction)})", "", _EXTRACTION_NOTE, ""]
        lines += [f"- {n}" for n in extraction]
    drift = summary.get("drift") or {}
    if drift:
        lines += [
            "",
            "## Drift gate",
            "",
            f"score {drift.get('score', 0)} (threshold {drift.get('threshold', '?')}, "
            f"{drift.get('baseline_runs', 0)} baseline runs)",
        ]
        for fname, evidence in (drift.get("fields") or {}).items():
            lines.append(f"- **{fname}**")
            lines += [f"  - {e}" for e in evidence]
        lines += [f"- {s}" for s in drift.get("structural") or []]
        lines += [f"- note: {s}" for s in drift.get("notes") or []]
    fields = _fields_of(summary.get("field_stats"))
    if fields:
        scores = drift.get("field_scores") or {}
        lines += [
            "",
            "## Field statistics",
            "",
            "| field | " + " | ".join(c[1] for c in _COLUMNS) + " | score |",
            "|---" * (len(_COLUMNS) + 2) + "|",
        ]
        for fname, s in fields.items():
            lines.append(
                f"| {fname} | "
                + " | ".join(_fmt(s[c[0]]) for c in _COLUMNS)
                + f" | {_fmt(scores.get(fname))} |"
            )
    rate = summary.get("change_rate") or {}
    if rate:
        lines += ["", "## Change rate", ""]
        lines += [f"- {k}: {v}" for k, v in rate.items()]
    fetch = summary.get("fetch") or {}
    if fetch:
        lines += ["", "## Politeness counters", ""]
        lines += [f"- {k}: {v}" for k, v in fetch.items()]
    errors = summary.get("errors") or []
    if errors:
        lines += ["", f"## Errors ({len(errors)})", ""]
        lines += [f"- {_error_line(e)}" for e in errors]
    paths = summary.get("paths") or {}
    if paths:
        lines += ["", "## Files", ""]
        lines += [f"- {k}: `{v}`" for k, v in paths.items()]
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


def render_html(summary: Mapping[str, Any], *, base: Path | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS and SVG, no external URLs; the
    run's files are linked relative to ``base``, the directory the report is written to)."""
    verdict = str(summary.get("verdict", "?"))
    title = f"anchorpath run {summary.get('run_id', '?')} — {summary.get('site', '?')}"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        *header_html(summary.get("policy")),
        f'<p class="verdict {html.escape(verdict)}">Verdict: {html.escape(verdict)}</p>',
    ]
    meta = [(k, v) for k, v in ((k, summary.get(k)) for k in _META) if v is not None]
    if meta:
        out.append("<table>")
        out += [f"<tr><th>{_h(k)}</th><td class=n>{_h(v)}</td></tr>" for k, v in meta]
        out.append("</table>")
    counts = summary.get("counts") or {}
    if counts:
        # One row of counts across the page: the events below stay above the fold.
        out.append('<table class="counts"><tr>')
        out += [f"<th>{_h(k)}</th>" for k in counts]
        out.append("</tr><tr>")
        out += [f"<td class=n>{_h(v)}</td>" for v in counts.values()]
        out.append("</tr></table>")
    events = summary.get("events") or []
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
    charset = summary.get("charset") or []
    if charset:
        out.append(f"<h2>Charset mismatch ({len(charset)} pages)</h2>")
        out.append(f"<p class=ev>{html.escape(_CHARSET_NOTE)}</p><ul>")
        out += [f"<li>{html.escape(str(c))}</li>" for c in charset]
        out.append("</ul>")
    extraction = summary.get("extraction") or []
    if extraction:
        out.append(f"<h2>Extraction notes ({len(extraction)})</h2>")
        out.append(f"<p class=ev>{html.escape(_EXTRACTION_NOTE)}</p><ul>")
        out += [f"<li>{html.escape(str(n))}</li>" for n in extraction]
        out.append("</ul>")
    duplicates = summary.get("duplicates") or []
    if duplicates:
        out.append(f"<h2>Duplicate keys ({len(duplicates)})</h2>")
        out.append(f"<p class=ev>{html.escape(_DUPLICATES_NOTE)}</p><ul>")
        for d in duplicates:
            pages = ", ".join(str(p) for p in d.get("pages", []))
            out.append(f"<li><b>{_h(d.get('key'))}</b>: {html.escape(pages)}</li>")
        out.append("</ul>")

    drift = summary.get("drift") or {}
    if drift:
        out.append("<h2>Drift gate</h2>")
        out.append(
            f"<p>score {_h(drift.get('score'))} (threshold {_h(drift.get('threshold'))}, "
            f"{_h(drift.get('baseline_runs', 0))} baseline runs)</p>"
        )
        flagged = drift.get("fields") or {}
        if flagged or drift.get("structural"):
            out.append("<ul>")
            for fname, evidence in flagged.items():
                items = "".join(f"<li>{html.escape(str(e))}</li>" for e in evidence)
                out.append(f"<li><b>{html.escape(fname)}</b><ul>{items}</ul></li>")
            out += [f"<li>{html.escape(str(s))}</li>" for s in drift.get("structural") or []]
            out.append("</ul>")
        out += [f'<p class="ev">{html.escape(str(s))}</p>' for s in drift.get("notes") or []]

    current = _fields_of(summary.get("field_stats"))
    current_stats = summary.get("field_stats") or {}
    qualify = len(current_stats.get("page_types", {})) > 1
    history = [_fields_of(h, qualify) for h in summary.get("baseline_history") or []]
    if current:
        scores = drift.get("field_scores") or {}
        flagged = drift.get("fields") or {}
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
            out.append(
                f"<tr{cls}><td>{html.escape(fname)}</td>{cells}"
                f"<td class=n>{_h(scores.get(fname))}</td>{series}</tr>"
            )
        out.append("</table>")

    rate = summary.get("change_rate") or {}
    if rate:
        out.append("<h2>Change rate</h2><table>")
        out += [f"<tr><th>{_h(k)}</th><td>{_h(v)}</td></tr>" for k, v in rate.items()]
        out.append("</table>")
    fetch = summary.get("fetch") or {}
    out.append("<h2>Politeness counters</h2>")
    if fetch:
        out.append("<table>")
        out += [f"<tr><th>{_h(k)}</th><td class=n>{_h(v)}</td></tr>" for k, v in fetch.items()]
        out.append("</table>")
    else:
        out.append("<p>none</p>")
    errors = summary.get("errors") or []
    out.append(f"<h2>Errors ({len(errors)})</h2>")
    if errors:
        out.append(
            "<ul>" + "".join(f"<li>{html.escape(_error_line(e))}</li>" for e in errors) + "</ul>"
        )
    paths = summary.get("paths") or {}
    if paths:
        out.append("<h2>Files</h2><ul>")
        out += [f"<li>{_h(k)}: {_file_links(str(v), base)}</li>" for k, v in paths.items()]
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


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


def report_json(summary: Mapping[str, Any], levels: int = 2) -> str:
    """``summary`` as JSON: the first ``levels`` levels one entry a line (indented by two),
    anything deeper on the line of its key.

    Parsed, it is exactly ``json.dumps(summary, indent=2, default=str)``. The field statistics
    and their baseline history make most of a report, and ``indent`` would send all of it
    through the json module's pure-Python encoder (its C encoder only writes without indent):
    that cost ~1.5 ms of CPU per run and site, under the GIL, for every site of ``run --all``.
    """
    return _json_at(dict(summary), levels, "") + "\n"


def write_reports(run_dir: Path, summary: dict[str, Any]) -> None:
    """Write ``report.json``, ``report.md`` and ``report.html`` into ``run_dir`` (created)."""
    run_dir = Path(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "report.json").write_text(report_json(summary), encoding="utf-8")
        (run_dir / "report.md").write_text(render_markdown(summary), encoding="utf-8")
        (run_dir / "report.html").write_text(
            render_html(summary, base=run_dir.resolve()), encoding="utf-8"
        )
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write the run report: {exc}") from exc
