"""Plumbing of the NLI backend with a tiny model built here: labels, batching, dedup, errors."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from localeval.judge import JudgeNotFoundError, NLIJudge, resolve_model
from localeval.judge.labels import read_label_layout
from localeval.judge.session import JudgeSession

from conftest import build_tiny_model


def test_label_layout_follows_config_order():
    layout = read_label_layout({"id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}})
    assert layout.nli == [0, 1, 2] and layout.entailment == 2 and layout.contradiction == 0
    two_way = read_label_layout({"id2label": {"0": "entailment", "1": "not_entailment"}})
    assert two_way.entailment == 0 and two_way.contradiction is None


def test_label_layout_with_relevance_head():
    config = {
        "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction", "3": "relevant", "4": "not_relevant"},
        "localeval": {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}},
    }
    layout = read_label_layout(config)
    assert layout.nli == [0, 1, 2] and layout.relevance == [3, 4] and layout.relevant == 0


@pytest.mark.parametrize("labels", [{"0": "LABEL_0", "1": "LABEL_1"}, {}, {"0": "a", "1": "b", "2": "c", "3": "entailment"}])
def test_unreadable_labels_raise(labels):
    with pytest.raises(ValueError):
        read_label_layout({"id2label": labels})


def test_predict_shapes_and_probabilities(tiny_judge):
    pairs = [("the cat sat on the mat", "a cat sat"), ("paris is in france", "berlin is big")]
    probs = tiny_judge.predict(pairs)
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    assert tiny_judge.predict([]).shape == (0, 3)


def test_entailment_column_is_read_from_config(tiny_judge):
    pairs = [("the cat sat on the mat", "a cat sat")]
    # The tiny model's config puts entailment last (index 2).
    np.testing.assert_allclose(
        tiny_judge.entailment_probability(pairs), tiny_judge.predict(pairs)[:, 2], rtol=1e-6
    )


def test_batching_and_order_do_not_change_scores(tiny_judge):
    words = "the cat sat on the mat and the dog was in paris with the red sun".split()
    pairs = [(" ".join(words[: 3 + i]), " ".join(words[i : i + 3])) for i in range(12)]
    one_batch = tiny_judge.predict(pairs, batch_size=64)
    small_batches = tiny_judge.predict(pairs, batch_size=3)
    reversed_order = tiny_judge.predict(pairs[::-1], batch_size=5)[::-1]
    np.testing.assert_allclose(one_batch, small_batches, atol=1e-5)
    np.testing.assert_allclose(one_batch, reversed_order, atol=1e-5)


def test_pairs_are_encoded_in_bounded_slices(tiny_judge, monkeypatch):
    """A call with many pairs (a long context) is tokenized a slice at a time, so memory does
    not grow with the call, and the verdicts are those of one slice."""
    import localeval.judge.nli as nli

    words = "the cat sat on the mat and the dog was in paris with the red sun".split()
    pairs = [(" ".join(words[: 3 + i]), " ".join(words[i : i + 3])) for i in range(12)]
    whole = tiny_judge.predict(pairs, batch_size=4)
    sizes = []
    original = tiny_judge._score_slice

    def spy(piece, *args, **kwargs):
        sizes.append(len(piece))
        return original(piece, *args, **kwargs)

    monkeypatch.setattr(nli, "ENCODE_SLICE", 5)
    monkeypatch.setattr(tiny_judge, "_score_slice", spy)
    np.testing.assert_allclose(tiny_judge.predict(pairs, batch_size=4), whole, atol=1e-5)
    assert sizes == [5, 5, 2]


def test_identical_pairs_are_scored_once(tiny_judge):
    pair = ("the cat sat", "a cat")
    with JudgeSession() as session:
        probs = session.predict(tiny_judge, [pair, pair, ("the dog", "a dog"), pair])
        again = session.predict(tiny_judge, [pair])
    c = session.counters
    assert (c.pairs_requested, c.pairs_unique, c.pairs_judged, c.cache_hits) == (5, 3, 2, 1)
    np.testing.assert_allclose(probs[0], probs[3])
    np.testing.assert_allclose(again[0], probs[0])
    np.testing.assert_allclose(probs, tiny_judge.predict([pair, pair, ("the dog", "a dog"), pair]), atol=1e-6)


def test_long_pair_truncation_warns(tiny_judge):
    long_premise = " ".join(["the cat sat on the mat"] * 40)
    with pytest.warns(UserWarning, match="truncated"):
        tiny_judge.predict([(long_premise, "a cat")])  # a direct call: its own state, so it warns


def test_token_counts_match_the_tokenizer_even_after_truncated_scoring(default_judge):
    # Counting goes through a private copy of the fast tokenizer: it must count what the
    # tokenizer would, and never inherit the truncation a scoring call leaves on the wrapper.
    texts = ["Marie Curie won.", "word " * 400, "Naïve café’s “quotes”: 1,200 km.", "", "  a   b ", "[SEP] x"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the truncation warning, expected here
        default_judge.entailment_probability([("premise " * 300, "claim")])  # truncates to max_length
    expected = [len(default_judge.tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"]) for t in texts]
    assert expected[1] > default_judge.max_length
    assert [default_judge.count_tokens(t) for t in texts] == expected
    assert default_judge.count_tokens_batch(texts) == expected


def test_non_string_pair_is_a_clear_error(tiny_judge):
    with pytest.raises(TypeError, match="pair 0"):
        tiny_judge.predict([("the cat", 3)])


def test_relevance_needs_a_relevance_head(tiny_judge):
    with pytest.raises(ValueError, match="relevance head"):
        tiny_judge.relevance_probability([("paris is in france", "where is paris")])


def test_two_way_model_and_relevance_head(tmp_path):
    two_way = NLIJudge(build_tiny_model(tmp_path / "two", {0: "entailment", 1: "not_entailment"}), device="cpu")
    assert two_way.entailment_probability([("a", "b")]).shape == (1,)
    five = build_tiny_model(
        tmp_path / "five",
        {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"},
        {"tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}, "thresholds": {"entailment": 0.7}},
    )
    judge = NLIJudge(five, device="cpu")
    assert judge.thresholds["entailment"] == 0.7
    rel = judge.predict([("paris is in france", "where is paris")], task="relevance")
    assert rel.shape == (1, 2) and abs(rel.sum() - 1) < 1e-5


def test_safetensors_only(tmp_path):
    directory = build_tiny_model(tmp_path / "m", {0: "entailment", 1: "not_entailment"})
    (directory / "model.safetensors").rename(directory / "weights.bin")
    with pytest.raises(FileNotFoundError, match="safetensors"):
        NLIJudge(directory, device="cpu")


@pytest.fixture()
def no_unpickling(monkeypatch):
    """Fail on any torch.load (pickle) call; returns the calls seen."""
    import torch

    calls: list = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise AssertionError("torch.load (pickle) was called")

    monkeypatch.setattr(torch, "load", refuse)
    return calls


def _pickle_checkpoint(directory):
    """Write the model's weights as pytorch_model.bin, a pickle (what safetensors replaces)."""
    import torch
    from safetensors.torch import load_file

    torch.save(load_file(directory / "model.safetensors"), directory / "pytorch_model.bin")


