"""`localeval.text.ruler`: the lookup attribute ruler writes what spaCy's own ruler writes, and
a pipeline it cannot reproduce keeps spaCy's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localeval.text.entities import DEFAULT_SPACY_MODEL, load_nlp
from localeval.text.ruler import FACTORY, use_lookup_ruler

CHECKS = Path(__file__).resolve().parents[1] / "benchmarks" / "checks" / "checks_test.jsonl"


def _attributes(doc) -> list[tuple]:
    return [(t.text, t.pos_, t.tag_, t.lemma_, str(t.morph), t.dep_) for t in doc]


def test_the_lookup_ruler_writes_the_same_attributes_as_spacys_ruler():
    import spacy

    texts = []
    for line in CHECKS.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        texts += [item["premise"], item["claim"]]
    texts = list(dict.fromkeys(texts)) + ["She ain't gonna lie: it's 9:30 and they're   late."]
    ours = load_nlp()
    assert FACTORY in ours.pipe_names and "attribute_ruler" in ours.disabled
    theirs = spacy.load(DEFAULT_SPACY_MODEL)  # spaCy's own ruler
    mine = [_attributes(d) for d in ours.pipe(texts, disable=["ner"])]
    spacys = [_attributes(d) for d in theirs.pipe(texts, disable=["ner"])]
    assert sum(len(d) for d in mine) > 2500
    assert mine == spacys


def test_a_pattern_form_it_does_not_handle_keeps_spacys_ruler():
    import spacy

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "the"}]], {"LEMMA": "THE"})
    ruler.add([[{"LENGTH": 3}]], {"NORM": "three"})  # a token length: not a form it implements
    assert use_lookup_ruler(nlp) is False
    assert nlp.pipe_names == ["attribute_ruler"] and not nlp.disabled
    assert use_lookup_ruler(spacy.blank("en")) is False  # no attribute ruler at all


def test_a_supported_pipeline_gets_the_lookup_ruler_and_later_patterns_win():
    import spacy

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": "lead"}]], {"LEMMA": "first"})
    ruler.add([[{"LOWER": {"IN": ["lead", "leads"]}}]], {"LEMMA": "second"})
    ruler.add([[{"LOWER": "gon"}, {"LOWER": {"REGEX": "^na$"}}]], {"LEMMA": "go"}, index=0)
    reference = [t.lemma_ for t in nlp("lead leads gon na")]
    assert use_lookup_ruler(nlp) is True and nlp.pipe_names == [FACTORY]
    assert [t.lemma_ for t in nlp("lead leads gon na")] == reference == ["second", "second", "go", ""]


@pytest.mark.parametrize("text", ["", "   ", "a"])
def test_short_and_empty_texts(text):
    assert _attributes(load_nlp()(text)) == _attributes(__import__("spacy").load(DEFAULT_SPACY_MODEL)(text))
