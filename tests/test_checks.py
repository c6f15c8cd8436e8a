"""The contradiction checks (`localeval.text.checks`, read through `localeval.text.contrast_rules`)
and the relevance leads (`localeval.text.leads`): each fires on the failure it is for and stays
quiet on a true restatement of the same passage. Real spaCy parses, no judge (cheap)."""

from __future__ import annotations

import pytest

from localeval.evidence.candidates import relevance_screen
from localeval.text.contrast_rules import CONTRAST_RULES, contrast
from localeval.text.leads import instruction_lead, list_leads, task_of

CASES = [
    # (rule, premise, contradicting claim, true restatement)
    ("polarity", "Never use vinegar to descale the machine; use only the supplied descaler.",
     "Yes, you can use vinegar to descale the machine.", "Do not use vinegar to descale the machine."),
    ("polarity", "Tenants may not sublet the flat without the landlord's written consent. Pets are allowed in "
     "ground-floor flats.",
     "Tenants may sublet the flat without asking the landlord.",
     "Subletting the flat requires the landlord's written consent."),
    ("swap", "Neil Armstrong and Buzz Aldrin walked on the lunar surface while Michael Collins remained in orbit.",
     "Aldrin stayed in orbit while Armstrong and Collins walked on the Moon.",
     "Collins remained in orbit while Armstrong and Aldrin walked on the Moon."),
    ("swap", "The warranty covers parts for two years and labour for one year.",
     "The warranty covers parts and labour for two years.", "Labour is covered for one year and parts for two years."),
    ("swap", "The front brakes use ceramic pads, while the rear brakes use organic pads.",
     "The rear brakes use ceramic pads.", "The front brakes use ceramic pads."),
    ("order", "The Western Roman Empire fell in 476. Constantinople fell to the Ottomans in 1453.",
     "The Western Roman Empire fell after Constantinople.", "The Western Roman Empire fell before Constantinople."),
    ("order", "Mount Everest is 8,849 metres high; K2 is 8,611 metres high.",
     "K2 is higher than Mount Everest.", "Everest is higher than K2."),
]


