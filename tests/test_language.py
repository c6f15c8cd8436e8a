"""Language awareness: detection, sentence splitting per language, warnings on rows."""

from __future__ import annotations

import json

import pytest

from localeval import evaluate
from localeval.text import split_sentences
from localeval.text.language import detect_language
from tests.conftest import build_tiny_model

GERMAN = {"user_input": "Wo steht der Eiffelturm?", "reference": "Der Eiffelturm steht in Paris. Er wurde 1889 fertiggestellt.",
          "retrieved_contexts": ["Der Eiffelturm ist ein Gitterturm aus Schmiedeeisen in Paris, Frankreich, erbaut von 1887 bis 1889."]}
CHINESE = {"reference": "埃菲尔铁塔位于巴黎。它于1889年完工。", "retrieved_contexts": ["埃菲尔铁塔是位于法国巴黎的一座铁塔，建于1887年至1889年。"]}
ENGLISH = {"reference": "The Eiffel Tower is in Paris. It was completed in 1889.",
           "retrieved_contexts": ["The Eiffel Tower is a wrought-iron lattice tower in Paris, France, built from 1887 to 1889."]}


@pytest.mark.parametrize("text, code", [
    ("Insulin is produced by the beta cells of the pancreas.", "en"),
    ("Der Eiffelturm steht in Paris. Er wurde 1889 fertiggestellt.", "de"),
    ("La tour Eiffel est à Paris, elle a été achevée en 1889.", "fr"),
    ("埃菲尔铁塔位于巴黎。它于1889年完工。", "zh"),
    ("エッフェル塔はパリにあります。", "ja"),
    ("에펠탑은 파리에 있습니다.", "ko"),
    ("The cat sat.", None),  # too short to be sure: no guess
    ("1889", None),
])
def test_detection_is_sure_or_silent(text, code):
    assert detect_language(text) == code


def test_sentences_split_with_the_texts_language():
    # German Punkt knows ordinal dates; English Punkt cuts "3." off.
    text = "Er kam am 3. Mai nach Hause. Dann ging er wieder."
    assert [s.text for s in split_sentences(text)] == ["Er kam am 3. Mai nach Hause.", "Dann ging er wieder."]
    assert len(split_sentences(text, "english")) == 3
    spans = split_sentences("埃菲尔铁塔位于巴黎。它于1889年完工！真的吗？")
    assert [s.text for s in spans] == ["埃菲尔铁塔位于巴黎。", "它于1889年完工！", "真的吗？"]
    assert all("埃菲尔铁塔位于巴黎。它于1889年完工！真的吗？"[s.start:s.end] == s.text for s in spans)
    # An English text splits as before.
    assert [s.text for s in split_sentences("Dr. Smith arrived at 5 p.m. on Jan. 5. He left.")] == [
        "Dr. Smith arrived at 5 p.m. on Jan. 5.", "He left."]


def test_rows_outside_the_judges_languages_are_marked(tmp_path, tiny_nli_dir):
    out = tmp_path / "out.jsonl"
    result = evaluate([GERMAN, CHINESE, ENGLISH], ["context_recall"], model=str(tiny_nli_dir),
                      output=out, show_progress=False)
    german, chinese, english = result.rows
    assert german.warnings == [
        "language German (de): user_input, reference, retrieved_contexts; the metrics were built for English, scores may be wrong"]
    assert chinese.warnings and chinese.warnings[0].startswith("language Chinese (zh): reference, retrieved_contexts")
    assert english.warnings == []
    assert [c.text for c in chinese.results["context_recall"].claims] == ["埃菲尔铁塔位于巴黎。", "它于1889年完工。"]
    summary = result.summary()
    assert summary.rows_with_warnings == 2
    assert summary.warnings == {"language German (de)": 1, "language Chinese (zh)": 1}
    assert "2 rows with warnings" in str(summary)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written[0]["_warnings"] == german.warnings and "_warnings" not in written[2]
    # A resumed run counts the warnings of the rows it keeps.
    again = evaluate([GERMAN, CHINESE, ENGLISH], ["context_recall"], model=str(tiny_nli_dir), output=out,
                     resume=True, show_progress=False)
    assert again.summary().rows_with_warnings == 2 and again.rows[0].warnings == german.warnings


def test_a_multilingual_judge_declares_its_languages(tmp_path_factory):
    folder = build_tiny_model(tmp_path_factory.mktemp("multi"), {0: "contradiction", 1: "neutral", 2: "entailment"},
                              {"max_length": 64, "languages": ["en", "de"]})
    result = evaluate([GERMAN, CHINESE], ["faithfulness", "context_recall"], model=str(folder), show_progress=False)
    assert result.rows[0].warnings == []
    assert result.rows[1].warnings[0].endswith("the metrics were built for German, English, scores may be wrong")
    # spaCy's English NER does not follow the judge: with entity recall in the run, German is marked again.
    mixed = evaluate([GERMAN], ["context_recall", "context_entity_recall"], model=str(folder), show_progress=False)
    assert mixed.rows[0].warnings and "built for English," in mixed.rows[0].warnings[0]
    assert evaluate([{"retrieved_context_ids": ["a"], "reference_context_ids": ["a"], **CHINESE}], ["retrieval"],
                    show_progress=False).rows[0].warnings == []  # IDs have no language
