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
    # a rate read whole, its second unit spelled out or not ("80 km/h per hour" was written)
    ("Lorries may drive at up to 80 kilometres per hour.", "Lorries are limited to 80 km/h.",
     "Lorries may drive at up to 80 km/h."),
    ("The ferry cruises at 30 mph.", "It crosses the bay at 30 miles an hour.", "The ferry cruises at 30 miles an hour."),
    # the claim's rate kept where the unit states the number and its unit alone
    ("Take twenty mg a day.", "Take 20 mg every morning.", "Take 20 mg a day."),
    ("Walk for 30 minutes per day.", "Walk for half an hour a day.", "Walk for half an hour per day."),
    # an ordinal in the unit's form, words or digits, compound, before a hyphen
    ("Obama was the forty-fourth president.", "Barack Obama served as the 44th president from 2009.",
     "Obama was the 44th president."),
    ("Sales rose in the 3rd quarter.", "Sales rose in the third quarter of 2023.", "Sales rose in the third quarter."),
    ("It is a twenty-first-century treaty.", "The 21st-century treaty was signed in 2007.", "It is a 21st-century treaty."),
    ("Lyon is the third-largest city.", "Lyon is the 3rd largest city, with 1.4 million people.",
     "Lyon is the 3rd-largest city."),
    ("He finished second in 1999.", "He finished 2nd in 1999.", "He finished 2nd in 1999."),
    ("The festival is in its thirty-second year.", "The festival, now in its 32nd year, opens in May.",
     "The festival is in its 32nd year."),
    # "and a half", and digits with their scale word, read as one number on either side
    ("The warranty lasts 2.5 years.", "The warranty lasts two and a half years from purchase.",
     "The warranty lasts two and a half years."),
    ("The museum drew 1.5 million visitors.", "The museum drew one and a half million visitors last year.",
     "The museum drew one and a half million visitors."),
    ("The city has 1.5 million inhabitants.", "Its population is a million and a half.",
     "The city has a million and a half inhabitants."),
    ("The museum drew 2 million visitors.", "The museum drew 2,000,000 visitors.", "The museum drew 2,000,000 visitors."),
    ("It cost $2 billion.", "The dam cost two billion dollars.", "It cost two billion dollars."),
    # "pm." ends the sentence: its period is kept
    ("Doors open at 6 pm.", "Doors open at 18:00 on weekdays.", "Doors open at 18:00."),
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
    ("The ferry cruises at 30 km/h.", "It crosses the bay at 30 miles an hour."),  # another speed
    # a rate the claim does not state is not added to it
    ("The route is 80 km long.", "Lorries are limited to 80 km/h on the route."),
    ("The patient took 20 mg.", "The patient took 20 mg a day with food."),
    ("The pump ran for 20 hours.", "The pump moves water 20 km per hour."),
    ("Obama was the forty-third president.", "Barack Obama served as the 44th president from 2009."),
    ("The pump stops for one second.", "The pump came 2nd in a 2019 test."),  # a second of time
    ("The advert is a thirty-second spot.", "The 32nd advert of the campaign aired in 2019."),  # 30 seconds
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


def test_the_judge_accepts_a_speed_spelled_out_once_restated(default_judge):
    """"25 kilometres per hour" against "25 km/h": rejected as written, accepted as the unit
    writes it; another speed is not restated and stays wrong."""
    unit = "Electric scooters on the cycle path are limited to 25 km/h. Riders must be at least 14."
    claim = "Electric scooters may ride at up to 25 kilometres per hour on the cycle path."
    before, after = default_judge.entailment_probability([(unit, claim), (unit, restated(claim, unit))])
    assert before < 0.5 < 0.9 < after
    wrong = "Electric scooters may ride at up to 45 kilometres per hour on the cycle path."
    assert restated(wrong, unit) == wrong


