"""What a benchmark stores in a judge's config.json (`localeval.training.export`), tried on a
temporary copy of the shipped judge's config and model card: never on the shipped files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from localeval.training.export import store_thresholds, store_verdict

SHIPPED = Path(__file__).resolve().parents[1] / "models" / "localeval-judge-minilm-l6"


@pytest.fixture()
def judge_copy(tmp_path) -> Path:
    """The files of the shipped judge that a store rewrites or reads (no weights: none is needed)."""
    for name in ("config.json", "heldout_eval.json", "README.md"):
        shutil.copy(SHIPPED / name, tmp_path / name)
    return tmp_path


def _config(folder: Path) -> dict:
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))


def test_store_thresholds_sets_only_those_keys_and_keeps_the_card_in_step(judge_copy):
    before = _config(judge_copy)
    stored = store_thresholds(judge_copy, {"entailment": 0.73456, "faithfulness": 0.4242})
    assert stored == {"entailment": 0.7346, "faithfulness": 0.4242}
    after = _config(judge_copy)
    expected = json.loads(json.dumps(before))
    expected["localeval"]["thresholds"] |= stored
    assert after == expected  # every other key, the heads and training record included, as it was
    assert "faithfulness 0.4242" in (judge_copy / "README.md").read_text(encoding="utf-8")
    assert _config(SHIPPED) == before  # the shipped judge is untouched


def test_store_thresholds_rejects_a_value_that_is_not_a_probability(judge_copy):
    text = (judge_copy / "config.json").read_text(encoding="utf-8")
    for bad in (float("nan"), 1.5, -0.1):
        with pytest.raises(ValueError, match="probability"):
            store_thresholds(judge_copy, {"entailment": 0.5, "faithfulness": bad})
    assert (judge_copy / "config.json").read_text(encoding="utf-8") == text  # nothing half-written
    with pytest.raises(FileNotFoundError, match="not a judge folder"):
        store_thresholds(judge_copy / "missing", {"entailment": 0.5})


def test_store_verdict_gives_way_only_the_stored_keys_of_the_metrics_that_read_it(judge_copy):
    store_thresholds(judge_copy, {"faithfulness": 0.61})
    verdict = {"signals": ["p_best"], "mean": [0.5], "scale": [1.0], "coef": [3.0], "intercept": 0.0,
               "threshold": 0.437219}
    store_verdict(judge_copy, verdict, verdict["threshold"], ["faithfulness", "factual_correctness"])
    block = _config(judge_copy)["localeval"]
    assert block["verdict"] == verdict
    assert block["thresholds"]["faithfulness"] == 0.437219  # given way, exact
    assert "factual_correctness" not in block["thresholds"]  # not stored before: stays absent
    assert block["thresholds"]["entailment"] == _config(SHIPPED)["localeval"]["thresholds"]["entailment"]
