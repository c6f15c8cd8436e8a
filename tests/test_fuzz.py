"""Property-based fuzzing of every metric and of `evaluate()` (issue 9, item 1).

What is promised for any input row: a score in [0, 1], or ``None`` with a reason, or a
pydantic `ValidationError` naming the field, raised before any model runs. In a bulk run no
row is dropped and none stops the run; the summary counts unscored rows by reason. Details are
JSON-writable, hold no NaN, and every evidence span is cut from the text it points at.

The judge is a tiny sharp random model (verdicts vary from pair to pair), never the default
one: this checks plumbing, not judgement. Examples are derandomised (the same ones on every
run, so CI is reproducible); ``LOCALEVAL_FUZZ_EXAMPLES=500`` explores new random ones.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from localeval import Sample, evaluate
from localeval.metrics import Metric, MetricResult, get_metric
from localeval.metrics.judged import JudgedMetric
from localeval.metrics.registry import METRICS
from localeval.runner.columns import ColumnError, ColumnMap
from localeval.runner.output import dumps

from bulk_helpers import FIVE_LABELS, sharp_tiny_model
from conftest import TINY_WORDS

_EXPLORE = os.environ.get("LOCALEVAL_FUZZ_EXAMPLES")
FUZZ = settings(
    max_examples=int(_EXPLORE or 30),
    deadline=None,
    derandomize=not _EXPLORE,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
pytestmark = pytest.mark.usefixtures("one_torch_thread")

TEXT_FIELDS = ("user_input", "response", "reference")
LIST_FIELDS = ("retrieved_contexts", "reference_contexts")
ID_FIELDS = ("retrieved_context_ids", "reference_context_ids")

EMOJI = "👩‍👩‍👧‍👦 family 🇫🇷 flag 👍🏽 tone 🚀."  # ZWJ sequences, flags, skin-tone modifiers
COMBINING = "Z̴̡̪̫͖̥̔̿̃̈̏̎͠a̸l̶g̵o̴ text. e\u0301\u0301\u0301 cafe\u0301."  # stacked combining marks
NASTY = [
    "", " ", "\t\n \r\n", "\n\n\n", "\u00a0\u2028\u2029", "...", "?!", "- ", "1.", "(a)", "•", "-\n-\n-",
    "مرحبا بالعالم. هذا نص عربي طويل قليلا.",  # RTL
    "שלום עולם. \u202eevil\u202c override.",  # RTL with a bidi override
    EMOJI, COMBINING,
    "nul\x00inside. \x00", "\x00", "bell\x07 esc\x1b[31m red.", "\ufeffbom first.", "zero\u200bwidth\u200d.",
    "東京は日本の首都です。大阪は大きい。", "ภาษาไทยไม่มีช่องว่าง", "नमस्ते दुनिया। यह पाठ है।",
    "Dr. Smith arrived at 5 p.m. on Jan. 5. He left.", "The cat sat.\r\nThe dog sat.\rThe end.",
    "<b>html</b> &amp; {\"json\": [1, 2]} \\u0000", "1,000,000 people on 4 August 1961 paid $2.5 million.",
    "a" * 5000, "word " * 700, "." * 500,
]
SURROGATES = ["\ud800", "lone \udfff surrogate.", "pair \ud83d\ude00 split."]
WORDS = [w for w in TINY_WORDS if w.isalpha()]


# ---------------------------------------------------------------- strategies

def _sentences() -> st.SearchStrategy[str]:
    """Text in the tiny judge's vocabulary, so its verdicts (and scores) vary."""
    sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(lambda ws: " ".join(ws).capitalize() + ".")
    return st.lists(sentence, min_size=1, max_size=6).map(" ".join)


