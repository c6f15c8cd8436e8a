"""Contrast rules: each fires on the contrast it names and stays quiet on a faithful paraphrase;
the metrics let them overrule the default judge and say so."""

from __future__ import annotations

import json

import pytest

from localeval import evaluate
from localeval.evidence.attribution import CONTRAST_WEIGHT, attribute
from localeval.metrics import ContextRecall, Faithfulness
from localeval.schema import Sample
from localeval.text import contrast_rules as contrasts_module
from localeval.text.contrast_rules import contrast
from localeval.text.numbers import numbers_in

_NOVEL = "The novel 'Winter Harbour' was written by Clara Voss in 1962. It was later adapted for the stage by Martin Hale."
_RESCUE = ("Captain Maria Lopez flew the rescue helicopter on the night mission. Sergeant Ben Ortiz guided the crew "
           "from the ground.")
_SAUNA = "Guests aged under 18 may not use the sauna. Towels are provided at reception."
_LORRIES = "Lorries over 12 tonnes are not permitted on the ring road. They must use the bypass."
_FERRY = "The ferry must not carry more than 120 passengers. Vehicles are loaded first."
# (claim, premise, rule that must fire, or None: a paraphrase the rules must leave alone)
CASES = [
    ("The planning committee has eighteen members.", "The planning committee has eight members.", "number"),
    ("The planning committee has 8 members.", "The planning committee has eight members.", None),
    ("The garage quoted 3,000 dollars for the repair.", "The garage quoted $3000 for the repair.", None),
    ("A ticket for the concert costs 45 euros.", "A ticket for the concert costs $45.", "unit"),
    ("The oven should be preheated to 180 degrees Fahrenheit.", "Preheat the oven to 180 °C.", "unit"),
    # A speed in other units, symbol or words; the same speed spelled out is no other unit.
    ("The speed limit near the school is 20 kilometres per hour.", "Near the school the limit is 20 mph.", "unit"),
    ("The train reaches 300 miles per hour.", "The train runs at up to 300 kph on the new line.", "unit"),
    ("The ferry sails at 30 km/h.", "The ferry sails at 30 miles an hour.", "unit"),
    ("Lorries may drive at 80 kilometres per hour.", "Lorries are limited to 80 km/h; cars to 130 km/h.", None),
    ("The trail is 20 km long.", "Cyclists on the 20 km trail may ride at 20 km/h.", None),
    ("The suspension bridge is 1,200 metres long.", "The suspension bridge is 1.2 km long.", None),
    # The same length in other units is no length moved to something else (the swap check).
    ("The tunnel is 3,500 metres long.", "The new rail tunnel is 3.5 km long. It took four years to build.", None),
    ("The tunnel is 3,600 metres long.", "The new rail tunnel is 3.5 km long. It took four years to build.", "number"),
    # A quantity the evidence says in words is stated ("half an hour" is 30 minutes), another is not.
    ("The shuttle runs every 30 minutes.", "The shuttle runs every half hour from 6 am until midnight.", None),
    ("The walk takes 150 minutes.", "The walk takes two and a half hours and climbs 600 metres.", None),
    ("The shuttle runs every 20 minutes.", "The shuttle runs every half hour from 6 am until midnight.", "number"),
    ("The tablets are taken every 24 hours.", "Take one tablet twice a day, at 8:00 and 20:00.", "number"),
    ("Hand luggage must weigh at least 8 kg.", "Hand luggage may weigh up to 8 kg.", "bound"),
    ("Paid plans come with a minimum of 50 GB of storage.", "Paid plans allow at least 50 GB of storage.", None),
    # A bound turned round with the denial is the rule's other side; turned round alone, not.
    ("Guests aged over 18 may use the sauna.", _SAUNA, None),
    ("Guests aged over 18 may not use the sauna.", _SAUNA, "bound"),
    ("Lorries under 12 tonnes are permitted on the ring road.", _LORRIES, None),
    ("Lorries under 12 tonnes are not permitted on the ring road.", _LORRIES, "bound"),
    # A "not" that turns a bound round, the bound said without it: no denial of the act.
    ("The ferry can carry at most 120 passengers.", _FERRY, None),
    ("The ferry may carry up to 120 passengers.", _FERRY, None),
    ("The ferry can carry more than 120 passengers.", _FERRY, "bound"),
    ("The ferry can carry passengers and cyclists.", "The ferry must not carry passengers or cyclists.", "negated"),
    ("Annual fares can rise by up to 3% under the cap.", "Under the cap, annual fares cannot rise by more than 3%.",
     None),
    ("Annual fares can rise by more than 3% under the cap.", "Under the cap, annual fares cannot rise by more than 3%.",
     "bound"),
    ("Annual fares can rise under the cap.", "Under the cap, annual fares cannot rise.", "opposite"),
    ("Unemployment rose over the year.", "Over the year, unemployment fell from 7.1% to 6.4%.", "opposite"),
    ("The company's revenue rose in 2022.", "The company's revenue increased by 12% in 2022, while its costs fell.", None),
    ("The cathedral was completed after the city walls were built.",
     "The cathedral was completed in 1248, long before the city walls were built.", "opposite"),
    ("The city walls were built after the cathedral was completed.",
     "The cathedral was completed long before the city walls were built.", None),
    ("Tenants are allowed to sublet the flat.", "Tenants may not sublet the flat or keep dogs.", "opposite"),
    ("The island ferry sails on Wednesdays.", "The island ferry sails daily except on Wednesdays.", "negated"),
    ("Portugal signed the 1862 trade treaty.",
     "The 1862 trade treaty was signed by France, Spain and Portugal, but not by Britain.", None),
    ("Britain signed the 1862 trade treaty.",
     "The 1862 trade treaty was signed by France, Spain and Portugal, but not by Britain.", "negated"),
    # A name negated in a clause about something else: the clause shares one word with the claim.
    ("Press the Remote Start button on the key fob twice.",
     "Never start or idle the engine in a closed garage. Exhaust gas contains carbon monoxide.", None),
    ("Cruise Control holds the speed you set on long motorway journeys.",
     "Do not use Cruise Control in dense traffic or on icy, winding roads. Switch it off in heavy rain.", None),
    ("The vaccine can be kept in a freezer.",
     "This vaccine must not be frozen. Keep it in a refrigerator between 2 and 8 °C.", "negated"),
    ("Lumen Ltd was founded six years before its rival Brightway.",
     "Lumen Ltd was founded in 1998. Its rival Brightway was founded in 2004.", None),
    ("A 19-year-old applicant needs a guarantor.",
     "Applicants must be at least 18 years old. Applicants under 21 also need a guarantor.", None),
    ("Fleming discovered penicillin in the 1920s.", "Fleming discovered penicillin in 1928.", None),
    ("The board meets at 2 p.m. on June 7, 2024.", "The board meeting is at 14:00 on 7 June 2024.", None),
    ("The name change takes place during the 2018–19 academic year.",
     "The name change will take place over the 2018-2019 academic year.", None),
    ("The paramedic role is a higher grade role.", "The paramedic role is a higher grade role, with more autonomy.", None),
    ("Martin Hale wrote 'Winter Harbour'.", _NOVEL, "role"),
    ("Clara Voss wrote 'Winter Harbour'.", _NOVEL, None),
    ("Martin Hale adapted the novel for the stage.", _NOVEL, None),
    ("Norcom was acquired by Pixelfield in 2019.", "In 2019 Norcom acquired the start-up Pixelfield.", "role"),
    ("Pixelfield was acquired by Norcom in 2019.", "In 2019 Norcom acquired the start-up Pixelfield.", None),
    # "the hospital" is the Lakeside Hospital named before; "the 12-storey building" is no
    # other name standing in for it; a clinic named otherwise is another doer.
    ("Lakeside Hospital can treat up to 300 patients a day.",
     "Lakeside Hospital opened a new wing in May. The 12-storey building lets the hospital treat up to 300 patients a day.",
     None),
    ("Lakeside Hospital can treat up to 300 patients a day.",
     "Lakeside Hospital opened a new wing in May. Riverside Clinic can treat up to 300 patients a day.", "role"),
    # The act's object after a preposition: the same act, given to another doer or not.
    ("Ben Ortiz flew the night mission.", _RESCUE, "role"),
    ("Maria Lopez flew the night mission.", _RESCUE, None),
    ("Lyon is the capital of the region.",
     "Dijon is the capital of the region. Lyon, its largest city, hosts the annual food fair.", "merge"),
    ("Dijon is the capital of the region.",
     "Dijon is the capital of the region. Lyon, its largest city, hosts the annual food fair.", None),
    ("The Orion probe landed on Mars.", "The Vega probe landed on Mars in 2031. The Orion probe orbited Venus.", "merge"),
    ("Anna Berg, who founded Lumen in 1998, lives in Oslo.", "Anna Berg founded Lumen in 1998. She lives in Oslo.", None),
    # The stating sentence's subject is a pronoun after a fronted phrase: who "it" is stays
    # open, and the name in the fronted phrase is a place, not the subject.
    ("The Orient Express ran to Istanbul.", "The Orient Express left Paris in 1883. From Vienna it ran on to Istanbul.",
     None),
    ("The Thames Barrier protects London from floods.",
     "The Thames Barrier was completed in 1982. Across Woolwich Reach, it protects London from floods.", None),
    # A fronted phrase before a named subject: still another doer (the role rule says so first).
    ("Kepler discovered the third law of planetary motion.",
     "Kepler worked in Prague. In 1619, Galileo discovered the third law of planetary motion.", "role"),
    ("Select the CSV option to export the table.", "Open the Export menu. Select the CSV option to export the table.",
     None),
]


