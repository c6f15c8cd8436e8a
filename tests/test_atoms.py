"""Atomic claim parts (`localeval.text.atoms`) and support pieced together from them
(`localeval.metrics.pieced`): the rules on real parses, and the real judge on small rows."""

from __future__ import annotations

import pytest

from localeval.text import split_claims
from localeval.text.atoms import MAX_PARTS, atomic_parts


def texts(claim: str) -> list[str]:
    return [p.text for p in atomic_parts(claim)]


@pytest.mark.parametrize(
    ("claim", "parts"),
    [
        # coordinated objects share verb, subject and modifier
        ("The warranty covers parts and labour for two years.",
         ["The warranty covers parts for two years.", "The warranty covers labour for two years."]),
        # coordinated subjects, then a trailing "while" clause
        ("Neil Armstrong and Buzz Aldrin walked on the surface while Michael Collins remained in orbit.",
         ["Neil Armstrong walked on the surface.", "Buzz Aldrin walked on the surface.",
          "Michael Collins remained in orbit."]),
        # predicates of one (implied) subject, and a semicolon
        ("Switch the machine off, clean the filter and check that the drain hose is not kinked.",
         ["Switch the machine off.", "Clean the filter.", "Check that the drain hose is not kinked."]),
        # a non-restrictive relative clause states its own fact about its noun
        ("You can carry over up to five unused days, which must be taken by 31 March.",
         ["You can carry over up to five unused days.", "Up to five unused days must be taken by 31 March."]),
        # an appositive
        ("Constantinople, the capital of the Eastern Roman Empire, fell to the Ottomans.",
         ["Constantinople fell to the Ottomans.", "Constantinople is the capital of the Eastern Roman Empire."]),
        # two modifiers of the verb: one part each
        ("The Titanic sank on 15 April 1912 after striking an iceberg.",
         ["The Titanic sank on 15 April 1912.", "The Titanic sank after striking an iceberg."]),
        # a second predicate with its own auxiliary keeps it (no "will will cost")
        ("The new line will run to the airport and will cost 480 million euros.",
         ["The new line will run to the airport.", "The new line will cost 480 million euros."]),
        # the parser hangs the second clause's subject on the first verb: it goes back
        ("Either parent gets 16 weeks of parental leave, and up to five unused days can be carried over.",
         ["Either parent gets 16 weeks of parental leave.", "Up to five unused days can be carried over."]),
    ],
)
def test_parts_distribute_what_the_pieces_share(claim, parts):
    assert texts(claim) == parts


@pytest.mark.parametrize(
    "claim",
    [
        "Take one or two tablets every four to six hours.",  # alternatives
        "Tom and Jerry met in Paris.",  # a collective predicate
        "He washed and dried the dishes.",  # the object is shared: no first part of its own
        "If it rains and the road is wet, drive slowly.",  # a condition
        "Paris is big.",  # one fact
        "Do not freeze the pens and keep them away from light.",  # how far "not" reaches is a guess
        "The lid should be washed by hand rather than in the dishwasher.",  # a denied modifier
        "Store it in the fridge, not in the freezer.",  # the negation belongs to the second modifier
        # a "when" / "while" circumstance: neither half is stated alone
        "The charger can be covered while it is in use.",
        "Do not open the door while the drum is turning.",
        "The warranty is void when the seal is broken.",
        "You can lift the lid safely when the green light goes off.",  # nor beside another modifier
    ],
)
def test_what_is_not_split(claim):
    assert atomic_parts(claim) == []


@pytest.mark.parametrize(
    ("claim", "parts"),
    [
        # two past events: each happened
        ("She died in 2003 when her car hit a tree.", ["She died in 2003.", "Her car hit a tree."]),
        # a comma sets "while" apart as a contrast, in any tense
        ("Profit is rising, while revenue is falling.", ["Profit is rising.", "Revenue is falling."]),
        # a condition or circumstance stays in every part the modifiers are cut into
        ("While holiday mode is on, the thermostat holds the room at 12 C so that nothing freezes.",
         ["While holiday mode is on, the thermostat holds the room at 12 C.",
          "While holiday mode is on, the thermostat holds the room so that nothing freezes."]),
        ("If the filter is blocked, rinse it under the tap for two minutes.",
         ["If the filter is blocked, rinse it under the tap.", "If the filter is blocked, rinse it for two minutes."]),
        # an answer without a verb of its own, dated by a past clause
        ("In August 2012, when it crossed the heliopause.", ["In August 2012.", "It crossed the heliopause."]),
    ],
)
def test_when_and_while_clauses_split_where_both_halves_are_stated_and_conditions_stay(claim, parts):
    assert texts(claim) == parts


