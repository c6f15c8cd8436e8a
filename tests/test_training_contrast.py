"""The contrast-pair generator: each kind of edit on hand-made sentences, determinism, and the
source as the trainer loads it (built only on request, with a held-out side)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from localeval.training import contrast_pairs as contrast, data as data_mod, sources
from localeval.training.examples import NLI2, NLI3

ENT, CON = 0, 2


@pytest.fixture(scope="module")
def nlp():
    parser = contrast.load_parser()
    assert parser is not None, "the spaCy English model is a dependency of the package"
    return parser


def _sent(nlp, text: str):
    return next(iter(nlp(text).sents))


def _by_label(edits: list[contrast.Edit]) -> dict[bool, list[str]]:
    out: dict[bool, list[str]] = {True: [], False: []}
    for e in edits:
        out[e.label == 0].append(e.text)
    return out


def test_voice_change_is_entailed_and_role_swap_is_not(nlp) -> None:
    for seed in range(4):  # the swap takes either voice; both must be labelled not entailed
        rng = random.Random(seed)
        edits = contrast.voice_edits(_sent(nlp, "The company acquired the small startup in 2010."), rng)
        got = _by_label(edits)
        assert got[True] == ["The small startup was acquired by the company in 2010."]
        assert got[False] and got[False][0] in (
            "The company was acquired by the small startup in 2010.",
            "The small startup acquired the company in 2010.",
        )
    edits = contrast.voice_edits(_sent(nlp, "The novel was written by Jane Austen in 1811."), random.Random(0))
    got = _by_label(edits)
    assert got[True] == ["Jane Austen wrote the novel in 1811."]
    assert len(got[False]) == 1 and "Jane Austen" in got[False][0]
    assert all(e.task == NLI2 for e in edits if e.label != 0)
    # Symmetric or non-passivising verbs are left alone.
    assert contrast.voice_edits(_sent(nlp, "France borders Spain."), random.Random(0)) == []


def test_list_member_kept_is_entailed_and_negated_is_contradiction(nlp) -> None:
    s = _sent(nlp, "The museum is open on Tuesdays, Wednesdays and Fridays.")
    edits = contrast.list_edits(s, random.Random(0))
    ent = [e for e in edits if e.label == ENT]
    con = [e for e in edits if e.label == CON]
    assert len(ent) == 1 and len(con) == 1 and con[0].task == NLI3
    member = ent[0].text.removeprefix("The museum is open on ").rstrip(".")
    assert member in ("Tuesdays", "Wednesdays", "Fridays")
    assert con[0].text == f"The museum is not open on {member}."
    lexical = contrast.list_edits(
        _sent(nlp, "The library lends books, magazines and films to residents."), random.Random(1)
    )
    assert any(e.label == CON and " does not lend " in e.text for e in lexical)
    # A negated "or" list: each member stays negated (entailed); affirmed, it contradicts.
    negated = contrast.list_edits(
        _sent(nlp, "The backup tool does not support FreeBSD or Solaris."), random.Random(0)
    )
    got = _by_label(negated)
    assert len(got[True]) == 1 and got[True][0].startswith("The backup tool does not support ")
    os_name = got[True][0].removeprefix("The backup tool does not support ").rstrip(".")
    assert [(e.text, e.label) for e in negated if e.label != ENT] == [
        (f"The backup tool supports {os_name}.", CON)
    ]
    # Collective predicates do not distribute over their members.
    assert contrast.list_edits(_sent(nlp, "The road runs between Leeds and York."), random.Random(0)) == []


def test_attribute_moves(nlp) -> None:
    rng = random.Random(0)
    edits = contrast.attribute_edits(_sent(nlp, "Smith was born in 1900 and Jones in 1910."), rng)
    assert [(e.text, e.label) for e in edits] == [("Smith was born in 1910 and Jones in 1900.", 1)]
    edits = contrast.attribute_edits(
        _sent(nlp, "The band released a red album and a blue single."), random.Random(0)
    )
    got = _by_label(edits)
    assert got[True] == ["The band released a blue single and a red album."]
    assert got[False] == ["The band released a blue album and a red single."]


def test_cross_sentence_merge(nlp) -> None:
    doc = nlp("Paris is the capital of France. Rome is a large city in Italy.")
    first, second = list(doc.sents)
    for seed in range(5):
        got = _by_label(contrast.merge_edits(first, second, random.Random(seed)))
        assert len(got[False]) == 1
        bad = got[False][0]
        assert bad not in (first.text, second.text)
        assert any(w in bad for w in ("Rome", "Italy")) and any(w in bad for w in ("Paris", "France"))
        assert got[True] == ["Paris is the capital of France, and Rome is a large city in Italy."]


def test_flips_and_meaning_keeping_rewrites() -> None:
    rng = random.Random(0)
    got = _by_label(contrast.flip_edits("The museum is closed on Mondays.", rng))
    assert got == {True: [], False: ["The museum is open on Mondays."]}
    got = _by_label(contrast.flip_edits("Sales rose by more than 40 percent.", random.Random(3)))
    assert "Sales rose by over 40 percent." in got[True]
    assert got[False] and got[False][0] in (
        "Sales fell by more than 40 percent.",
        "Sales rose by fewer than 40 percent.",
    )
    for text, flipped in [
        ("At least 12 people were hurt.", "At most 12 people were hurt."),
        ("Exports increased in 2019.", "Exports decreased in 2019."),
        ("The town lies north of the river.", "The town lies south of the river."),
    ]:
        assert _by_label(contrast.flip_edits(text, random.Random(0)))[False] == [flipped]
    # Proper names are not directions.
    assert contrast.flip_edits("He moved to North Carolina.", rng) == []


def test_number_words() -> None:
    got = _by_label(contrast.number_word_edits("The team signed eight new players.", random.Random(0)))
    assert got[True] == ["The team signed 8 new players."]
    assert got[False] and got[False][0] in (
        "The team signed eighteen new players.",
        "The team signed eighty new players.",
    )
    got = _by_label(contrast.number_word_edits("The club has 14 members.", random.Random(0)))
    assert got[True] == ["The club has fourteen members."]
    assert got[False][0] in ("The club has four members.", "The club has forty members.")
    # Dates and units are not counts.
    assert contrast.number_word_edits("It opened on May 5 with a 30 km track.", random.Random(0)) == []


@pytest.mark.parametrize(
    ("sentence", "faithful"),
    [
        ("The repair cost $3,000.", {"The repair cost 3,000 dollars.", "The repair cost 3000 dollars."}),
        ("The fund raised $5 million.", {"The fund raised 5 million dollars."}),
        ("Turnout was 25%.", {"Turnout was 25 percent.", "Turnout was 25 per cent."}),
        ("Turnout was 25 percent.", {"Turnout was 25%."}),
        ("Water boils at 100 C at sea level.", {"Water boils at 100 degrees Celsius at sea level."}),
        ("Water boils at 100 °C.", {"Water boils at 100 degrees Celsius."}),
        ("The trail is 12 km long.", {"The trail is 12 kilometres long."}),
        ("The city has 2,500,000 people.", {"The city has 2.5 million people."}),
        ("He was born on 5 March 1990.", {"He was born on March 5, 1990."}),
        ("He was born on March 5, 1990.", {"He was born on 5 March 1990."}),
    ],
)
def test_format_paraphrases_are_entailed(sentence: str, faithful: set[str]) -> None:
    for seed in range(3):
        edits = contrast.format_edits(sentence, random.Random(seed), broken_share=1.0)
        assert edits[0].label == ENT and edits[0].text in faithful, edits
        assert len(edits) == 2 and edits[1].label != ENT
        assert edits[1].text not in faithful and edits[1].text != sentence


def _items() -> list[sources.QAItem]:
    paragraphs = [
        (
            "The museum is open on Tuesdays, Wednesdays and Fridays. "
            "The company acquired the small startup in 2010. Admission costs $12 for adults."
        ),
        (
            "Paris is the capital of France. Rome is a large city in Italy. "
            "The river rose by more than 40 percent in eight days."
        ),
        (
            "The novel was written by Jane Austen in 1811. It sold 2,500,000 copies "
            "before 1900, and its price increased to £3."
        ),
        (
            "Smith was born in 1900 and Jones in 1910. The band released a red album and a "
            "blue single. The tour lasted fourteen weeks."
        ),
    ]
    out = []
    for k in range(12):
        for n, p in enumerate(paragraphs):
            sents = tuple(sources.split_sentences(p.replace("2010", str(1950 + k))))
            out.append(sources.QAItem(f"q{k}-{n}?", sents, 0, ["qed", "tydi", "mlqa"][k % 3]))
    return out


def test_generator_is_deterministic_and_covers_every_kind(nlp) -> None:
    items = _items()
    first = contrast.generate(items, seed=0, nlp=nlp)
    again = contrast.generate(list(reversed(items)), seed=0, nlp=nlp)
    assert [(e.key, e.label, k) for e, k in first] == [(e.key, e.label, k) for e, k in again]
    assert {k for _, k in first} == set(contrast.KINDS) - {"addition"}  # additions only on request
    assert {e.label == 0 for e, _ in first} == {True, False}
    for e, _ in first:
        assert e.source == "contrast" and e.task in (NLI2, NLI3) and e.text_b != e.text_a
        assert e.text_b[:1].isupper() and e.text_b.endswith((".", "!", "?"))
    other = contrast.generate(items, seed=1, nlp=nlp)
    assert [e.key for e, _ in other] != [e.key for e, _ in first]
    # Without spaCy, the regex kinds still work.
    regex_only = {k for _, k in contrast.generate(items, seed=0, nlp=None)}
    assert regex_only and regex_only <= {"flip", "number_words", "format"}


def test_reverse_puts_the_edit_in_the_premise(nlp) -> None:
    items = _items()
    forward = contrast.generate(items, seed=0, nlp=nlp)
    both = contrast.generate(items, seed=0, nlp=nlp, reverse=True)
    forward_keys = {e.key for e, _ in forward}
    assert forward_keys < {e.key for e, _ in both}
    backs = [(e, k) for e, k in both if e.key not in forward_keys]
    assert backs
    by_hyp = {(e.text_b, k): e for e, k in forward}
    for back, kind in backs:
        assert kind != "merge"
        # The hypothesis is an original sentence, found whole in some forward premise; the
        # reversed premise holds an edited sentence in its place.
        originals = [e for e, _ in forward if back.text_b.rstrip(".!?") in e.text_a]
        assert originals, back.text_b
        assert all(back.text_a != e.text_a for e in originals)
        if kind == "list_negation" and back.task == NLI3 and back.label == 1:
            continue  # one member kept alone does not entail the whole list
        # Otherwise the label is the forward edit's: find the edit now sitting in the premise.
        match = [e for (hyp, k), e in by_hyp.items() if k == kind and hyp in back.text_a]
        assert any(e.label == back.label and e.task == back.task for e in match), back
    assert {e.label for e, _ in backs} >= {0, 1}


def test_addition_adds_a_foreign_detail_and_drops_an_own_one() -> None:
    sentence = "The museum opened a new wing in 1998."
    paragraph = "The museum is old. " + sentence
    edits = contrast.addition_edits(sentence, paragraph, ["at the University of Vienna"], random.Random(0))
    by = _by_label(edits)
    assert by[False] == ["The museum opened a new wing in 1998 at the University of Vienna."]
    assert all(e.label == 1 and e.task == NLI3 for e in edits if e.label != 0)
    assert by[True] == ["The museum opened a new wing."]
    # A detail the paragraph already names is not "added"; a negated sentence drops nothing
    # ("did not open ... in 1998" does not entail "did not open ...").
    assert not contrast.addition_edits(sentence, paragraph + " Vienna.", ["in Vienna"], random.Random(0))[0].label
    negated = "The museum did not open a new wing in 1998."
    assert contrast.addition_edits(negated, negated, [], random.Random(0)) == []
    # A detail that runs on into a name is never cut in half.
    runs_on = "The annual festival will be held in Oklahoma City, Oklahoma."
    assert contrast.addition_edits(runs_on, runs_on, [], random.Random(0)) == []
    ends = "The annual festival will be held in Oklahoma City, as before."
    assert _by_label(contrast.addition_edits(ends, ends, [], random.Random(0)))[True] == [
        "The annual festival will be held, as before."]


def test_additions_leave_the_other_kinds_unchanged_and_reverse_swaps_their_labels(nlp) -> None:
    items = _items()
    plain = contrast.generate(items, seed=0, nlp=nlp, reverse=True)
    more = contrast.generate(items, seed=0, nlp=nlp, reverse=True, additions=True)
    assert [(e.key, e.label) for e, k in more if k != "addition"] == [(e.key, e.label) for e, _ in plain]
    forward = [e for e, k in contrast.generate(items, seed=0, nlp=nlp, additions=True) if k == "addition"]
    assert {e.label for e in forward} == {0, 1}
    keys = {e.key for e in forward}
    backs = [e for e, k in more if k == "addition" and e.key not in keys]
    assert backs
    for back in backs:
        # Read the other way round: the edited sentence sits in the premise, the original is
        # the hypothesis, and the label is the forward one swapped (added <-> dropped).
        match = [f for f in forward if f.group == back.group and f.text_b in back.text_a
                 and back.text_b.rstrip(".") in f.text_a]
        assert any(f.label == 1 - back.label for f in match), back


def test_premise_chars_cuts_long_paragraphs(nlp) -> None:
    items = _items()
    short = contrast.generate(items, seed=0, nlp=nlp, premise_chars=60)
    assert short
    assert max(len(e.text_a) for e, _ in short) < max(len(e.text_a) for e, _ in contrast.generate(items, seed=0, nlp=nlp))


def _qa_tree(root: Path, items: list[sources.QAItem]) -> Path:
    """A ``train/`` tree with one MLQA-format file (the other QA sources absent)."""
    base = root / "train/relevance/mlqa"
    base.mkdir(parents=True)
    paragraphs = []
    for it in items:
        ctx = it.paragraph
        paragraphs.append(
            {"context": ctx, "qas": [{"question": it.question, "answers": [{"answer_start": 0}]}]}
        )
    data = {"data": [{"title": "t", "paragraphs": paragraphs}]}
    (base / "dev-context-en-question-en.json").write_text(json.dumps(data))
    return root


def test_contrast_source_in_load_dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The real QA readers are used on a tree holding only MLQA; the other readers return none.
    monkeypatch.setitem(sources.QA_READERS, "qed", lambda d: [])
    monkeypatch.setitem(sources.QA_READERS, "tydi", lambda d: [])
    items = _items()
    # Make every paragraph distinct so the held-out side gets whole paragraphs of its own.
    items = [
        sources.QAItem(it.question, tuple(s.replace("Smith", f"Smith{i}") for s in it.sentences), 0, "mlqa")
        for i, it in enumerate(items)
    ]
    root = _qa_tree(tmp_path, items)
    plain = data_mod.load_dataset(root, seed=0, use_synthetic=False, only={"mlqa"})
    assert "contrast" not in {e.source for e in plain.train + plain.heldout}

    # --sources restricts: without "contrast" in it, a contrast weight builds nothing.
    restricted = data_mod.load_dataset(
        root, seed=0, use_synthetic=False, only={"mlqa"}, use_contrast=True
    )
    assert [e.key for e in restricted.train] == [e.key for e in plain.train]
    ds = data_mod.load_dataset(
        root, seed=0, use_synthetic=False, only={"mlqa", "contrast"}, use_contrast=True
    )
    train = [e for e in ds.train if e.source == "contrast"]
    held = [e for e in ds.heldout if e.source == "contrast"]
    assert train and held and ds.pool_sizes["contrast"] == len(train)
    # The contrast split follows the QA paragraph split: no premise paragraph on both sides.
    held_paragraphs = {e.text_a for e in ds.heldout if e.source == "mlqa" and e.label == 0}
    assert not {e.group for e in train} & {e.group for e in held}
    assert all(e.text_a not in held_paragraphs for e in train)
    # Relevance pairs and the old sources are unchanged by asking for contrast.
    assert [e.key for e in ds.train if e.source != "contrast"] == [e.key for e in plain.train]
    assert [e.key for e in ds.heldout if e.source != "contrast"] == [e.key for e in plain.heldout]
    # Asked for by name alone, contrast needs no QA relevance source.
    only = data_mod.load_dataset(root, seed=0, use_synthetic=False, only={"contrast"})
    assert {e.source for e in only.train} == {"contrast"}
    # The default mix ignores it; a weight brings it in.
    mix = data_mod.sample_mix(ds.train, 40, {**data_mod.DEFAULT_WEIGHTS, "contrast": 0.0}, 0)
    assert "contrast" not in {e.source for e in mix}
    mix = data_mod.sample_mix(ds.train, 40, {**data_mod.DEFAULT_WEIGHTS, "contrast": 5.0}, 0)
    assert "contrast" in {e.source for e in mix}


def test_cli_trains_with_the_contrast_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from localeval.training.cli import main
    from tests.test_training import _tiny_encoder

    monkeypatch.setitem(sources.QA_READERS, "qed", lambda d: [])
    monkeypatch.setitem(sources.QA_READERS, "tydi", lambda d: [])
    items = [
        sources.QAItem(it.question, tuple(s.replace("Smith", f"Smith{i}") for s in it.sentences), 0, "mlqa")
        for i, it in enumerate(_items())
    ]
    root = _qa_tree(tmp_path / "data", items)
    out = tmp_path / "judge"
    argv = ["--data-dir", str(root), "--output", str(out), "--encoder", str(_tiny_encoder(tmp_path / "enc")),
            "--sources", "mlqa,contrast", "--no-synthetic", "--weights", "contrast=3", "--max-train-pairs", "40",
            "--batch-size", "8", "--max-length", "64", "--device", "cpu", "--seed", "1"]
    assert main(argv) == 0
    training = json.loads((out / "config.json").read_text())["localeval"]["training"]
    assert training["mix"]["contrast"] > training["mix"]["mlqa"] > 0  # weight 3 vs the default 1.5
    report = json.loads((out / "heldout_eval.json").read_text())
    assert report["per_source"]["contrast"]["n"] > 0
    manifest = json.loads((out / "heldout_manifest.json").read_text())
    assert manifest["heldout"]["contrast"]
    card = (out / "README.md").read_text()
    assert "contrast pairs generated by localeval" in card and "Contrast pairs (`localeval/training/contrast_pairs.py`)" in card