@pytest.mark.parametrize(("claim", "premise", "rule"), CASES)
def test_each_rule_fires_on_its_contrast_and_not_on_a_paraphrase(claim, premise, rule):
    reason = contrast(claim, premise, premise)
    if rule is None:
        assert reason is None, reason
    else:
        assert reason is not None and reason.startswith(f"{rule}:"), reason


def test_a_number_stated_elsewhere_in_the_source_is_not_missing():
    # A window of a long article may miss a year the article states elsewhere.
    claim = "Freberg won a Grammy award in 1959."
    window = "Stan Freberg has died. He was 88."
    assert contrast(claim, window, window).startswith("number:")
    assert contrast(claim, window, window + " In 1959 he won a Grammy award.") is None


_LYON = "Lyon is France's third-largest city, with about 1.4 million people in its urban area."
_REPEAL = "The Twenty-first Amendment, ratified in December 1933, repealed national Prohibition."


@pytest.mark.parametrize(("claim", "premise", "fires"), [
    ("Lyon is the 3rd largest city in France.", _LYON, False),   # an ordinal in digits, one in words
    ("Lyon is the 4th largest city in France.", _LYON, True),
    ("The 21st Amendment repealed national Prohibition.", _REPEAL, False),  # the parse read "Twenty" as 20
    ("The 18th Amendment repealed national Prohibition.", _REPEAL, True),
])
def test_an_ordinal_agrees_with_itself_in_digits_or_words(claim, premise, fires):
    assert (contrast(claim, premise) is not None) == fires


