"""The report page: one self-contained HTML file (inline CSS and SVG, one inline script for
the table of every row, allowed by its hash; nothing loaded from anywhere), so it opens
offline and can be mailed or archived as is."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from localeval.reports.compare import Change, Comparison
from localeval.reports.data import RunData, score_of
from localeval.reports.explain import clip, esc, explain, fmt, row_fields
from localeval.reports.plots import histogram_svg
from localeval.reports.settings import settings_table
from localeval.reports.multi import MultiComparison, render_many_body
from localeval.reports.table import SCRIPT, SCRIPT_HASH, rows_table
from localeval.reports.significance import compare_pair
from localeval.reports.uncertainty import calibration_html, intervals_html, significance_html
from localeval.runner import RunSummary, plural

__all__ = ["render_comparison", "render_many", "render_single"]

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:0 20px 40px;color:#222}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px}table{border-collapse:collapse;margin:6px 0}
td,th{border:1px solid #ddd;padding:3px 7px;vertical-align:top;text-align:left}th{background:#f4f4f4}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#777}
.plots{display:flex;flex-wrap:wrap;gap:8px}.plots figure{margin:0}.plots svg{width:380px;height:auto}
mark.ok{background:#c9f0cf}mark.bad{background:#ffd0cc}mark.used{background:#dde7ff}tr.bad td:first-child,li.bad,p.bad{color:#b3261e}
tr.ok td:first-child,li.ok{color:#1e6b2c}.ctx{background:#fafafa;border-left:3px solid #ccc;padding:4px 8px;margin:4px 0;white-space:pre-wrap}
.chunk{margin:6px 0}details.row{border:1px solid #ddd;border-radius:4px;margin:8px 0;padding:4px 10px}
details.row>summary{cursor:pointer;font-weight:600}.fields td:first-child{width:90px;color:#555}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}.warn{background:#fff4d6;padding:6px 10px;border-radius:4px}
.claims td:first-child{white-space:nowrap}nav a{margin-right:12px}pre{white-space:pre-wrap;font-size:12px}
.fields td{white-space:pre-wrap}.controls{margin:6px 0;display:flex;flex-wrap:wrap;gap:12px;align-items:center}
table.rows th{cursor:pointer;user-select:none}table.rows th[aria-sort=ascending]::after{content:" \\25B2"}
table.rows th[aria-sort=descending]::after{content:" \\25BC"}td.unscored{color:#999}.meta td:first-child{color:#555;white-space:nowrap}
.box{max-width:100%;overflow:auto}.rows-box{max-height:80vh;border:1px solid #ddd}table.rows{margin:0}
table.rows td{overflow-wrap:break-word}table.rows td:nth-child(2){min-width:5em;max-width:14em;overflow-wrap:anywhere}
table.rows td:nth-child(3){min-width:14em;max-width:30em;overflow-wrap:anywhere}table.rows td:last-child{min-width:8em;overflow-wrap:anywhere}
table.rows thead th{position:sticky;top:0}.meta td{overflow-wrap:anywhere}tr.differs td{background:#fff0b3}
"""

_OPEN_ROWS = 3
"""The first rows of each list are shown unfolded, the rest folded."""


def _anchor(prefix: str, metric: str) -> str:
    return f"{prefix}-" + re.sub(r"[^A-Za-z0-9_-]", "-", metric)


def _page(title: str, body: str, *, script: bool = False) -> str:
    # No network, ever: the page forbids itself to load anything but inline style and data,
    # and to run any script but its own (allowed by hash, see `localeval.reports.table`).
    scripts = f" script-src '{SCRIPT_HASH}';" if script else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';{scripts} "
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>{body}"
        + (f"<script>{SCRIPT}</script>" if script else "")
        + "</body></html>\n"
    )