texts = st.one_of(
    _sentences(),
    st.sampled_from(NASTY),
    st.text(max_size=200),
    st.lists(st.one_of(_sentences(), st.sampled_from(NASTY)), min_size=2, max_size=4).map("\n".join),
)
not_text = st.one_of(
    st.none(), st.just(float("nan")), st.integers(), st.floats(allow_nan=True), st.booleans(),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
broken_text = st.one_of(st.sampled_from(SURROGATES), not_text)  # a lone surrogate or a wrong type


@st.composite
def context_lists(draw) -> list[str]:
    items = draw(st.lists(st.one_of(texts, texts, st.just("")), max_size=5))
    if items and draw(st.booleans()):  # duplicated contexts
        items = items + [draw(st.sampled_from(items))]
    return items


id_item = st.one_of(st.text(max_size=6), st.integers(-5, 30), st.sampled_from(["d1", "d1", "D1", " d1", "1"]))
id_lists = st.lists(id_item, max_size=8)  # the two lists' lengths never agree on purpose

VALID = {
    **{f: texts for f in TEXT_FIELDS},
    **{f: context_lists() for f in LIST_FIELDS},
    **{f: id_lists for f in ID_FIELDS},
    "question": texts, "answer": texts, "ground_truth": texts, "contexts": context_lists(),
    "extra": st.one_of(st.integers(), st.text(max_size=5)),
}
BROKEN = {
    **{f: broken_text for f in (*TEXT_FIELDS, "question", "answer", "ground_truth")},
    # a bad member in a list, or no list at all
    **{f: st.one_of(context_lists().flatmap(lambda xs: broken_text.map(lambda b: [*xs, b])), texts, not_text)
       for f in (*LIST_FIELDS, "contexts")},
    **{f: st.one_of(st.lists(st.one_of(id_item, not_text), min_size=1, max_size=3).filter(
        lambda xs: any(not isinstance(x, (str, int)) or isinstance(x, bool) for x in xs)), not_text)
       for f in ID_FIELDS},
}
valid_rows = st.fixed_dictionaries({}, optional=VALID)


@st.composite
def broken_rows(draw) -> dict:
    """A valid row with one field (or more) broken."""
    row = draw(valid_rows)
    for field in draw(st.lists(st.sampled_from(sorted(BROKEN)), min_size=1, max_size=2, unique=True)):
        row[field] = draw(BROKEN[field])
    return row


rows = st.one_of(valid_rows, valid_rows, valid_rows, broken_rows())
junk = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2))


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def judge5(tmp_path_factory):
    """A tiny judge with both heads (NLI and relevance)."""
    from localeval.judge import NLIJudge

    extra = {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "max_length": 64}
    return NLIJudge(sharp_tiny_model(tmp_path_factory.mktemp("fuzz5"), FIVE_LABELS, extra), device="cpu")


@pytest.fixture(scope="module")
def metrics(judge5) -> dict[str, Metric]:
    """Every metric of the registry; judged ones on the tiny judge."""
    return {
        name: get_metric(name, model=judge5) if issubclass(cls, JudgedMetric) else get_metric(name)
        for name, cls in METRICS.items()
    }


# Options that take other code paths than the defaults (windows instead of sentences, the
# relevance head instead of NLI).
VARIANTS = {
    "context_relevance[chunk]": ("context_relevance", {"level": "chunk"}),
    "question_recall[window]": ("question_recall", {"unit": "window"}),
    "context_precision[question]": ("context_precision", {"mode": "question"}),
    "chunk_recall[all,None]": ("chunk_recall", {"inclusion": "all", "no_relevant_score": None}),
}


@pytest.fixture(scope="module")
def every_metric(metrics, judge5) -> dict[str, Metric]:
    variants = {label: get_metric(name, model=judge5, **options) for label, (name, options) in VARIANTS.items()}
    return {**metrics, **variants}


# ---------------------------------------------------------------- invariants

def _floats(value: Any) -> Iterator[float]:
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _floats(v)
    elif isinstance(value, list):
        for v in value:
            yield from _floats(v)


def _spans(value: Any) -> Iterator[dict]:
    """Every dict in the details that locates text inside a context."""
    if isinstance(value, dict):
        if {"context_index", "text", "start", "end"} <= value.keys():
            yield value
        for v in value.values():
            yield from _spans(v)
    elif isinstance(value, list):
        for v in value:
            yield from _spans(v)