def test_an_ordinal_the_source_states_in_words_is_not_missing():
    # The number rule reads the claim's numbers against the unit and the whole source; an
    # ordinal word ("third-largest", no number for `numbers_in`) must count from both.
    claim = "Lyon, France's 3rd largest city, had 522,000 residents in 2020."
    unit = "Lyon had 522,000 residents in 2020."
    assert contrast(claim, unit, unit, ("number",)).startswith("number:")
    assert contrast(claim, unit, _LYON + " " + unit, ("number",)) is None
    assert contrast(claim.replace("3rd", "5th"), unit, _LYON + " " + unit, ("number",)).startswith("number:")


@pytest.mark.parametrize(("claim", "fires"), [
    ("The lease runs for 365 days from the date of signing.", False),
    ("The lease runs for 356 days from the date of signing.", True),
    ("The hall seats 1,200 people.", False),
    ("The hall seats 1,000 people.", True),
])
def test_a_number_in_words_is_read_whole_by_every_rule(claim, fires):
    # The parse cuts "three hundred and sixty-five" into tokens; the parse-based checks read
    # each as the whole number (`checks._spelled_number`), or "365 days" was a swap of "3 days".
    premise = ("The lease runs for three hundred and sixty-five days from the date of signing. "
               "The hall beside the office seats one thousand two hundred people.")
    assert (contrast(claim, premise) is not None) == fires


