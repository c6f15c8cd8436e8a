"""Numbers restated in the evidence's notation before the judge reads a claim."""

import pytest

from localeval.text.notation import restated


@pytest.mark.parametrize("claim, unit, expected", [
    ("It holds the room at twelve degrees Celsius.", "The thermostat keeps the room at 12 °C.",
     "It holds the room at 12 °C."),
    ("You can cancel up to 6 pm the day before.", "Cancel free of charge until 18:00 the day before.",
     "You can cancel up to 18:00 the day before."),
    ("The garage quoted 3,000 dollars.", "The garage quoted $3,000 for the repair.", "The garage quoted $3,000."),
    ("Turnout was 64 per cent.", "Turnout was 64%.", "Turnout was 64%."),
    ("At most twenty-five mg a day.", "Never take more than 25 mg a day.", "At most 25 mg a day."),
    # a bare number takes the unit's number only, never the unit's unit
    ("There were twelve rooms.", "It is kept at 12 °C.", "There were 12 rooms."),
    # the same quantity in another unit, or in words, as the unit states it
    ("The bridge is 1,200 metres long.", "The suspension bridge is 1.2 km long.", "The bridge is 1.2 km long."),
    ("The shuttle runs every 30 minutes.", "The shuttle runs every half hour from 6 am.",
     "The shuttle runs every half hour."),
    ("Boil the eggs for 15 minutes.", "Boil the eggs for a quarter of an hour.", "Boil the eggs for a quarter of an hour."),
    ("The film lasts 90 minutes.", "The film lasts an hour and a half.", "The film lasts an hour and a half."),
    ("The walk takes 150 minutes.", "The walk takes two and a half hours.", "The walk takes two and a half hours."),
    ("The pass is valid for 7 days.", "The pass is valid for a week.", "The pass is valid for a week."),
    ("Refunds take 14 days.", "Refunds take 2 weeks.", "Refunds take 2 weeks."),
])
def test_a_shared_number_is_written_as_the_unit_writes_it(claim, unit, expected):
    assert restated(claim, unit) == expected


@pytest.mark.parametrize("claim, unit", [
    ("It supports fourteen languages.", "It supports 13 languages."),  # another value: still wrong
    ("It is 12 km long.", "It is 12 miles long."),                      # another unit
    ("The bridge is 1,200 m long.", "The bridge is 1,200 m long."),     # already alike
    ("The tunnel is 3,600 metres long.", "The tunnel is 3.5 km long."),  # another length
    ("The shuttle runs every 20 minutes.", "The shuttle runs every half hour."),
    ("The shuttle runs every 30 kilometres.", "The shuttle runs every half hour."),  # another dimension
    # "a day" after a frequency or a count is a rate's denominator, no length of time
    ("The tablets are taken every 24 hours.", "Take one tablet twice a day, at 8:00 and 20:00."),
    ("The shop is open 7 days a week.", "The shop is open 6 days a week, from 9:00 to 17:00."),
    ("No number here.", "Nor here."),
])
def test_a_claim_is_left_alone_when_the_unit_states_no_such_number(claim, unit):
    assert restated(claim, unit) == claim


def test_the_judge_accepts_a_number_paraphrase_it_rejected_word_for_word(default_judge):
    pairs = [
        ("Bookings at the Flexible rate can be cancelled free of charge until 18:00 local time on the day "
         "before arrival.", "A Flexible booking can be cancelled for free until 6 pm on the day before arrival."),
        ("Turnout in the regional election was 64%.", "Turnout in the regional election was sixty-four per cent."),
    ]
    before = default_judge.entailment_probability(pairs)
    after = default_judge.entailment_probability([(unit, restated(claim, unit)) for unit, claim in pairs])
    assert (before < 0.5).all() and (after > 0.9).all()
    wrong = "Turnout in the regional election was sixty-two per cent."
    assert restated(wrong, pairs[1][0]) == wrong


def test_the_judge_accepts_a_quantity_in_other_units_once_restated(default_judge):
    """"1,200 metres" against "1.2 km", "every 30 minutes" against "every half hour": the judge
    rejects both as written and accepts them in the unit's own words; another length stays wrong."""
    pairs = [
        ("The suspension bridge is 1.2 km long. It was opened in 1932.", "The suspension bridge is 1,200 metres long."),
        ("The airport shuttle runs every half hour from 6 am until midnight.", "The airport shuttle runs every 30 minutes."),
    ]
    before = default_judge.entailment_probability(pairs)
    after = default_judge.entailment_probability([(unit, restated(claim, unit)) for unit, claim in pairs])
    assert (before < 0.5).all() and (after > 0.8).all()
    wrong = [(unit, restated(claim, unit)) for unit, claim in (
        (pairs[0][0], "The suspension bridge is 1,500 metres long."),
        (pairs[1][0], "The airport shuttle runs every 20 minutes."))]
    assert (default_judge.entailment_probability(wrong) < 0.5).all()