def test_a_circumstance_cut_off_does_not_piece_together_a_contradicted_claim(default_judge):
    from localeval.metrics import ContextRecall

    row = {
        "retrieved_contexts": ["Keep the door closed while the drum is turning. The door unlocks two minutes "
                               "after the programme ends."],
        "reference": "The door can be opened while the drum is turning.",
    }
    result = ContextRecall(default_judge).score(row)
    claim = result.claims[0]
    # Cut in two, "The door can be opened." and "The drum is turning." each find support.
    assert not claim.pieced and not claim.parts
    assert result.score == 0.0


def test_parts_keep_the_span_they_came_from_and_stay_bounded():
    claim = "Parts are covered for two years, and labour is covered for one year."
    for part in atomic_parts("Neil Armstrong and Buzz Aldrin walked on the surface while Michael Collins remained in orbit."):
        assert 0 <= part.source_start < part.source_end
    source = "It was reissued in 1216, 1217 and 1225."
    spans = [(p.source_start, p.source_end) for p in atomic_parts(source)]
    assert [source[a:b] for a, b in spans][0] == "It was reissued in 1216"
    many = "A, B, C, D, E, F, G, H, I and J were invited to the party in Paris on Monday."
    assert len(atomic_parts(many)) <= MAX_PARTS
    assert split_claims(claim)  # the claim splitter is unchanged by the parts


def test_a_leading_answer_word_is_not_part_of_the_claim():
    text = "No, cast iron pans are not dishwasher safe. No, it is not."
    claims = split_claims(text)
    assert claims[0].text == "cast iron pans are not dishwasher safe."
    assert text[claims[0].start:claims[0].end] == claims[0].text
    assert claims[1].text == "No, it is not."  # hygiene marks it a bare answer, kept whole


def test_split_fact_is_pieced_together_across_chunks(default_judge):
    from localeval.metrics import ContextRecall

    row = {
        "retrieved_contexts": [
            "To descale, fill the water tank with 0.5 litres of water and one sachet of descaler. "
            "Place a container under the spout and run the 70 C programme.",
            "Descaling should be done every three months, or sooner in hard-water areas.",
        ],
        "reference": "Fill the tank with 0.5 litres of water and one sachet of descaler and run the 70 C "
                     "programme; repeat every three months.",
    }
    before = ContextRecall(default_judge, pieced=False).score(row)
    after = ContextRecall(default_judge).score(row)
    assert before.score == 0.0
    assert after.score == 1.0
    claim = after.claims[0]
    assert claim.pieced and claim.parts and all(p.attributed for p in claim.parts)
    assert {p.evidence.context_index for p in claim.parts} == {0, 1}  # each part its own evidence


def test_one_unsupported_detail_costs_one_part(default_judge):
    from localeval.metrics import Faithfulness

    row = {
        "retrieved_contexts": ["The warranty covers parts for two years and labour for one year from the date "
                               "of purchase."],
        "response": "The warranty covers parts for two years and covers accidental damage for three years.",
    }
    result = Faithfulness(default_judge).score(row)
    claim = result.claims[0]
    assert not claim.attributed
    assert claim.failed_parts == ["The warranty covers accidental damage for three years."]
    assert result.score == pytest.approx(0.5)
    assert Faithfulness(default_judge, pieced=False).score(row).score == 0.0


def test_a_contradicted_part_sinks_its_claim():
    from localeval.metrics.pieced import ClaimPart, contradicted, parts_credit

    def part(ok: bool, contrast: str | None = None, against: bool = False) -> ClaimPart:
        return ClaimPart(text="x", source_start=0, source_end=1, attributed=ok, probability=float(ok),
                         contrast=contrast, contradicted=against)

    assert parts_credit([part(True), part(True), part(False, "words: the contexts lack fell")]) == pytest.approx(2 / 3)
    opposite = "opposite: the evidence says the opposite about revenue"
    assert parts_credit([part(True), part(True), part(False, opposite, against=True)]) == 0.0
    # the rule alone (the judge read the unit as entailing the part) does not sink the claim
    assert parts_credit([part(True), part(False, opposite)]) == pytest.approx(0.5)
    assert contradicted(opposite)
    # "number" also fires on a unit that is merely about something else: an absence, not a contradiction
    assert not contradicted("number: the claim's 0.5 is not in the evidence, which states 70")
    assert not contradicted("words: the contexts lack fell")
    assert parts_credit(None) == 0.0