@pytest.mark.parametrize(("claim", "premise", "fires"), [
    ("The warranty lasts 2.5 years from the date of purchase.",
     "The warranty lasts two and a half years from the date of purchase.", False),
    ("The warranty lasts two and a half years from the date of purchase.",
     "The warranty lasts 2.5 years from the date of purchase.", False),
    ("The warranty lasts two and a half years from the date of purchase.",
     "The warranty lasts two years from the date of purchase.", True),
    ("The flight from Lisbon to Boston takes about 6.5 hours.",
     "The flight from Lisbon to Boston takes about six and a half hours.", False),
    ("The museum drew 1.5 million visitors last year.", "The museum drew one and a half million visitors last year.", False),
    ("The museum drew 2.5 million visitors last year.", "The museum drew 2,500,000 visitors last year.", False),
    ("The museum drew 2.5 million visitors last year.", "The museum drew 1,500,000 visitors last year.", True),
    ("The museum drew 3 million visitors last year.",
     "The museum drew 2 million visitors last year, and the gallery drew 3 million.", True),
])
def test_a_half_and_a_scale_word_are_read_with_their_number(claim, premise, fires):
    # "two and a half years" read 2 and "one and a half million" nothing (the number rule called
    # 2.5 missing beside it), and the parse-based checks read "1.5 million" as 1.5 against
    # "1,500,000" or the premise's words (a swap). `numbers._and_a_half`, `checks._scaled`.
    assert (contrast(claim, premise) is not None) == fires


_SURVEY = "The survey, carried out in May, reached 4,870 households across the county."
_EMPIRES = ("The Western Roman Empire came to an end in 476. The Eastern Roman Empire lasted until 1453, "
            "when Constantinople fell to the Ottomans.")


@pytest.mark.parametrize(("claim", "premise", "fires"), [
    ("The survey reached about 5,000 households.", _SURVEY, False),   # a round number for 4,870
    ("The survey reached nearly 4,900 households.", _SURVEY, False),
    ("The survey reached 5,000 households.", _SURVEY, True),           # no hedge: a number of its own
    ("The survey reached about 6,000 households.", _SURVEY, True),     # too far
    ("The survey reached almost 4,000 households.", _SURVEY, True),    # "almost" stays below the truth
])
def test_a_hedged_number_is_read_as_an_approximation(claim, premise, fires):
    # Every rule that compares numbers reads a hedged one as an approximation: the number rule
    # (`contrast_rules.approximates`) and the parse-based checks (`Arg.hedge`).
    assert (contrast(claim, premise) is not None) == fires


@pytest.mark.parametrize(("claim", "fires"), [
    ("The Western Empire fell almost a thousand years before Constantinople.", False),  # 1453 - 476 = 977
    ("The Western Empire fell about 1,500 years before Constantinople.", True),  # a span of years, not 1453
])
def test_a_hedged_span_of_years_is_read_against_the_gap_between_two_dates(claim, fires):
    assert (contrast(claim, _EMPIRES, rules=("number",)) is not None) == fires


def test_a_number_in_words_is_a_count_not_a_year():
    # "a thousand" read as the year 1000 was the right side's date, and the dates 476 and 1453
    # no longer bore the order out (`checks._is_year_token`).
    from localeval.text.contrast_rules import confirmation

    claim = "The Western Roman Empire ended first, almost a thousand years before Constantinople fell."
    assert confirmation(claim, _EMPIRES) is not None


def test_numbers_are_read_in_one_form():
    assert numbers_in("revenue grew 12% in 2022, while") == {"12", "2022"}
    assert numbers_in("$2.6m in gifts") == numbers_in("2.6 million dollars") == {"2600000"}
    assert numbers_in("a 2018–19 season") == {"2018", "2019"}
    assert numbers_in("Gauss (30 April 1777 – 23 February 1855)") == {"30", "1777", "23", "1855"}
    assert numbers_in("In 1999 - 20 people were hurt") == {"1999", "20"}
    assert numbers_in("at 2 p.m.") == numbers_in("at 14:00") == {"14:00"}
    assert numbers_in("the COVID-19 wards and the ED2 domain, as shown [10]") == frozenset()