def check_result(metric: Metric, result: MetricResult, sample: Sample | None) -> None:
    assert isinstance(result, MetricResult) and result.metric == metric.name
    if result.score is None:
        assert isinstance(result.reason, str) and result.reason.strip(), "an unscored row must say why"
    else:
        assert not isinstance(result.score, bool)
        assert math.isfinite(result.score) and 0.0 <= result.score <= 1.0, result.score
    details = result.details()
    assert all(math.isfinite(x) for x in _floats(details)), "NaN or inf in the details"
    line = dumps({"score": result.score, "reason": result.reason, "details": details})
    line.encode("utf-8")  # what the JSON Lines writer does
    assert json.loads(line)["score"] == result.score
    if sample is not None and sample.retrieved_contexts:
        for span in _spans(details):
            context = sample.retrieved_contexts[span["context_index"]]
            assert context[span["start"] : span["end"]] == span["text"], (metric.name, span)
    source = getattr(sample, getattr(metric, "claims_from", ""), None)
    for claim in details.get("claims", []) if source is not None else []:
        assert source[claim["start"] : claim["end"]] == claim["text"], (metric.name, claim)


def check_invalid(exc: ValidationError, row: dict) -> None:
    """A clear validation error: it names a field the row has."""
    locations = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
    assert locations and locations <= set(row), (locations, row.keys())


# ---------------------------------------------------------------- every metric, one row

@pytest.mark.parametrize("name", [*sorted(METRICS), *VARIANTS])
@FUZZ
@given(row=rows)
@example(row={})
@example(row={"reference": "", "response": " ", "user_input": "\n", "retrieved_contexts": ["", " ", "\n"]})
@example(row={"reference": "The cat sat.", "user_input": "where is the cat?", "response": "The cat sat.",
              "retrieved_contexts": ["The cat sat.", "The cat sat.", "", "The cat sat."],
              "retrieved_context_ids": ["d1", "d1", 1, "1"], "reference_context_ids": ["1"]})
@example(row={"reference": float("nan"), "retrieved_contexts": ["x"]})
@example(row={"user_input": 7, "response": None, "retrieved_contexts": ["a", None]})
@example(row={"reference": "ok.", "retrieved_contexts": ["ok \ud800."]})
@example(row={"retrieved_context_ids": [], "reference_context_ids": ["a", "a", 2]})
@example(row={"retrieved_context_ids": ["a", "b", "c", "a"], "reference_context_ids": []})
@example(row={f: f"\x00 {EMOJI} {COMBINING}" for f in TEXT_FIELDS} | {"retrieved_contexts": NASTY})
def test_every_metric_scores_or_explains(name, row, every_metric, judge5):
    metric = every_metric[name]
    try:
        sample = Sample.model_validate(row)
    except ValidationError as exc:
        check_invalid(exc, row)
        from localeval.judge.session import JudgeSession

        with JudgeSession() as session, pytest.raises(ValidationError):
            metric.score_many([row], session=session)
        assert session.counters.pairs_requested == 0, "a judge was asked before validation failed"
        return
    check_result(metric, metric.score(row), sample)


# ---------------------------------------------------------------- evaluate(): a bulk run

# 25,000 words: hundreds of judge windows and sentences past any one batch; a longer text
# takes the same code paths, only for longer (budgets on such rows: test_faults.py).
LONG_CONTEXT = " ".join(f"The {WORDS[i % len(WORDS)]} cat sat on the mat in paris {i}." for i in range(2_500))
assert len(LONG_CONTEXT.split()) == 25_000


def _sample(raw: Any) -> Sample | None:
    """The row's `Sample` as the runner builds it (NaN -> None, JSON list cells decoded), or
    None when the row is invalid."""
    if not isinstance(raw, dict):
        return None
    try:
        return Sample.model_validate(ColumnMap().apply(raw))
    except (ValidationError, ColumnError):  # ColumnError: a plain string where a list belongs
        return None


