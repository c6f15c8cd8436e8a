"""ContextEntityRecall on real text with the installed spaCy pipeline, and its helpers."""

from __future__ import annotations

import pytest

from localeval import Sample
from localeval.metrics.entity_recall import ContextEntityRecall, ContextEntityRecallResult
from localeval.text.entities import (
    SPACY_MODEL_ENV,
    DateValue,
    date_covers,
    extract_entities,
    find_dates,
    format_date,
    load_nlp,
    normalise,
    parse_date,
)

OBAMA = "Barack Obama was born on 4 August 1961 in Honolulu. Obama later moved to Chicago."
EIFFEL = "The Eiffel Tower in Paris was completed in 1889 by Gustave Eiffel's company."


@pytest.fixture(scope="module")
def nlp():
    """The pipeline, loaded once (load_nlp caches it for every metric of the session)."""
    return load_nlp()


@pytest.fixture(scope="module")
def metric(nlp) -> ContextEntityRecall:
    return ContextEntityRecall(nlp)


def score(metric: ContextEntityRecall, reference: str, contexts: list[str]) -> ContextEntityRecallResult:
    return metric.score(Sample(reference=reference, retrieved_contexts=contexts))


def by_text(result: ContextEntityRecallResult) -> dict[str, object]:
    return {e.text: e for e in result.entities}


def assert_spans_point_into_inputs(result, reference: str, contexts: list[str]) -> None:
    for e in result.entities:
        assert reference[e.start : e.end] == e.text
        assert all(reference[m.start : m.end] == m.text for m in e.mentions)
        if e.match:
            assert contexts[e.match.context_index][e.match.start : e.match.end] == e.match.text


# ---------------------------------------------------------------- the metric on real text


def test_short_name_found_in_full_name(nlp):
    reference, contexts = "Obama was born in Honolulu.", ["Barack Obama was born in Honolulu, Hawaii."]
    result = score(ContextEntityRecall(nlp), reference, contexts)
    assert result.score == 1.0 and result.metric == "context_entity_recall"
    assert by_text(result)["Obama"].match.text == "Obama"  # the words occur in the context
    strict_text = score(ContextEntityRecall(nlp, text_fallback=False), reference, contexts)
    obama = by_text(strict_text)["Obama"]
    assert obama.found and obama.match.how == "partial" and obama.match.text == "Barack Obama"
    assert_spans_point_into_inputs(result, reference, contexts)


def test_full_name_found_in_short_name(metric):
    result = score(metric, "Barack Obama was born in Honolulu.", ["Obama was born in Honolulu."])
    obama = by_text(result)["Barack Obama"]
    assert result.score == 1.0 and obama.match.how == "partial" and obama.match.text == "Obama"


def test_partial_names_can_be_switched_off(nlp):
    result = score(ContextEntityRecall(nlp, partial_names=False), "Barack Obama was born in Honolulu.",
                   ["Obama was born in Honolulu."])
    assert result.score == 0.5 and result.missing_entities == ["Barack Obama"]


@pytest.mark.parametrize("context", ["He was born on August 4, 1961.", "Born 1961-08-04 in Hawaii."])
def test_date_variants_match(metric, context):
    result = score(metric, "Barack Obama was born on 4 August 1961.", [context])
    date = by_text(result)["4 August 1961"]
    assert date.normalised == "1961-08-04" and date.found and date.match.how == "date"
    assert date.match.text in context


def test_less_precise_date_in_context_does_not_count(metric):
    result = score(metric, "Obama was born on 4 August 1961.", ["Obama was born in August 1961."])
    assert result.missing_entities == ["4 August 1961"]
    # ... but a more precise context date covers a less precise reference date.
    coarse = score(metric, "He was born in August 1961.", ["Obama was born on 4 August 1961."])
    assert coarse.score == 1.0


def test_number_variants_match(metric):
    reference = ("The company sold 1,000 units in 2008. The tower is 330 metres tall and "
                 "3.0 percent of visitors are from Japan.")
    contexts = ["In 2008 it sold 1000 units. It is 330 metres high; 3% of visitors come from Japan."]
    result = score(metric, reference, contexts)
    entities = by_text(result)
    assert entities["1,000"].normalised == "1000" and entities["3.0 percent"].normalised == "3 percent"
    assert result.score == 1.0, result.missing_entities
    assert_spans_point_into_inputs(result, reference, contexts)