def test_the_default_judge_is_overruled_only_where_a_rule_fires(default_judge):
    premise = ("The Harbour Museum is open from Tuesday to Sunday, 10:00 to 17:00. It is closed on Mondays "
               "and on public holidays. Guided tours start at 11:00.")
    claims = ["The Harbour Museum is open on Mondays.", "The Harbour Museum is closed on public holidays.",
              "The Harbour Museum has eighteen guided tours a day."]
    on = attribute(default_judge, [(claims, [premise])], max_units=None)[0]
    off = attribute(default_judge, [(claims, [premise])], max_units=None, contrasts=False)[0]
    # The paraphrase is untouched: same probability, same evidence, no reason.
    assert on[1].probability == pytest.approx(off[1].probability) and on[1].contrast is None
    assert on[1].evidence == off[1].evidence
    # Where the judge's favourite unit says the opposite, it no longer decides, and the claim
    # says which rule overruled it.
    assert on[0].contrast is not None and on[0].contrast.startswith(("opposite:", "negated:"))
    assert on[0].probability < off[0].probability
    assert on[0].probability <= max(CONTRAST_WEIGHT * off[0].probability, 0.5)


def test_the_role_rule_parses_only_units_the_judge_accepts(default_judge):
    claims = ["Martin Hale wrote 'Winter Harbour'."]
    judged = attribute(default_judge, [(claims, [_NOVEL])], max_units=None, contrasts=False)[0][0]
    every = attribute(default_judge, [(claims, [_NOVEL])], max_units=None)[0][0]  # no early acceptance
    accepted = attribute(default_judge, [(claims, [_NOVEL])], max_units=None, accept_at=judged.probability)[0][0]
    above = attribute(default_judge, [(claims, [_NOVEL])], max_units=None,
                      accept_at=min(1.0, judged.probability + 0.01))[0][0]
    assert every.contrast.startswith("role:") and accepted.contrast == every.contrast
    # No unit reaches the acceptance threshold: the role rule could not change the verdict,
    # so nothing is parsed and the judge's probability stands.
    assert above.contrast is None and above.probability == pytest.approx(judged.probability)


def test_metrics_report_the_contrast_and_can_turn_the_rules_off(default_judge):
    sample = Sample(
        user_input="How many members does the committee have?",
        response="The planning committee has eighteen members.",
        reference="The planning committee has eighteen members.",
        retrieved_contexts=["The planning committee has eight members, all elected for four years. It meets twice a month."],
    )
    result = Faithfulness(model=default_judge).score_many([sample])[0]
    (claim,) = result.claims
    assert not claim.attributed and claim.contrast.startswith("number:") and "18" in claim.contrast
    assert result.score == 0.0
    recall = ContextRecall(model=default_judge, contrasts=False).score_many([sample])[0]
    assert recall.claims[0].contrast is None
    # The option is recorded with the metric, so a resumed run with the other value is refused.
    out = evaluate([sample.model_dump()], ["faithfulness"], model=default_judge, contrasts=False, show_progress=False)
    assert out.rows[0].results["faithfulness"].claims[0].contrast is None


def test_a_rerun_reads_the_reasons_stored_with_the_verdicts(default_judge, tmp_path, monkeypatch):
    rows = [
        {"user_input": "How many members does the committee have?",
         "response": "The planning committee has eighteen members.",
         "retrieved_contexts": ["The planning committee has eight members, all elected for four years."]},
        {"user_input": "Who wrote 'Winter Harbour'?", "response": "Martin Hale wrote 'Winter Harbour'.",
         "retrieved_contexts": [_NOVEL]},
    ]
    cache = tmp_path / "verdicts.sqlite"
    first = evaluate(rows, ["faithfulness"], model=default_judge, cache=cache, show_progress=False)
    reasons = [r.results["faithfulness"].claims[0].contrast for r in first.rows]
    assert reasons[0].startswith("number:") and reasons[1].startswith("role:")

    calls = []
    monkeypatch.setattr(contrasts_module, "contrast", lambda *args: calls.append(args) or contrast(*args))
    again = evaluate(rows, ["faithfulness"], model=default_judge, cache=cache, show_progress=False)
    assert [r.results["faithfulness"].model_dump() for r in again.rows] == \
        [r.results["faithfulness"].model_dump() for r in first.rows]
    assert calls == []  # every reason read back, none made again
    # Without a cache file nothing is stored: the rules run.
    evaluate(rows, ["faithfulness"], model=default_judge, show_progress=False)
    assert len(calls) >= 2