@pytest.mark.parametrize(("rule", "premise", "wrong", "right"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_check_fires_on_the_contradiction_and_not_on_the_restatement(rule, premise, wrong, right):
    reason = contrast(wrong, premise)
    assert reason is not None and reason.startswith(rule), reason
    assert contrast(right, premise) is None


def test_the_checks_are_contrast_rules_that_can_be_left_out():
    premise, claim = CASES[0][1], CASES[0][2]
    assert {"polarity", "swap", "order"} <= set(CONTRAST_RULES)
    assert contrast(claim, premise, rules=tuple(r for r in CONTRAST_RULES if r != "polarity")) is None


def test_the_word_level_negation_rule_defers_to_an_affirmed_statement_in_the_parse():
    premise = "Breastfeeding women should not take this medicine. It may be taken by adults over 18."
    assert contrast("Adults over 18 may take the medicine.", premise) is None
    assert contrast("The medicine is safe to take while breastfeeding.", premise) is not None


def test_the_relevance_screen_compares_stems_not_spellings():
    question = "How do I descale the coffee machine?"
    kept, dropped = relevance_screen(question, ["Descaling should be done every three months.",
                                                "The warranty lasts two years."])
    assert kept is None and dropped is not None


def test_a_list_item_is_read_with_its_lists_lead_in():
    context = "To descale the machine:\n1. Fill the tank with water.\n2. Run the 70 C programme.\nIt is red."
    starts = [0, context.index("1."), context.index("2."), context.index("It is")]
    assert list_leads(context, starts) == ["", "To descale the machine:", "To descale the machine:", ""]


def test_an_instruction_answering_a_how_to_question_is_read_with_its_task():
    assert task_of("How do I descale the machine?") == "descale the machine"
    assert task_of("What is descaling?") is None
    leads = instruction_lead("How do I descale the machine?",
                             ["Pour the descaler into the tank.", "The machine is red."])
    assert leads == ["To descale the machine:", ""]


def test_a_base_form_verb_with_its_own_subject_is_no_instruction():
    """"Go you must" (a verb in its base form first, with a subject of its own) states, it
    does not instruct: the parse is written out here, as the small pipeline rarely gives it."""
    from spacy.tokens import Doc

    from localeval.text.entities import load_nlp
    from localeval.text.leads import _imperative

    words, heads = ["Go", "you", "must", "."], [0, 0, 0, 0]
    stated = Doc(load_nlp().vocab, words=words, heads=heads, deps=["ROOT", "nsubj", "aux", "punct"],
                 tags=["VB", "PRP", "MD", "."])
    told = Doc(load_nlp().vocab, words=words, heads=heads, deps=["ROOT", "dobj", "aux", "punct"],
               tags=["VB", "PRP", "MD", "."])
    assert not _imperative(stated) and _imperative(told)


def test_context_relevance_keeps_the_steps_that_answer_a_how_to_question(default_judge):
    from localeval.metrics import ContextRelevance
    from localeval.schema import Sample

    context = ("To descale the machine:\n1. Fill the water tank with 0.5 l of water and one sachet of descaler.\n"
               "2. Run the 70 C programme.\nDescaling should be done every three months.\n"
               "The machine comes in red and black.")
    result = ContextRelevance(default_judge).score(
        Sample(user_input="How do I descale the coffee machine?", retrieved_contexts=[context]))
    verdicts = {d.text: d.relevant for d in result.sentences}
    assert verdicts["2. Run the 70 C programme."] and verdicts["Descaling should be done every three months."]
    assert not verdicts["The machine comes in red and black."]


CONFIRMED = [
    # (premise, claim the numbers bear out, claim they do not)
    ("The Eiffel Tower was completed in 1889. The Statue of Liberty was dedicated in 1886.",
     "The Statue of Liberty was dedicated three years before the Eiffel Tower was completed.",
     "The Statue of Liberty was dedicated five years before the Eiffel Tower was completed."),
    ("The basic model costs 349 euros and the pro model costs 499 euros.",
     "The pro model is 150 euros more expensive than the basic model.",
     "The basic model is more expensive than the pro model."),
    ("The library opens at 9:00 on weekdays and at 10:00 on Saturdays.",
     "On Saturdays the library opens an hour later than on weekdays.",
     "The library opens earlier on Saturdays than on weekdays."),
    ("The first iPhone went on sale in June 2007. Android's first phone was released in October 2008.",
     "The iPhone went on sale more than a year before the first Android phone.",
     "The iPhone went on sale more than two years before the first Android phone."),
]


@pytest.mark.parametrize(("premise", "right", "wrong"), CONFIRMED, ids=[f"confirm-{i}" for i in range(len(CONFIRMED))])
def test_an_order_the_numbers_bear_out_is_confirmed_and_a_wrong_one_is_not(premise, right, wrong):
    from localeval.text.contrast_rules import confirmation

    reason = confirmation(right, premise)
    assert reason is not None and reason.startswith("order"), reason
    assert confirmation(wrong, premise) is None
    assert contrast(right, premise) is None


def test_a_confirmed_order_lifts_the_judges_verdict_and_says_why(default_judge):
    from localeval.evidence.attribution import attribute

    premise, right, wrong = CONFIRMED[0]
    (good,), (bad,) = attribute(default_judge, [([right], [premise]), ([wrong], [premise])])
    # The judge alone reads the true "three years before" as a contradiction (P ~0.01).
    assert default_judge.entailment_probability([(premise, right)])[0] < 0.5
    assert good.probability >= 0.9 and good.confirmation is not None
    assert bad.probability < 0.5 and bad.confirmation is None


def test_an_act_done_without_doing_another_denies_the_other():
    """"returned without completing the survey": the drone did not complete it. Before, the
    parse read "completing" as a plain act, so "did not complete" was called a contradiction
    and "completed" was not."""
    premise = "The drone returned safely to base on 9 May without completing the survey of the northern ridge."
    for wrong in ("The drone completed the survey of the northern ridge before returning safely to base on 9 May.",
                  "The drone completed the survey of the northern ridge before it returned to base."):
        assert contrast(wrong, premise) is not None, wrong
    for right in ("The drone returned to base on 9 May without finishing the survey of the northern ridge.",
                  "The drone did not complete the survey of the northern ridge."):
        assert contrast(right, premise) is None, right


def test_a_shared_act_given_to_the_wrong_one_of_two_parties_is_a_swap():
    premise = "The tenant pays for electricity and gas, and the landlord pays for water and building insurance."
    reason = contrast("The landlord pays for electricity.", premise)
    assert reason is not None and reason.startswith("swap"), reason
    assert contrast("The landlord pays for water.", premise) is None


def test_a_claim_that_restates_a_prohibition_with_its_own_negating_verb_is_not_overruled():
    premise = "Do not take ibuprofen if you have ever had a stomach ulcer. Paracetamol can be used instead."
    assert contrast("If you have had a stomach ulcer, you should avoid ibuprofen.", premise) is None
    assert contrast("People with a history of stomach ulcers can take ibuprofen.", premise) is not None


@pytest.mark.parametrize(("premise", "elsewhere", "denied"), [
    # The premise forbids the act in one circumstance; the claim places it in another the
    # premise never names: no denial, for the parse nor for the word-level rule.
    ("Warm the engine up before putting it under load. Do not run the engine at idle for long periods.",
     "Run the engine at moderate speed for five minutes before applying full load.",
     "You can run the engine at idle for long periods."),
    ("Do not store the paint in direct sunlight or near a heater.", "Store the paint in a dry shed.",
     "Store the paint in direct sunlight."),
    ("Never run the generator in a garage or a closed shed. Carbon monoxide can kill within minutes.",
     "Run the generator in the open air, away from windows.", "You can run the generator in a garage."),
    # Where the premise names the claim's place, it may be the same one by another name.
    ("The island ferry sails daily. Bicycles are carried free of charge, but cars are not allowed on board.",
     None, "Cars are allowed on the island ferry."),
])
def test_an_act_denied_in_one_circumstance_is_not_denied_in_another_the_premise_never_names(premise, elsewhere, denied):
    _reads_denial(premise, elsewhere, denied)


def _reads_denial(premise: str, undenied: str | None, denied: str | None) -> None:
    """``premise`` denies nothing of ``undenied`` and does deny ``denied`` (a denial rule fires)."""
    if undenied is not None:
        assert contrast(undenied, premise) is None, contrast(undenied, premise)
    if denied is not None:
        found = contrast(denied, premise)
        assert found is not None and found.startswith(("polarity", "negated", "opposite")), found


@pytest.mark.parametrize(("premise", "elsewhere", "denied"), [
    # A prohibition limited to a circumstance by its own clause denies the act only where the
    # claim speaks of that circumstance.
    ("Do not open the radiator cap while the engine is hot. Check the coolant level once a month.",
     "Open the radiator cap and top up the coolant to the MAX mark.",
     "You can open the radiator cap while the engine is hot."),
    ("The dishwasher door must not be opened until the drying cycle has finished.",
     "Open the dishwasher door and load the cups into the upper basket.",
     "You may open the dishwasher door before the drying cycle has finished."),
    ("The printer will not be able to print over Wi-Fi if the router uses WEP encryption.",
     "The printer can print over Wi-Fi from any laptop on the office network.",
     "The printer can print over Wi-Fi when the router uses WEP encryption."),
    # Naming one of two alternatives speaks of the circumstance; a denial in it outweighs the
    # premise's affirmation of the act in general ...
    ("Never paint the fence while it is raining or snowing. Paint it on a dry day in spring.",
     "Paint the fence on a dry day in spring.", "You can paint the fence while it is snowing."),
    ("Do not lift the patient while the bed is raised. Lift the patient with the hoist.",
     "Lift the patient with the hoist.", "You may lift the patient while the bed is raised."),
    # ... and a unit that ends the claim's sentence ("C.") is the premise's "C".
    ("Do not spray the oven cleaner when it is above 50 C; let the oven cool down first.",
     "Let the oven cool down before you spray the cleaner.", "The oven cleaner can be sprayed when it is above 50 C."),
])
def test_a_denial_limited_to_a_circumstance_denies_only_claims_that_speak_of_it(premise, elsewhere, denied):
    _reads_denial(premise, elsewhere, denied)


@pytest.mark.parametrize(("premise", "excepted", "denied"), [
    # A plain statement leaves room for a claim's exception in a circumstance it never names;
    # a prohibition covers every circumstance, and a statement of the claim's own circumstance
    # speaks of it.
    ("Connecting to the Internet. You can get access to the Internet through your TV.",
     "If your network speed is below 10 Mbps, your TV may not be able to connect to the Internet.", None),
    ("The pump runs on mains power or on its built-in battery.", "The pump does not run while the filter cover is open.",
     "The pump does not run on its built-in battery."),
    ("Isotretinoin should be prescribed to women of childbearing age only after a negative pregnancy test.",
     "Doctors should not prescribe isotretinoin if the patient refuses to use contraception.", None),
    ("Never leave the fryer unattended.", None, "You may leave the fryer unattended while it is switched on."),
    ("When the engine is hot, open the radiator cap slowly to release the pressure.", None,
     "Do not open the radiator cap when the engine is hot."),
])
def test_a_denial_in_a_circumstance_the_premise_never_names_is_an_exception_not_a_contradiction(premise, excepted, denied):
    _reads_denial(premise, excepted, denied)


@pytest.mark.parametrize(("premise", "restated", "denied"), [
    # "it" as the thing acted on is the one thing the other verbs of its sentence act on: the
    # premise affirms the claim's act there, so a "not" elsewhere in the sentence denies nothing.
    ("Do not remove the filter while the pump is running, and replace it every six months.",
     "Replace the filter every six months.", "You can remove the filter while the pump is running."),
    ("You must not share the password with colleagues, and you should change it every ninety days.",
     "Change the password every ninety days.", "You may share the password with colleagues."),
    # In a sentence of its own, "it" is the jug that sentence names, not the lid before it.
    ("Do not wash the lid in the dishwasher. Take the jug apart and wash it in the dishwasher.",
     None, "Wash the lid in the dishwasher."),
])
def test_it_stands_for_the_one_thing_its_sentence_acts_on(premise, restated, denied):
    _reads_denial(premise, restated, denied)


def test_it_is_left_alone_where_its_sentence_acts_on_two_things():
    from localeval.text import roles
    from localeval.text.checks import _resolved

    def patients(text: str) -> list[str]:
        said = roles.facts(text)
        (atom,) = [a for a in said.atoms if any(x.pronoun for _, x in a.slots)]
        return [x.head for k, x in _resolved(atom, said).slots if k == "patient"]

    assert patients("Do not wash the lid in the dishwasher; take the jug apart and wash it in the dishwasher.") == ["it"]
    assert patients("Do not wash the lid in the dishwasher. Take the jug apart and wash it in the dishwasher.") == ["jug"]


@pytest.mark.parametrize(("text", "thing"), [
    # A pronoun refers back: the heater, named after "it", is not what is refilled.
    ("Never drain the tank while the heater is on, and refill it only after the heater has been switched off.", "tank"),
    # Where nothing before it in its sentence is acted on, the sentence before names the thing.
    ("Do not iron the jacket on a high setting. Iron it on a low setting, inside out.", "jacket"),
])
def test_it_stands_for_the_thing_acted_on_before_it(text, thing):
    from localeval.text import roles
    from localeval.text.checks import _resolved

    said = roles.facts(text)
    (atom,) = [a for a in said.atoms if any(x.pronoun for k, x in a.slots if k == "patient")]
    assert [x.head for k, x in _resolved(atom, said).slots if k == "patient"] == [thing]


@pytest.mark.parametrize(("premise", "claim", "denied"), [
    # The premise affirms the claim's act through "it": a denial in another circumstance is no
    # contradiction.
    ("Do not wash the lid in the dishwasher, but wash it by hand.", "Wash the lid by hand.", False),
    ("Never drain the tank while the heater is on, and refill it only after the heater has been switched off.",
     "Refill the tank only after the heater has been switched off.", False),
    # A denial through "it" denies the claim's act on the thing "it" stands for.
    ("Unplug the heater after use and never cover it while it is switched on.",
     "The heater can be covered while it is switched on.", True),
    # The premise affirms the act and denies it in the claim's own circumstance: the denial,
    # agreeing with the claim in more, holds.
    ("Do not iron the jacket on a high setting. Iron the jacket inside out.", "Iron the jacket on a high setting.", True),
    ("Do not iron the jacket on a high setting. Iron the jacket inside out.", "Iron the jacket inside out.", False),
])
def test_polarity_reads_pronouns_and_the_denial_that_says_more(premise, claim, denied):
    from localeval.text import checks, roles

    found = checks.polarity_contrast(roles.facts(claim), roles.facts(premise))
    assert (found is not None) == denied, found


@pytest.mark.parametrize(("premise", "claim"), [
    # A question states nothing: neither a FAQ's heading nor the row's question read before an
    # answer (`metrics.pieced`, its "?" dropped) affirms what the answer's "not" denies.
    ("Can I put the lid in the dishwasher? No. Wash the lid by hand in warm water.", "Do not put the lid in the dishwasher."),
    ("Does the warranty cover limescale damage: no, it is not covered.", "The warranty does not cover limescale damage."),
])
def test_a_question_affirms_nothing(premise, claim):
    from localeval.text import roles

    assert not roles.facts(premise).atoms[0].asserted  # the question's verb
    assert contrast(claim, premise) is None, contrast(claim, premise)


@pytest.mark.parametrize(("premise", "other", "denied"), [
    # Another particle, another governed verb, or a purpose are other acts than the claim's.
    ("Do not switch off the alarm panel at night. The panel runs on a backup battery.",
     "Switch on the alarm panel with the master key.", "You can switch off the alarm panel at night."),
    ("The remote control does not need to be aimed at the television.",
     "The remote control's batteries need to be replaced from time to time.",
     "The remote control needs to be aimed at the television."),
    ("To reset the trip counter, hold the trip button down until the display flashes.",
     "Do not reset the trip counter while driving.", None),
])
def test_another_particle_complement_or_purpose_is_another_act(premise, other, denied):
    _reads_denial(premise, other, denied)


@pytest.mark.parametrize(("premise", "other", "denied"), [
    # A condition of one act denies nothing of a condition of another.
    ("If you do not drain the tank before winter, the pipes can burst.",
     "If assistance is needed to drain the tank, call the installer.",
     "If you drain the tank before winter, the pipes can burst."),
    # A denial of those a clause singles out denies nothing of all of them.
    ("Dogs that are not on a lead are not allowed in the park.", "Dogs are allowed in the park.",
     "Dogs that are not on a lead are allowed in the park."),
    ("Cyclists riding without lights will not be admitted to the tunnel.", "Cyclists are admitted to the tunnel.",
     "Cyclists riding without lights will be admitted to the tunnel."),
    # A clause set off by commas describes its noun (and a relative pronoun is that noun): no
    # narrower group.
    ("The harbour museum, which is not open on Mondays, holds a collection of old sea charts.",
     "The harbour museum holds a collection of old sea charts.", "The harbour museum is open on Mondays."),
    ("Silver chloride, which does not dissolve in water, settles at the bottom of the flask.",
     "Silver chloride settles at the bottom of the flask.", "Silver chloride dissolves in water."),
])
def test_a_denial_of_another_condition_or_of_a_narrower_group_is_no_denial(premise, other, denied):
    _reads_denial(premise, other, denied)


def test_a_side_the_claim_dates_itself_is_read_at_that_year():
    from localeval.text.contrast_rules import confirmation

    premise = ("Kerr played for Leeds from 2004 to 2008, then spent three seasons in Spain with Valencia. "
               "He returned to Leeds in 2011 and retired in 2015.")
    # The year nearest "Kerr" is 2004; the claim says when he retired.
    wrong = contrast("Kerr retired in 2015 before his spell with Valencia.", premise)
    assert wrong is not None and wrong.startswith("order"), wrong
    assert confirmation("Kerr retired in 2015 before his spell with Valencia.", premise) is None
    assert confirmation("Kerr retired in 2015 after his spell with Valencia.", premise) is not None
    # A year the premise does not state dates nothing here (the number rule says it is missing).
    assert confirmation("Kerr retired in 2019 before his spell with Valencia.", premise) is None


def test_two_sides_nearest_the_same_number_are_paired_with_the_two_numbers_nearest_in_sum():
    premise = "Unemployment fell to 5.1 % in March from 5.6 % in February."
    reason = contrast("Unemployment in March was higher than in February.", premise)
    assert reason is not None and reason.startswith("order"), reason
    assert contrast("Unemployment in March was lower than in February.", premise) is None


def test_coordinated_preposition_objects_are_separate_facts_but_a_gapped_clause_is_not_split():
    premise = "Flights to Madrid leave from Terminal 2, and flights to Oslo leave from Terminal 5."
    reason = contrast("Flights to Madrid and Oslo both leave from Terminal 2.", premise)
    assert reason is not None and reason.startswith("swap"), reason
    assert contrast("Flights to Oslo leave from Terminal 5.", premise) is None
    warranty = "The warranty covers parts for two years and labour for one year."
    assert contrast("Labour is covered for one year and parts for two years.", warranty) is None


@pytest.mark.parametrize("restated", ["Staff should avoid sharing their passwords with colleagues.",
                                      "Staff must refrain from sharing their passwords with colleagues.",
                                      "Passwords should be kept to yourself rather than shared with colleagues."])
def test_the_polarity_check_reads_a_verb_negated_by_avoid_refrain_from_or_rather_than(restated):
    from localeval.text import checks, roles

    premise = "Staff must not share their passwords with colleagues. Report a suspected breach at once."
    assert checks.polarity_contrast(roles.facts(restated), roles.facts(premise)) is None
    wrong = checks.polarity_contrast(roles.facts("Staff may share their passwords with colleagues."), roles.facts(premise))
    assert wrong is not None and wrong.startswith("polarity")


@pytest.mark.parametrize(("premise", "allowed", "restated"), [
    ("Under no circumstances should you touch the heating element. Let the kettle cool before descaling it.",
     "You can touch the heating element.", "Never touch the heating element."),
    ("At no time may the forklift carry passengers. The forklift is inspected before every shift.",
     "The forklift may carry passengers.", "Passengers must not ride on the forklift."),
    ("Never should the fuse be replaced with one of a higher rating.",
     "The fuse can be replaced with one of a higher rating.", "Do not replace the fuse with one of a higher rating."),
])
def test_a_negative_phrase_before_the_verb_denies_it_and_asks_nothing(premise, allowed, restated):
    from localeval.text import roles

    # "Under no circumstances should you ..." turns the helping verb round as a question does,
    # but states a prohibition: the act is denied, and its phrase is no circumstance of it.
    (atom, *_) = roles.facts(premise).atoms
    assert atom.asserted and atom.negated and not {k for k, _ in atom.slots} & {"prep:under", "prep:at"}, atom
    found = contrast(allowed, premise)
    assert found is not None and found.startswith(("polarity", "negated")), found
    assert contrast(restated, premise) is None


def test_a_negative_phrase_without_the_turned_helping_verb_denies_nothing():
    from localeval.text import roles

    (atom,) = roles.facts("In no time, the kettle boils the water for the tea.").atoms
    assert atom.lemma == "boil" and atom.asserted and not atom.negated, atom


@pytest.mark.parametrize(("premise", "same_bound", "other_bounds"), [
    ("Passengers must not carry more than two bags on board.", "Passengers can carry more than two bags on board.",
     ["Passengers can carry two bags on board.", "Passengers can carry fewer than two bags on board.",
      "Passengers should carry no more than two bags on board."]),
    ("Never leave a dog younger than six months alone for more than four hours.",
     "A dog younger than six months can be left alone for more than four hours.",
     ["You can leave a dog alone for three hours.", "A dog younger than six months can be left alone for an hour."]),
    # Wherever the parse hangs the bound ("borrow more than six books", "be under 140 cm"):
    # the bounded quantity of the verb's own clause.
    ("Members may not borrow more than six books at a time.", "Members can borrow more than six books at a time.",
     ["Members can borrow up to six books at a time.", "Members can borrow books from the library."]),
    ("Riders must not be under 140 cm tall.", "Riders can be under 140 cm tall.",
     ["Riders must be at least 140 cm tall.", "Riders over 140 cm can ride."]),
])
def test_a_bounded_quantity_is_denied_only_as_the_claim_bounds_it(premise, same_bound, other_bounds):
    from localeval.text import checks, roles

    # "not more than two" is "at most two": it denies "more than two", nothing of "two" (and
    # "no more than two" restates it).
    found = checks.polarity_contrast(roles.facts(same_bound), roles.facts(premise))
    assert found is not None and found.startswith("polarity"), found
    for claim in other_bounds:
        assert checks.polarity_contrast(roles.facts(claim), roles.facts(premise)) is None, claim


def test_a_before_after_is_confirmed_only_by_years_not_by_an_age_near_each_event():
    from localeval.text.contrast_rules import confirmation

    premise = "Lizzi Crawford, 32, weighed 20 stone. A stranger mistook her for being pregnant 7 weeks ago."
    assert confirmation("Lizzi Crawford tipped the scales at 20 stone after a stranger mistook her for pregnant.",
                        premise) is None
    assert confirmation("The Western Roman Empire fell almost a thousand years before Constantinople.",
                        "The Western Roman Empire fell in 476. Constantinople fell to the Ottomans in 1453.") is not None


QUANTITIES = [
    # (premise, claim its numbers bear out, claim they refute or do not bear out) -- a factor, a
    # change between two years, two sides told by a year or by a number, a gap in cents, the end
    # of a span, a duration.
    ("The recommended daily intake is 250 mg; the upper safe limit is 1,000 mg.",
     "The upper safe limit is four times the recommended daily intake.",
     "The recommended daily intake is twice the upper safe limit."),
    ("In 2021 the airport handled 9.1 million passengers, up from 6.4 million in 2020.",
     "Passenger numbers rose from 2020 to 2021.", "Passenger numbers fell from 2020 to 2021."),
    ("The town had 41,000 residents in 2001 and 47,500 residents in 2011.",
     "The town had more residents in 2011 than in 2001.", "The town had more residents in 2001 than in 2011."),
    ("The 500 g jar costs 3.20 euros and the 250 g jar costs 1.90 euros.",
     "The 500 g jar costs 130 cents more than the 250 g jar.", "The 250 g jar costs more than the 500 g jar."),
    ("Edward VII reigned from 1901 to 1910. The Titanic sank in 1912.",
     "The Titanic sank two years after Edward VII's reign ended.",
     "The Titanic sank eleven years after Edward VII's reign ended."),
    ("The survey recruited 800 households in 2012 and tracked them until 2020.",
     "The households were tracked for eight years.", "The households were tracked for five years."),
    # A factor whose compared noun is the verb's object ("costs four times the price of").
    ("The generic costs 12 euros a box and the brand costs 48 euros a box.",
     "The brand costs four times the price of the generic.", "The generic costs four times the price of the brand."),
    ("The old pump moves 40 litres a minute; the new pump moves 120 litres a minute.",
     "The new pump moves three times the volume of the old pump.",
     "The old pump moves three times the volume of the new pump."),
]


@pytest.mark.parametrize(("premise", "right", "wrong"), QUANTITIES, ids=[f"quantity-{i}" for i in range(len(QUANTITIES))])
def test_factors_changes_spans_and_durations_are_read_from_the_numbers(premise, right, wrong):
    from localeval.text.contrast_rules import confirmation

    reason = confirmation(right, premise)
    assert reason is not None, right
    assert contrast(right, premise) is None, contrast(right, premise)  # the number rule yields to the gap
    assert confirmation(wrong, premise) is None


def test_a_direction_against_the_years_numbers_is_a_contrast():
    premise = QUANTITIES[2][0]
    reason = contrast(QUANTITIES[2][2], premise)
    assert reason is not None and reason.startswith("order"), reason


UNITS = [
    # (premise, claim, what the numbers of one unit say: "bears out", "refutes" or None) -- a
    # comparison is read only from two numbers that count the same thing.
    ("Average nursing assistant salaries in Alabama are 1% higher than the national average. "
     "Alabama ranks 5th among states for nursing home beds.",
     "Nursing assistant salaries in Alabama are higher than the national average.", None),
    ("The basic plan includes one gigabyte of data and costs $30 per month. The premium plan costs $45 per month.",
     "The premium plan costs more than the basic plan.", "bears out"),
    ("The old boiler used 1,900 litres of oil a year; the new boiler, fitted in 3 days, uses 1,300 litres.",
     "The new boiler uses more oil than the old one.", "refutes"),
    ("The corona is 200 times hotter than the photosphere, reaching 2 million kelvin against 5,800 kelvin at "
     "the surface.", "The corona is hotter than the surface.", "bears out"),
    # "Cheaper" compares prices, not the other numbers beside them.
    ("The estate seats 5 adults and costs 26,500 euros; the minivan seats 7 adults and costs 24,000 euros.",
     "The minivan is cheaper than the estate.", "bears out"),
    ("The estate seats 5 adults and costs 26,500 euros; the minivan seats 7 adults and costs 24,000 euros.",
     "The estate is cheaper than the minivan.", "refutes"),
    # A reference in brackets counts nothing.
    ("Access to dasatinib is limited in many low-income countries [34]. Imatinib is now widely available as a "
     "generic drug [35].", "Imatinib is more widely available than dasatinib.", None),
]


@pytest.mark.parametrize(("premise", "claim", "numbers"), UNITS, ids=[f"units-{i}" for i in range(len(UNITS))])
def test_a_quantity_is_compared_by_two_numbers_of_one_unit(premise, claim, numbers):
    from localeval.text.contrast_rules import confirmation

    found, against = confirmation(claim, premise), contrast(claim, premise)
    assert (found is not None) == (numbers == "bears out"), found
    assert (against is not None and against.startswith("order")) == (numbers == "refutes"), against
    if found is not None:
        assert "e+" not in found  # "2 million", not "2e+06"


SIDES = [
    # (premise, claim, what its numbers say) -- each side's number comes from the clause that
    # names it alone, and "N of M" counts N: the claim's side carries the measure's words
    # ("glucose", "patients"), which the other side's clause names too.
    ("Nilotinib raised fasting glucose in 41 of 120 patients; imatinib raised it in 9 of 115.",
     "Imatinib raised glucose in more patients than nilotinib.", "refutes"),
    ("Nilotinib raised fasting glucose in 41 of 120 patients; imatinib raised it in 9 of 115.",
     "Nilotinib raised glucose in more patients than imatinib.", "bears out"),
    ("In the trial, 14 of 200 smokers on the patch relapsed within a year; on the gum, 31 of 190 did.",
     "More smokers relapsed on the patch than on the gum.", "refutes"),
    ("In the trial, 14 of 200 smokers on the patch relapsed within a year; on the gum, 31 of 190 did.",
     "More smokers relapsed on the gum than on the patch.", "bears out"),
]


@pytest.mark.parametrize(("premise", "claim", "numbers"), SIDES, ids=[f"sides-{i}" for i in range(len(SIDES))])
def test_each_side_of_a_comparison_is_read_from_its_own_clause(premise, claim, numbers):
    from localeval.text.contrast_rules import confirmation

    found, against = confirmation(claim, premise), contrast(claim, premise)
    assert (found is not None) == (numbers == "bears out"), found
    assert (against is not None and against.startswith("order")) == (numbers == "refutes"), against


@pytest.mark.parametrize(("premise", "restated", "contradicting"), [
    # A common noun of another sentence is not "moved" by the swap check.
    ("The new bridge will span 300 metres and open in 2030. Construction will cost 95 million euros.",
     "The 300-metre bridge will cost 95 million euros to build.", None),
    # "A before B" restates "B only after A" though a word ("pump") is on both sides.
    ("Refit the new pump only after the old pump has been drained and the valve has been closed.",
     "Drain the old pump and close the valve before refitting the new pump.",
     "Refit the new pump before the old pump has been drained."),
    # Two figures sharing "percent" and "dollars" are not about the same thing.
    ("Operating income was 420 million dollars, up 6 percent. Sales fell 2 percent to 3.1 billion dollars.",
     "Operating income rose 6 percent to 420 million dollars.", "Sales rose 2 percent."),
])
def test_the_rules_stay_quiet_on_restatements_that_share_only_their_frame(premise, restated, contradicting):
    assert contrast(restated, premise) is None, contrast(restated, premise)
    if contradicting is not None:
        assert contrast(contradicting, premise) is not None


def test_a_premise_that_writes_the_claim_word_for_word_is_no_swap_whatever_the_parse():
    from localeval.text.lexical import states_in_order

    # A photo caption run into the next sentence: the parse reads "Tagalog" as who scored the
    # role, and the lower-cased copy of the same words as a claim about someone else.
    premise = ("Nadia Brook (pictured) learned the Filipino language Tagalog to win a role on the sitcom Home Base "
               "The Perth woman moved to Manila in 2012 after struggling to find work.")
    claim = "nadia brook learned the filipino language tagalog to win a role on the sitcom home base."
    assert states_in_order(claim, premise)
    assert contrast(claim, premise) is None
    # Function words count: a passive turns the roles round, a negation denies it.
    assert not states_in_order("The deer caught the crocodile.", "The deer was caught by a crocodile in the river.")
    assert not states_in_order("Tenants may sublet the flat.", "Tenants may not sublet the flat.")
    # Skipping a premise's number or function word is no copy: "parts [for two years] and labour".
    assert not states_in_order("The warranty covers parts and labour for two years.",
                               "The warranty covers parts for two years and labour for one year.")


def test_a_description_and_a_name_in_the_same_role_are_no_swap_but_two_names_are():
    premise = ("Ben Okafor took over the kitchen at the Harbour Hotel in 2019; the chef had trained in Lyon, and "
               "Lena Voss now runs the restaurant next door.")
    # The chef and Ben Okafor may be one person (coreference is not resolved): no swap, though
    # "chef" is named elsewhere in the statement.
    assert contrast("The chef took over the kitchen at the Harbour Hotel in 2019.", premise) is None
    reason = contrast("Lena Voss took over the kitchen at the Harbour Hotel in 2019.", premise)
    assert reason is not None and reason.startswith("swap"), reason


def test_the_same_thing_with_other_modifiers_is_no_swap_unless_the_claims_own_stands_elsewhere():
    # "A 34-year-old UK national" / "a British national, aged 34": one person written two ways.
    # The check used to find the claim's "national" moved to ... the premise's "national".
    premise = ("Police said a British national, aged 34, was arrested at Heathrow on Friday after officers found "
               "cash in his luggage.")
    assert contrast("A 34-year-old UK national was arrested at Heathrow on Friday.", premise) is None
    # The claim's own thing ("JSON files") is given to another act: moved, a swap.
    premise = "The export command writes CSV files. The import command reads JSON and YAML files."
    reason = contrast("The export command writes JSON files.", premise)
    assert reason is not None and reason.startswith("swap"), reason


def test_another_subject_of_the_copula_or_a_word_in_another_slot_is_no_swap():
    # Real retrieved passages hold many "X is Y" statements: another subject of "is" says
    # nothing about the claim's (the copula takes any subject), two copulas are not parallel
    # statements, and the claim's word in another slot of the sentence is not its role moved.
    premise = ("The Larchmont Trio is a jazz ensemble founded in Dayton in 2004. The ensemble toured Europe with "
               "the Velvet Hours, a soul band from Memphis.")
    assert contrast("The Velvet Hours are from Memphis.", premise, rules=("swap",)) is None
    premise = "If your lease was a renewal contract, the deposit is usually carried over to the new term."
    assert contrast("If the contract is a renewal, the deposit is usually carried over.", premise,
                    rules=("swap",)) is None
    # Still a swap: a common noun given the act in the same slot of a coordinated statement,
    # and a name given another's role by the copula.
    premise = "The school board approved the budget, while the parents' committee rejected it."
    reason = contrast("The parents' committee approved the budget.", premise, rules=("swap",))
    assert reason is not None and reason.startswith("swap"), reason
    premise = "Bern is the capital of Switzerland. Zurich, its largest city, is home to the stock exchange."
    reason = contrast("Zurich is the capital of Switzerland.", premise, rules=("swap",))
    assert reason is not None and reason.startswith("swap"), reason


def test_the_merge_rules_word_gate_opens_only_on_a_name_the_premise_could_miss():
    from localeval.text import merges

    premise = "Canberra is the capital of Australia. Sydney, the largest city in the country, hosted the 2000 Olympics."
    assert merges.reads_premise("Sydney is the capital of Australia.", premise)
    assert merges.merge_contrast("Sydney is the capital of Australia.", premise) is not None
    # Every capitalised word of the claim is a word the texts also write in lower case, a year
    # or a month: no name can be missing from the stating sentence, so nothing is parsed.
    assert not merges.reads_premise("The capital is in the country.", "The capital of the country is small. The country is large.")


def test_a_value_that_conflicts_with_every_value_of_its_kind_in_the_slot_refutes_the_slot():
    premise = ("Marie Curie won the Nobel Prize in Physics in 1903, together with Pierre Curie and Henri Becquerel. "
               "In 1911 she won the Nobel Prize in Chemistry alone, for the discovery of polonium and radium.")
    # The year agrees with one prize and the field with the other: neither supports the claim.
    reason = contrast("She won the Nobel Prize in Chemistry in 1903.", premise)
    assert reason is not None and reason.startswith("swap"), reason
    assert contrast("She won the Nobel Prize in Chemistry in 1911.", premise) is None
    assert contrast("She won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.", premise) is None


def test_modifiers_the_premise_uses_to_tell_two_things_apart_conflict_after_a_preposition_too():
    premise = ("Load plates in the lower basket facing the centre. Cups, glasses and small bowls go in the upper "
               "basket. Wooden utensils and crystal glasses are not dishwasher safe.")
    reason = contrast("Glasses go in the lower basket.", premise)
    assert reason is not None and reason.startswith("swap") and "upper basket" in reason, reason
    assert contrast("Glasses go in the upper basket.", premise) is None
    # One basket only: a modifier the claim adds or changes says nothing ("the top basket").
    single = "Cups, glasses and small bowls go in the upper basket of the dishwasher."
    assert contrast("Glasses go in the top basket.", single) is None


FIRST_LAST = [
    # (premise, claim the dates bear out, claim they refute)
    ("The Suez Canal opened in 1869. The Panama Canal opened in 1914, after a decade of construction.",
     "The Suez Canal opened first.", "The Panama Canal opened first, in 1914."),
    ("Austria joined the union in 1995, Slovakia joined in 2004 and Bulgaria joined in 2007.",
     "Bulgaria joined last, in 2007.", "Slovakia joined last."),
]


@pytest.mark.parametrize(("premise", "right", "wrong"), FIRST_LAST, ids=[f"first-last-{i}" for i in range(len(FIRST_LAST))])
def test_who_did_it_first_or_last_is_read_from_the_dates_of_the_same_act(premise, right, wrong):
    from localeval.text.contrast_rules import confirmation

    reason = contrast(wrong, premise)
    assert reason is not None and reason.startswith("order"), reason
    assert contrast(right, premise) is None
    held = confirmation(right, premise)
    assert held is not None and held.startswith("order"), held
    assert confirmation(wrong, premise) is None


BRIDGES = [
    "The Forth Bridge, a cantilever railway bridge across the Firth of Forth, was opened on 4 March 1890 by the "
    "Prince of Wales.",
    "Tower Bridge in London took eight years to build and was opened on 30 June 1894. Its bascules are raised "
    "about 800 times a year.",
]


def test_an_order_whose_sides_are_dated_in_two_chunks_is_read_on_the_chunks_together(default_judge):
    """No single chunk dates both bridges: the order rule reads the dated sentences of both
    (`dated_passage`), refuting the wrong order and confirming the right one, whichever chunk
    the judge liked."""
    from localeval.evidence.attribution import attribute

    wrong = ["Tower Bridge opened first.", "Tower Bridge opened before the Forth Bridge."]
    right = ["The Forth Bridge opened first, in 1890.", "The Forth Bridge opened four years before Tower Bridge."]
    (supports,) = attribute(default_judge, [(wrong + right, BRIDGES)])
    refuted, borne_out = supports[:len(wrong)], supports[len(wrong):]
    for claim, support in zip(wrong, refuted):
        assert support.probability < 0.5, claim
        assert support.contrast is not None and "contexts taken together" in support.contrast, support.contrast
    for claim, support in zip(right, borne_out):
        assert support.probability >= 0.9 and support.contrast is None, (claim, support.contrast)
        assert support.confirmation is not None and "contexts taken together" in support.confirmation


def test_the_dated_passage_holds_the_dated_sentences_that_share_a_word_with_the_claim():
    from localeval.text.contrast_rules import dated_passage

    passage = dated_passage("Tower Bridge opened first.", BRIDGES)
    assert passage is not None and "1890" in passage and "1894" in passage
    assert "bascules" not in passage  # a number, but no word of the claim
    assert dated_passage("Tower Bridge was opened in 1894.", BRIDGES) is None  # orders nothing
    assert dated_passage("Tower Bridge opened first.", BRIDGES[1:]) is None  # one dated sentence


def test_a_subject_that_undergoes_the_act_and_a_shared_subject_up_a_chain_of_verbs():
    """"The bridge opened in 1890" says what "was opened by the Prince in 1890" was done to (no
    swap); "X took eight years to build and was opened in 1894" dates X's opening; a duration
    ("eight years") is no date of an event."""
    assert contrast("The Forth Bridge opened in 1890.", BRIDGES[0]) is None
    reason = contrast("Tower Bridge opened first.", " ".join(BRIDGES), rules=("order",))
    assert reason is not None and "1894" in reason and "1890" in reason, reason
    reason = contrast("The Forth Bridge opened after Tower Bridge.", " ".join(BRIDGES), rules=("order",))
    assert reason is not None and "1894" in reason and " 8 " not in reason, reason
    # A number that counts something is no year, even in the years' range ("after 120 minutes").
    from localeval.text import roles
    from localeval.text.memo import memo_scope

    with memo_scope():
        facts = roles.facts("The final in 2009 was decided on penalties after 120 minutes. Rome fell in 476.")
    years = {facts.clauses[ci][i] for ci, i in facts.dates}
    assert years == {("2009", 2009.0), ("476", 476.0)}, years


def test_first_before_the_verb_or_with_an_object_is_no_order_of_the_doers():
    """"was first used in 1922" is the first time, not the first of several; "listed its shares in
    New York first" orders the places, not the companies: neither is read as an order of doers."""
    premise = "Insulin was first used on a patient in 1922. Penicillin was first used on a patient in 1941."
    assert contrast("Penicillin was first used on a patient in 1941.", premise) is None
    premise = "Alpha listed its shares in Frankfurt in 1998. Beta listed its shares in Paris in 1995."
    assert contrast("Alpha listed its shares in New York first.", premise) is None


def test_the_premises_own_first_names_who_did_it_first_without_a_date():
    premise = "On the expedition, Amundsen arrived at the South Pole first; Scott arrived there five weeks later."
    reason = contrast("Scott arrived at the South Pole first.", premise)
    assert reason is not None and reason.startswith("order") and "amundsen" in reason, reason
    assert contrast("Amundsen arrived at the South Pole first.", premise) is None


MOVED_NUMBERS = [
    # (premise, a number given to the wrong thing, a true restatement)
    ("The ground floor houses the permanent collection, opened in 1961. The east wing was added in 1998.",
     "The east wing was added in 1961.", "The east wing was added in 1998."),
    ("The starter motor is guaranteed for three years. The blades are replaced free for twelve months.",
     "The starter motor is guaranteed for twelve months.", "The guarantee replaces the blades free for twelve months."),
    # The subject's owner (a possessive, an "of" phrase) is whose it is, not what is said of it:
    # the museum's height given to its dome is still moved.
    ("The Kelvingrove museum is 40 metres tall. Its glass dome spans 18 metres.",
     "The museum's glass dome spans 40 metres.", "The glass dome of the museum spans 18 metres."),
]


@pytest.mark.parametrize("premise, moved, restated", MOVED_NUMBERS)
def test_a_number_given_to_another_thing_than_the_premise_gives_it_to_is_a_swap(premise, moved, restated):
    reason = contrast(moved, premise, premise, rules=("swap",))
    assert reason is not None and reason.startswith("swap: the evidence gives"), reason
    assert contrast(restated, premise, premise, rules=("swap",)) is None


def test_a_number_naming_the_subject_is_part_of_its_name():
    # "the 500 g jar" is not "the 250 g jar": no statement of the claim's jar gives another price.
    premise = "The 500 g jar costs 3.20 euros and the 250 g jar costs 1.90 euros."
    assert contrast("The 500 g jar costs 130 cents more than the 250 g jar.", premise, premise, rules=("swap",)) is None


def test_a_moved_number_is_left_alone_where_a_pronouns_statement_holds_it():
    # "it" may be the pool: its 8:00 may be the claim's.
    premise = "The pool opens at 6:30 on weekdays. On Sundays it opens at 8:00."
    assert contrast("The pool opens at 8:00 on Sundays.", premise, premise, rules=("swap",)) is None


def test_faithfulness_refutes_a_number_moved_between_sentences_with_the_default_judge(default_judge):
    from localeval import evaluate
    from localeval.metrics import Faithfulness

    premise, moved, restated = MOVED_NUMBERS[0]
    metric = Faithfulness(default_judge)
    result = evaluate([{"response": moved, "retrieved_contexts": [premise]},
                       {"response": restated, "retrieved_contexts": [premise]}], [metric], show_progress=False)
    wrong, right = result.results(metric.name)
    assert wrong.score == 0.0 and "swap" in (wrong.claims[0].contrast or "")
    assert right.score == 1.0


@pytest.mark.parametrize("premise, claim, fires", [
    # A condition states no fact, so it denies nothing the claim asserts outright.
    ("If you do not prime the pump, the seals can burn out within a minute.",
     "Prime the pump before you switch it on.", False),
    ("When charging the battery overnight, keep the charger on a hard surface.",
     "Never charge the battery overnight.", False),
    ("Do not prime the pump with hot water.", "Prime the pump with hot water.", True),
    # "whether ... or not" is an alternative, not a negation.
    ("The delivery date depends on the postcode.",
     "Whether the parcel arrives on Monday or not depends on the postcode.", False),
    # "may not be able to keep" denies "keeps".
    ("The heater keeps the room warm at outdoor temperatures below -10 °C.",
     "The heater may not be able to keep the room warm at outdoor temperatures below -10 °C.", True),
    # A verb the premise does not assert ("a chance to praise", "do not need to renew") is
    # neither stated nor denied there; "must renew" is.
    ("The staff meeting is a chance to praise colleagues in public.", "Avoid praising colleagues in public.", False),
    ("Residents do not need to renew the parking permit every year.", "Residents never renew the parking permit.", False),
    ("Residents must renew the parking permit every year.", "Residents never renew the parking permit.", True),
])
def test_a_denial_counts_only_where_the_premise_states_it_outright(premise, claim, fires):
    assert (contrast(claim, premise) is not None) is fires, contrast(claim, premise)


def test_a_quantity_is_not_compared_by_the_years_beside_it_but_an_event_is():
    dated = "The City Gallery opened in 1931. The Harbour Museum opened in 1987 in the old customs house."
    counted = "The City Gallery opened in 1931 with 800 paintings. The Harbour Museum opened in 1987 with 2,300 paintings."
    assert contrast("The City Gallery is larger than the Harbour Museum.", dated) is None
    reason = contrast("The City Gallery holds more paintings than the Harbour Museum.", counted)
    assert reason is not None and "800" in reason and "2300" in reason
    assert contrast("The Harbour Museum holds more paintings than the City Gallery.", counted) is None
    assert contrast("The Harbour Museum opened before the City Gallery.", dated) is not None
    # "named after" says for whom, not when.
    lind = "Lind Park opened in 1925. Its architect, Greta Lind, died in 1931."
    assert contrast("Lind Park is named after its architect, Greta Lind.", lind) is None
    assert contrast("Lind Park opened after its architect, Greta Lind, died.", lind) is not None


_AUDIT = "The auditor questioned the treasurer about the missing receipts."
_COACH = "The club's new coach, Dimitrov, dropped the captain for Saturday's match."
_AUCTION = "In the spectrum auction, the larger operators were outbid by the smaller operators."


@pytest.mark.parametrize(("claim", "premise", "swapped"), [
    # One statement, neither side named: the role rule (names only) cannot read these, and the
    # swap check used to wait for a second statement, a list or a "by" in the premise.
    ("The treasurer questioned the auditor about the missing receipts.", _AUDIT, True),
    ("The auditor was questioned by the treasurer.", _AUDIT, True),
    ("The treasurer was questioned by the auditor about the missing receipts.", _AUDIT, False),
    # A name set beside a description ("the new coach, Dimitrov,") is the same one.
    ("Dimitrov dropped the captain.", _COACH, False),
    ("The captain was dropped by Dimitrov.", _COACH, False),
    ("The captain dropped Dimitrov.", _COACH, True),
    # Across a change of voice the pair words trade places with their roles: the opposite rule
    # leaves whose is which to the parse.
    ("The smaller operators outbid the larger operators in the spectrum auction.", _AUCTION, False),
    ("The larger operators outbid the smaller operators in the spectrum auction.", _AUCTION, True),
])
def test_a_swap_of_one_statements_two_sides_is_read_and_a_restatement_in_either_voice_is_not(claim, premise,
                                                                                           swapped):
    reason = contrast(claim, premise)
    assert (reason is not None and reason.startswith("swap")) if swapped else reason is None, reason


def test_the_swap_check_parses_a_single_statement_only_for_a_passive_claim_or_words_in_another_order():
    from localeval.text.checks import reads_premise

    assert reads_premise("The mayor was criticised by the newspaper.", "The mayor criticised the newspaper.", "swap")
    assert reads_premise("The nurse trained the doctor.", "The doctor trained the nurse.", "swap")
    # Same words in the same order, one statement: nothing for the parse to swap.
    assert not reads_premise("The nurse trained the new doctor.", "The nurse trained the new doctor on the pumps.",
                             "swap")


@pytest.mark.parametrize(("text", "verb", "slot", "head"), [
    # The second verb of a passive sentence: its doer when it is active, what its act was done
    # to when it is passive too.
    ("The generic tablet is sold without a prescription and can cause drowsiness.", "cause", "agent", "tablet"),
    ("The bridge was damaged in the flood and reopened in 1950.", "reopen", "agent", "bridge"),
    ("The report was written by Berg and published in 1934.", "publish", "patient", "report"),
    ("The tablets are taken with food and should not be crushed.", "crush", "patient", "tablet"),
])
def test_a_verb_conjoined_to_a_passive_takes_its_subject_in_its_own_voice(text, verb, slot, head):
    from localeval.text.roles import facts

    (atom,) = [a for a in facts(text).atoms if a.lemma == verb]
    assert atom.slot(slot) is not None and atom.slot(slot).head == head, atom


@pytest.mark.parametrize("premise, swapped", [
    ("Norway edged Denmark 3-2 in extra time on Sunday.", "Denmark edged Norway 3-2 in extra time on Sunday."),
    ("Munster beat Leinster 24-19 at Thomond Park.", "Leinster beat Munster 24-19 at Thomond Park."),
])
def test_a_match_result_with_its_score_is_read_with_its_loser_and_a_swap_is_found(premise, swapped):
    # The small parser hangs a loser followed by the score on the verb as an adverbial noun
    # ("edged Denmark 3-2": npadvmod), so neither side had an object (`roles.is_object`).
    reason = contrast(swapped, premise)
    assert reason is not None and reason.startswith(("swap", "role")), reason
    assert contrast(premise, premise) is None
    passive = "Leinster were beaten 24-19 by Munster at Thomond Park."
    assert contrast(passive, "Munster beat Leinster 24-19 at Thomond Park.") is None


def test_only_a_noun_before_a_score_is_read_as_the_object():
    from localeval.text.entities import load_nlp
    from localeval.text.roles import is_object

    nlp = load_nlp()
    doc = nlp("Ajax beat Feyenoord 3-1 on Sunday.")
    assert [t.text for t in doc if is_object(t)] == ["Feyenoord"]
    doc = nlp("He arrived Tuesday 10-12 minutes late.")  # a day before a range is no object
    assert not [t.text for t in doc if is_object(t)]


def test_a_claim_that_names_the_thing_by_what_the_premise_says_of_its_aim_is_no_swap():
    # The parse hangs "of the survey" on the act of "the purpose", so the survey looked like
    # a role given to another (`checks._whole_of`); it still is where another statement takes it.
    premise = ("The main purpose of the survey was to measure household spending on energy across the region. "
               "It ran from March to June.")
    assert contrast("The survey measured household spending on energy across the region.", premise,
                    rules=("swap",)) is None
    premise = "The purpose of the survey was to measure household spending, while the census measured household income."
    reason = contrast("The survey measured household income.", premise, rules=("swap",))
    assert reason is not None and reason.startswith("swap"), reason


@pytest.mark.parametrize("premise, restated", [
    ("Visitor numbers rose from 1.9 million in 2022 to 2.4 million in 2023.",
     "Visitor numbers rose by about half a million from 2022 to 2023."),
    ("Enrolment fell from 14,200 students in 2019 to 12,900 in 2021.", "Enrolment fell by 1,300 students from 2019 to 2021."),
])
def test_a_year_the_act_holds_under_another_preposition_is_its_time_not_a_moved_role(premise, restated):
    # "from 2022" against "in 2022": the parse gives the premise's "from" slot 1.9 million and
    # the claim's 2022, and the premise's act holds 2022 too (`checks._dated_by`).
    assert contrast(restated, premise) is None


@pytest.mark.parametrize("premise, dated", [
    ("Enrolment fell from 1,240 pupils in the 2021-22 school year to 1,180 in 2022-23.",
     "Enrolment fell in the 2022-23 school year."),
    ("Ticket sales grew from 52,000 in the 2022 season to 61,000 in 2023.", "Ticket sales grew in the 2023 season."),
    ("Membership dropped from 8,400 in the 2020-21 season to 7,900 in 2021-22.", "Membership dropped in the 2021-22 season."),
])
def test_a_named_year_the_act_holds_is_its_time_not_a_moved_role(premise, dated):
    # "in the 2022-23 school year" against "in the 2021-22 school year to 1,180 in 2022-23": the
    # claim's year noun holds a year the premise's act holds too (`checks._year_values`).
    assert contrast(dated, premise) is None


def test_a_named_year_given_to_another_act_is_still_moved():
    reason = contrast("Exports rose in the 2016 financial year.",
                      "Exports rose in the 2014 financial year, and imports rose in the 2016 financial year.")
    assert reason is not None and reason.startswith("swap"), reason
    reason = contrast("The first team won the league in the 2021 season.",
                      "The first team won the league in the 2019 season, and the reserve team won it in the 2021 season.")
    assert reason is not None and reason.startswith("swap"), reason


def test_a_year_or_an_amount_given_to_another_act_is_still_moved():
    premise = "Exports rose from 2010 to 2014, and imports rose from 2016."
    reason = contrast("Exports rose from 2016.", premise)
    assert reason is not None and reason.startswith("swap"), reason
    # 1,240 euros reads as the number 1240: with a unit it is an amount, no year.
    reason = contrast("Rents climbed from 1,240 euros.", "Rents climbed from 850 euros to 1,240 euros.")
    assert reason is not None and reason.startswith("swap"), reason


@pytest.mark.parametrize("premise, compared", [
    ("The Western Roman Empire came to an end in 476, when its last emperor was deposed. The Eastern Empire "
     "lasted until 1453, when Constantinople fell to the Ottomans.",
     "The Western Empire fell almost a thousand years before Constantinople."),
    ("Norway adopted the policy in 2018, three years after Finland had taken it up.", "Finland adopted the policy before Norway."),
    ("Ana joined the team in March. Luis started in June, after the budget was approved.", "Ana started before Luis."),
])
def test_a_claim_that_sets_its_doer_beside_the_premises_is_no_swap(premise, compared):
    # The premise gives the act to the other side of the claim's comparison, in other words
    # for the claim's own doer ("came to an end", "had taken it up"): both role checks read the
    # doer named after "before" as compared, not replaced (`roles.COMPARING`).
    assert contrast(compared, premise) is None


def test_a_doer_put_in_place_of_the_premises_without_a_comparison_is_still_moved():
    reason = contrast("Finland adopted the policy in 2018.", "Norway adopted the policy in 2018, three years after Finland had taken it up.")
    assert reason is not None and reason.startswith("role"), reason
    reason = contrast("Ana started in June.", "Ana joined the team in March. Luis started in June, after the budget was approved.")
    assert reason is not None, reason
