"""The report's table of every row: one line per input row with its score under every metric,
sorted, filtered and searched in the browser by one small inline script.

The script is the page's only one. The Content-Security-Policy allows exactly it, by its
SHA-256 hash, and nothing else: no other script, no network request. It only reads the
table's own cells (``data-v``: a score or empty; ``data-text``: lower-cased text to search)
and hides or reorders rows; no text from the data is ever interpreted as markup.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from localeval.reports.data import RunData
from localeval.reports.explain import esc, fmt

__all__ = ["SCRIPT", "SCRIPT_HASH", "rows_table"]

SCRIPT = """
(function () {
  var table = document.getElementById("rows-table");
  if (!table) { return; }
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var search = document.getElementById("rows-search"), metric = document.getElementById("rows-metric");
  var below = document.getElementById("rows-below"), unscored = document.getElementById("rows-unscored");
  var warned = document.getElementById("rows-warned"), count = document.getElementById("rows-count");
  function value(row, col) { var v = row.cells[col].getAttribute("data-v"); return v === "" ? null : parseFloat(v); }
  function apply() {
    var text = search.value.trim().toLowerCase(), col = metric.value === "" ? -1 : parseInt(metric.value, 10);
    var limit = below.value === "" ? null : parseFloat(below.value), shown = 0;
    rows.forEach(function (row) {
      var ok = !text || row.getAttribute("data-text").indexOf(text) >= 0;
      if (ok && warned.checked) { ok = row.getAttribute("data-warned") === "1"; }
      var cols = col >= 0 ? [col] : JSON.parse(table.getAttribute("data-metric-cols"));
      if (ok && unscored.checked) { ok = cols.some(function (c) { return value(row, c) === null; }); }
      if (ok && limit !== null && isFinite(limit)) {
        ok = cols.some(function (c) { var v = value(row, c); return v !== null && v < limit; });
      }
      row.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + rows.length + " rows shown";
  }
  function sortBy(th) {
    var col = th.cellIndex, numeric = th.hasAttribute("data-numeric");
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows.sort(function (a, b) {
      var x, y;
      if (numeric) {
        x = value(a, col); y = value(b, col);
        if (x === null || y === null) { return x === y ? 0 : (x === null ? 1 : -1); }
        return ascending ? x - y : y - x;
      }
      x = a.cells[col].textContent; y = b.cells[col].textContent;
      return ascending ? x.localeCompare(y) : y.localeCompare(x);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  [search, metric, below].forEach(function (el) { el.addEventListener("input", apply); });
  [unscored, warned].forEach(function (el) { el.addEventListener("change", apply); });
  apply();
})();
""".strip()

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
"""For the page's Content-Security-Policy (``script-src``): this script and no other runs."""

_QUESTION_CHARS = 140


def rows_table(run: RunData, anchors: dict[tuple[int, str], str]) -> str:
    """Every row of ``run``: line, id, question, the score under each metric (with the reason
    as a tooltip where there is none), warnings. ``anchors`` maps ``(line, metric)`` to the id
    of that row's explanation further down the page, linked from its score."""
    first = 3  # columns before the metrics: line, id, question
    metric_cols = list(range(first, first + len(run.metrics)))
    options = "".join(f'<option value="{c}">{esc(m)}</option>' for c, m in zip(metric_cols, run.metrics))
    controls = (
        '<div class="controls"><label>search <input id="rows-search" type="search" placeholder="any text of a row, line or id"></label> '
        f'<label>metric <select id="rows-metric"><option value="">any</option>{options}</select></label> '
        '<label>score below <input id="rows-below" type="number" min="0" max="1" step="0.05"></label> '
        '<label><input id="rows-unscored" type="checkbox"> unscored</label> '
        '<label><input id="rows-warned" type="checkbox"> with warnings</label> '
        f'<span id="rows-count" class="muted">{run.rows} rows</span></div>'
    )
    heads = ["<th data-numeric>line</th>", "<th>id</th>", "<th>question</th>"]
    heads += [f"<th data-numeric class=num>{esc(m)}</th>" for m in run.metrics]
    heads.append("<th>warnings</th>")
    body: list[str] = []
    for i, line in enumerate(run.lines):
        ident, question, warnings = run.labels[i]
        cells = [f'<td class=num data-v="{line}">{line}</td>', f"<td>{esc(ident)}</td>", f"<td>{esc(question)}</td>"]
        for m in run.metrics:
            cells.append(_score_cell(run, m, i, line, anchors.get((line, m))))
        cells.append(f"<td>{esc('; '.join(warnings))}</td>")
        # Search reads every text field of the row (answer, reference, contexts), not only
        # what the table shows.
        text = f"{line} {ident} {question} {run.texts[i] if i < len(run.texts) else ''}".lower()
        # "=" and ":" as character references: the row's text reads back the same, and no user
        # text in the markup looks like an attribute (src=...) or a URL to a reader of the raw page.
        searched = esc(text).replace("=", "&#61;").replace(":", "&#58;")
        body.append(f'<tr data-text="{searched}" data-warned="{1 if warnings else 0}">{"".join(cells)}</tr>')
    return (
        f'<h2 id="rows">Every row</h2>{controls}'
        # In a box of its own that scrolls: the page never grows wider than the window.
        f'<div class="box rows-box"><table id="rows-table" class="rows" data-metric-cols="{esc(metric_cols)}">'
        f'<thead><tr>{"".join(heads)}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
        '<p class="muted">Click a column to sort (again: the other way). A score links to its explanation when the row is '
        "among the lowest-scored rows below.</p>"
    )


def _score_cell(run: RunData, metric: str, i: int, line: int, anchor: str | None) -> str:
    value: Any = run.scores[metric][i]
    if value != value:  # NaN: no score
        reason = run.reasons[metric].get(line, "")
        return f'<td class="num unscored" data-v="" title="{esc(reason)}">n/a</td>'
    shown = f'<a href="#{esc(anchor)}">{fmt(value)}</a>' if anchor else fmt(value)
    return f'<td class=num data-v="{value!r}">{shown}</td>'