def test_the_contrasts_option_from_config_and_flags(tmp_path):
    from localeval.config import LocalevalConfig, load_config

    assert LocalevalConfig().run_options().contrasts is True
    (tmp_path / "localeval.toml").write_text("contrasts = false\n")
    assert load_config(cwd=tmp_path).config.run_options().contrasts is False
    assert load_config(cwd=tmp_path, overrides={"contrasts": True}).config.run_options().contrasts is True
    assert json.loads(json.dumps(LocalevalConfig().run_options().record()))["contrasts"] is True


# "A before B" against the premise's "after": the opposite order only where the premise's
# sentence holds both of the claim's events, one on each side of its word (True: must fire).
ORDERS = [
    ("Check the tyre pressure before a long motorway drive.",
     "After a long motorway drive, check the tyre pressure once the tyres have cooled.", True),
    ("Before the concert began, the orchestra rehearsed the new symphony.",
     "The orchestra rehearsed the new symphony after the concert.", True),
    ("The museum was founded after the library.", "The museum was founded in 1871, twelve years before the library.",
     True),
    # One event shared, the other another: what follows the refit is not what the claim puts
    # before it.
    ("Rinse the filter before refitting it.", "After refitting the filter, run the pump for one minute.", False),
    ("Soak the seeds overnight before sowing them.", "Water the seedlings daily after sowing the seeds in spring.",
     False),
    ("The treaty was ratified before the election.", "After the election, the new parliament debated the budget.",
     False),
    # "After 30 seconds": a span of time, no event.
    ("The alarm sounds before the driver leaves the car.",
     "After 30 seconds, if the driver has not left the car, the alarm stops.", False),
    # "named after" (in honour of) is no order; "Take ... after meals" is one, and a "looks after"
    # (cares for) leaves the sentence's own "before" an order.
    ("The bridge was named after the engineer who designed it.",
     "The engineer retired after the bridge was completed in 1932.", False),
    ("He was named after his father's close friend, Coach Bill Edwards.",
     "After being named head coach in 1925, Bill Edwards became a close friend of the family.", False),
    ("A neighbour looks after the dog before the family returns.",
     "The family returns before the neighbour comes to look after the dog.", True),
    ("The bridge was completed after the engineer retired.",
     "The engineer retired after the bridge was completed in 1932.", True),
    ("Take the tablets after meals.", "Take the tablets before meals, with a glass of water.", True),
]


@pytest.mark.parametrize(("claim", "premise", "fires"), ORDERS)
def test_an_order_is_reversed_only_between_the_same_two_events(claim, premise, fires):
    reason = contrast(claim, premise, premise, ("opposite",))
    assert (reason is not None and reason.endswith("(order)")) if fires else reason is None, reason


def test_close_to_is_near_not_shut():
    premise = "Mobile phones used close to the TV (within one metre) may cause noise on the picture."
    claim = "Make sure mobile phones are not used close to the TV to avoid noise on the picture."
    assert contrast(claim, premise, premise, ("opposite",)) is None
    assert contrast("The museum is open on Mondays.", "The museum is closed on Mondays.", "", ("opposite",))


# Open against closed: only where both words state something of the same thing (True: must fire).
STATES = [
    ("The Riverside Library is open on Sundays.", "The Riverside Library is closed on Sundays and on public holidays.",
     True),
    ("The valve opens when the pressure rises.", "The valve closes when the pressure rises above 3 bar.", True),
    ("The pool is open in January.", "The pool reopens in May. It is closed in January and February.", True),
    ("Keep the windows open while driving through floodwater.",
     "Keep the windows closed while driving through floodwater.", True),
    # Two steps of a procedure open and close the lid at other moments.
    ("Lift the lever to open the lid.", "To close the lid, press it down until it clicks.", False),
    # Another thing, another doer, a word that only names a kind of surgery, a condition.
    ("The north car park is open all night.", "The south car park is closed all night.", False),
    ("The supplied key opens the service hatch.", "Standard keys will not open the service hatch.", False),
    ("The new wing of the hospital is closed to visitors.",
     "The new wing of the hospital houses the open heart surgery unit.", False),
    ("Close the tailgate before you drive off.", "The warning light comes on when the tailgate is open.", False),
]