def _metadata(metadata: Mapping[str, Any] | None) -> str:
    """The run's metadata (`localeval.runner.metadata.run_metadata`): version, date, judge and
    its weights hash, each metric's thresholds with their source and its options."""
    if not metadata:
        return ""
    rows = []
    for key in ("localeval_version", "date", "input"):
        if metadata.get(key) is not None:
            rows.append(f"<tr><td>{esc(key.replace('_', ' '))}</td><td>{esc(metadata[key])}</td></tr>")
    for judge in metadata.get("judges") or []:
        if isinstance(judge, dict):
            given = judge.get("given_thresholds") or {}
            rows.append(f"<tr><td>judge</td><td>{esc(judge.get('name'))} (weights hash {esc(judge.get('weights_hash'))}, "
                        f"{esc(judge.get('device'))}, {esc(judge.get('precision'))})"
                        + (f"; thresholds given: {esc(', '.join(f'{k}={v}' for k, v in given.items()))}" if given else "")
                        + "</td></tr>")
    for name, entry in (metadata.get("metrics") or {}).items():
        if not isinstance(entry, dict):
            continue
        used = "; ".join(f"{t.get('decision')}: {t.get('key')}={t.get('value')} ({t.get('source')})"
                         for t in entry.get("thresholds") or [] if isinstance(t, dict))
        options = ", ".join(f"{k}={v}" for k, v in (entry.get("options") or {}).items())
        rows.append(f"<tr><td>{esc(name)}</td><td>{esc(used or 'no judge threshold')}"
                    f'<br><span class="muted">{esc(options)}</span></td></tr>')
    return f'<h2 id="run">Run</h2><table class="meta">{"".join(rows)}</table>' if rows else ""


