"""Data-science interop: RAGAS samples in, CSV / Parquet / JSONL out and back in, results as
pandas and Hugging Face Datasets. Plumbing only: a tiny judge whose verdicts vary by pair."""

from __future__ import annotations

import csv
import json
import math
import sys
import types

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from localeval import evaluate
from localeval.metrics import ContextRecall

from bulk_helpers import THREE_LABELS, make_rows, sharp_tiny_model, write_jsonl

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

ODD = [
    {"id": "comma", "reference": "Paris, France. It is big.", "retrieved_contexts": ["Paris, \"the\" city.", "a,b"]},
    {"id": "newline", "reference": "The cat sat.\nThe dog sat.", "retrieved_contexts": ["line one\nline two", "x\r\ny"]},
    {"id": "unicode", "reference": "Ça coûte 3 €. 東京 is big 🐱.", "retrieved_contexts": ["Ça coûte 3 €.", "🐱 " * 3]},
    {"id": "empty", "reference": "", "retrieved_contexts": [""]},
    {"id": "no-contexts", "reference": "The sun is hot."},
    {"id": "bad-type", "reference": 3, "retrieved_contexts": ["a"]},
    {"id": "json-looking", "reference": '["not", "a list"]', "retrieved_contexts": ['{"a": 1}', "[1, 2]"]},
]


@pytest.fixture(scope="module")
def metric(tmp_path_factory, one_torch_thread):
    from localeval.judge import NLIJudge

    path = sharp_tiny_model(tmp_path_factory.mktemp("sharp3-interop"), THREE_LABELS, {"max_length": 64})
    return ContextRecall(NLIJudge(path, device="cpu"))


def _rows() -> list[dict]:
    keep = ("id", "user_input", "response", "reference", "retrieved_contexts")
    return [{k: r[k] for k in keep if k in r} for r in make_rows(8)] + ODD


def _scores(result) -> list:
    return result.scores("context_recall")


# ---------------------------------------------------------------- RAGAS objects, by field name
def _ragas_stand_in() -> types.ModuleType:
    """Classes shaped like ragas' (pydantic models, same field names, `samples` list), in a
    module named ``ragas.dataset_schema``: what the conversion relies on, nothing more. The
    real package is tested below when it is installed (see the README for why it is not a
    test dependency)."""
    module = types.ModuleType("ragas.dataset_schema")

    class SingleTurnSample(BaseModel):
        user_input: str | None = None
        retrieved_contexts: list[str] | None = None
        reference_contexts: list[str] | None = None
        response: str | None = None
        reference: str | None = None
        rubrics: dict[str, str] | None = None

    class MultiTurnSample(BaseModel):
        user_input: list[dict]
        reference: str | None = None

    class EvaluationDataset(BaseModel):
        samples: list[SingleTurnSample | MultiTurnSample]

        def __len__(self) -> int:
            return len(self.samples)

    for cls in (SingleTurnSample, MultiTurnSample, EvaluationDataset):
        cls.__module__ = module.__name__
        setattr(module, cls.__name__, cls)
    return module


def _check_ragas(module, metric) -> None:
    rows = [r for r in _rows() if not isinstance(r.get("reference"), int)]
    expected = _scores(evaluate(rows, [metric], show_progress=False))
    samples = [module.SingleTurnSample(**{k: v for k, v in r.items() if k != "id"}) for r in rows]
    assert _scores(evaluate(samples, [metric], show_progress=False)) == expected
    dataset = module.EvaluationDataset(samples=samples)
    result = evaluate(dataset, [metric], show_progress=False)
    assert _scores(result) == expected
    # Unset fields are left out of the row (they read as missing, not as None values).
    assert "reference_contexts" not in result[0].data
    assert result[0].data["user_input"] == rows[0]["user_input"]
    # A conversation is kept, unscored, with the reason.
    talk = module.MultiTurnSample(user_input=[{"content": "hi", "type": "human"}], reference="x")
    mixed = evaluate([samples[0], talk], [metric], show_progress=False)
    assert len(mixed) == 2 and mixed[1].results["context_recall"].score is None
    assert "multi-turn" in mixed[1].results["context_recall"].reason


def test_ragas_shaped_objects_convert_by_field_name(metric):
    _check_ragas(_ragas_stand_in(), metric)


def test_real_ragas_classes(metric):
    import ragas  # in the test extra (pyproject.toml): the conversion is checked on the real classes
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import HumanMessage

    rows = [r for r in _rows() if not isinstance(r.get("reference"), int)]
    expected = _scores(evaluate(rows, [metric], show_progress=False))
    samples = [ragas.SingleTurnSample(**{k: v for k, v in r.items() if k != "id"}) for r in rows]
    assert _scores(evaluate(ragas.EvaluationDataset(samples=samples), [metric], show_progress=False)) == expected
    assert _scores(evaluate(samples, [metric], show_progress=False)) == expected
    talk = MultiTurnSample(user_input=[HumanMessage(content="hi")])
    mixed = evaluate([samples[0], talk], [metric], show_progress=False)
    assert mixed[1].results["context_recall"].score is None and "multi-turn" in mixed[1].results["context_recall"].reason