@pytest.mark.parametrize(("claim", "premise", "fires"), STATES)
def test_open_and_closed_conflict_only_when_said_of_the_same_thing(claim, premise, fires):
    reason = contrast(claim, premise, premise, ("opposite",))
    assert (reason is not None and reason.endswith("(open)")) if fires else reason is None, reason


_DIAL = "Turn the dial clockwise to increase the volume and anticlockwise to decrease it."


@pytest.mark.parametrize(("claim", "premise", "fires"), [
    ("Turning the dial clockwise increases the volume, while turning it anticlockwise decreases the volume.", _DIAL,
     False),
    ("Turning the dial clockwise decreases the volume, while turning it anticlockwise increases the volume.", _DIAL,
     True),
    ("Sales rose in the north and fell in the south.", "Sales fell in the north and rose in the south.", True),
])
def test_a_claim_with_both_sides_is_answered_side_by_side(claim, premise, fires):
    """A claim that draws the contrast itself: each premise word answers the claim's side whose
    neighbours it shares more of."""
    reason = contrast(claim, premise, premise, ("opposite",))
    assert (reason is not None and reason.endswith("(change)")) if fires else reason is None, reason


_LANE = "Lane Assist does not steer the car for you. Keep both hands on the wheel."


@pytest.mark.parametrize(("claim", "fires"), [
    ("The Lane Assist camera reads the lane markings on the road.", False),
    ("Lane Assist steers the car for you on motorways.", True),
])
def test_a_not_denies_only_an_act_the_claim_speaks_of(claim, fires):
    """"Does not steer the car" negates steering the car: the claim that the camera reads the
    markings names neither the act nor what it is done to."""
    reason = contrast(claim, _LANE, _LANE, ("negated",))
    assert (reason is not None and reason.startswith("negated:")) if fires else reason is None, reason


_BOLTS = ("Loosen the two bolts that hold the bracket (bolts 1 and 2) with a T45 screwdriver. "
          "Do not remove these bolts.")


@pytest.mark.parametrize(("claim", "fires"), [
    ("Remove the remaining six bolts.", False),
    ("Then remove the other bolts.", False),
    ("Remove the bolts that hold the bracket.", True),
])
def test_the_remaining_ones_are_not_the_ones_denied(claim, fires):
    """"The remaining bolts" are not those the premise forbids removing."""
    reason = contrast(claim, _BOLTS, _BOLTS)
    assert (reason is not None) == fires, reason


def test_a_denial_of_the_remaining_ones_leaves_the_first_ones():
    premise = "Loosen the two bolts on the cover but leave them in place. Remove the remaining six bolts."
    assert contrast("Do not remove the bolts.", premise, premise, ("polarity",)) is None


_ACC = "Adaptive Cruise Control (ACC) is a convenience system. It is not a substitute for an attentive driver."


@pytest.mark.parametrize(("claim", "fires"), [
    ("ACC is a convenience system and not a substitute for an attentive driver.", False),
    ("ACC is a convenience system and a substitute for an attentive driver.", True),
])
def test_a_conjunct_with_its_own_not_is_denied(claim, fires):
    """"... and not a substitute" says what the premise's "It is not a substitute" says."""
    reason = contrast(claim, _ACC, _ACC, ("polarity",))
    assert (reason is not None and reason.startswith("polarity:")) if fires else reason is None, reason


def test_the_default_judge_is_overruled_on_a_swapped_role_and_not_on_a_change_of_voice(default_judge):
    # The judge alone accepts both: every word is there.
    premise = "The regulator fined the bank for misreporting its capital."
    swapped = Sample(response="The bank fined the regulator for misreporting its capital.",
                     retrieved_contexts=[premise])
    passive = Sample(response="The bank was fined by the regulator for misreporting its capital.",
                     retrieved_contexts=[premise])
    unchecked = Faithfulness(model=default_judge, contrasts=False).score_many([swapped])[0]
    assert unchecked.score == 1.0  # what the rules are for
    wrong, right = Faithfulness(model=default_judge).score_many([swapped, passive])
    assert wrong.score == 0.0 and wrong.claims[0].contrast.startswith("swap:")
    assert right.score == 1.0 and right.claims[0].contrast is None