def test_repeated_entity_counts_once(metric):
    reference = ("Paris is the capital of France. Paris hosted the Olympics in 1924 and Paris "
                 "will host them again.")
    result = score(metric, reference, ["Paris is in France."])
    paris = by_text(result)["Paris"]
    assert len(result.entities) == 4 and len(paris.mentions) == 3
    assert result.score == 0.5 and sorted(result.missing_entities) == ["1924", "Olympics"]


def test_shorter_name_joins_its_only_longer_name(metric):
    result = score(metric, OBAMA, ["Chicago"])
    assert [e.text for e in result.entities] == ["Barack Obama", "4 August 1961", "Honolulu", "Chicago"]
    assert [m.text for m in by_text(result)["Barack Obama"].mentions] == ["Barack Obama", "Obama"]
    assert result.score == 0.25


def test_ambiguous_shorter_name_stays_its_own_entity(metric):
    result = score(metric, "Barack Obama and Michelle Obama visited Kenya. Obama spoke there.", ["Kenya"])
    assert sorted(e.text for e in result.entities) == ["Barack Obama", "Kenya", "Michelle Obama", "Obama"]


def test_missing_entity_lowers_the_score(metric):
    contexts = ["Gustave Eiffel built the tower in Paris in 1889."]
    result = score(metric, EIFFEL, contexts)
    assert len(result.entities) == 4 and result.found_count == 3
    assert result.score == 0.75 and result.missing_entities == ["The Eiffel Tower"]
    assert by_text(result)["Gustave Eiffel's"].normalised == "gustave eiffel"
    assert by_text(result)["The Eiffel Tower"].normalised == "eiffel tower"
    assert_spans_point_into_inputs(result, EIFFEL, contexts)


def test_text_fallback_finds_what_ner_missed_in_the_context(nlp, metric):
    contexts = ["Keywords: honolulu; chicago; obama."]
    assert "honolulu" not in [e.text for e in extract_entities(nlp, contexts)[0]]  # NER missed it
    honolulu = by_text(score(metric, OBAMA, contexts))["Honolulu"]
    assert honolulu.found and honolulu.match.how == "text" and honolulu.match.text == "honolulu"
    strict = score(ContextEntityRecall(nlp, text_fallback=False), OBAMA, contexts)
    assert "Honolulu" in strict.missing_entities


def test_default_labels_skip_ordinals_and_vague_numbers(nlp, metric):
    reference = "Obama was the 44th president. Paris gets millions of visitors each year."
    assert [e.text for e in score(metric, reference, ["x"]).entities] == ["Obama", "Paris"]
    loose = score(ContextEntityRecall(nlp, skip_vague=False), reference, ["x"])
    assert {"millions", "each year"} <= {e.text for e in loose.entities}
    persons = score(ContextEntityRecall(nlp, labels={"PERSON", "ORDINAL"}), reference, ["x"])
    assert [e.label for e in persons.entities] == ["PERSON", "ORDINAL"]


@pytest.mark.parametrize("reference, reason", [
    ("", "reference is empty"),
    ("   ", "reference is empty"),
    ("The dog sat on the mat and slept.", "no entity"),
])
def test_reference_without_entities_is_unscored(metric, reference, reason):
    result = score(metric, reference, ["Barack Obama"])
    assert result.score is None and reason in result.reason and result.entities == []


@pytest.mark.parametrize("contexts", [[], [""], ["  ", "\n"]])
def test_no_usable_context_scores_zero(metric, contexts):
    result = score(metric, OBAMA, contexts)
    assert result.score == 0.0 and "no non-empty retrieved context" in result.reason
    assert len(result.entities) == 4 and not any(e.found for e in result.entities)


def test_empty_contexts_are_skipped_but_indices_kept(metric):
    result = score(metric, "Obama was born in Honolulu.", ["", "Nothing here.", "Obama lived in Honolulu."])
    assert result.score == 1.0 and {e.match.context_index for e in result.entities} == {2}


