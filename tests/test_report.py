"""HTML reports: built from real runner output, escaped, self-contained, rendered by a real
headless browser with no console error and no request but the file itself."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from localeval import evaluate
from localeval.cli.main import app
from localeval.reports import build_report, write_report
from localeval.reports.explain import explain, highlight
from localeval.reports.table import SCRIPT as PAGE_SCRIPT, SCRIPT_HASH
from report_browser import visit

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rag_answers.jsonl"
METRICS = ["context_recall", "faithfulness", "chunk_recall", "context_relevance", "context_entity_recall"]
SCRIPT = "<script>alert('x')</script>"
IMG = '<img src="http://example.com/pixel.png">'
runner = CliRunner()


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _inputs() -> list[dict]:
    rows = _rows(EXAMPLE)
    rows.append({"id": "hostile", "user_input": f"Is {SCRIPT} safe?", "response": f"The cat sat. {IMG}",
                 "reference": "The cat sat on the mat.", "retrieved_contexts": [f"The cat sat on the mat. {SCRIPT}"]})
    rows.append({"id": "broken", "user_input": "What?", "retrieved_contexts": "not a list"})
    return rows


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_nli_dir, one_torch_thread) -> tuple[Path, Path]:
    """Two real runs of the same rows (the tiny judge: the report is plumbing); run B loses
    the first context of every other row, as a worse retriever would."""
    d = tmp_path_factory.mktemp("report")
    rows_a = _inputs()
    rows_b = [dict(r, retrieved_contexts=r["retrieved_contexts"][1:]) if i % 2 == 0 and isinstance(r.get("retrieved_contexts"), list)
              else r for i, r in enumerate(rows_a)]
    a, b = d / "run_a.jsonl", d / "run_b.jsonl"
    evaluate(rows_a, METRICS, model=tiny_nli_dir, output=a, show_progress=False)
    evaluate(rows_b, METRICS, model=tiny_nli_dir, output=b, show_progress=False)
    return a, b


def _no_external_reference(page: str) -> None:
    """Nothing in the page's markup could load anything (user text is escaped, so it is not
    markup: an escaped "<img src=...>" is text)."""
    # The page's own table script is its only one, allowed by hash in its CSP; no other runs.
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, re.S | re.I)
    assert scripts in ([], [PAGE_SCRIPT])
    if scripts:
        assert f"script-src '{SCRIPT_HASH}';" in page
    page = page.replace(f"<script>{PAGE_SCRIPT}</script>", "")
    tags = " ".join(re.findall(r"<[A-Za-z!/][^>]*>", page))
    assert "<script" not in tags.lower()
    assert not re.search(r"\s(src|srcset|action|poster|data|background)\s*=", tags, re.I)
    assert all(h.startswith("#") for h in re.findall(r'href="([^"]*)"', tags))
    # URLs in markup are only SVG namespace names (never fetched).
    assert set(re.findall(r"https?://[^\s\"'<>]+", tags)) <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert "@import" not in page
    assert all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", page))  # SVG clip paths in the page


def test_single_run_report_shows_summary_plots_and_worst_rows(runs, tmp_path):
    a, _ = runs
    page = build_report([a], worst=20)
    _no_external_reference(page)
    assert SCRIPT not in page and IMG not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page  # shown as text, escaped
    rows = _rows(a)
    assert f"{len(rows)} rows from run_a.jsonl" in page
    assert page.count("<svg") == len(METRICS)  # one histogram per metric
    # The summary table's counts are the file's.
    for m in METRICS:
        scored = sum(1 for r in rows if isinstance(r[m], float))
        assert re.search(rf"<td>{m}</td>(<td class=num>[^<]*</td>){{3}}<td class=num>{scored}</td><td class=num>{len(rows) - scored}</td>", page)
    assert "1 &times; invalid row<" in page  # the broken row is counted under its reason, not dropped
    # The worst rows of a metric are its lowest scores below 1.0, lowest first.
    section = page.split('id="worst-context_recall"')[1].split("<h3")[0]
    listed = [int(x) for x in re.findall(r"<summary>line (\d+)", section)]
    expected = sorted((r["context_recall"], r["_line"]) for r in rows if isinstance(r["context_recall"], float) and r["context_recall"] < 1)
    assert listed == [line for _, line in expected] and len(listed) > 1
    assert len(re.findall(r"<summary>line", build_report([a], worst=1))) <= len(METRICS)


def test_explanations_name_missing_claims_and_chunk_information(runs):
    a, _ = runs
    rows = _rows(a)
    page = build_report([a], worst=20)
    shown = 0
    for r in rows:
        for c in (r["faithfulness_details"] or {}).get("claims", []):
            if not c["attributed"] and isinstance(r["faithfulness"], float) and r["faithfulness"] < 1:
                assert f'<tr class="bad"><td>not supported</td><td>{_esc(c["text"])}</td>' in page
                shown += 1
        for ch in (r["chunk_recall_details"] or {}).get("evaluated_chunks", []):
            if ch["missing_info"] and r["chunk_recall"] < 1:
                assert f"<b>missing information:</b> {_esc(ch['missing_info'])}" in page
    assert shown > 0


def _esc(text: str) -> str:
    import html

    return html.escape(text, quote=True)


def test_context_sentences_are_highlighted_as_relevant_or_not():
    ctx = ["Paris is in France. Cats <purr>.", "  "]
    record = {
        "user_input": "Where is Paris?", "retrieved_contexts": ctx, "context_relevance": 0.5,
        "context_relevance_reason": None,
        "context_relevance_details": {"level": "sentence", "threshold": 0.6, "chunks": [], "sentences": [
            {"context_index": 0, "text": "Paris is in France.", "start": 0, "end": 19, "probability": 0.9, "relevant": True},
            {"context_index": 0, "text": "Cats <purr>.", "start": 20, "end": 32, "probability": 0.1, "relevant": False},
        ]},
    }
    out = explain("context_relevance", record)
    assert '<mark class="ok" title="relevant (p=0.900)">Paris is in France.</mark> ' in out
    assert '<mark class="bad" title="irrelevant (p=0.100)">Cats &lt;purr&gt;.</mark>' in out
    assert "1 of 2 sentences relevant" in out
    # A span that does not fit the text is not guessed at; overlaps are left unmarked.
    assert highlight("abc", [(1, 9, "ok", "")]) == "abc"
    assert highlight("a<c", [(0, 2, "ok", "t"), (1, 3, "bad", "u")]) == '<mark class="ok" title="t">a&lt;</mark>c'
    # A huge context is shown cut, with what is left out counted; spans past the cut are dropped.
    long = "word " * 10_000
    out = highlight(long, [(0, 4, "ok", ""), (30_000, 30_004, "bad", "")])
    assert out.count("<mark") == 1 and "(30,000 more characters)" in out and len(out) < 20_200


def test_unknown_or_broken_details_still_render(tmp_path):
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join([
        json.dumps({"_line": 1, "m": 0.2, "m_reason": None, "m_details": {"weird": [1, 2, "<b>"]}}),
        "{torn line",
        json.dumps({"_line": 2, "m": float("nan"), "m_reason": None, "m_details": None}) .replace("NaN", "null"),
        json.dumps({"_line": 3, "m": "0.9", "m_reason": None, "m_details": "text"}),
        json.dumps({"_line": 4, "m": 0.5, "m_reason": None, "m_details": {"claims": [{"text": 5}], "sentences": None}}),
    ]) + "\n")
    page = build_report([path])
    assert "1 line(s) could not be read" in page and "lines 2" in page  # the torn line is reported
    assert "&lt;b&gt;" in page and "NaN" not in page
    assert re.search(r"<td>m</td><td class=num>0.350</td>", page)  # mean of 0.2 and 0.5; others unscored
    assert "no score and no reason given" in page and "score is not a finite number" in page


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_flat_outputs_give_the_same_report(runs, tmp_path, tiny_nli_dir, suffix):
    a, _ = runs
    flat = tmp_path / f"run_a{suffix}"
    evaluate(_inputs(), METRICS, model=tiny_nli_dir, output=flat, show_progress=False)
    from_jsonl, from_flat = build_report([a], worst=20), build_report([flat], worst=20)

    def summary_and_rows(page: str) -> tuple[str, list[str]]:
        table = page.split('<table class="summary">')[1].split("</table>")[0]
        return table, re.findall(r"<summary>(.*?)</summary>", page)

    assert summary_and_rows(from_flat) == summary_and_rows(from_jsonl)
    # Explanations come through too (details are JSON text in Parquet and CSV cells).
    assert from_flat.count("claims not supported") == from_jsonl.count("claims not supported") > 0


def test_comparison_counts_rows_that_got_better_or_worse(runs):
    a, b = runs
    page = build_report([a, b], worst=5)
    _no_external_reference(page)
    ra = {r["_line"]: r for r in _rows(a)}
    rb = {r["_line"]: r for r in _rows(b)}
    for m in METRICS:
        worse = sum(1 for k in ra if isinstance(ra[k][m], float) and isinstance(rb[k][m], float) and ra[k][m] - rb[k][m] > 1e-4)
        better = sum(1 for k in ra if isinstance(ra[k][m], float) and isinstance(rb[k][m], float) and rb[k][m] - ra[k][m] > 1e-4)
        lost = sum(1 for k in ra if isinstance(ra[k][m], float) and rb[k][m] is None)
        row = re.search(rf'<td><a href="#change-{m}">{m}</a></td>(.*?)</tr>', page).group(1)
        nums = re.findall(r"<td class=num>([^<]*)</td>", row)
        assert nums[2:5] == [str(better), str(worse), str(len(ra) - better - worse - lost - int(nums[6]) - int(nums[7]))]
        assert nums[5] == str(lost)
    assert page.count("<svg") == len(METRICS)
    assert "A: run_a.jsonl" in page and "B: run_b.jsonl" in page


def test_report_renders_in_a_headless_browser_offline(runs, tmp_path):
    a, b = runs
    for name, inputs, heading in (("single", [a], "Lowest-scored rows"), ("compare", [a, b], "What changed, per metric")):
        html_path = write_report(inputs, tmp_path / f"{name}.html", worst=20, title=f"{name} {SCRIPT}")
        shot = tmp_path / f"{name}.png"
        seen = visit(html_path, shot)
        assert seen.console_errors == [] and seen.dialogs == []
        assert seen.requests == [html_path.resolve().as_uri()]  # nothing but the file itself
        assert heading in seen.text and "Score histograms" in seen.text
        assert "context_recall" in seen.text
        assert seen.title == f"{name} {SCRIPT}" and f"{name} {SCRIPT}" in seen.text  # shown as text, not run
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_cli_report_and_score_with_report(runs, tmp_path, tiny_nli_dir):
    a, b = runs
    out = tmp_path / "cmp.html"
    result = runner.invoke(app, ["report", str(a), str(b), "-o", str(out), "--worst", "2"])
    assert result.exit_code == 0, result.output
    assert "What changed, per metric" in out.read_text()
    scored, report = tmp_path / "scored.jsonl", tmp_path / "scored.html"
    result = runner.invoke(app, ["score", str(EXAMPLE), "-m", "context_recall", "-o", str(scored), "--model",
                                 str(tiny_nli_dir), "--no-progress", "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert f"{len(_rows(EXAMPLE))} rows from scored.jsonl" in report.read_text()
    result = runner.invoke(app, ["score", str(EXAMPLE), "--model", str(tiny_nli_dir), "--report", str(report)])
    assert result.exit_code == 2 and "--report needs --output" in result.output
    result = runner.invoke(app, ["report", str(EXAMPLE), "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "no metric columns" in result.output
    meta = tmp_path / "summary.json"
    meta.write_text(json.dumps({"run": {"localeval_version": "7.7", "judges": [{"name": "j", "weights_hash": "ffee"}]}}))
    result = runner.invoke(app, ["report", str(a), "-o", str(tmp_path / "m.html"), "--meta", str(meta)])
    assert result.exit_code == 0 and "weights hash ffee" in (tmp_path / "m.html").read_text()
    meta.write_text("[1]")
    result = runner.invoke(app, ["report", str(a), "-o", str(tmp_path / "m.html"), "--meta", str(meta)])
    assert result.exit_code == 2 and "not a summary written by --summary-json" in result.output


def test_report_of_a_real_judge_run_lists_the_unsupported_claim(default_judge, tmp_path):
    row = _rows(EXAMPLE)[0]  # "It is 330 metres tall." is in no context
    out = tmp_path / "eiffel.jsonl"
    evaluate([row], ["faithfulness"], model=default_judge, output=out, show_progress=False)
    claims = _rows(out)[0]["faithfulness_details"]["claims"]
    assert [c["attributed"] for c in claims if c["text"] == "It is 330 metres tall."] == [False]
    page = build_report([out])
    assert '<tr class="bad"><td>not supported</td><td>It is 330 metres tall.</td>' in page
    assert not math.isnan(_rows(out)[0]["faithfulness"])


def test_report_says_which_rule_overruled_the_judge(default_judge, tmp_path):
    row = {"user_input": "How many members does the committee have?",
           "response": "The planning committee has eighteen members.",
           "retrieved_contexts": ["The planning committee has eight members, all elected for four years."]}
    out = tmp_path / "committee.jsonl"
    evaluate([row], ["faithfulness"], model=default_judge, output=out, show_progress=False)
    (claim,) = _rows(out)[0]["faithfulness_details"]["claims"]
    assert not claim["attributed"] and claim["contrast"].startswith("number:")
    page = build_report([out])
    assert "overruled by a rule: number: the claim&#x27;s 18" in page or "overruled by a rule: number: the claim's 18" in page


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=8) | st.just("<script>"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["text", "start", "end", "attributed", "probability", "evidence", "context_index", "id_chunk", "is_relevant",
         "is_included", "missing_info", "relevant_sentences", "missing_sentences", "relevant", "found", "match",
         "label", "useful", "rank", "answerable", "supported_claim"]), inner, max_size=4),
    max_leaves=12,
)
_SHAPES = ["claims", "evaluated_chunks", "sentences", "entities", "chunks", "sub_questions", "missing_statements", "missing_ids", "other"]


@settings(max_examples=150, deadline=None)
@given(shape=st.sampled_from(_SHAPES), value=_json, extra=_json, score=_json,
       contexts=st.lists(st.text(max_size=30) | st.just("<b>x</b>"), max_size=3) | _json)
def test_explain_never_fails_on_odd_details(shape, value, extra, contexts, score):
    record = {"m": score, "m_reason": extra, "m_details": {shape: value, "level": extra, "threshold": extra},
              "retrieved_contexts": contexts}
    out = explain("m", record)
    assert "<script" not in out


def test_every_row_table_sorts_filters_and_searches_in_the_browser(runs, tmp_path):
    a, _ = runs
    rows = _rows(a)
    meta = {"localeval_version": "9.9", "date": "2026-01-01T00:00:00+00:00",
            "judges": [{"name": "tiny", "weights_hash": "abc123", "device": "cpu", "precision": "fp32", "given_thresholds": {"entailment": 0.7}}],
            "metrics": {"context_recall": {"thresholds": [{"decision": "entailment", "key": "entailment", "value": 0.7, "source": "given"}],
                                           "options": {"max_units": 6}}}}
    html_path = write_report([a], tmp_path / "rows.html", worst=3, metadata=meta)
    page = html_path.read_text()
    _no_external_reference(page)
    assert page.count('<tr data-text=') == len(rows)  # every row, not only those under 1.0
    assert "weights hash abc123" in page and "entailment: entailment=0.7 (given)" in page and "9.9" in page
    col = 3 + METRICS.index("context_recall")
    below = sum(1 for r in rows if isinstance(r["context_recall"], float) and r["context_recall"] < 0.5)
    unscored = sum(1 for r in rows if any(r[m] is None for m in METRICS))
    scores = sorted(r["context_recall"] for r in rows if isinstance(r["context_recall"], float))

    def act(p):
        count = lambda: p.inner_text("#rows-count")  # noqa: E731
        seen = {"start": count()}
        p.fill("#rows-search", "hostile")
        seen["search"] = count()
        seen["search_rows"] = p.eval_on_selector_all("#rows-table tbody tr:not([hidden])", "rs => rs.map(r => r.cells[1].textContent)")
        p.fill("#rows-search", "")
        p.check("#rows-unscored")
        seen["unscored"] = count()
        p.uncheck("#rows-unscored")
        p.select_option("#rows-metric", str(col))
        p.fill("#rows-below", "0.5")
        seen["below"] = count()
        p.fill("#rows-below", "")
        p.click(f"#rows-table thead th:nth-child({col + 1})")
        seen["ascending"] = p.eval_on_selector_all(
            "#rows-table tbody tr", f"rs => rs.map(r => r.cells[{col}].getAttribute('data-v')).filter(v => v !== '')")
        p.click(f"#rows-table thead th:nth-child({col + 1})")
        seen["descending_first"] = p.eval_on_selector("#rows-table tbody tr", f"r => r.cells[{col}].getAttribute('data-v')")
        return seen

    seen = visit(html_path, tmp_path / "rows.png", actions=act)
    assert seen.console_errors == [] and seen.dialogs == []
    assert seen.requests == [html_path.resolve().as_uri()]
    n = len(rows)
    assert seen.result["start"] == f"{n} of {n} rows shown"
    assert seen.result["search"] == f"1 of {n} rows shown" and seen.result["search_rows"] == ["hostile"]
    assert seen.result["unscored"] == f"{unscored} of {n} rows shown" and unscored > 0
    assert seen.result["below"] == f"{below} of {n} rows shown"
    assert [float(v) for v in seen.result["ascending"]] == scores
    assert float(seen.result["descending_first"]) == scores[-1]


def test_line_breaks_are_kept_and_warnings_are_shown(tmp_path):
    path = tmp_path / "run.jsonl"
    record = {"_line": 1, "user_input": "Steps?", "response": "1. Build\n2. Push", "m": 0.2, "m_reason": None, "m_details": {},
              "_warnings": ["language German (de): response; the metrics were built for English, scores may be wrong"]}
    path.write_text(json.dumps(record) + "\n")
    seen = visit(write_report([path], tmp_path / "r.html"))
    assert "1. Build\n2. Push" in seen.text  # pre-wrap: the list stays a list
    assert "1 row with warnings (1 × language German (de))" in seen.text


def test_three_runs_show_means_deltas_and_the_rows_that_moved_most(runs, tmp_path):
    a, b = runs
    rows_c = _rows(a)
    for k, r in enumerate(rows_c):  # run 3: context recall moved up by row-dependent amounts, one row unscored
        if isinstance(r["context_recall"], float):
            r["context_recall"] = min(1.0, r["context_recall"] + 0.1 * k)
    rows_c[0]["context_recall"], rows_c[0]["context_recall_reason"] = None, "error: judge failed"
    c = tmp_path / "run_c.jsonl"
    c.write_text("".join(json.dumps(r) + "\n" for r in rows_c))
    out = tmp_path / "three.html"
    result = runner.invoke(app, ["report", str(a), str(b), str(c), "-o", str(out), "--worst", "3"])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    _no_external_reference(page)
    scores = [r["context_recall"] for r in _rows(a)]
    mean_a = sum(s for s in scores if isinstance(s, float)) / sum(isinstance(s, float) for s in scores)
    mean_c = sum(s for s in (r["context_recall"] for r in rows_c) if isinstance(s, float)) / sum(
        isinstance(r["context_recall"], float) for r in rows_c)
    row = re.search(r"<tr><td>context_recall</td>(.*?)</tr>", page).group(1)
    assert f"{mean_a:.3f}" in row and f"({mean_c - mean_a:+.3f})" in row
    moved = re.search(r"<h3>context_recall</h3><table class=\"moved\">(.*?)</table>", page).group(1)
    first = re.findall(r"<tr><td class=num>(\d+)</td>", moved)
    assert first[0] == "1" and "unscored" in moved  # lost its score in run 3: the largest move
    assert len(first) == 3 and int(first[1]) > int(first[2])  # then the biggest increases (later rows)
    seen = visit(out)
    assert seen.console_errors == [] and seen.requests == [out.resolve().as_uri()]
    assert "Rows that changed most across the runs" in seen.text