@FUZZ
@given(data=st.lists(st.one_of(rows, rows, rows, junk), min_size=1, max_size=6), chunk_size=st.integers(1, 4),
       from_file=st.booleans())
@example(
    data=[{"reference": "The cat sat on the mat in Paris.", "user_input": "where is the cat?", "response": "The cat sat.",
           "retrieved_contexts": [LONG_CONTEXT, "", LONG_CONTEXT[:200]], "retrieved_context_ids": ["a"],
           "reference_context_ids": ["a"]}],
    chunk_size=1, from_file=False,
)
@example(
    data=[{"reference": NASTY[i], "response": NASTY[-i], "user_input": NASTY[i // 2], "retrieved_contexts": NASTY[i:i + 3]}
          for i in range(len(NASTY))] + [{"reference": "\ud800"}, "junk", None, {"contexts": [1]}],
    chunk_size=4, from_file=True,
)
def test_evaluate_never_stops_and_counts_every_row(data, chunk_size, from_file, metrics, tmp_path_factory):
    directory = tmp_path_factory.mktemp("fuzz-run")
    source: Any = data
    if from_file:  # through JSON Lines: NaN and lone surrogates survive json.dumps/loads
        source = directory / "in.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in data))
    out = directory / "out.jsonl"
    # Budgets off: the 25k-word row goes through every metric (budgets: test_faults.py).
    result = evaluate(source, list(metrics.values()), block_size=chunk_size, show_progress=False, output=out,
                      max_row_chars=None, max_row_pairs=None)

    assert [r.line for r in result] == list(range(1, len(data) + 1)), "a row was dropped or repeated"
    # Split on "\n" only: str.splitlines() would also cut at U+2028, which JSON leaves raw.
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n")[:-1]]
    assert [w["_line"] for w in written] == list(range(1, len(data) + 1))
    for row, raw in zip(result, data):
        # What the runner read: JSON joins a split surrogate pair ("\ud83d\ude00") into one.
        sample = _sample(json.loads(json.dumps(raw)) if from_file else raw)
        assert (sample is None) == (row.error is not None)
        for name, metric in metrics.items():
            res = row.results[name]
            check_result(metric, res, sample)
            if sample is None:
                assert res.score is None and res.reason.startswith("invalid row"), res.reason
            # A failure inside a metric would be reported as "error: ...": there must be none.
            assert not (res.reason or "").startswith("error:"), res.reason

    summary = result.summary()
    assert summary.rows == len(data)
    for name in metrics:
        m = summary[name]
        scores = [s for s in result.scores(name) if s is not None]
        assert m.scored == len(scores) and m.scored + m.unscored == len(data)
        assert sum(m.reasons.values()) == m.unscored
        assert (m.mean is None) == (not scores)
        if scores:
            assert 0.0 <= m.mean <= 1.0 and m.mean == pytest.approx(sum(scores) / len(scores))


class _Fragile(Metric):
    """A metric that raises on some rows: what an unforeseen bug inside a metric looks like."""

    name = "fragile"
    required_columns = ("reference",)

    def unscored(self, reason: str) -> MetricResult:
        return MetricResult(metric=self.name, score=None, reason=reason)

    def _score_valid(self, samples, *, show_progress_bar):
        if any("boom" in s.reference for s in samples):
            raise RuntimeError("boom")
        return [MetricResult(metric=self.name, score=1.0) for _ in samples]


def test_a_metric_failing_on_one_row_costs_only_that_row(metrics):
    texts = ("The cat sat.", "The boom sat.", "The dog sat.", "A boom.", "Paris is big.")
    rows = [{"reference": text, "retrieved_contexts": ["The cat sat on the mat."]} for text in texts]
    result = evaluate(rows, [_Fragile(), metrics["context_recall"]], block_size=5, show_progress=False)
    assert result.scores("fragile") == [1.0, None, 1.0, None, 1.0]
    assert result[1].results["fragile"].reason == "error: RuntimeError: boom"
    assert all(s is not None for s in result.scores("context_recall"))  # other metrics unaffected
    assert result.summary()["fragile"].reasons == {"error": 2}
