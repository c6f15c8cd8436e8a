"""Judge formats (`localeval.judge.formats`): every checker architecture loads from a folder,
follows its authors' label convention and input rule, batches, caches and scores the seed
examples end to end. Plumbing tests: each model is a tiny randomly initialised one built here
(the scoring rules are re-derived by hand from the documented rule, not read back from the
code under test); judgement quality is the shipped judge's business (other test files)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import TINY_WORDS, build_tiny_model
from seed_texts import AKS_CONTEXTS, AKS_REFERENCE, AKS_STEPS

from localeval import evaluate
from localeval.judge import NLIJudge, get_judge
from localeval.judge.formats import HHEM_PROMPT, UnknownJudgeFormat
from localeval.judge.nli import JudgePair
from localeval.evidence.relevance import context_relevance
from localeval.judge.session import JudgeSession

PAIRS = [
    ("Paris is the capital of France.", "Paris is in France."),
    ("The cat sat on the mat.", "A dog sat on the mat."),
    ("Push the image to Azure Container Registry.", "Push the image."),
    ("Berlin is a city in Germany on a river.", "Berlin is in France."),
]


# ------------------------------------------------------------------------------ tiny folders
def _word_tokenizer(directory: Path):
    """A T5-style tokenizer (word-level, ``</s>`` appended, ``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["<pad>", "</s>", "<unk>", *dict.fromkeys(TINY_WORDS)])}
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace()])
    backend.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                           special_tokens=[("</s>", 1)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="</s>",
                                        unk_token="<unk>", model_max_length=512)
    tokenizer.save_pretrained(directory)
    return tokenizer


def _bert_tokenizer(directory: Path):
    from transformers import BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *TINY_WORDS]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(directory / "vocab.txt"), do_lower_case=True)
    tokenizer.model_max_length = 128
    tokenizer.save_pretrained(directory)
    return tokenizer


def _roberta_config(**kw):
    from transformers import RobertaConfig

    # pad 0: the tiny WordPiece vocabulary's [PAD] (RoBERTa's positions skip the pad id).
    return RobertaConfig(vocab_size=len(TINY_WORDS) + 5, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=140, pad_token_id=0, **kw)


def build_minicheck(directory: Path, arch: str) -> Path:
    """MiniCheck RoBERTa-L / DeBERTa-v3-L in miniature: 2 labels, 1 = supported."""
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification, RobertaForSequenceClassification

    directory.mkdir(parents=True)
    _bert_tokenizer(directory)
    labels = {0: "unsupported", 1: "supported"}
    torch.manual_seed(1)
    if arch == "roberta":
        model = RobertaForSequenceClassification(_roberta_config(num_labels=2, id2label=labels))
    else:
        model = DebertaV2ForSequenceClassification(DebertaV2Config(
            vocab_size=len(TINY_WORDS) + 5, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=128, num_labels=2, id2label=labels, pad_token_id=0))
    model.save_pretrained(directory, safe_serialization=True)
    return directory


def build_minicheck_t5(directory: Path) -> Path:
    from transformers import T5Config, T5ForConditionalGeneration

    directory.mkdir(parents=True)
    _word_tokenizer(directory)
    torch.manual_seed(2)
    # 256 ids: MiniCheck's label tokens 3 and 209 exist (the tiny vocabulary is smaller).
    config = T5Config(vocab_size=256, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
                      feed_forward_proj="gated-gelu", decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(config).save_pretrained(directory, safe_serialization=True)
    return directory


def build_hhem(directory: Path) -> Path:
    """An HHEM-2.1-open folder: its config (architecture, prompt), t5.* weights of a T5 encoder
    with a 2-way token classifier, and the foundation's tokenizer copied in."""
    from safetensors.torch import save_file
    from transformers import T5Config, T5ForTokenClassification

    directory.mkdir(parents=True)
    _word_tokenizer(directory)
    torch.manual_seed(3)
    t5 = T5ForTokenClassification(T5Config(vocab_size=len(TINY_WORDS) + 3, d_model=32, d_kv=16, d_ff=64,
                                           num_layers=2, num_heads=2, feed_forward_proj="gated-gelu", num_labels=2))
    save_file({f"t5.{k}": v.clone().contiguous() for k, v in t5.state_dict().items()},
              str(directory / "model.safetensors"))
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["HHEMv2ForSequenceClassification"], "model_type": "HHEMv2Config",
        "foundation": "google/flan-t5-base", "prompt": HHEM_PROMPT,
    }))
    return directory


