"""The LLM decomposer's validation, fallback, cache and metric plumbing, with a scripted
generator (deterministic model outputs) and the real default judge for the entailment check.
The real small model (SmolLM2-135M GGUF) is exercised in test_decomposer_llm.py."""

from __future__ import annotations

import json
import math

import pytest

from localeval.judge.cache import JudgementCache
from localeval.llm import LLMDecomposer, resolve_decomposer
from localeval.llm.validate import content_words, parse_items
from localeval.metrics import ContextRecall, Faithfulness, PrecisionRecall, QuestionRecall
from localeval.text.decomposition import Decomposer, decompose_many
from localeval.text.questions import RuleBasedDecomposer

EIFFEL = "The Eiffel Tower is in Paris. It was completed in 1889 and it is 330 metres tall."
EIFFEL_CONTEXT = "The Eiffel Tower, in Paris, was finished in 1889. The tower is 330 metres tall."


class Scripted:
    """A fake model: answers each prompt by the text it was asked about."""

    name = "scripted"

    def __init__(self, answers: dict[str, str], identity: str = "scripted-v1") -> None:
        self.answers = answers
        self.identity = identity
        self.prompts: list[str] = []

    def generate(self, prompts: list[str]) -> list[str]:
        self.prompts.extend(prompts)
        out = []
        for prompt in prompts:
            asked = prompt.rstrip().splitlines()[-2].split(":", 1)[1].strip()  # "Text: ..." line
            out.append(self.answers.get(asked, ""))
        return out


class Broken(Scripted):
    def generate(self, prompts: list[str]) -> list[str]:
        raise RuntimeError("out of memory")


@pytest.fixture()
def make(default_judge):
    def build(answers: dict[str, str], **options) -> LLMDecomposer:
        return LLMDecomposer(Scripted(answers), judge=default_judge, **options)

    return build


def test_both_decomposers_implement_the_interface(make):
    rules = RuleBasedDecomposer()
    assert isinstance(rules, Decomposer) and isinstance(make({}), Decomposer)
    assert rules.claims(EIFFEL) == ["The Eiffel Tower is in Paris.", "It was completed in 1889", "it is 330 metres tall."]
    assert rules.sub_questions("Where is X and when was it built?") == rules.decompose("Where is X and when was it built?")


def test_good_claims_are_used_and_located(make):
    d = make({EIFFEL: "- The Eiffel Tower is in Paris.\n- The Eiffel Tower was completed in 1889.\n- The Eiffel Tower is 330 metres tall."})
    [result] = d.decompose_batch([EIFFEL], "claims")
    assert result.decomposer == "llm:scripted" and result.fallback_reason is None and result.rejected == []
    assert result.items == ["The Eiffel Tower is in Paris.", "The Eiffel Tower was completed in 1889.", "The Eiffel Tower is 330 metres tall."]
    # Through the metric: a claim found verbatim in the reference keeps its span, others have none.
    r = ContextRecall(d.judge, decomposer=d).score({"reference": EIFFEL, "retrieved_contexts": [EIFFEL_CONTEXT]})
    assert [(c.start, c.end) for c in r.claims] == [(0, 29), (None, None), (None, None)]
    assert r.decomposition.decomposer == "llm:scripted" and r.decomposition.fallback_reason is None


def test_invented_claim_is_rejected_by_words_and_judge(make):
    d = make({EIFFEL: "1. The Eiffel Tower is in Paris.\n2. The Eiffel Tower was completed in 1889.\n3. The Eiffel Tower is 330 metres tall.\n4. The Eiffel Tower is painted bright green."})
    [result] = d.decompose_batch([EIFFEL], "claims")
    assert result.decomposer == "llm:scripted"
    assert len(result.items) == 3 and all("green" not in c for c in result.items)
    [rejected] = result.rejected
    assert rejected.text == "The Eiffel Tower is painted bright green."
    assert "not entailed" in rejected.reason and "green" in rejected.reason


