"""The report finds things and fits the window (issue 34, item 12), checked in headless
Chromium, offline: search reads every text field, the table of every row scrolls in its own
box at 1,024 and 1,400 px, each run's settings are shown with what differs highlighted, and
three runs get three colours and a legend that is not cut."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from typer.testing import CliRunner

from localeval import evaluate
from localeval.cli.main import app
from localeval.reports import write_report
from report_browser import visit

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["context_recall", "faithfulness", "chunk_recall", "context_relevance", "context_entity_recall",
           "factual_correctness", "answer_relevancy"]
LONG = "pneumonoultramicroscopicsilicovolcanoconiosis-" * 6  # one word wider than any column

ROWS = [
    {"id": "q-vinegar", "user_input": "Does vinegar clean glass?", "response": "Yes, it does.",
     "reference": "It cleans glass.", "retrieved_contexts": ["Diluted acid cleans glass."]},
    {"id": "a1", "user_input": "How do I clean a kettle?", "response": "Boil white vinegar in it.",
     "reference": "Descale it with acid.", "retrieved_contexts": ["Kettles scale up in hard water."]},
    {"id": "a2", "user_input": "What removes limescale?", "response": "Citric acid.",
     "reference": "Vinegar or citric acid.", "retrieved_contexts": ["Limescale dissolves in acid."]},
    {"id": "a3", "user_input": "Is wood polish safe?", "response": "Yes.", "reference": "Mostly.",
     "retrieved_contexts": ["Polish is oil based.", "Never mix bleach with VINEGAR: it releases chlorine."]},
    {"id": "a4", "user_input": "Which acid is in pickles?", "response": "Acetic acid.", "reference": "Acetic acid.",
     "retrieved_contexts": ["Pickles are kept in brine or vinegar, which is acetic acid."]},
    {"id": "other", "user_input": "Where is Paris?", "response": "In France.", "reference": "Paris is in France.",
     "retrieved_contexts": ["Paris is the capital of France."]},
    {"id": LONG, "user_input": f"Why is {LONG} long?", "response": LONG, "reference": LONG,
     "retrieved_contexts": [LONG]},
]


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory, tiny_nli_dir, one_torch_thread) -> list[Path]:
    """Three real runs of the same rows (the tiny judge: plumbing), the third with another
    entailment threshold and max_units: what the settings table must show as differing."""
    d = tmp_path_factory.mktemp("report-polish")
    out = []
    for name, options in (("monday.jsonl", {}), ("tuesday.jsonl", {}),
                          ("wednesday.jsonl", {"thresholds": {"entailment": 0.7}, "max_units": 3})):
        evaluate(ROWS, METRICS, model=tiny_nli_dir, output=d / name, show_progress=False, **options)
        out.append(d / name)
    return out


def test_search_reads_every_text_field(three_runs, tmp_path):
    page = write_report([three_runs[0]], tmp_path / "one.html")

    def act(p):
        p.fill("#rows-search", "vinegar")
        found = p.eval_on_selector_all("#rows-table tbody tr:not([hidden])", "rs => rs.map(r => r.cells[1].textContent)")
        p.fill("#rows-search", "chlorine")  # only in the second context of one row
        return found, p.inner_text("#rows-count")

    seen = visit(page, actions=act, width=1024)
    found, chlorine = seen.result
    assert sorted(found) == ["a1", "a2", "a3", "a4", "q-vinegar"]  # question, answer, reference, contexts
    assert chlorine == f"1 of {len(ROWS)} rows shown"
    assert seen.console_errors == [] and seen.requests == [page.resolve().as_uri()]


@pytest.mark.parametrize("width", [1024, 1400])
def test_the_every_row_table_fits_or_scrolls_in_its_own_box(three_runs, tmp_path, width):
    page = write_report([three_runs[0]], tmp_path / f"w{width}.html")

    def act(p):
        return p.evaluate("""() => {
            const box = document.querySelector('.rows-box'), table = document.getElementById('rows-table');
            const head = table.tHead.rows[0], warn = head.cells[head.cells.length - 1];
            box.scrollLeft = box.scrollWidth;  // the last column can be reached inside the box
            return {page: document.documentElement.scrollWidth, window: window.innerWidth,
                    box: box.getBoundingClientRect().right, warnRight: warn.getBoundingClientRect().right,
                    warnText: warn.textContent};
        }""")

    seen = visit(page, actions=act, width=width)
    r = seen.result
    assert r["page"] <= r["window"], r  # the page itself never scrolls sideways
    assert r["box"] <= r["window"] and r["warnText"] == "warnings"
    assert r["warnRight"] <= r["box"] + 1, r  # the warnings column, scrolled to, is inside the box


def test_each_runs_settings_are_shown_and_differences_highlighted(three_runs, tmp_path):
    runner = CliRunner()
    single = tmp_path / "single.html"
    assert runner.invoke(app, ["report", str(three_runs[2]), "-o", str(single)]).exit_code == 0
    text = single.read_text()
    assert "Run settings" in text and "entailment=0.7" in text and "option max_units" in text
    pair = tmp_path / "pair.html"
    assert runner.invoke(app, ["report", str(three_runs[0]), str(three_runs[2]), "-o", str(pair)]).exit_code == 0
    three = tmp_path / "three.html"
    assert runner.invoke(app, ["report", *map(str, three_runs), "-o", str(three)]).exit_code == 0
    for page in (pair, three):
        def act(p):
            return p.eval_on_selector_all(
                "table.settings tr.differs", "rs => rs.map(r => [r.cells[0].textContent, getComputedStyle(r.cells[1]).backgroundColor])")

        seen = visit(page, actions=act, width=1024)
        differs = dict(seen.result)
        assert "thresholds given" in differs and "option max_units" in differs, differs
        assert all(colour not in ("rgba(0, 0, 0, 0)", "transparent") for colour in differs.values())  # highlighted
        assert "option candidates" not in differs  # the same in every run: not marked
        assert "These runs differ in: " in seen.text
        assert seen.console_errors == [] and seen.requests == [page.resolve().as_uri()]
    same = tmp_path / "same.html"
    assert runner.invoke(app, ["report", str(three_runs[0]), str(three_runs[1]), "-o", str(same)]).exit_code == 0
    assert "Every recorded setting is the same in these runs." in same.read_text()


def test_three_runs_get_three_colours_and_a_whole_legend(three_runs, tmp_path):
    page = write_report(three_runs, tmp_path / "three.html")
    first_svg = re.search(r'<div class="plots"><figure>(<svg.*?</svg>)', page.read_text(), re.S).group(1)
    colours = set(re.findall(r"fill:\s*(#[0-9a-f]{6})", first_svg))
    assert {"#3b6ea8", "#d9822b", "#2e8b57"} <= colours

    def act(p):
        return p.evaluate("""() => Array.from(document.querySelectorAll('.plots svg')).map(svg => {
            const box = svg.getBoundingClientRect();
            return Array.from(svg.querySelectorAll('g[id^="legend"] text, g[id^="legend"] use, g[id^="legend"] path'))
              .map(e => e.getBoundingClientRect())
              .filter(r => r.width > 0)
              .every(r => r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1);
        })""")

    seen = visit(page, actions=act, width=1024)
    assert seen.result and all(seen.result), seen.result
    assert seen.console_errors == [] and seen.requests == [page.resolve().as_uri()]


def test_the_committed_screenshot_is_the_report_at_1024_px():
    shot = ROOT / "docs" / "report-1024.png"
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert width == 1024 and height > 1000
    assert "docs/report-1024.png" in (ROOT / "README.md").read_text()