def build_alignscore(directory: Path) -> Path:
    """An AlignScore folder: a Lightning-style checkpoint of tensors (base_model.*, the binary,
    3-way and regression heads) beside its RoBERTa config and tokenizer."""
    from transformers import RobertaModel

    directory.mkdir(parents=True)
    _bert_tokenizer(directory)
    config = _roberta_config()
    (directory / "config.json").write_text(config.to_json_string())
    torch.manual_seed(4)
    base = RobertaModel(config, add_pooling_layer=True)
    state = {f"base_model.{k}": v for k, v in base.state_dict().items()}
    for name, width in (("bin_layer", 2), ("tri_layer", 3), ("reg_layer", 1)):
        layer = torch.nn.Linear(config.hidden_size, width)
        state[f"{name}.weight"], state[f"{name}.bias"] = layer.weight.data, layer.bias.data
    torch.save({"state_dict": state, "epoch": 3}, directory / "AlignScore-tiny.ckpt")
    return directory


def build_reranker(directory: Path) -> Path:
    return build_tiny_model(directory, {0: "LABEL_0"})


BUILDERS = {
    "nli": lambda d: build_tiny_model(d, {0: "entailment", 1: "neutral", 2: "contradiction"}, {"max_length": 64}),
    "minicheck": lambda d: build_minicheck(d, "roberta"),
    "minicheck-deberta": lambda d: build_minicheck(d, "deberta"),
    "minicheck-t5": build_minicheck_t5,
    "hhem": build_hhem,
    "alignscore": build_alignscore,
    "reranker": build_reranker,
}
ATTRIBUTION = [k for k in BUILDERS if k != "reranker"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("formats")
    return {name: build(root / name) for name, build in BUILDERS.items()}


@pytest.fixture(scope="module")
def judges(folders) -> dict[str, NLIJudge]:
    return {name: NLIJudge(path, device="cpu") for name, path in folders.items()}


# ------------------------------------------------------------------------------ loading
def test_each_folder_is_read_by_its_format(judges):
    expected = {"minicheck-deberta": "minicheck"}
    for name, judge in judges.items():
        assert judge.format.name == expected.get(name, name), name


def test_unknown_folder_says_what_was_found_and_expected(tmp_path):
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}))
    (folder / "weights.safetensors").write_bytes(b"")
    with pytest.raises(UnknownJudgeFormat) as info:
        NLIJudge(folder, device="cpu")
    message = str(info.value)
    assert "gpt2" in message and "GPT2LMHeadModel" in message and "weights.safetensors" in message
    for name in ("nli", "minicheck", "minicheck-t5", "hhem", "alignscore", "reranker"):
        assert f"  {name}: " in message


def test_cli_lists_formats_and_checks_a_folder(folders):
    from typer.testing import CliRunner

    from localeval.cli.main import app

    listed = CliRunner().invoke(app, ["judges"])
    assert listed.exit_code == 0
    for name in ("nli", "minicheck", "minicheck-t5", "hhem", "alignscore", "reranker"):
        assert f"\n{name}: " in "\n" + listed.output
    checked = CliRunner().invoke(app, ["judges", str(folders["hhem"])])
    assert checked.exit_code == 0 and "format hhem" in checked.output


def test_named_format_beats_detection(folders):
    # A NLI-labelled 2-way folder read as a MiniCheck checker: one text, label 1 supported.
    folder = build_tiny_model(folders["nli"].parent / "two-way", {0: "not_entailment", 1: "entailment"})
    assert NLIJudge(folder, device="cpu").format.name == "nli"
    named = NLIJudge(f"minicheck:{folder}", device="cpu")
    assert named.format.name == "minicheck" and named.layout.entailment == 1


def test_alignscore_checkpoint_is_read_as_tensors_only(tmp_path, folders):
    import shutil

    folder = tmp_path / "pickled"
    shutil.copytree(folders["alignscore"], folder)
    ckpt = next(folder.glob("*.ckpt"))
    state = torch.load(ckpt, weights_only=True)
    state["hyper_parameters"] = _NotATensor()  # an object only unpickling code could rebuild
    torch.save(state, ckpt)
    with pytest.raises(ValueError, match="weights_only"):
        NLIJudge(folder, device="cpu")