def test_the_judge_accepts_a_compound_ordinal_in_words_once_restated(default_judge):
    """"the forty-fourth president" against "the 44th president": rejected as written (the
    judge does not read a compound ordinal as its digits), accepted as the unit writes it;
    another ordinal is not restated and stays wrong."""
    unit = "Barack Obama served as the 44th president of the United States from 2009 to 2017."
    claim = "Obama was the forty-fourth president of the United States."
    before, after = default_judge.entailment_probability([(unit, claim), (unit, restated(claim, unit))])
    assert before < 0.5 < 0.9 < after
    wrong = "Obama was the forty-third president of the United States."
    assert restated(wrong, unit) == wrong and default_judge.entailment_probability([(unit, wrong)])[0] < 0.5


_MILL = "The mill closed in 1971 and was converted into flats in 1994."


@pytest.mark.parametrize("claim, unit, expected", [
    ("The mill was converted into flats in the 1990s.", _MILL, "The mill was converted into flats in 1994."),
    ("The observatory opened in the nineteenth century.", "The observatory opened in 1839 on a hill above the town.",
     "The observatory opened in 1839."),
    ("The ship sank during the 20th century.", "The ship sank in the 1940s off the northern cape.",
     "The ship sank during the 1940s."),
])
def test_a_period_is_written_as_the_date_the_unit_gives_the_same_act(claim, unit, expected):
    assert restated(claim, unit) == expected


@pytest.mark.parametrize("claim, unit", [
    ("The mill closed in the 1990s.", _MILL),                             # 1994 is the conversion's
    ("The mill was converted into flats in the 1980s.", _MILL),           # no date of it in the period
    ("The mill was not converted into flats in the 1990s.", _MILL),       # negated: the rewrite is weaker
    ("The mill was converted into flats before the 1990s.", _MILL),       # "before": likewise
    ("The hall was renovated in the 1990s.", "The hall was renovated in 1991 and again in 1998."),  # which one?
])
def test_a_period_is_left_alone_without_one_date_of_the_same_act(claim, unit):
    assert restated(claim, unit) == claim


def test_the_judge_accepts_a_date_generalised_to_its_period_once_restated(default_judge):
    """A decade for the premise's year: rejected as written, accepted restated. A century the
    judge already accepts loses nothing by it."""
    pairs = [
        ("The mill closed in 1971 and was converted into flats in 1994. The chimney still stands.",
         "The mill was converted into flats in the 1990s."),
        ("The first edition of the dictionary appeared in 1884; a second followed in 1933.",
         "The first edition of the dictionary appeared in the nineteenth century."),
    ]
    before = default_judge.entailment_probability(pairs)
    after = default_judge.entailment_probability([(unit, restated(claim, unit)) for unit, claim in pairs])
    assert before[0] < 0.5 < 0.9 < after[0] and after[1] >= before[1]


def test_faithfulness_accepts_a_decade_for_the_contexts_year_and_not_for_another_acts(default_judge):
    from localeval.metrics import Faithfulness
    from localeval.schema import Sample

    context = "The mill closed in 1971 and was converted into flats in 1994. The chimney still stands."
    rows = [Sample(response=response, retrieved_contexts=[context])
            for response in ("The mill was converted into flats in the 1990s.", "The mill closed in the 1990s.")]
    right, wrong = Faithfulness(model=default_judge).score_many(rows)
    assert right.score == 1.0 and right.claims[0].evidence is not None
    assert wrong.score == 0.0


def test_the_judge_accepts_a_half_spelled_out_once_restated(default_judge):
    """"2.5 years" against "two and a half years", "1.5 million" against "one and a half
    million": rejected as written (the reader did not read "and a half"), accepted as the unit
    writes it; another number is not restated and stays wrong."""
    pairs = [
        ("The extended warranty lasts two and a half years from the date of purchase and covers parts and labour.",
         "The extended warranty lasts 2.5 years from the date of purchase."),
        ("The museum drew one and a half million visitors last year, a record.", "The museum drew 1.5 million visitors last year."),
    ]
    before = default_judge.entailment_probability(pairs)
    after = default_judge.entailment_probability([(unit, restated(claim, unit)) for unit, claim in pairs])
    assert (before < 0.5).all() and (after > 0.9).all()
    wrong = "The extended warranty lasts 3.5 years from the date of purchase."
    assert restated(wrong, pairs[0][0]) == wrong
    assert default_judge.entailment_probability([(pairs[0][0], wrong)])[0] < 0.5