def test_pickle_checkpoint_is_refused_with_a_clear_error(tmp_path, no_unpickling):
    directory = build_tiny_model(tmp_path / "m", {0: "entailment", 1: "not_entailment"})
    _pickle_checkpoint(directory)
    (directory / "model.safetensors").unlink()
    with pytest.raises(FileNotFoundError, match=r"no \.safetensors weights; localeval loads safetensors only"):
        NLIJudge(directory, device="cpu")
    assert no_unpickling == []


def test_safetensors_wins_over_a_pickle_beside_it(tmp_path, tiny_judge, no_unpickling):
    directory = build_tiny_model(tmp_path / "m", {0: "contradiction", 1: "neutral", 2: "entailment"}, {"max_length": 64})
    _pickle_checkpoint(directory)
    judge = NLIJudge(directory, device="cpu")
    pairs = [("the cat sat on the mat", "a cat sat")]
    np.testing.assert_allclose(judge.predict(pairs), tiny_judge.predict(pairs), atol=1e-6)
    assert no_unpickling == []


def test_remote_code_in_a_model_folder_never_runs(tmp_path):
    directory = build_tiny_model(tmp_path / "m", {0: "entailment", 1: "not_entailment"})
    marker = tmp_path / "remote-code-ran"
    (directory / "modeling_evil.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "from transformers import BertForSequenceClassification as EvilModel\n"
    )
    config = json.loads((directory / "config.json").read_text())
    config["auto_map"] = {"AutoModelForSequenceClassification": "modeling_evil.EvilModel"}
    (directory / "config.json").write_text(json.dumps(config))
    try:
        NLIJudge(directory, device="cpu")
    except (ValueError, OSError):
        pass  # refusing the folder is fine too; running its code is not
    assert not marker.exists()