def test_missing_columns_and_batches(metric):
    assert "retrieved_contexts" in metric.score(Sample(reference="Obama")).reason
    rows = [
        {"reference": EIFFEL, "retrieved_contexts": ["Gustave Eiffel built the tower in Paris in 1889."]},
        {"reference": "", "retrieved_contexts": ["x"]},
        {"reference": "Obama was born in Honolulu.", "retrieved_contexts": ["Honolulu"]},
    ]
    assert [r.score for r in metric.score_many(rows)] == [0.75, None, 0.5]


def test_registered_and_exported():
    from localeval.metrics import ContextEntityRecall as Exported

    assert Exported is ContextEntityRecall


def test_runs_offline(metric, no_network):
    assert score(metric, "Obama was born in Honolulu.", ["Obama lived in Honolulu."]).score == 1.0


def test_unknown_pipeline_named_by_env_fails_clearly(monkeypatch):
    monkeypatch.setenv(SPACY_MODEL_ENV, "no_such_pipeline_xyz")
    with pytest.raises(OSError, match=SPACY_MODEL_ENV):
        load_nlp()


# ---------------------------------------------------------------- helpers (no model)


def test_long_texts_are_read_in_pieces_with_true_offsets(nlp):
    text = "Barack Obama visited Paris. " * 5
    (whole,) = extract_entities(nlp, [text])
    (pieced,) = extract_entities(nlp, [text], max_chars=40)
    assert [(e.text, e.start) for e in pieced] == [(e.text, e.start) for e in whole]
    assert all(text[e.start : e.end] == e.text for e in pieced)


@pytest.mark.parametrize("a, b", [
    ("The Eiffel Tower", "eiffel tower"),
    ("Obama's", "Obama"),
    ("1,000", "1000"),
    ("3.0 percent", "3%"),
    ("Zürich", "Zurich"),
    ("the U.S.", "US"),
    ("five", "5"),
    ("O’Brien", "O'Brien"),
])
def test_normal_forms_agree(a, b):
    assert normalise(a) == normalise(b) != ""


def test_normal_forms_keep_differences():
    assert normalise("1990s") != normalise("1990")
    assert normalise("3.5") != normalise("3")
    assert normalise("the") == ""


@pytest.mark.parametrize("text", [
    "4 August 1961", "August 4, 1961", "1961-08-04", "the 4th of Aug. 1961", "Friday, August 4th, 1961",
    "8/4/1961",  # month-first reading (the day-first one is kept too)
])
def test_date_formats_parse_to_one_date(text):
    assert DateValue(1961, 8, 4) in parse_date(text)


def test_date_rules():
    assert parse_date("13/04/1961") == (DateValue(1961, 4, 13),)  # 13 cannot be a month
    assert format_date(parse_date("08/04/1961")) == "1961-08-04 or 1961-04-08"
    assert format_date(parse_date("August 1961")) == "1961-08"
    assert format_date(parse_date("4 August")) == "--08-04"
    assert parse_date("1961") and not parse_date("1961", allow_bare_year=False)
    assert parse_date("31 February 2001") == () and parse_date("early 2008") == ()
    assert date_covers(parse_date("1961"), parse_date("4 August 1961"))
    assert not date_covers(parse_date("4 August 1961"), parse_date("1961"))
    found = find_dates("Born on 4 August 1961; moved in 1979, not 1,961 times.")
    assert [format_date(r) for r, _, _ in found] == ["1961-08-04", "1979"]


def test_pieces_cover_the_text_and_respect_the_limit():
    from localeval.text.entities import _pieces

    text = "Ab cd. Ef gh\nij kl mn. " * 7 + "x" * 30
    pieces = list(_pieces(text, 16))
    assert "".join(p for _, p in pieces) == text
    assert all(len(p) <= 16 and text[o : o + len(p)] == p for o, p in pieces)


def test_list_item_numbers_are_not_entities(metric):
    reference = "To deploy to AKS:\n1. Build your Docker image\n2) Push it to Azure Container Registry"
    result = score(metric, reference, ["Push with docker push; node-count 1 and 2."])
    assert not {"1", "2"} & {e.text for e in result.entities}
    assert "Docker" in {e.text for e in result.entities}