def test_a_false_detail_costs_the_whole_sentence_in_factual_correctness(default_judge):
    from localeval.metrics import FactualCorrectness

    row = {
        "user_input": "How did the retailer do last year?",
        "response": "Operating profit rose 5 percent to 300 million euros and sales also grew, to 4.1 billion euros.",
        "reference": "Operating profit rose 5 percent to 300 million euros while sales fell 2 percent to 4.1 billion euros.",
    }
    result = FactualCorrectness(default_judge).score(row)
    claim = result.reference_claims[0]
    assert not claim.attributed and claim.parts
    assert any(p.attributed for p in claim.parts)  # some parts hold ...
    assert any(p.contradicted for p in claim.parts)  # ... one is contradicted (rule and judge agree)
    assert claim.credit == 0.0
    assert result.recall == 0.0


def test_the_word_check_reads_a_stem_and_its_longer_form_as_one_word():
    from localeval.metrics.pieced import _missing_words

    unit = "The line will run 12 kilometres to the airport. Construction will cost 480 million euros."
    words, numbers = _missing_words("The 12-kilometre line will cost 480 million euros to build.", unit)
    assert words == {"build"} and not numbers  # "kilometre" is the "kilometres" of the unit
    words, _ = _missing_words("Unused pens must never be frozen.", "Do not freeze the pens you are not using.")
    assert "frozen" in words  # different words, not one form of the other


def test_no_part_ends_on_a_preposition_the_parse_left_without_its_object():
    # The tagger reads "for" as a conjunct of "during", without an object: a part cut there
    # ("Avoid alcohol for.") would be judged as a fact of its own.
    parts = [p.text for p in atomic_parts("Avoid alcohol during the course and for at least 48 hours after the last dose.")]
    assert "Avoid alcohol during the course." in parts
    assert "Avoid alcohol for at least 48 hours after the last dose." in parts
    assert not any(p.rstrip(".").split()[-1] in ("for", "during") for p in parts)


def test_claims_and_their_pieces_parsed_in_batches_give_the_same_parts_and_the_parse_memo_stays_bounded(monkeypatch):
    from localeval.text import atoms
    from localeval.text.memo import TextMemo

    claims = ["The museum, which opened in 1889, holds paintings and sculptures from Spain.",
              "Switch the machine off, clean the filter and check the hose every week.",
              "Clara Voss wrote the novel when she lived in Lisbon."]
    monkeypatch.setattr(atoms, "_PARSES", TextMemo(maxsize=64))
    atoms._split_once.cache_clear()
    alone = [atoms._parts_of.__wrapped__(c) for c in claims]  # each text parsed by a call of its own
    assert any(len(p) >= 3 for p in alone)  # pieces split again: more than one level

    memo = TextMemo(maxsize=64)
    monkeypatch.setattr(atoms, "_PARSES", memo)
    atoms._split_once.cache_clear()
    batches: list[int] = []
    nlp = atoms._nlp()

    class Batching:  # spaCy, allowed to parse in batches only
        def pipe(self, texts, **kw):
            batches.append(len(texts))
            return nlp.pipe(texts, **kw)

        def __call__(self, text):
            raise AssertionError(f"parsed alone: {text!r}")

    monkeypatch.setattr(atoms, "_nlp", Batching)
    atoms.parse_claims(claims)
    assert batches[0] == 3 and len(batches) >= 2 and sum(batches) == len(memo)  # claims, then pieces by level
    atoms._split_once.cache_clear()
    batched = [atoms._parts_of.__wrapped__(c) for c in claims]  # every parse read from the memo
    assert batched == alone

    monkeypatch.setattr(atoms, "_nlp", lambda: nlp)  # a memo too small parses some texts again, alone
    small = TextMemo(maxsize=2)
    monkeypatch.setattr(atoms, "_PARSES", small)
    atoms._split_once.cache_clear()
    atoms.parse_claims(claims)
    assert len(small) == 2
