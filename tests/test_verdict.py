"""Verdict signals, number normalisation and the learned verdict's model and study code."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError

from localeval.evidence.attribution import attribute
from localeval.judge.session import JudgeSession
from localeval.evidence.verdict import (
    SIGNALS,
    CoverageVerdict,
    JudgedUnit,
    VerdictModel,
    claim_signals,
    lexical_words,
    verdict_from_config,
)
from localeval.text.numbers import numbers_in


@pytest.mark.parametrize("a, b", [
    ("$3,000", "3000 dollars"), ("three thousand dollars", "3,000 USD"), ("25%", "25 percent"),
    ("twenty-five people", "25 people"), ("2.5 million", "2,500,000"), ("$3k", "3000"),
    ("the forty-fifth president", "the 45th president"), ("the Twenty-first Amendment", "the 21st Amendment"),
    ("its thirty third season", "its 33rd season"),
])
def test_formats_of_one_number_normalise_alike(a, b):
    assert numbers_in(a) == numbers_in(b) != frozenset()


@pytest.mark.parametrize("a, b", [("eight", "eighteen"), ("1,200 m", "12 m"), ("2.5 million", "25 million")])
def test_different_numbers_stay_different(a, b):
    assert numbers_in(a) != numbers_in(b)


def test_a_compound_ordinal_is_its_own_number_and_digits_take_no_tens_word_reading():
    assert numbers_in("the forty-fifth and forty-sixth presidents") == {"45", "46"}
    assert numbers_in("the nineteenth century") == frozenset()  # an ordinal alone states none
    # "-second" is an ordinal after a word that takes one; else a count of seconds
    assert numbers_in("the thirty-second president") == numbers_in("Ohio's thirty-second district") == {"32"}
    assert numbers_in("a twenty-second delay") == numbers_in("twenty-second clips") == {"20"}
    assert numbers_in("40 first-time buyers") == {"40"}
    assert numbers_in("40 five-star hotels") == {"40", "5"}


@pytest.mark.parametrize("words, number", [
    ("three hundred and sixty-five days", "365"), ("a hundred and twenty volunteers", "120"),
    ("one hundred twenty", "120"), ("two thousand and fifty people", "2050"), ("a hundred thousand", "100000"),
    ("one thousand two hundred seats", "1200"), ("twelve thousand five hundred", "12500"),
    ("two thousand two hundred and twenty-four", "2224"), ("nineteen hundred and ninety-nine", "1999"),
    ("the one hundred and first day", "101"), ("one million two hundred thousand", "1200000"),
    ("about half a million visitors", "500000"), ("two and a half years", "2.5"), ("six and a half hours", "6.5"),
    ("one and a half million visitors", "1500000"), ("a million and a half", "1500000"),
    ("two and a half thousand people", "2500"),
])
def test_a_number_spelled_in_several_words_is_one_number(words, number):
    # Read word by word, "three hundred and sixty-five" was 300 and 65, and "365 days" was
    # called missing beside it.
    assert numbers_in(words) == {number}


def test_words_of_two_numbers_stay_two():
    assert numbers_in("between one hundred and two hundred") == {"100", "200"}
    assert numbers_in("five hundred, twenty of them") == {"500", "20"}  # a comma ends a number
    assert numbers_in("ten and eleven") == {"10", "11"}
    assert numbers_in("a hundred and second") == {"100"}  # "second" after no ordinal's lead: a unit
    assert numbers_in("an hour") == numbers_in("a k") == frozenset()
    assert numbers_in("he and a half-brother") == frozenset()  # "and a half" adds to a number only


def test_ordinals_are_read_in_digits_and_words_with_their_numbers():
    from localeval.text.numbers import ordinals

    text = "the 44th and forty-fifth, the third-largest, its thirty-second year, a thirty-second spot, one second"
    assert [(text[o.start:o.end], o.value) for o in ordinals(text)] == [
        ("44th", 44), ("forty-fifth", 45), ("third", 3), ("thirty-second", 32)]


def test_one_as_a_pronoun_and_ungrouped_commas_are_not_numbers():
    assert numbers_in("the one that works") == frozenset()
    assert numbers_in("versions 1,2,3") == frozenset()
    assert lexical_words("It cost $3,000.") >= {"3000"}


@pytest.mark.parametrize("number, stated, below, span, near", [
    ("5000", {"4870"}, False, False, True),       # "about 5,000": rounds to thousands
    ("198", {"197.9"}, False, False, True),       # "around 198": to units
    ("198", {"199.8", "195.7"}, False, False, False),
    ("4900", {"4870"}, True, False, True),        # "nearly 4,900", from below
    ("4800", {"4870"}, True, False, False),       # "nearly 4,800" is below 4,800
    ("2000000", {"1900000"}, False, False, False),  # "about two million": more than 5 % off
    ("1000", {"476", "1453"}, True, True, True),  # "almost a thousand years": the gap, 977
    ("1500", {"476", "1453"}, False, True, False),  # "about 1,500 years": not the year 1453
])
def test_a_hedged_number_approximates_within_its_rounding(number, stated, below, span, near):
    from localeval.text.numbers import approximates

    assert approximates(number, stated, below, span) == near


def test_a_hedged_number_the_contexts_approximate_is_not_missing():
    # Coverage reads a hedged number as the number rule does (`numbers.approximated`): "almost
    # a thousand years" is the 977 between the two dates, "about 6,000" is not 4,870.
    from localeval.evidence.verdict import lexical_signals

    dates = ["The Western Roman Empire came to an end in 476. The Eastern Roman Empire lasted until 1453."]
    held = lexical_signals("The Western Roman Empire ended almost a thousand years before the Eastern one.", dates)
    bare = lexical_signals("The Western Roman Empire ended a thousand years before the Eastern one.", dates)
    assert held["missing_numbers"] == 0.0 and bare["missing_numbers"] == 1.0
    assert held["coverage_all"] > bare["coverage_all"]  # ("years" is missing from both)
    survey = ["The survey reached 4,870 households."]
    assert lexical_signals("The survey reached about 5,000 households.", survey)["missing_numbers"] == 0.0
    assert lexical_signals("The survey reached about 6,000 households.", survey)["missing_numbers"] == 1.0
    assert lexical_signals("The survey reached 5,000 households.", survey)["missing_numbers"] == 1.0


def _units(*specs):
    return [JudgedUnit(text, sentence, e, c) for text, sentence, e, c in specs]


def test_signals_name_what_the_evidence_lacks():
    contexts = ["The museum is closed on Mondays. It was founded by Marie Curie in 1889."]
    units = _units(("The museum is closed on Mondays.", True, 0.8, 0.15),
                   ("It was founded by Marie Curie in 1889.", True, 0.1, 0.05),
                   (contexts[0], False, 0.6, 0.3))
    s = claim_signals("The museum is not open on Mondays, said Pierre Curie in 1890.", units, contexts)
    assert set(s) == set(SIGNALS)
    assert s["p_best"] == 0.8 and s["p_sentence"] == 0.8 and s["p_window"] == 0.6 and s["p_second"] == 0.6
    assert s["contradiction"] == 0.15 and s["contradiction_max"] == 0.3
    assert s["missing_numbers"] == 1.0                    # 1890 is nowhere
    assert s["missing_names"] == pytest.approx(1 / 3)     # Pierre (Mondays and Curie are there)
    assert s["negation_mismatch"] == 1.0                  # "not" in the claim only
    same = claim_signals("The museum is closed on Mondays.", units, contexts)
    assert same["coverage"] == same["coverage_all"] == 1.0
    assert same["missing_numbers"] == same["missing_names"] == same["negation_mismatch"] == 0.0


def test_a_claim_without_units_has_every_number_and_name_missing():
    s = claim_signals("Pierre Curie won in 1903.", [], [])
    assert s["p_best"] == 0.0 and s["missing_numbers"] == 1.0 and s["missing_names"] == 1.0


def test_attribute_returns_signals_for_every_claim_at_no_extra_call(tiny_judge):
    groups = [(["alpha beta", "gamma"], ["alpha beta. delta gamma.", ""]), (["beta"], [])]
    with JudgeSession() as first:
        plain = attribute(tiny_judge, groups, session=first, locate_sentence=False)
    with JudgeSession() as second:
        with_signals = attribute(tiny_judge, groups, session=second, locate_sentence=False, signals=True)
    assert second.counters.snapshot() == first.counters.snapshot()
    for row_a, row_b in zip(plain, with_signals):
        for a, b in zip(row_a, row_b):
            assert a.probability == b.probability and a.signals is None
            assert set(b.signals) == set(SIGNALS) and all(np.isfinite(v) for v in b.signals.values())
            assert b.signals["p_best"] == pytest.approx(b.probability)
    assert with_signals[1][0].signals["p_best"] == 0.0


def _model(**overrides):
    base = {"signals": ["p_best", "coverage"], "mean": [0.5, 0.5], "scale": [0.25, 0.5], "coef": [2.0, 1.0],
            "intercept": 0.0, "threshold": 0.5}
    return VerdictModel(**(base | overrides))


def test_verdict_model_probability_and_what_decided():
    model = _model()
    high = {"p_best": 0.9, "coverage": 1.0}
    low = {"p_best": 0.9, "coverage": 0.0}
    assert model.probability(high) > model.probability(low) > 0.5
    assert np.allclose(model.probabilities([high, low]), [model.probability(high), model.probability(low)])
    assert model.deciding(high)[0].startswith("p_best +3.20")
    config = {"localeval": {"verdict": model.model_dump()}}
    assert verdict_from_config(config) == model
    assert verdict_from_config({"localeval": {}}) is None
    # a verdict stored before there were kinds is the logistic one
    assert verdict_from_config({"localeval": {"verdict": model.model_dump(exclude={"kind"})}}) == model


def test_coverage_verdict_only_lowers_the_judge_by_the_words_the_contexts_lack():
    verdict = CoverageVerdict(power=2.0, threshold=0.5)
    signals = {s: 0.0 for s in SIGNALS} | {"p_best": 0.9, "coverage_all": 1.0}
    assert verdict.supported(signals) == pytest.approx(0.9)  # every word found: the judge's own
    assert verdict.supported(signals | {"coverage_all": 0.5}) == pytest.approx(0.9 * 0.25)
    assert verdict.supported(signals | {"coverage_all": 0.0}) == 0.0
    assert verdict.deciding(signals | {"coverage_all": 0.5})[0] == "coverage_all 0.50"
    # the bar on p_best that accepts a claim on its first unit: exactly where supported() crosses
    needed = verdict.entailment_needed({"coverage_all": 0.8}, 0.5)
    assert verdict.supported(signals | {"coverage_all": 0.8, "p_best": needed}) >= 0.5
    assert verdict.supported(signals | {"coverage_all": 0.8, "p_best": needed - 1e-4}) < 0.5
    assert verdict.entailment_needed({"coverage_all": 0.5}, 0.5) > 1.0  # no unit can lift it: judge them all
    assert verdict.entailment_needed({"coverage_all": 0.0}, 0.5) == float("inf")
    stored = {"localeval": {"verdict": verdict.model_dump()}}
    assert verdict_from_config(stored) == verdict
    for bad in ({"power": -1.0}, {"threshold": 0.0}, {"threshold": 1.0}):
        with pytest.raises(ValidationError):
            verdict_from_config({"localeval": {"verdict": verdict.model_dump() | bad}})


@pytest.mark.parametrize("bad", [{"signals": ["p_best", "nonsense"]}, {"coef": [1.0]}, {"scale": [0.0, 1.0]}])
def test_verdict_model_refuses_a_malformed_config(bad):
    with pytest.raises(ValidationError):
        _model(**bad)


def test_verdict_study_adopts_only_what_wins_on_every_family():
    from benchmarks import verdict

    rng = np.random.default_rng(0)

    def item(label):
        # coverage separates the classes; p_best does not
        signals = {s: 0.5 for s in SIGNALS} | {"p_best": float(rng.uniform()),
                                                "coverage": float(label * 0.6 + rng.uniform() * 0.4)}
        return {"label": label, "claims": [{"signals": signals, "overlap": float(rng.uniform())}]}

    items = {f: [item(i % 2) for i in range(40)] for f in verdict.FAMILIES}
    lofo = verdict.leave_one_family_out(items, ["p_best", "coverage"])
    assert all(f["verdict"]["ba"] > 0.9 and f["judge"]["ba"] < 0.75 for f in lofo.values())
    assert verdict.adopt(lofo) == (True, [])
    # the rule reads AUROC: a verdict ranking frank's items a hair worse than the judge alone fails
    lofo["frank"]["verdict"]["auroc"] = lofo["frank"]["judge"]["auroc"] - 1e-3
    assert verdict.adopt(lofo) == (False, ["frank"])
    model, ba = verdict.final_model(items, ["p_best", "coverage"])
    assert ba > 0.9 and model.fitted_on == list(verdict.FAMILIES)


def test_coverage_study_chooses_the_power_on_the_training_families_only():
    from benchmarks import verdict

    rng = np.random.default_rng(2)

    def item(label, family):
        # the judge ranks well; unsupported claims of every family but frank also lack words,
        # so a strong power wins there, and frank alone would want none
        p = float(np.clip(label * 0.3 + rng.uniform() * 0.7, 0, 1))
        missing = 0.0 if label or family == "frank" else float(rng.uniform(0.3, 0.6))
        signals = {s: 0.5 for s in SIGNALS} | {"p_best": p, "coverage_all": 1.0 - missing}
        return {"label": label, "claims": [{"signals": signals, "overlap": float(rng.uniform())}]}

    items = {f: [item(i % 2, f) for i in range(60)] for f in verdict.FAMILIES}
    fitter = verdict.coverage_fitter([0.0, 4.0])
    lofo = verdict.leave_one_family_out(items, fitter=fitter)
    assert {f: fig["coef"]["power"] for f, fig in lofo.items()} == {f: 4.0 for f in verdict.FAMILIES}
    assert lofo["wice"]["verdict"]["ba"] > lofo["wice"]["judge"]["ba"]
    assert lofo["wice"]["verdict"]["auroc_minus_judge"] > 0 and lofo["wice"]["verdict"]["auroc_minus_judge_se"] > 0
    # the fit sees only what it is given: on frank alone the power does nothing, so the first is kept
    assert fitter({"frank": items["frank"]}).power == 0.0
    model, _ = verdict.final_model(items, fitter=fitter)
    assert model.kind == "coverage" and model.power == 4.0 and 0.0 < model.threshold < 1.0
    pooled = verdict.pooled_cv(items, fitter=fitter)
    assert set(pooled) == set(verdict.FAMILIES) and pooled["wice"]["verdict"] > pooled["wice"]["judge"]


def test_nested_study_chooses_the_subset_without_the_held_out_family():
    from benchmarks import verdict

    rng = np.random.default_rng(1)

    def item(label):
        # coverage_all separates the classes; contradiction is noise
        signals = {s: 0.5 for s in SIGNALS} | {"p_best": float(rng.uniform()), "contradiction": float(rng.uniform()),
                                                "coverage_all": float(label * 0.6 + rng.uniform() * 0.4)}
        return {"label": label, "claims": [{"signals": signals, "overlap": float(rng.uniform())}]}

    items = {f: [item(i % 2) for i in range(40)] for f in verdict.FAMILIES}
    candidates = [["p_best", "contradiction"], ["p_best", "coverage_all"]]
    chosen, losses = verdict.choose_signals(items, candidates)
    assert chosen == ["p_best", "coverage_all"] and losses[1] < losses[0]
    lofo = verdict.nested_leave_one_family_out(items, candidates)
    assert set(lofo) == set(verdict.FAMILIES)
    for held, figures in lofo.items():
        assert figures["signals"] == ["p_best", "coverage_all"] and len(figures["selection_losses"]) == 2
        assert figures["verdict"]["ba"] > 0.9
    # the held-out family takes no part in its choice: spoiling it changes nothing it was chosen by
    spoiled = items | {"frank": [item(1 - r["label"]) | {"label": r["label"]} for r in items["frank"]]}
    assert verdict.choose_signals({f: r for f, r in spoiled.items() if f != "frank"}, candidates)[1] == \
        lofo["frank"]["selection_losses"]


def test_signals_see_what_the_metric_sees_after_the_contrast_rules(default_judge):
    premise = ("The Harbour Museum is open from Tuesday to Sunday, 10:00 to 17:00. It is closed on Mondays "
               "and on public holidays. Guided tours start at 11:00.")
    claims = ["The Harbour Museum is open on Mondays.", "The Harbour Museum is closed on public holidays."]
    on = attribute(default_judge, [(claims, [premise])], max_units=None, signals=True)[0]
    off = attribute(default_judge, [(claims, [premise])], max_units=None, signals=True, contrasts=False)[0]
    # the overruled claim: p_best is the probability the metric decides on, and says it was overruled
    assert on[0].contrast is not None and on[0].signals["contrast"] == 1.0
    assert on[0].signals["p_best"] == pytest.approx(on[0].probability)
    assert on[0].signals["p_best"] < off[0].signals["p_best"]
    assert off[0].signals["contrast"] == 0.0
    # the paraphrase: no rule, the same signals either way
    assert on[1].contrast is None and on[1].signals == pytest.approx(off[1].signals)


def _lexical_model(**overrides):
    base = {"signals": ["p_best", "coverage_all", "missing_numbers"], "mean": [0.5, 0.75, 0.05],
            "scale": [0.4, 0.3, 0.2], "coef": [0.5, 0.8, -0.35], "intercept": 0.0, "threshold": 0.5,
            "vetoes": ["contrast"]}
    return VerdictModel(**(base | overrides))


def test_entailment_needed_is_where_the_verdict_crosses_its_threshold():
    model = _lexical_model()
    lexical = {"coverage_all": 0.8, "missing_numbers": 0.0}
    needed = model.entailment_needed(lexical, 0.5)
    signals = {s: 0.0 for s in SIGNALS} | lexical
    assert 0.0 < needed < 1.0
    assert model.supported(signals | {"p_best": needed}) >= 0.5
    assert model.supported(signals | {"p_best": needed - 1e-4}) < 0.5
    # words that are all there need less of the judge; a missing number needs more
    assert model.entailment_needed({"coverage_all": 1.0, "missing_numbers": 0.0}, 0.5) < needed
    assert model.entailment_needed({"coverage_all": 0.8, "missing_numbers": 1.0}, 0.5) > needed
    # a model that reads another judged signal cannot accept a claim on one unit
    reads_more = _lexical_model(signals=["p_best", "contradiction", "coverage_all"])
    assert reads_more.entailment_needed(lexical | {"contradiction": 0.0}, 0.5) is None
    assert _lexical_model(coef=[-0.5, 0.8, -0.35]).entailment_needed(lexical, 0.5) is None


def test_a_veto_caps_the_verdict_at_the_judge():
    model = _lexical_model()
    signals = {s: 0.0 for s in SIGNALS} | {"p_best": 0.05, "coverage_all": 1.0}
    assert model.supported(signals) == model.probability(signals) > 0.05
    assert model.supported(signals | {"contrast": 1.0}) == 0.05


@pytest.mark.parametrize("verdict_kind", [_lexical_model, lambda: CoverageVerdict(power=2.0, threshold=0.5)],
                         ids=["logistic", "coverage"])
def test_attribute_with_a_verdict_accepts_early_with_the_verdicts_of_judging_every_unit(default_judge, verdict_kind):
    premise = ("The Harbour Museum is open from Tuesday to Sunday, 10:00 to 17:00. It is closed on Mondays "
               "and on public holidays. Guided tours start at 11:00. The museum was founded in 1921 by a "
               "group of retired sailors, and its collection holds 3,000 ship models.")
    claims = ["The Harbour Museum is open on Mondays.", "The Harbour Museum is closed on public holidays.",
              "Retired sailors founded the museum in 1921.", "The collection holds 300 ship models.",
              "Guided tours begin at eleven in the morning."]
    model = verdict_kind()
    with JudgeSession() as every:
        full = attribute(default_judge, [(claims, [premise])], session=every, verdict=model)[0]
    with JudgeSession() as early:
        fast = attribute(default_judge, [(claims, [premise])], session=early, verdict=model, accept_at=model.threshold)[0]
    assert early.counters.pairs_requested < every.counters.pairs_requested
    assert [s.probability >= model.threshold for s in fast] == [s.probability >= model.threshold for s in full]
    for s in full:
        assert s.probability == pytest.approx(model.supported(s.signals))
        assert s.judge_probability == pytest.approx(s.signals["p_best"])
        assert s.deciding and s.deciding[0].split()[0] in model.signals
    # the rules' finding stands: the open-on-Mondays claim is vetoed, the wrong number is not supported
    assert full[0].contrast is not None and full[0].probability < model.threshold
    assert full[3].probability < model.threshold
    assert full[1].probability >= model.threshold and full[2].probability >= model.threshold


def test_contrast_set_check_scores_a_verdict_as_a_metric_runs_it(default_judge):
    from benchmarks import verdict
    from localeval.metrics import ContextRecall

    # A verdict that reads p_best alone, crossing 0.5 at context recall's threshold, is the judge.
    t = ContextRecall(default_judge).resolved_threshold()
    same = VerdictModel(signals=["p_best"], mean=[t], scale=[1.0], coef=[50.0], intercept=0.0, threshold=0.5)
    check = verdict.contrast_set_check(default_judge, same)
    assert check["n"] == sum(row["n"] for row in check["categories"].values()) >= 100
    assert check["verdict"]["correct"] == check["judge"]["correct"] > check["n"] // 2
    assert all(row["verdict"] == row["judge"] for row in check["categories"].values())


@pytest.fixture(scope="module")
def judge_with_verdict(tmp_path_factory, default_judge):
    """The shipped judge's files with a learned verdict stored in its config.json, as
    ``benchmarks/verdict.py --write`` stores an adopted one (faithfulness' key given way)."""
    import json

    from localeval.judge import NLIJudge

    folder = tmp_path_factory.mktemp("judge-with-verdict")
    for f in default_judge.path.iterdir():
        if f.name != "config.json":
            (folder / f.name).symlink_to(f.resolve())
    config = json.loads((default_judge.path / "config.json").read_text())
    model = _lexical_model(threshold=0.45)
    config["localeval"]["verdict"] = model.model_dump()
    config["localeval"]["thresholds"]["faithfulness"] = model.threshold
    (folder / "config.json").write_text(json.dumps(config))
    return NLIJudge(folder, device="cpu")


def test_claim_metrics_decide_by_a_verdict_stored_with_the_judge(judge_with_verdict, default_judge):
    from localeval.metrics import ContextPrecision, FactualCorrectness, Faithfulness

    verdict = judge_with_verdict.verdict
    assert verdict is not None and default_judge.verdict is None
    premise = ("The Harbour Museum is open from Tuesday to Sunday, 10:00 to 17:00. It is closed on Mondays "
               "and on public holidays. Its collection holds 3,000 ship models.")
    row = {"response": "The Harbour Museum is open on Mondays. The museum is closed on public holidays. "
                       "Its collection holds 300 ship models.", "retrieved_contexts": [premise],
           "reference": "The museum is closed on Mondays and public holidays."}
    learned = Faithfulness(judge_with_verdict).score(row)
    plain = Faithfulness(default_judge).score(row)
    assert learned.threshold == verdict.threshold and plain.threshold == default_judge.thresholds["faithfulness"]
    for claim in learned.claims:
        assert claim.attributed == (claim.probability >= verdict.threshold)
        assert claim.judge_probability is not None and claim.deciding
    assert all(c.judge_probability is None and c.deciding is None for c in plain.claims)
    # the same judge calls decide: what the rules or a missing number rule out stays out
    assert [c.attributed for c in learned.claims] == [False, True, False]
    # a claim metric without a stored key of its own falls back to the verdict's threshold,
    # a metric that decides on raw P(entailment) keeps the judge's
    assert FactualCorrectness(judge_with_verdict).resolved_threshold() == verdict.threshold
    assert ContextPrecision(judge_with_verdict).resolved_threshold() == judge_with_verdict.thresholds["entailment"]
    checked = FactualCorrectness(judge_with_verdict, mode="precision").score(row)
    assert all(c.deciding for c in checked.response_claims)


def test_the_thresholds_listing_shows_a_stored_verdicts_threshold_for_claim_metrics():
    from localeval.metrics.thresholds import thresholds_in_force

    stored = {"entailment": 0.6, "relevance": 0.5, "faithfulness": 0.55}
    uses = {(u.metric, u.kind): u.choice for u in
            thresholds_in_force(["faithfulness", "factual_correctness", "context_precision", "chunk_recall"], stored, {},
                                verdict_threshold=0.45)}
    assert uses[("faithfulness", "entailment")].value == 0.55  # its own stored key still wins
    assert uses[("factual_correctness", "entailment")].value == 0.45
    assert uses[("context_precision", "entailment")].value == 0.6
    assert uses[("chunk_recall", "relevance")].value == 0.5
    plain = {(u.metric, u.kind): u.choice for u in thresholds_in_force(["factual_correctness"], stored, {})}
    assert plain[("factual_correctness", "entailment")].value == 0.6
