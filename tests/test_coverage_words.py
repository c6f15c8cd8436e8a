"""Coverage words: the same fact in other forms reads as the same words; a detail the contexts
lack stays missing."""

import pytest

from localeval.evidence.verdict import lexical_signals
from localeval.text.coverage import coverage_words


@pytest.mark.parametrize("a, b", [
    ("heated to 100 degrees Celsius", "heated to 100 °C"),
    ("The bridge is 1,200 metres long.", "The bridge is 1200 m long."),
    ("Turnout was 64 per cent.", "Turnout was 64%."),
    ("The profit was 2,500,000 euros.", "The profit was €2,500,000."),
    ("It supports thirteen languages.", "It supports 13 languages."),
    ("The tablets were taken daily.", "Take the tablets daily."),
    ("Spain won the final.", "Spain wins the final."),
    ("Children like the descaling programme.", "The child likes the descaled programmes."),
    ("Each file may be at most 25 megabytes.", "Each file may be at most 25 MB."),
])
def test_one_fact_in_two_forms_gives_the_same_words(a, b):
    assert coverage_words(a) == coverage_words(b)


def test_a_number_word_counts_as_its_number_only():
    assert coverage_words("thirteen languages") == coverage_words("languages") | {"13"}


def test_a_letter_is_a_unit_only_after_a_number():
    assert "metre" in coverage_words("It is 5 m wide.")
    assert "metre" not in coverage_words("Plan M was chosen.")


def test_coverage_counts_what_the_contexts_lack():
    contexts = ["The thermostat keeps the room at 12 °C in holiday mode."]
    same = lexical_signals("In holiday mode the room is kept at twelve degrees Celsius.", contexts)
    assert same["coverage_all"] == 1.0
    claim = "In holiday mode the room is kept at 12 °C by a heat pump."
    more = lexical_signals(claim, contexts)
    assert more["coverage_all"] == pytest.approx(1 - 2 / len(coverage_words(claim)))  # "heat", "pump" are nowhere
    other = lexical_signals("In holiday mode the room is kept at 15 °C.", contexts)
    assert other["coverage_all"] < 1.0 and other["missing_numbers"] == 1.0
