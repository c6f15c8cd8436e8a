"""The report's figures of how sure a number is: each mean's 95 % interval and its human-label
estimates (`localeval.runner.summary`), each later run against the first
(`localeval.reports.significance`), and the calibration file a run used. Blocks of their own,
placed by `localeval.reports.render`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from localeval.reports.explain import esc, fmt
from localeval.reports.significance import ALPHA, RunTest, human_text
from localeval.runner import RunSummary

__all__ = ["calibration_html", "intervals_html", "significance_html"]


def _ci(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"[{fmt(low)}, {fmt(high)}]"


def intervals_html(summary: RunSummary) -> str:
    """Per metric: mean and 95 % bootstrap interval; with labels, labels-only and PPI estimates."""
    labelled = any(m.human is not None for m in summary.metrics)
    head = ("<tr><th>metric</th><th class=num>mean</th><th class=num>95% interval</th><th class=num>scored</th>"
            + ("<th class=num>labelled</th><th class=num>judge mean on labelled rows</th>"
               "<th class=num>labels only [95%]</th><th class=num>human, prediction-powered [95%]</th>" if labelled else "")
            + "</tr>")
    rows = []
    for m in summary.metrics:
        cells = f"<td>{esc(m.metric)}</td><td class=num>{fmt(m.mean)}</td><td class=num>{_ci(m.ci_low, m.ci_high)}</td><td class=num>{m.scored}</td>"
        if labelled:
            h = m.human
            if h is None:
                cells += "<td class=num>0</td><td></td><td></td><td></td>"
            elif h.ppi_mean is None:
                cells += f"<td class=num>{h.labelled}</td><td class=num>{fmt(h.judge_mean_labelled)}</td><td colspan=2 class=muted>{esc(h.note or '')}</td>"
            else:
                cells += (f"<td class=num>{h.labelled}</td><td class=num>{fmt(h.judge_mean_labelled)}</td>"
                          f"<td class=num>{fmt(h.labels_mean)} {_ci(h.labels_low, h.labels_high)}</td>"
                          f"<td class=num>{fmt(h.ppi_mean)} {_ci(h.ppi_low, h.ppi_high)}</td>")
        rows.append(f"<tr>{cells}</tr>")
    note = (f"95% interval: percentile bootstrap over the scored rows ({summary.resamples} resamples, seed "
            f"{summary.seed}); unscored rows are left out, never counted as zeros."
            + (" Prediction-powered: the judge's mean corrected by its error on the labelled rows (PPI++)." if labelled else ""))
    return (f'<h2 id="intervals">How sure: 95% intervals</h2><table class="intervals">{head}{"".join(rows)}</table>'
            f'<p class="muted">{esc(note)}</p>')


def significance_html(results: list[RunTest]) -> str:
    """Each later run against the first: B - A, its interval, p-value, verdict per metric."""
    if not results:
        return ""
    out = ['<h2 id="significance">Is the change more than noise?</h2>']
    for r in results:
        labelled = any(m.human is not None for m in r.metrics)
        p = r.pairing
        out.append(f"<h3>{esc(r.b)} against {esc(r.a)}</h3><p class=\"muted\">{len(p.pairs)} rows paired by {p.by}"
                   + (f"; {p.only_a_count} only in {esc(r.a)}, {p.only_b_count} only in {esc(r.b)} (not compared)"
                      if p.only_a_count or p.only_b_count else "") + "</p>")
        out.append('<table class="significance"><tr><th>metric</th><th>better</th><th class=num>n</th>'
                   "<th class=num>mean A</th><th class=num>mean B</th><th class=num>B &minus; A</th>"
                   "<th class=num>95% interval</th><th class=num>p</th><th>verdict</th>"
                   + ("<th class=num>human B &minus; A, prediction-powered</th>" if labelled else "") + "</tr>")
        for m in r.metrics:
            css = {"worse": ' class="bad"', "better": ' class="ok"'}.get(m.verdict, "")
            diff = "n/a" if m.difference is None else f"{m.difference:+.4f}"
            pv = "n/a" if m.p_value is None else f"{m.p_value:.3g}"
            out.append(f"<tr{css}><td>{esc(m.metric)}</td><td>{'higher' if m.higher_is_better else 'lower'}</td>"
                       f"<td class=num>{m.n}</td><td class=num>{fmt(m.mean_a)}</td><td class=num>{fmt(m.mean_b)}</td>"
                       f"<td class=num>{diff}</td><td class=num>{_ci(m.low, m.high)}</td><td class=num>{pv}</td>"
                       f"<td>{esc(m.verdict)}</td>" + (f"<td class=num>{esc(human_text(m.human))}</td>" if labelled else "")
                       + "</tr>")
        out.append("</table>")
    out.append(f'<p class="muted">Paired bootstrap interval ({results[0].resamples} resamples) and sign-flip '
               f"permutation p-value over rows scored in both runs, seed {results[0].seed}; a change is significant "
               f"when the interval excludes 0 and p &lt; {ALPHA}. Better or worse in each metric's direction.</p>")
    return "".join(out)


def calibration_html(metadata: Mapping[str, Any] | None) -> str:
    """The calibration file a run used (``score --calibration``), with its thresholds."""
    cal = (metadata or {}).get("calibration")
    if not isinstance(cal, dict):
        return ""
    used = ", ".join(f"{k}={v}" for k, v in (cal.get("thresholds") or {}).items())
    return (f'<p class="warn">Thresholds calibrated on labelled rows: {esc(cal.get("file"))} '
            f'(sha256 {esc(str(cal.get("sha256", ""))[:12])}): {esc(used)}</p>')