class _NotATensor:
    pass


# ------------------------------------------------------------------------------ label conventions
def _softmax(x: torch.Tensor) -> np.ndarray:
    return torch.softmax(x.float(), dim=-1).detach().numpy()


def test_minicheck_joins_document_and_claim_and_reads_label_one(judges):
    for name in ("minicheck", "minicheck-deberta"):
        judge = judges[name]
        tok = judge.tokenizer
        texts = [f"{p}{tok.eos_token or tok.sep_token}{h}" for p, h in PAIRS]
        with torch.no_grad():
            logits = judge.model(**tok(texts, padding=True, return_tensors="pt")).logits
        expected = _softmax(logits)[:, 1]
        assert np.allclose(judge.entailment_probability(PAIRS), expected, atol=1e-5), name


def test_minicheck_t5_scores_the_first_decoded_token(judges):
    judge = judges["minicheck-t5"]
    enc = judge.tokenizer([f"predict: {p}</s>{h}" for p, h in PAIRS], padding=True, return_tensors="pt")
    with torch.no_grad():
        logits = judge.model(**enc, decoder_input_ids=torch.zeros((len(PAIRS), 1), dtype=torch.long)).logits
    expected = _softmax(logits[:, 0, [3, 209]])[:, 1]  # MiniCheck: token 3 "no", 209 "yes"
    assert np.allclose(judge.entailment_probability(PAIRS), expected, atol=1e-5)


def test_hhem_is_the_published_architecture_and_prompt(judges, folders):
    from safetensors.torch import load_file
    from transformers import T5Config, T5ForTokenClassification

    judge = judges["hhem"]
    # The reference: transformers' own T5ForTokenClassification with the tiny config, the
    # saved t5.* weights, the prompt filled with text1 = premise, text2 = hypothesis.
    reference = T5ForTokenClassification(T5Config(vocab_size=len(TINY_WORDS) + 3, d_model=32, d_kv=16, d_ff=64,
                                                  num_layers=2, num_heads=2, feed_forward_proj="gated-gelu", num_labels=2))
    weights = load_file(str(folders["hhem"] / "model.safetensors"))
    reference.load_state_dict({k.removeprefix("t5."): v for k, v in weights.items()})
    reference.eval()
    prompts = [HHEM_PROMPT.format(text1=p, text2=h) for p, h in PAIRS]
    enc = judge.tokenizer(prompts, padding=True, return_tensors="pt")
    assert (enc["input_ids"][:, 0] == judge.tokenizer.pad_token_id).all()  # the prompt's leading <pad>
    with torch.no_grad():
        expected = _softmax(reference(**enc).logits[:, 0, :])[:, 1]  # class 1: consistent
    assert np.allclose(judge.entailment_probability(PAIRS), expected, atol=1e-5)


def test_alignscore_reads_aligned_from_the_three_way_head(judges, folders):
    from transformers import RobertaModel

    judge = judges["alignscore"]
    state = torch.load(next(folders["alignscore"].glob("*.ckpt")), weights_only=True)["state_dict"]
    base = RobertaModel(_roberta_config(), add_pooling_layer=True)
    base.load_state_dict({k.removeprefix("base_model."): v for k, v in state.items() if k.startswith("base_model.")})
    base.eval()
    enc = judge.tokenizer([p for p, _ in PAIRS], [h for _, h in PAIRS], padding=True, return_tensors="pt")
    with torch.no_grad():
        pooled = base(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).pooler_output
        tri = pooled @ state["tri_layer.weight"].T + state["tri_layer.bias"]
    assert np.allclose(judge.entailment_probability(PAIRS), _softmax(tri)[:, 0], atol=1e-5)


def test_reranker_reads_question_first_through_a_sigmoid(judges):
    judge = judges["reranker"]
    enc = judge.tokenizer([h for _, h in PAIRS], [p for p, _ in PAIRS], padding=True, return_tensors="pt")
    with torch.no_grad():
        expected = torch.sigmoid(judge.model(**enc).logits[:, 0]).numpy()
    assert np.allclose(judge.relevance_probability(PAIRS), expected, atol=1e-5)
    with pytest.raises(ValueError, match="relevance judge only"):
        judge.entailment_probability(PAIRS)