def test_no_code_path_enables_remote_code_or_pickle():
    """Every model load in the package: never trust_remote_code=True, always local files
    only (a hub name fails instead of downloading); no pickle.load anywhere, torch.load only
    with weights_only=True (tensors, never code)."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "localeval"
    loads = 0
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            keywords = {k.arg: k.value for k in node.keywords}
            where = f"{path.relative_to(package.parent)}:{node.lineno}"
            if "trust_remote_code" in keywords:
                value = keywords["trust_remote_code"]
                assert isinstance(value, ast.Constant) and value.value is False, where
            if name == "load" and getattr(node.func.value, "id", "") in ("torch", "pickle"):
                # Only an AlignScore checkpoint is read with torch.load, and only as tensors.
                value = keywords.get("weights_only")
                assert getattr(node.func.value, "id", "") == "torch", where
                assert isinstance(value, ast.Constant) and value.value is True, where
            if name == "from_pretrained":
                loads += 1
                value = keywords.get("local_files_only")
                assert isinstance(value, ast.Constant) and value.value is True, where
    assert loads >= 4  # the judge's tokenizer and model, the training encoder's


def test_unknown_judge_name_is_a_clear_error():
    with pytest.raises(JudgeNotFoundError, match="never downloads"):
        resolve_model("no-such-judge-anywhere")


def test_registry_lists_models_from_env(tmp_path, monkeypatch, tiny_nli_dir):
    from localeval.judge import list_models

    build_tiny_model(tmp_path / "my-judge", {0: "entailment", 1: "not_entailment"})
    monkeypatch.setenv("LOCALEVAL_MODELS_DIR", str(tmp_path))
    names = [m.name for m in list_models()]
    assert "my-judge" in names
    assert resolve_model("my-judge") == tmp_path / "my-judge"
    info = next(m for m in list_models() if m.name == "my-judge")
    assert info.labels == ["entailment", "not_entailment"]
    assert json.loads((tmp_path / "my-judge" / "config.json").read_text())["id2label"]


def test_claim_longer_than_the_input_is_truncated_not_a_crash(tiny_judge):
    long_claim = " ".join(["the cat sat on the mat"] * 30)
    with pytest.warns(UserWarning, match="truncated"):
        probs = tiny_judge.predict([("the cat sat", long_claim)])
    assert probs.shape == (1, 3) and np.isfinite(probs).all()


def test_max_units_judges_only_the_closest_units(tiny_judge):
    from localeval.evidence.attribution import attribute

    context = (
        "The observatory opened in Vienna in 1880. The harbour froze during the winter. "
        "Engineers repaired the bridge after a storm. The museum sold its paintings in 1920."
    )
    claim = "Engineers repaired the bridge."

    def judged(**kw):
        with JudgeSession() as session:  # counted by the session, the judge is left alone
            result = attribute(tiny_judge, [([claim], [context])], session=session, locate_sentence=False, **kw)
        return result, session.counters.pairs_requested

    full, everything = judged()
    pruned, asked = judged(max_units=1)
    assert asked == 1 < everything
    # The one unit judged is the one sharing the claim's words.
    assert "repaired the bridge" in pruned[0][0].evidence.text
    # A bound at or above the number of units changes nothing.
    same, _ = judged(max_units=everything)
    assert same[0][0].probability == full[0][0].probability
    with pytest.raises(ValueError, match="max_units"):
        attribute(tiny_judge, [([claim], [context])], max_units=0)


def test_max_units_reaches_metrics_built_by_name(tiny_judge):
    from localeval.evidence.attribution import DEFAULT_MAX_UNITS
    from localeval.runner.run import resolve_metrics

    def units(**kw):
        named = resolve_metrics("context_recall,faithfulness", model=tiny_judge, **kw)
        return {m.max_units for _, m in named}

    assert units() == {DEFAULT_MAX_UNITS}
    assert units(max_units=None) == {None}
    assert units(max_units=3) == {3}
    from localeval.metrics import ContextRecall

    with pytest.raises(ValueError, match="max_units"):
        ContextRecall(tiny_judge, max_units=0)
