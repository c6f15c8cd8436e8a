"""A decade or century a claim dates an act to, read against the dates the premise gives the
same act: written as that date for the judge, or found outside every one of them."""

from __future__ import annotations

import pytest

from localeval.text.contrast_rules import contrast
from localeval.text.periods import century_numbers, contrast as period_contrast, narrowed, reads_premise

_STATION = "The station opened in 1887 and was electrified in 1962. Its roof was replaced in 2004."


@pytest.mark.parametrize("claim, expected", [
    ("The station was electrified in the 1960s.", "The station was electrified in 1962."),
    ("The station opened in the nineteenth century.", "The station opened in 1887."),
    ("The roof of the station was replaced in the 21st century.", "The roof of the station was replaced in 2004."),
    ("The station opened during the 1880s.", "The station opened during 1887."),
])
def test_a_period_is_narrowed_to_the_date_of_the_same_act(claim, expected):
    assert narrowed(claim, _STATION) == expected


@pytest.mark.parametrize("claim", [
    "The station opened in the 1960s.",                 # 1962 is the electrification's
    "The station was electrified in the 1950s.",        # no date of it in the period
    "The station was not electrified in the 1960s.",    # a negation: the rewrite would be weaker
    "The station opened before the twentieth century.",  # "before": likewise
    "The station opened in the 1800s.",                 # a decade or a century: read as neither
    "The station opened in the 1880s and was electrified in the 1960s.",  # two periods
])
def test_a_period_is_left_alone_without_one_date_of_the_same_act(claim):
    assert narrowed(claim, _STATION) == claim


@pytest.mark.parametrize("claim, fires", [
    ("The station opened in the twentieth century.", True),    # opened 1887
    ("The station was electrified in the 1980s.", True),       # 1962
    ("The roof of the station was replaced in the 1990s.", True),
    ("The station opened in the nineteenth century.", False),  # borne out
    ("The station was electrified in the 1960s.", False),
    ("The museum opened in the twentieth century.", False),    # another thing opened
    ("The station closed in the twentieth century.", False),   # an act the premise does not date
    ("The station did not open in the twentieth century.", False),  # negated: not read
])
def test_the_order_rule_finds_a_period_outside_the_dates_of_the_same_act(claim, fires):
    reason = contrast(claim, _STATION, rules=("order",))
    assert (reason is not None and reason.startswith("order: the evidence dates")) if fires else reason is None, reason
    assert period_contrast(claim, _STATION) == reason


def test_a_pronoun_of_the_premise_is_the_thing_its_sentence_dates():
    premise = "The poem is Wordsworth's best known. It was first published in 1798 in a collection of ballads."
    assert period_contrast("The poem was first published in the nineteenth century.", premise).startswith("order:")
    assert period_contrast("The poem was first published in the eighteenth century.", premise) is None


@pytest.mark.parametrize("claim, premise, excused, quiet", [
    ("The abbey was founded in the 12th century.", "The abbey was founded in 1132 by monks.", {"12"}, True),
    ("The abbey was founded in the 12th century.", "The abbey was founded in the twelfth century.", {"12"}, True),
    ("The treaty was signed in the twenty-first century.", "The treaty was signed in 2007.", {"21"}, True),
    ("Mechanised spinning began in the late 18th century.", "Mills spread across Britain in the 1700s.", {"18"}, True),
    # the 20th borne out; "19th" (no "century" after it) is still a number the premise lacks
    ("Its collection spans the 19th and 20th centuries.", "The museum opened in 1903.", {"20"}, False),
    ("The abbey was founded in the 12th century.", "The abbey was founded in 1232 by monks.", set(), False),
    ("The abbey was founded in the 12th century.", "The abbey has 40 rooms.", set(), False),
    # no century in the claim: nothing to excuse, whatever centuries the premise names
    ("The abbey has 40 rooms.", "The abbey, founded in the 12th century, has 40 rooms.", set(), True),
])
def test_a_century_the_premise_bears_out_is_no_missing_number(claim, premise, excused, quiet):
    assert century_numbers(claim, premise) == excused
    reason = contrast(claim, premise, rules=("number",))
    assert (reason is None) == quiet, reason


def test_the_gate_reads_only_a_dated_claim_against_a_premise_with_a_year():
    assert reads_premise("The station opened in the 1880s.", _STATION)
    assert not reads_premise("The station opened long ago.", _STATION)
    assert not reads_premise("The station opened in the 1880s.", "The station opened after the war.")


def test_faithfulness_rejects_a_century_the_context_dates_an_act_outside(default_judge):
    """The judge alone accepts every one of these; the order rule overrules it where the
    context dates the same act of the same thing outside the claim's century, whichever role
    the parse gives the thing ("strengthened" after a passive may be read as active)."""
    from localeval.metrics import Faithfulness
    from localeval.schema import Sample

    context = "The bridge over the gorge was completed in 1864 and strengthened in 1931. It carries a single-track railway."
    responses = ["The bridge over the gorge was completed in the twentieth century.",
                 "The bridge over the gorge was strengthened in the nineteenth century.",
                 "The bridge over the gorge was completed in the nineteenth century.",
                 "The bridge over the gorge was strengthened in the 1930s."]
    rows = [Sample(response=r, retrieved_contexts=[context]) for r in responses]
    unchecked = Faithfulness(model=default_judge, contrasts=False).score_many(rows)
    assert [r.score for r in unchecked] == [1.0] * 4  # what the rule is for
    checked = Faithfulness(model=default_judge).score_many(rows)
    assert [r.score for r in checked] == [0.0, 0.0, 1.0, 1.0]
    assert all(r.claims[0].contrast.startswith("order: the evidence dates") for r in checked[:2])