def test_the_ragas_module_is_never_imported_by_localeval(metric):
    before = "ragas" in sys.modules
    evaluate(_rows()[:2], [metric], show_progress=False)
    evaluate(_ragas_stand_in().EvaluationDataset(samples=[]), [metric], show_progress=False)
    assert ("ragas" in sys.modules) == before


# ---------------------------------------------------------------- output files, and back in
def _read_csv(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_csv_output_round_trip_with_odd_values(metric, tmp_path):
    rows = _rows()
    reference = evaluate(rows, [metric], show_progress=False)
    out = tmp_path / "scored.csv"
    evaluate(rows, [metric], output=out, show_progress=False)
    table = _read_csv(out)
    assert [int(r["_line"]) for r in table] == list(range(1, len(rows) + 1))  # no row dropped
    for got, want, row in zip(table, reference, rows):
        score = want.results["context_recall"].score
        assert (got["context_recall"] == "") == (score is None)
        if score is not None:
            assert float(got["context_recall"]) == score  # repr keeps every digit
        assert got["context_recall_reason"] == (want.results["context_recall"].reason or "")
        assert json.loads(got["_input"]) == row  # the input row, lossless (line breaks, quotes, emoji)
        if want.data.get("retrieved_contexts") is not None and not isinstance(row.get("reference"), int):
            assert json.loads(got["retrieved_contexts"]) == row["retrieved_contexts"]  # a list cell is JSON
        json.loads(got["context_recall_details"])
    bad = table[[r["id"] for r in rows].index("bad-type")]
    assert bad["_error"].startswith("invalid row") and bad["context_recall"] == ""
    # The scored file is valid input: the same rows give the same scores.
    again = evaluate(out, [metric], show_progress=False)
    ok = [i for i, r in enumerate(rows) if not isinstance(r.get("reference"), int)]
    assert [_scores(again)[i] for i in ok] == [_scores(reference)[i] for i in ok]


def test_parquet_output_round_trip_and_pandas(metric, tmp_path):
    rows = _rows()
    reference = evaluate(rows, [metric], show_progress=False)
    out = tmp_path / "scored.parquet"
    evaluate(rows, [metric], output=out, show_progress=False)
    table = pd.read_parquet(out)
    assert len(table) == len(rows)
    got = [None if math.isnan(v) else v for v in table["context_recall"]]
    assert got == _scores(reference)
    assert [json.loads(v) for v in table["_input"]] == rows
    again = evaluate(out, [metric], show_progress=False)
    ok = [i for i, r in enumerate(rows) if not isinstance(r.get("reference"), int)]
    assert [_scores(again)[i] for i in ok] == [_scores(reference)[i] for i in ok]
    frame = reference.to_pandas()
    assert list(frame["id"]) == [r["id"] for r in rows] and "context_recall_details" in frame


def test_hf_dataset_keeps_types_and_turns_details_and_mixed_columns_to_json(metric):
    rows = _rows()  # "reference" holds text in most rows and a number in one
    result = evaluate(rows, [metric], show_progress=False)
    ds = result.to_hf_dataset()
    assert len(ds) == len(rows) and ds["id"] == [r["id"] for r in rows]
    assert ds["context_recall"] == _scores(result)
    assert ds.features["context_recall"].dtype in ("float64", "double")
    assert [json.loads(d) for d in ds["context_recall_details"]] == [r["context_recall_details"] for r in result.to_records()]
    refs = ds["reference"]
    assert json.loads(refs[[r["id"] for r in rows].index("bad-type")]) == 3
    assert json.loads(refs[0]) == rows[0]["reference"]


def test_cli_writes_csv_and_reads_every_format(metric, tmp_path, tiny_nli_dir):
    from localeval.cli.main import app

    rows = _rows()[:6]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    cli = CliRunner()
    outs = {}
    for suffix in ("jsonl", "csv", "parquet"):
        outs[suffix] = tmp_path / f"out.{suffix}"
        r = cli.invoke(app, ["score", str(src), "--model", str(tiny_nli_dir), "-o", str(outs[suffix]), "--no-progress"])
        assert r.exit_code == 0, r.output
    jsonl = [json.loads(line)["context_recall"] for line in outs["jsonl"].read_text().splitlines()]
    assert [None if c["context_recall"] == "" else float(c["context_recall"]) for c in _read_csv(outs["csv"])] == jsonl
    assert [None if math.isnan(v) else v for v in pd.read_parquet(outs["parquet"])["context_recall"]] == jsonl
    # CSV and Parquet outputs are inputs in turn.
    for suffix in ("csv", "parquet"):
        r = cli.invoke(app, ["score", str(outs[suffix]), "--model", str(tiny_nli_dir), "-o", str(tmp_path / f"re-{suffix}.jsonl"), "--no-progress"])
        assert r.exit_code == 0, r.output
        again = [json.loads(line)["context_recall"] for line in (tmp_path / f"re-{suffix}.jsonl").read_text().splitlines()]
        assert again == jsonl
    r = cli.invoke(app, ["score", str(src), "--model", str(tiny_nli_dir), "-o", str(outs["csv"]), "--resume"])
    assert r.exit_code == 2 and "JSON Lines" in r.output