def _summary_table(summary: RunSummary) -> str:
    head = ('<table class="summary"><tr><th>metric</th><th class=num>mean</th><th class=num>median</th>'
            "<th class=num>std</th><th class=num>scored</th><th class=num>unscored</th><th>unscored because</th></tr>")
    rows = []
    for m in summary.metrics:
        why = "<br>".join(f"{n} &times; {esc(r)}" for r, n in sorted(m.reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(f"<tr><td>{esc(m.metric)}</td><td class=num>{fmt(m.mean)}</td><td class=num>{fmt(m.median)}</td>"
                    f"<td class=num>{fmt(m.std)}</td><td class=num>{m.scored}</td><td class=num>{m.unscored}</td><td>{why}</td></tr>")
    return head + "".join(rows) + "</table>"


def _warnings(run: RunData) -> str:
    if not run.unreadable:
        return ""
    shown = ", ".join(map(str, run.unreadable[:20])) + (" ..." if len(run.unreadable) > 20 else "")
    return (f'<p class="warn">{esc(run.name)}: {len(run.unreadable)} line(s) could not be read as output rows '
            f"and are not in this report (lines {esc(shown)}).</p>")


def _row_title(record: dict[str, Any], line: int, score: str) -> str:
    ident = record.get("id")
    question = next((text for label, text in row_fields(record) if label == "question"), "")
    short = question if len(question) <= 110 else question[:107] + "..."
    parts = [f"line {line}"] + ([f"id {ident}"] if isinstance(ident, (str, int)) and not isinstance(ident, bool) else [])
    return f'{esc(" · ".join(parts))} · {score} · <span class="muted">{esc(short)}</span>'


def _fields(record: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{esc(label)}</td><td>{clip(text)}</td></tr>" for label, text in row_fields(record))
    if record.get("_error"):
        rows += f'<tr><td>error</td><td class="bad">{esc(record["_error"])}</td></tr>'
    return f'<table class="fields">{rows}</table>' if rows else ""


def _line_of(record: dict[str, Any]) -> int:
    line = record.get("_line")
    return line if isinstance(line, int) else 0


def _row_anchor(line: int, metric: str) -> str:
    return _anchor(f"row-{line}", metric)


def _worst_section(run: RunData, worst: int) -> str:
    out = [f"<h2 id=\"worst\">Lowest-scored rows (up to {worst} per metric), with why</h2>"]
    for m in run.metrics:
        # A perfect score needs no explanation: only rows below 1.0 are listed.
        rows = [r for r in run.worst[m] if (score_of(r, m) or 0.0) < 1.0]
        out.append(f'<h3 id="{_anchor("worst", m)}">{esc(m)}</h3>')
        if not rows:
            out.append(f'<p class="muted">{"every scored row scores 1.0" if run.summary[m].scored else "no row has a score"}</p>')
        for k, rec in enumerate(rows):
            title = _row_title(rec, _line_of(rec), f"score {fmt(rec.get(m))}")
            out.append(f'<details class="row" id="{_row_anchor(_line_of(rec), m)}"{" open" if k < _OPEN_ROWS else ""}>'
                       f"<summary>{title}</summary>{_fields(rec)}{explain(m, rec)}</details>")
    return "".join(out)


def _plots(runs: list[RunData], metrics: list[str]) -> str:
    figs = []
    for m in metrics:
        series = [(run.name, run.scores[m]) for run in runs]
        figs.append(f'<figure>{histogram_svg(series, title=m, salt=m)}</figure>')
    return '<h2 id="plots">Score histograms</h2><div class="plots">' + "".join(figs) + "</div>"


def _anchors(run: RunData) -> dict[tuple[int, str], str]:
    """``(line, metric)`` -> the id of that row's explanation in the worst-rows section."""
    return {(_line_of(rec), m): _row_anchor(_line_of(rec), m)
            for m in run.metrics for rec in run.worst[m] if (score_of(rec, m) or 0.0) < 1.0}


def _row_warnings(summary: RunSummary) -> str:
    if not summary.rows_with_warnings:
        return ""
    kinds = ", ".join(f"{n} &times; {esc(k)}" for k, n in sorted(summary.warnings.items(), key=lambda kv: (-kv[1], kv[0])))
    return f'<p class="warn">{plural(summary.rows_with_warnings, "row")} with warnings ({kinds}): their scores may be wrong.</p>'


def render_single(run: RunData, *, worst: int, title: str | None = None,
                  metadata: Mapping[str, Any] | None = None, settings: dict[str, str] | None = None) -> str:
    title = title or f"localeval report: {run.name}"
    nav = "".join(f'<a href="#{_anchor("worst", m)}">{esc(m)}</a>' for m in run.metrics)
    body = (
        f"<h1>{esc(title)}</h1><p class=\"muted\">{plural(run.rows, 'row')} from {esc(run.name)}; "
        f"metrics: {esc(', '.join(run.metrics))}</p>{_warnings(run)}{_row_warnings(run.summary)}"
        f'<nav><a href="#rows">every row</a> worst rows: {nav}</nav>'
        f'<h2 id="summary">Summary per metric</h2>{_summary_table(run.summary)}'
        + intervals_html(run.summary) + calibration_html(metadata) + _metadata(metadata)
        # Without the summary's metadata, the run record says what the run was made with.
        + ("" if metadata or not settings else settings_table([run.name], [settings]))
        + _plots([run], run.metrics) + rows_table(run, _anchors(run)) + _worst_section(run, worst)
    )
    return _page(title, body, script=True)


def render_many(runs: list[RunData], cmp: MultiComparison, *, title: str | None = None,
                settings: list[dict[str, str]] | None = None) -> str:
    title = title or f"localeval comparison of {len(runs)} runs"
    tests = [compare_pair(runs[0], run, explain=False) for run in runs[1:]]
    body = (f"<h1>{esc(title)}</h1>" + render_many_body(cmp) + significance_html(tests)
            + settings_table([r.name for r in runs], settings or [{} for _ in runs]) + _plots(runs, cmp.metrics))
    return _page(title, body)


def _score_change(c: Change) -> str:
    return f"{fmt(c.a) if c.a is not None else 'unscored'} &rarr; {fmt(c.b) if c.b is not None else 'unscored'}"


def _change_rows(metric: str, changes: list[Change], rows_a: dict[int, dict], rows_b: dict[int, dict],
                 names: tuple[str, str]) -> str:
    out = []
    for k, c in enumerate(changes):
        ra, rb = rows_a.get(c.line, {}), rows_b.get(c.line, {})
        same_q = dict(row_fields(ra)).get("question") == dict(row_fields(rb)).get("question")
        warn = "" if same_q else '<p class="warn">the two runs have a different question on this line</p>'
        out.append(
            f'<details class="row"{" open" if k < _OPEN_ROWS else ""}><summary>{_row_title(rb or ra, c.line, _score_change(c))}</summary>'
            f'{warn}{_fields(rb or ra)}<div class="side"><div><h4>{esc(names[0])}</h4>{explain(metric, ra)}</div>'
            f"<div><h4>{esc(names[1])}</h4>{explain(metric, rb)}</div></div></details>"
        )
    return "".join(out) if out else '<p class="muted">none</p>'


def render_comparison(a: RunData, b: RunData, cmp: Comparison, rows_a: dict[int, dict], rows_b: dict[int, dict],
                      *, title: str | None = None, settings: list[dict[str, str]] | None = None) -> str:
    title = title or f"localeval comparison: {a.name} vs {b.name}"
    names = (f"A: {a.name}", f"B: {b.name}")
    table = ['<table class="changes"><tr><th>metric</th><th class=num>mean A</th><th class=num>mean B</th>'
             "<th class=num>better</th><th class=num>worse</th><th class=num>unchanged</th>"
             "<th class=num>lost score</th><th class=num>gained score</th><th class=num>unscored in both</th></tr>"]
    for ch in cmp.changes:
        table.append(f'<tr><td><a href="#{_anchor("change", ch.metric)}">{esc(ch.metric)}</a></td><td class=num>{fmt(ch.mean_a)}</td>'
                     f"<td class=num>{fmt(ch.mean_b)}</td><td class=num>{ch.better}</td><td class=num>{ch.worse}</td>"
                     f"<td class=num>{ch.same}</td><td class=num>{ch.lost}</td><td class=num>{ch.gained}</td>"
                     f"<td class=num>{ch.both_unscored}</td></tr>")
    table.append("</table>")
    notes = []
    if cmp.rows_only_a or cmp.rows_only_b:
        notes.append(f"{cmp.rows_only_a} row(s) only in A and {cmp.rows_only_b} only in B are not compared.")
    if cmp.only_a or cmp.only_b:
        notes.append(f"metrics only in A: {', '.join(cmp.only_a) or 'none'}; only in B: {', '.join(cmp.only_b) or 'none'}.")
    note = "".join(f'<p class="warn">{esc(n)}</p>' for n in notes)
    sections = []
    for ch in cmp.changes:
        sections.append(
            f'<h3 id="{_anchor("change", ch.metric)}">{esc(ch.metric)}: {ch.worse + ch.lost} worse, {ch.better + ch.gained} better</h3>'
            f"<h4>Got worse (largest drop first)</h4>{_change_rows(ch.metric, ch.worsened, rows_a, rows_b, names)}"
            f"<h4>Got better</h4>{_change_rows(ch.metric, ch.improved, rows_a, rows_b, names)}"
        )
    body = (
        f"<h1>{esc(title)}</h1><p class=\"muted\">A: {esc(a.name)} ({a.rows} rows); B: {esc(b.name)} ({b.rows} rows); "
        f"{cmp.matched} rows matched by input line; a change under 1e-4 counts as unchanged.</p>"
        f"{_warnings(a)}{_warnings(b)}{note}"
        f'<h2 id="changes">What changed, per metric</h2>{"".join(table)}'
        + significance_html([compare_pair(a, b, explain=False)])
        + f'<h2 id="summary">Summary of each run</h2><h3>{esc(names[0])}</h3>{_summary_table(a.summary)}'
        f"<h3>{esc(names[1])}</h3>{_summary_table(b.summary)}"
        + settings_table(list(names), settings or [{}, {}])
        + _plots([a, b], cmp.metrics)
        + '<h2 id="rows">Rows that changed, with why</h2>' + "".join(sections)
    )
    return _page(title, body)