# ------------------------------------------------------------------------------ batching, caching, windows
@pytest.mark.parametrize("name", ATTRIBUTION)
def test_batching_does_not_change_probabilities(judges, name):
    judge = judges[name]
    pairs = PAIRS + [(" ".join(TINY_WORDS[: 5 + 3 * i]), "the cat") for i in range(6)]
    one = judge.entailment_probability(pairs, batch_size=1)
    many = judge.entailment_probability(pairs, batch_size=7)
    assert np.allclose(one, many, atol=1e-5)
    assert ((0 <= one) & (one <= 1)).all()


def test_session_caches_each_format_under_its_own_identity(judges, folders):
    session = JudgeSession()
    judge = judges["minicheck"]
    first = session.predict(judge, PAIRS)
    judged = session.counters.pairs_judged
    again = session.predict(judge, PAIRS)
    assert np.array_equal(first, again)
    assert session.counters.pairs_judged == judged and session.counters.cache_hits == len(PAIRS)
    # The same weights read by another format are another judge: no verdict is shared.
    as_nli = NLIJudge(f"nli:{folders['minicheck']}", device="cpu")
    assert as_nli.identity != judge.identity


def test_a_long_premise_is_cut_never_the_claim(judges):
    judge = judges["minicheck-t5"]
    judge_short = NLIJudge(f"minicheck-t5:{judge.path}", device="cpu", max_length=24)
    premise = " ".join(["the cat sat on the mat ."] * 20)
    encoded = judge_short.format.encode(judge_short.tokenizer, [(premise, "a dog is big")], 24)
    ids = encoded["input_ids"][0]
    assert len(ids) <= 24
    assert judge_short.tokenizer.decode(ids, skip_special_tokens=True).endswith("a dog is big")


def test_relevance_windows_fit_the_relevance_model(judges, folders):
    reranker = NLIJudge(folders["reranker"], device="cpu", max_length=24)
    pair = JudgePair(judges["nli"], reranker)
    session = JudgeSession()
    budget = session.premise_budget(reranker, ["what does docker push"])
    chunk = " ".join(AKS_CONTEXTS * 3)
    scored = context_relevance(pair, [("what does docker push", [chunk])], session=session)
    probability, window = scored[0][0]
    assert window is not None and 0 <= probability <= 1
    assert reranker.count_tokens(window.text) <= budget < judges["nli"].max_length - 10
    assert session.counters.pairs_judged > 1  # the chunk did not fit the reranker's 24 tokens


# ------------------------------------------------------------------------------ end to end
ROWS = [{
    "user_input": "How do I deploy to AKS?",
    "response": " ".join(f"{s}." for s in AKS_STEPS[:3]),
    "reference": AKS_REFERENCE,
    "retrieved_contexts": AKS_CONTEXTS,
}]


@pytest.mark.parametrize("name", ATTRIBUTION)
def test_each_checker_scores_the_seed_examples(folders, name):
    result = evaluate(ROWS, "faithfulness,context_recall", model=str(folders[name]), device="cpu",
                      show_progress=False)
    for metric in ("faithfulness", "context_recall"):
        score = result[metric][0]
        assert score is not None and 0 <= score <= 1, (name, metric, result[0])


def test_relevance_model_is_separate_and_part_of_the_identity(folders):
    nli, reranker = str(folders["nli"]), str(folders["reranker"])
    judge = get_judge(nli, device="cpu", relevance_model=reranker)
    assert isinstance(judge, JudgePair) and judge.for_task("relevance").format.name == "reranker"
    assert judge.identity != get_judge(nli, device="cpu").identity
    with_reranker = evaluate(ROWS, "context_relevance,faithfulness", model=nli, relevance_model=reranker,
                             device="cpu", show_progress=False)
    own_head = evaluate(ROWS, "context_relevance,faithfulness", model=str(folders["nli"]), device="cpu",
                        show_progress=False)
    assert with_reranker["faithfulness"] == own_head["faithfulness"]  # claims: the same judge
    assert with_reranker["context_relevance"][0] is not None
    # The tiny NLI judge has no relevance head: only the reranker makes the metric possible.
    assert own_head["context_relevance"][0] is None


def test_a_reranker_alone_cannot_judge_claims(folders):
    with pytest.raises(ValueError, match="relevance judge only|cannot judge claims"):
        get_judge(str(folders["reranker"]), device="cpu", relevance_model=str(folders["reranker"]))
