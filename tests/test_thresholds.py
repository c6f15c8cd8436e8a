"""Threshold precedence: a value the user gives always beats one stored with the judge."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from localeval.cli.main import app
from localeval.metrics import ContextRecall, Faithfulness
from localeval.metrics.thresholds import choose_threshold
from localeval.runner.run import resolve_metrics
from tests.conftest import build_tiny_model

runner = CliRunner()
STORED = {"entailment": 0.5, "relevance": 0.5, "faithfulness": 0.011, "context_recall": 0.012}


@pytest.fixture(scope="module")
def keyed_dir(tmp_path_factory):
    """A tiny judge that stores per-metric thresholds, as the shipped one does."""
    return build_tiny_model(
        tmp_path_factory.mktemp("keyed"), {0: "contradiction", 1: "neutral", 2: "entailment"},
        {"max_length": 64, "thresholds": STORED},
    )


def test_order_given_per_metric_then_given_generic_then_stored():
    stored = {"entailment": 0.5, "faithfulness": 0.6}
    assert choose_threshold(stored, {}, "faithfulness", "entailment") == (0.6, "faithfulness", "stored")
    assert choose_threshold(stored, {"entailment": 0.85}, "faithfulness", "entailment") == (0.85, "entailment", "given")
    both = {"entailment": 0.85, "faithfulness": 0.3}
    assert choose_threshold(stored, both, "faithfulness", "entailment") == (0.3, "faithfulness", "given")
    assert choose_threshold({}, {}, "context_recall", "entailment") == (0.5, "entailment", "fallback")


def test_given_generic_key_moves_metrics_with_a_stored_key(keyed_dir):
    named = dict(resolve_metrics(["context_recall", "faithfulness", "chunk_recall"], model=str(keyed_dir),
                                 device="cpu", thresholds={"entailment": 0.85}))
    assert named["context_recall"].resolved_threshold() == 0.85
    assert named["faithfulness"].resolved_threshold() == 0.85
    assert named["chunk_recall"].resolved_threshold("entailment") == 0.85
    assert named["chunk_recall"].resolved_threshold("relevance") == 0.5  # not given: stored
    plain = dict(resolve_metrics(["context_recall"], model=str(keyed_dir), device="cpu"))
    assert plain["context_recall"].resolved_threshold() == 0.012
    # A metric's own argument beats everything.
    judge = named["faithfulness"].judge
    assert Faithfulness(judge, threshold=0.2).resolved_threshold() == 0.2
    # The run's thresholds belong to the run's metrics, not to the judge they share: a metric
    # built later on the same judge reads the stored table unless it is given the run's.
    assert named["context_recall"].threshold_choice().source == "given"
    assert ContextRecall(judge).threshold_choice().source == "stored"
    assert ContextRecall(judge, thresholds={"entailment": 0.85}).threshold_choice().source == "given"


def test_unknown_threshold_keys_fail_with_a_suggestion(keyed_dir):
    with pytest.raises(ValueError, match=r"unknown threshold 'faithfulnes' \(did you mean 'faithfulness'\?\)"):
        resolve_metrics(["faithfulness"], model=str(keyed_dir), device="cpu", thresholds={"faithfulnes": 0.7})
    # A per-metric key the judge does not store is still a key a metric reads: accepted.
    [(_, m)] = resolve_metrics(["context_relevance"], model=str(keyed_dir), device="cpu", thresholds={"context_relevance": 0.7})
    assert m.resolved_threshold() == 0.7


def test_cli_threshold_reaches_the_details_of_metrics_with_stored_keys(tmp_path, keyed_dir):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"reference": "The cat sat.", "response": "The cat sat.", "retrieved_contexts": ["The cat sat on the mat."]}) + "\n")
    out = tmp_path / "out.jsonl"
    result = runner.invoke(app, ["score", str(data), "-m", "context_recall,faithfulness", "-o", str(out),
                                 "--model", str(keyed_dir), "--threshold", "entailment=0.85", "--no-progress"])
    assert result.exit_code == 0, result.output
    row = json.loads(out.read_text())
    assert row["context_recall_details"]["threshold"] == 0.85
    assert row["faithfulness_details"]["threshold"] == 0.85


def test_config_command_shows_the_key_each_metric_reads(tmp_path, monkeypatch, keyed_dir):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "localeval.toml").write_text(
        f'metrics = ["faithfulness", "chunk_recall", "context_entity_recall"]\nmodel = "{keyed_dir}"\n[thresholds]\nentailment = 0.85\n'
    )
    result = runner.invoke(app, ["config", "--json"])
    assert result.exit_code == 0, result.output
    uses = {(u["metric"], u["decision"]): u for u in json.loads(result.output)["thresholds_in_force"]}
    assert uses["faithfulness", "entailment"]["key"] == "entailment" and uses["faithfulness", "entailment"]["value"] == 0.85
    assert uses["faithfulness", "entailment"]["source"] == "localeval.toml"
    assert uses["chunk_recall", "relevance"]["source"].startswith("stored with judge")
    assert not any(m == "context_entity_recall" for m, _ in uses)  # asks no judge
    (tmp_path / "localeval.toml").write_text("[thresholds]\nfaithfulness = 0.6\n")
    text = runner.invoke(app, ["config"]).output
    assert "context_recall entailment (context_recall > entailment)" in text and "context_recall = 0.012" not in text
    (tmp_path / "localeval.toml").write_text("[thresholds]\nentail = 0.6\n")
    bad = runner.invoke(app, ["config"])
    assert bad.exit_code == 2 and "did you mean 'entailment'" in bad.output


def test_chunk_recall_threshold_is_entailment_only(keyed_dir):
    from localeval.metrics import ChunkRecall

    [(_, metric)] = resolve_metrics(["chunk_recall"], model=str(keyed_dir), device="cpu")
    judge = metric.judge
    assert ChunkRecall(judge, threshold=0.2).resolved_threshold("relevance") == 0.5
    assert ChunkRecall(judge, threshold=0.2, relevance_threshold=0.3).resolved_threshold("relevance") == 0.3
    assert [(k, key) for k, key, _ in ChunkRecall(judge, threshold=0.2).thresholds_in_force()] == [
        ("entailment", "chunk_recall"), ("relevance", "chunk_recall_relevance")]