def test_paraphrase_with_new_words_is_kept_when_the_judge_entails_it(make):
    text = "Marie Curie was born in Warsaw."
    d = make({text: "Marie Curie's birthplace was Warsaw."})
    [result] = d.decompose_batch([text], "claims")
    assert content_words(result.items[0]) - content_words(text)  # "birthplace" is new
    assert result.items == ["Marie Curie's birthplace was Warsaw."] and result.decomposer == "llm:scripted"


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("", "no usable line"),
        ("Claims:\n- Paris?\n- tower\n- " + EIFFEL, "every item"),  # question, fragment, echo of two sentences
        ("- The Eiffel Tower is in Paris.", "cover"),  # drops most of the text
    ],
)
def test_unusable_output_falls_back_to_the_rules_with_a_reason(make, output, reason):
    d = make({EIFFEL: output})
    [result] = d.decompose_batch([EIFFEL], "claims")
    assert result.decomposer == "rule" and reason in result.fallback_reason
    assert result.items == RuleBasedDecomposer().claims(EIFFEL)


def test_generation_failure_falls_back_for_every_text(default_judge):
    d = LLMDecomposer(Broken({}), judge=default_judge)
    results = d.decompose_batch([EIFFEL, "What is RAG and how does it work?"], "claims")
    assert all(r.decomposer == "rule" and "generation failed: RuntimeError: out of memory" in r.fallback_reason for r in results)
    assert results[0].items == RuleBasedDecomposer().claims(EIFFEL)


def test_sub_questions_must_be_questions_from_the_question(make):
    q = "Where is the Eiffel Tower and when was it built?"
    d = make({q: "- Where is the Eiffel Tower?\n- When was the Eiffel Tower built?\n- Who designed the Eiffel Tower?\n- The tower is in Paris."})
    [result] = d.decompose_batch([q], "sub_questions")
    assert result.items == ["Where is the Eiffel Tower?", "When was the Eiffel Tower built?"]
    reasons = {r.text: r.reason for r in result.rejected}
    assert "design" in reasons["Who designed the Eiffel Tower?"]
    assert "'?'" in reasons["The tower is in Paris."]


def test_parser_strips_markers_and_stops_at_a_new_example():
    out = "1) First claim here.\n* Second claim here.\n\n(a) First claim here.\nText: something else\n- Not this one."
    assert parse_items(out) == ["First claim here.", "Second claim here."]


def test_prompts_are_editable_and_checked(make):
    with pytest.raises(ValueError, match="placeholder"):
        make({}, claims_prompt="List the claims.")
    with pytest.raises(ValueError, match="other than"):
        make({}, claims_prompt="{text} {other}")
    text = "Water boils at 100 degrees Celsius."
    d = make({text: text}, claims_prompt="Facts of this text, one per line.\nText: {text}\nFacts:\n")
    assert d.claims(text) == [text]
    assert d.generator.prompts == ["Facts of this text, one per line.\nText: Water boils at 100 degrees Celsius.\nFacts:\n"]
    assert d.identity != make({text: text}).identity  # another prompt, another cache key


def test_decompositions_are_cached_in_the_runs_sqlite_file(tmp_path, default_judge):
    text = "Water boils at 100 degrees Celsius."
    path = tmp_path / "verdicts.sqlite"
    first = Scripted({text: text})
    with JudgementCache(path) as cache:
        d = LLMDecomposer(first, judge=default_judge, cache=cache)
        assert d.claims(text) == [text] and d.claims(text) == [text]
    assert len(first.prompts) == 1  # the second call was read from the cache
    second = Scripted({text: "Something else entirely."})
    with JudgementCache(path) as cache:
        assert LLMDecomposer(second, judge=default_judge, cache=cache).claims(text) == [text]
    assert second.prompts == []
    other_model = Scripted({text: text}, identity="scripted-v2")
    with JudgementCache(path) as cache:
        LLMDecomposer(other_model, judge=default_judge, cache=cache).claims(text)
    assert len(other_model.prompts) == 1  # another model is never answered from the cache


