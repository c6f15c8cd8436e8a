"""What each run was made with, read back from its run record (``OUTPUT.run.json``, written
by every run with an output), so a report of an output file, or a comparison of several,
shows the judge, the thresholds given, the options and each metric's settings, and marks
what differs between the runs: two means are only comparable when these agree.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from localeval.reports.explain import esc

__all__ = ["run_settings", "settings_table"]

_NONE = "—"


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ", ".join(f"{k}={_text(v)}" for k, v in sorted(value.items())) or "none"
    return json.dumps(value, sort_keys=True)


def run_settings(path: str | os.PathLike[str]) -> dict[str, str]:
    """The run record of the output ``path`` as labelled text (``{}`` when it has none: a file
    written by another tool, or by ``score`` to stdout)."""
    from localeval.runner import record_path

    try:
        record = json.loads(record_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict):
        return {}
    out: dict[str, str] = {}
    weights = record.get("judge_weights")
    if isinstance(weights, list):
        out["judge weights (hash)"] = ", ".join(str(w)[:16] for w in weights) or "no judge"
    options = record.get("options")
    if isinstance(options, dict):
        out["thresholds given"] = _text(options.get("thresholds")) if options.get("thresholds") else "none: the judge's stored ones"
        for key, value in sorted(options.items()):
            if key != "thresholds":
                out[f"option {key}"] = _text(value)
    for metric in record.get("metrics") or []:
        if isinstance(metric, dict) and isinstance(metric.get("options"), dict):
            out[f"{metric.get('name')}: settings"] = _text(metric["options"])
    if isinstance(record.get("column_map"), dict) and record["column_map"]:
        out["column map"] = _text(record["column_map"])
    source = record.get("input")
    if isinstance(source, dict) and source.get("sha256"):
        out["input (sha256)"] = str(source["sha256"])[:16]
    return out


def settings_table(names: Sequence[str], settings: Sequence[dict[str, str]]) -> str:
    """One column per run, one row per setting; a row whose value is not the same in every
    run is marked (``class="differs"``) and listed above the table."""
    if not any(settings):
        return ('<h2 id="settings">Run settings</h2><p class="muted">No run record (OUTPUT.run.json) beside these '
                "files: the judge, thresholds and options they were scored with are unknown.</p>")
    keys: list[str] = []
    for entry in settings:
        keys.extend(k for k in entry if k not in keys)
    head = "<tr><th>setting</th>" + "".join(f"<th>{esc(n)}</th>" for n in names) + "</tr>"
    rows, differs = [], []
    for key in keys:
        values = [entry.get(key, _NONE) if entry else _NONE for entry in settings]
        different = len(names) > 1 and len(set(values)) > 1
        if different:
            differs.append(key)
        cells = "".join(f"<td>{esc(v)}</td>" for v in values)
        rows.append(f'<tr{" class=differs" if different else ""}><td>{esc(key)}</td>{cells}</tr>')
    if len(names) == 1:
        note = ""
    elif differs:
        note = f'<p class="warn">These runs differ in: {esc(", ".join(differs))} (marked below).</p>'
    else:
        note = '<p class="muted">Every recorded setting is the same in these runs.</p>'
    return f'<h2 id="settings">Run settings</h2>{note}<div class="box"><table class="meta settings">{head}{"".join(rows)}</table></div>'