def test_metrics_record_fallbacks_in_their_details(make, default_judge):
    q = "Where is the Eiffel Tower and when was it built?"
    d = make({EIFFEL: "", q: "Where is the Eiffel Tower?\nWhen was the Eiffel Tower built?"})
    row = {"user_input": q, "reference": EIFFEL, "response": EIFFEL, "retrieved_contexts": [EIFFEL_CONTEXT]}
    for metric in (ContextRecall, Faithfulness, PrecisionRecall):
        result = metric(default_judge, decomposer=d).score(row)
        assert result.score is not None and math.isfinite(result.score)
        details = result.details()
        assert details["decomposition"]["decomposer"] == "rule"
        assert "no usable line" in details["decomposition"]["fallback_reason"]
        json.dumps(details)
    qr = QuestionRecall(default_judge, decomposer=d).score(row)
    assert [s.text for s in qr.sub_questions] == ["Where is the Eiffel Tower?", "When was the Eiffel Tower built?"]
    assert qr.decomposition.decomposer == "llm:scripted"
    # The default (rules) adds no decomposition record: output rows stay as they were.
    assert ContextRecall(default_judge).score(row).decomposition is None


def test_evaluate_keeps_every_row_with_a_decomposer(make, default_judge):
    from localeval import evaluate

    d = make({EIFFEL: "The Eiffel Tower is in Paris.\nThe Eiffel Tower was completed in 1889.\nIt is 330 metres tall."})
    rows = [
        {"reference": EIFFEL, "retrieved_contexts": [EIFFEL_CONTEXT]},
        {"reference": "", "retrieved_contexts": [EIFFEL_CONTEXT]},
        {"reference": "Unscripted text that the fake model ignores.", "retrieved_contexts": []},
        {"retrieved_contexts": ["x"]},
    ]
    run = evaluate(rows, ["context_recall", "precision_recall"], model=default_judge, decomposer=d, show_progress=False)
    records = [r.record() for r in run.rows]
    assert len(records) == 4
    assert records[0]["context_recall_details"]["decomposition"]["decomposer"] == "llm:scripted"
    assert records[2]["context_recall"] == 0.0
    assert records[2]["context_recall_details"]["decomposition"]["fallback_reason"]
    assert records[1]["context_recall"] is None and records[3]["context_recall"] is None
    assert all(m.mean is None or math.isfinite(m.mean) for m in run.summary().metrics)


def test_decomposer_specs_and_errors(tmp_path, make):
    assert resolve_decomposer(None) is None and resolve_decomposer("rule") is None
    d = make({})
    assert resolve_decomposer(d) is d
    with pytest.raises(FileNotFoundError, match="never downloads"):
        resolve_decomposer(str(tmp_path / "missing.gguf"))
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ValueError, match="not a .gguf"):
        resolve_decomposer(str(tmp_path / "weights.bin"))
    with pytest.raises(TypeError):
        ContextRecall(decomposer=object())
    # Old-style question decomposers (decompose only) still plug into QuestionRecall.
    class Old:
        def decompose(self, question: str) -> list[str]:
            return [question, " "]

    assert decompose_many(Old(), ["Why?"], "sub_questions")[0].items == ["Why?"]


def test_cli_rejects_a_missing_decomposer_model(tmp_path, tiny_nli_dir):
    from typer.testing import CliRunner

    from localeval.cli.main import app

    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"reference": "The cat sat.", "retrieved_contexts": ["The cat sat."]}) + "\n")
    args = ["score", str(data), "-m", "context_recall", "--model", str(tiny_nli_dir), "--no-progress"]
    result = CliRunner().invoke(app, [*args, "--decomposer", str(tmp_path / "nope.gguf")])
    assert result.exit_code == 2 and "never downloads" in result.output
    result = CliRunner().invoke(app, [*args, "--decomposer", "rule", "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "out.jsonl").read_text())["context_recall_details"]["decomposition"] is None
