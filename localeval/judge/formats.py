"""Judge formats: how a model folder becomes P(supported) or P(relevant) for (evidence, text) pairs.

`localeval.judge.nli.NLIJudge` is the one judge interface the metrics, the attribution and
the session use (claim probability, evidence windows, batching, cache, session). What differs
between checkers lives here, one small class per format: how a folder is recognised, how the
model is loaded (never ``trust_remote_code``, never a pickle run as code), how a batch of
(premise, hypothesis) pairs is written as the model's input, and how its output becomes
probabilities. ``localeval judges`` lists them (`describe_formats`).

Formats (sources in README, "Judge formats"):

* ``nli``: a sequence-classification NLI model, 2 or 3 labels read from ``config.json``
  (today's judges, localeval's own with its relevance head);
* ``minicheck``: a sequence-classification checker, label 1 "supported" (MiniCheck RoBERTa-L /
  DeBERTa-v3-L; Tang et al. 2024): the document and the claim joined by the tokenizer's end
  token into one text, as the authors' ``minicheck/inference.py`` does;
* ``minicheck-t5``: a sequence-to-sequence checker scored from the first decoded token
  (MiniCheck-Flan-T5-L): input ``"predict: " + document + </s> + claim``, P(supported) the
  softmax of the logits of tokens 3 ("no") and 209 ("yes") at the first decoder step;
* ``hhem``: Vectara's HHEM-2.1-open, built natively: a T5 encoder with a 2-way token
  classifier read at the first position, the published prompt, class 1 "consistent";
* ``alignscore``: an AlignScore checkpoint (RoBERTa with three heads, Zha et al. 2023), read
  with ``torch.load(weights_only=True)``; P(aligned) is class 0 of the 3-way head;
* ``reranker``: a cross-encoder reranker with one logit (sentence-transformers MS MARCO,
  BGE reranker): a relevance judge only, question first, P(relevant) = sigmoid(logit).

A folder is matched by what it holds (`detect_format`), or the format is named before the
path: ``minicheck:/models/MiniCheck-RoBERTa-Large`` (`split_format`).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from localeval.judge.labels import LabelLayout, read_label_layout

__all__ = [
    "FORMATS",
    "FolderInfo",
    "JudgeFormat",
    "UnknownJudgeFormat",
    "describe_formats",
    "detect_format",
    "split_format",
]

Encoded = dict[str, list[list[int]]]


@dataclass(frozen=True)
class Packed:
    """Token ids of many pairs, one flat array per model input (``input_ids``,
    ``token_type_ids``, ...), pair ``i`` at ``offsets[i]:offsets[i + 1]`` in each.

    What a worker process sends to the judge process (`localeval.runner.workers`): pickling
    arrays costs a copy, pickling lists of lists costs a Python object per token. Tokenizing
    was most of the judge process's time on a GPU (benchmarks/results/gpu_session), so the
    workers tokenize and the judge process only pads and runs the model."""

    columns: dict[str, np.ndarray]
    offsets: np.ndarray

    @classmethod
    def of(cls, encoded: Encoded) -> Packed:
        ids = encoded["input_ids"]
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum([len(row) for row in ids], out=offsets[1:])
        total = int(offsets[-1])
        columns = {key: np.fromiter(itertools.chain.from_iterable(encoded[key]), dtype=np.int32, count=total)
                   for key in encoded.keys()}
        return cls(columns, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def lengths(self) -> list[int]:
        return np.diff(self.offsets).tolist()

    def row(self, key: str, i: int) -> np.ndarray:
        return self.columns[key][self.offsets[i] : self.offsets[i + 1]]


class UnknownJudgeFormat(ValueError):
    """A model folder that no judge format recognises (the message says what was found)."""


@dataclass(frozen=True)
class FolderInfo:
    """What a model folder holds, read once for detection and for the error message."""

    path: Path
    config: dict[str, Any]
    files: tuple[str, ...]

    @classmethod
    def read(cls, path: Path) -> FolderInfo:
        config_file = path / "config.json"
        config = json.loads(config_file.read_text()) if config_file.is_file() else {}
        return cls(path, config, tuple(sorted(p.name for p in path.iterdir() if p.is_file())))

    @property
    def architectures(self) -> list[str]:
        return [str(a) for a in self.config.get("architectures") or []]

    @property
    def labels(self) -> list[str]:
        id2label = self.config.get("id2label") or {}
        return [str(id2label[k]) for k in sorted(id2label, key=int)]

    @property
    def model_type(self) -> str:
        return str(self.config.get("model_type", ""))

    def has(self, suffix: str) -> bool:
        return any(name.endswith(suffix) for name in self.files)

    def summary(self) -> str:
        return (f"model_type={self.model_type or 'none'!r}, architectures={self.architectures or 'none'}, "
                f"labels={self.labels or 'none'}, files={list(self.files) or 'none'}")


@dataclass
class Loaded:
    tokenizer: Any
    model: torch.nn.Module


def _norm(label: str) -> str:
    return re.sub(r"[^a-z]", "", label.lower())


def _require_safetensors(info: FolderInfo) -> None:
    if not info.has(".safetensors"):
        raise FileNotFoundError(
            f"{info.path} has no .safetensors weights; localeval loads safetensors only "
            "(convert a .bin checkpoint with `save_pretrained(..., safe_serialization=True)`)."
        )


def _tokenizer(path: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path, local_files_only=True)


class JudgeFormat:
    """One kind of checker. Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    title: ClassVar[str]
    requires: ClassVar[str]
    """What a folder must contain (``localeval judges``, the unknown-folder message)."""
    input_rule: ClassVar[str]
    scoring: ClassVar[str]
    source: ClassVar[str]
    tasks: ClassVar[tuple[str, ...]] = ("nli",)
    max_length_cap: ClassVar[int] = 512
    """The longest input the format's authors score (their chunking limit)."""
    avoid_fp16: ClassVar[bool] = False
    """T5 models overflow in fp16: their "auto" precision on CUDA is bf16."""

    # ---------------------------------------------------------------- recognising and loading
    def matches(self, info: FolderInfo) -> bool:
        raise NotImplementedError

    def layout(self, info: FolderInfo) -> LabelLayout:
        raise NotImplementedError

    def load(self, info: FolderInfo, dtype: torch.dtype) -> Loaded:
        from transformers import AutoModelForSequenceClassification

        _require_safetensors(info)
        model = AutoModelForSequenceClassification.from_pretrained(
            info.path, local_files_only=True, use_safetensors=True, trust_remote_code=False, dtype=dtype)
        return Loaded(_tokenizer(info.path), model)

    def default_max_length(self, tokenizer) -> int:
        limit = int(getattr(tokenizer, "model_max_length", self.max_length_cap) or self.max_length_cap)
        return min(limit, self.max_length_cap)

    # ---------------------------------------------------------------- input
    def overhead(self, tokenizer) -> int:
        """Tokens of the input that are neither premise nor hypothesis (special tokens,
        prompt words): what the windowing leaves out of a premise's budget."""
        return int(tokenizer.num_special_tokens_to_add(pair=True))

    def encode(self, tokenizer, pairs: Sequence[tuple[str, str]], max_length: int) -> Encoded:
        """Token ids of each (premise, hypothesis) pair as the model reads it, at most
        ``max_length`` tokens (the longer text is cut first)."""
        return tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation="longest_first",
                         max_length=max_length)

    def full_lengths(self, tokenizer, pairs: Sequence[tuple[str, str]]) -> list[int]:
        """Input lengths without truncation (for the truncation warning)."""
        encoded = tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation=False)
        return [len(ids) for ids in encoded["input_ids"]]

    # ---------------------------------------------------------------- output
    def logits(self, model: torch.nn.Module, features: dict[str, torch.Tensor]) -> torch.Tensor:
        return model(**features).logits

    def probabilities(self, logits: torch.Tensor, columns: list[int]) -> torch.Tensor:
        """Probabilities over the task's ``columns`` (softmax within the head)."""
        index = torch.tensor(columns, device=logits.device)
        return torch.softmax(logits.float().index_select(1, index), dim=-1)


# ------------------------------------------------------------------------------ formats
class NLIFormat(JudgeFormat):
    name = "nli"
    title = "NLI classifier, 2 or 3 labels (localeval's own judge; DeBERTa/RoBERTa MNLI...)"
    requires = ("config.json whose id2label has 2 or 3 labels, one named entailment; "
                "*.safetensors; tokenizer files")
    input_rule = "(premise, hypothesis) as a tokenizer pair; label order from config.json"
    scoring = "softmax over the NLI labels, P(entailment)"
    source = "Williams et al. 2018 (MNLI); localeval's judge: models/<judge>/README.md"
    tasks = ("nli", "relevance")

    def matches(self, info: FolderInfo) -> bool:
        try:
            read_label_layout(info.config)
        except ValueError:
            return False
        return True

    def layout(self, info: FolderInfo) -> LabelLayout:
        return read_label_layout(info.config)


class MiniCheckFormat(JudgeFormat):
    name = "minicheck"
    title = "sequence-classification checker, label 1 'supported' (MiniCheck RoBERTa-L, DeBERTa-v3-L)"
    requires = ("config.json of a 2-label sequence classifier whose labels are unsupported/supported "
                "(or named explicitly: minicheck:PATH, label 1 = supported); *.safetensors; tokenizer files")
    input_rule = "document + the tokenizer's end token + claim, one text (authors' minicheck/inference.py)"
    scoring = "softmax over 2 logits, P(supported) = class 1"
    source = "Tang, Laban, Durrett 2024, MiniCheck (arXiv:2404.10774); github.com/Liyan06/MiniCheck"
    max_length_cap = 2048  # the authors score DeBERTa-v3 at 2048 tokens, RoBERTa at its 512

    def matches(self, info: FolderInfo) -> bool:
        names = [_norm(label) for label in info.labels]
        return (len(names) == 2 and "supported" in names
                and any(a.endswith("ForSequenceClassification") for a in info.architectures))

    def layout(self, info: FolderInfo) -> LabelLayout:
        names = [_norm(label) for label in info.labels]
        supported = names.index("supported") if "supported" in names else 1
        labels = ["unsupported", "supported"] if supported == 1 else ["supported", "unsupported"]
        return LabelLayout(nli=[0, 1], nli_labels=labels, entailment=supported)

    def overhead(self, tokenizer) -> int:
        return int(tokenizer.num_special_tokens_to_add(pair=False)) + 1  # + the joining end token

    def _text(self, tokenizer, premise: str, hypothesis: str) -> str:
        return f"{premise}{tokenizer.eos_token or tokenizer.sep_token}{hypothesis}"

    def encode(self, tokenizer, pairs, max_length):
        return _encode_texts(tokenizer, pairs, max_length, lambda p, h: self._text(tokenizer, p, h))

    def full_lengths(self, tokenizer, pairs):
        return [len(ids) for ids in tokenizer([self._text(tokenizer, p, h) for p, h in pairs])["input_ids"]]


class MiniCheckT5Format(JudgeFormat):
    name = "minicheck-t5"
    title = "sequence-to-sequence checker scored from the first decoded token (MiniCheck-Flan-T5-L)"
    requires = ("config.json of a T5 ForConditionalGeneration model; *.safetensors; the T5 tokenizer "
                "(spiece.model or tokenizer.json)")
    input_rule = "'predict: ' + document + '</s>' + claim, one text; one decoder step from the start token"
    scoring = ("softmax of the first step's logits of tokens 3 (no) and 209 (yes) (config.json "
               "localeval.label_token_ids may name others), P(supported) = the second")
    source = "Tang, Laban, Durrett 2024, MiniCheck; github.com/Liyan06/MiniCheck minicheck/inference.py"
    max_length_cap = 2048
    avoid_fp16 = True
    LABEL_TOKENS: ClassVar[tuple[int, int]] = (3, 209)

    def matches(self, info: FolderInfo) -> bool:
        return (info.model_type in {"t5", "mt5"}
                and any(a.endswith("ForConditionalGeneration") for a in info.architectures))

    def layout(self, info: FolderInfo) -> LabelLayout:
        return LabelLayout(nli=[0, 1], nli_labels=["unsupported", "supported"], entailment=1)

    def load(self, info: FolderInfo, dtype: torch.dtype) -> Loaded:
        from transformers import AutoModelForSeq2SeqLM

        _require_safetensors(info)
        model = AutoModelForSeq2SeqLM.from_pretrained(
            info.path, local_files_only=True, use_safetensors=True, trust_remote_code=False, dtype=dtype)
        tokens = info.config.get("localeval", {}).get("label_token_ids") or self.LABEL_TOKENS
        self.label_tokens = [int(t) for t in tokens]  # read by `logits` (a judge's own format object)
        return Loaded(_tokenizer(info.path), model)

    def default_max_length(self, tokenizer) -> int:
        # T5's relative positions have no hard limit; the authors score 2048 tokens (the
        # tokenizer's 512 is the pre-training length, not a limit of the checker).
        return self.max_length_cap

    def overhead(self, tokenizer) -> int:
        return len(tokenizer("predict: </s>")["input_ids"]) + 1

    def _text(self, premise: str, hypothesis: str) -> str:
        return f"predict: {premise}</s>{hypothesis}"

    def encode(self, tokenizer, pairs, max_length):
        return _encode_texts(tokenizer, pairs, max_length, self._text)

    def full_lengths(self, tokenizer, pairs):
        return [len(ids) for ids in tokenizer([self._text(p, h) for p, h in pairs])["input_ids"]]

    def logits(self, model, features):
        ids = features["input_ids"]
        start = torch.full((ids.shape[0], 1), int(model.config.decoder_start_token_id or 0),
                           dtype=torch.long, device=ids.device)
        out = model(input_ids=ids, attention_mask=features["attention_mask"], decoder_input_ids=start)
        tokens = torch.tensor(getattr(self, "label_tokens", self.LABEL_TOKENS), device=ids.device)
        return out.logits[:, 0, :].index_select(1, tokens)


HHEM_PROMPT = "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {text1}\n\nHypothesis: {text2}"
"""HHEM-2.1-open's published prompt (its config.json ``prompt``, used when the folder's config
has none); text1 is the premise, text2 the hypothesis."""


class _TokenHead(torch.nn.Module):
    """HHEM-2.1-open's architecture: a T5 encoder and a linear classifier over each position's
    state (transformers' ``T5ForTokenClassification``), read at the first position."""

    def __init__(self, config) -> None:
        super().__init__()
        from transformers import T5ForTokenClassification

        self.t5 = T5ForTokenClassification(config)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **_: Any):
        return self.t5(input_ids=input_ids, attention_mask=attention_mask)


def _t5_config_from_weights(state: dict[str, torch.Tensor], prefix: str):
    """A T5 encoder's config read from its weights' shapes: an HHEM folder names its
    foundation (google/flan-t5-base) instead of holding its config, and localeval never
    downloads one."""
    from transformers import T5Config

    shared = state[f"{prefix}transformer.shared.weight"]
    blocks = {int(m.group(1)) for k in state if (m := re.match(rf"{re.escape(prefix)}transformer\.encoder\.block\.(\d+)\.", k))}
    ff = f"{prefix}transformer.encoder.block.0.layer.1.DenseReluDense."
    gated = f"{ff}wi_0.weight" in state
    d_ff = state[f"{ff}wi_0.weight" if gated else f"{ff}wi.weight"].shape[0]
    bias = state[f"{prefix}transformer.encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
    heads = bias.shape[1]
    inner = state[f"{prefix}transformer.encoder.block.0.layer.0.SelfAttention.q.weight"].shape[0]
    labels = state[f"{prefix}classifier.weight"].shape[0]
    return T5Config(
        vocab_size=shared.shape[0], d_model=shared.shape[1], d_kv=inner // heads, d_ff=d_ff,
        num_layers=len(blocks), num_heads=heads, relative_attention_num_buckets=bias.shape[0],
        feed_forward_proj="gated-gelu" if gated else "relu", num_labels=labels, dropout_rate=0.0,
        is_encoder_decoder=False, tie_word_embeddings=False,
    )


class HHEMFormat(JudgeFormat):
    name = "hhem"
    title = "Vectara HHEM-2.1-open (T5 encoder + token classifier at position 0), built natively"
    requires = ("config.json with architectures HHEMv2ForSequenceClassification (its prompt is read "
                "from it); model.safetensors (t5.* weights); the flan-t5-base tokenizer files copied "
                "into the folder (spiece.model or tokenizer.json). Its modeling code is never run.")
    input_rule = "the published prompt: '<pad> Determine if the hypothesis is true given the premise?...' text1=premise, text2=hypothesis"
    scoring = "softmax over the 2 logits at the first position, P(consistent) = class 1"
    source = "vectara/hallucination_evaluation_model (HHEM-2.1-open) modeling_hhem_v2.py, config.json"
    max_length_cap = 512
    avoid_fp16 = True

    def matches(self, info: FolderInfo) -> bool:
        return (any(a.startswith("HHEM") for a in info.architectures) or info.model_type.startswith("HHEM"))

    def layout(self, info: FolderInfo) -> LabelLayout:
        return LabelLayout(nli=[0, 1], nli_labels=["hallucinated", "consistent"], entailment=1)

    def load(self, info: FolderInfo, dtype: torch.dtype) -> Loaded:
        from safetensors.torch import load_file

        _require_safetensors(info)
        state: dict[str, torch.Tensor] = {}
        for file in sorted(info.path.glob("*.safetensors")):
            state.update(load_file(str(file)))
        model = _TokenHead(_t5_config_from_weights(state, "t5."))
        # A file saved with tied tensors deduplicated keeps only the shared embedding.
        state.setdefault("t5.transformer.encoder.embed_tokens.weight", state["t5.transformer.shared.weight"])
        # Unused decoder or lm-head tensors of the published file are not part of the model.
        wanted = {k: v for k, v in state.items() if k in model.state_dict()}
        missing = set(model.state_dict()) - set(wanted)
        if missing:
            raise ValueError(f"{info.path}: HHEM weights lack {sorted(missing)[:5]}...")
        model.load_state_dict(wanted, strict=True)
        model.to(dtype)
        self.prompt = str(info.config.get("prompt") or HHEM_PROMPT)  # this judge's own format object
        return Loaded(_tokenizer(info.path), model)

    def _text(self, premise: str, hypothesis: str) -> str:
        return getattr(self, "prompt", HHEM_PROMPT).format(text1=premise, text2=hypothesis)

    def overhead(self, tokenizer) -> int:
        return len(tokenizer(self._text("", ""))["input_ids"]) + 1

    def encode(self, tokenizer, pairs, max_length):
        return _encode_texts(tokenizer, pairs, max_length, self._text)

    def full_lengths(self, tokenizer, pairs):
        return [len(ids) for ids in tokenizer([self._text(p, h) for p, h in pairs])["input_ids"]]

    def logits(self, model, features):
        return model(input_ids=features["input_ids"], attention_mask=features["attention_mask"]).logits[:, 0, :]


class _AlignHead(torch.nn.Module):
    """AlignScore's scorer as it is used at inference: RoBERTa with its pooler, and the 3-way
    head on the pooled state (the binary and regression heads are not used by nli_sp)."""

    def __init__(self, config) -> None:
        super().__init__()
        from transformers import RobertaModel

        self.base_model = RobertaModel(config, add_pooling_layer=True)
        self.tri_layer = torch.nn.Linear(config.hidden_size, 3)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **_: Any) -> torch.Tensor:
        pooled = self.base_model(input_ids=input_ids, attention_mask=attention_mask).pooler_output
        return self.tri_layer(pooled)


class AlignScoreFormat(JudgeFormat):
    name = "alignscore"
    title = "AlignScore checkpoint (RoBERTa, 3-way head), read as tensors only"
    requires = ("one AlignScore *.ckpt (its state_dict: base_model.*, tri_layer.*); the RoBERTa "
                "config.json and tokenizer files of its base model (roberta-base / roberta-large)")
    input_rule = "(context, claim) as a tokenizer pair, context first"
    scoring = "softmax over the 3-way head (nli_sp), P(aligned) = class 0"
    source = "Zha et al. 2023, AlignScore (ACL); github.com/yuh-zha/AlignScore"
    max_length_cap = 512

    def matches(self, info: FolderInfo) -> bool:
        return info.has(".ckpt") and info.model_type in {"roberta", "xlm-roberta"}

    def layout(self, info: FolderInfo) -> LabelLayout:
        # Only class 0 ("aligned") is read, as AlignScore's nli_sp does.
        return LabelLayout(nli=[0, 1, 2], nli_labels=["aligned", "other_1", "other_2"], entailment=0)

    def load(self, info: FolderInfo, dtype: torch.dtype) -> Loaded:
        from transformers import RobertaConfig

        ckpts = sorted(info.path.glob("*.ckpt"))
        if len(ckpts) != 1:
            raise ValueError(f"{info.path}: expected one AlignScore .ckpt, found {[c.name for c in ckpts]}")
        try:  # tensors only: a checkpoint is never unpickled as code
            checkpoint = torch.load(ckpts[0], map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any refusal is reported the same way
            raise ValueError(f"{ckpts[0]} cannot be read as tensors only (torch.load weights_only=True): {exc}") from exc
        state = checkpoint.get("state_dict", checkpoint) if isinstance(checkpoint, dict) else {}
        model = _AlignHead(RobertaConfig.from_dict({k: v for k, v in info.config.items() if k != "architectures"}))
        wanted = {k: v for k, v in state.items() if k in model.state_dict()}
        missing = set(model.state_dict()) - set(wanted) - {"base_model.embeddings.position_ids"}
        if missing:
            raise ValueError(f"{ckpts[0]} is not an AlignScore checkpoint: missing {sorted(missing)[:5]}...")
        model.load_state_dict(wanted, strict=False)
        model.to(dtype)
        return Loaded(_tokenizer(info.path), model)

    def logits(self, model, features):
        return model(input_ids=features["input_ids"], attention_mask=features["attention_mask"])


class RerankerFormat(JudgeFormat):
    name = "reranker"
    title = "cross-encoder reranker with one logit, relevance only (MS MARCO MiniLM, BGE reranker)"
    requires = "config.json of a sequence classifier with one label; *.safetensors; tokenizer files"
    input_rule = "(question, passage) as a tokenizer pair, question first (as rerankers are trained)"
    scoring = "P(relevant) = sigmoid(logit) (sentence-transformers CrossEncoder's default for one label)"
    source = "Reimers & Gurevych, sentence-transformers cross-encoders (sbert.net); BAAI FlagEmbedding bge-reranker"
    tasks = ("relevance",)

    def matches(self, info: FolderInfo) -> bool:
        return (int(info.config.get("num_labels", len(info.labels)) or len(info.labels)) == 1
                and len(info.labels) <= 1
                and any(a.endswith("ForSequenceClassification") for a in info.architectures))

    def layout(self, info: FolderInfo) -> LabelLayout:
        # No NLI head: `NLIJudge` refuses the "nli" task for this format.
        return LabelLayout(nli=[], nli_labels=[], entailment=0, relevance=[0, 1], relevant=0)

    def encode(self, tokenizer, pairs, max_length):
        return tokenizer([h for _, h in pairs], [p for p, _ in pairs], truncation="longest_first",
                         max_length=max_length)

    def full_lengths(self, tokenizer, pairs):
        encoded = tokenizer([h for _, h in pairs], [p for p, _ in pairs], truncation=False)
        return [len(ids) for ids in encoded["input_ids"]]

    def probabilities(self, logits, columns):
        p = torch.sigmoid(logits.float()[:, 0])
        return torch.stack([p, 1 - p], dim=1)


def _encode_texts(tokenizer, pairs: Sequence[tuple[str, str]], max_length: int,
                  text: Callable[[str, str], str]) -> Encoded:
    """Token ids of one-text inputs (a template around premise and hypothesis). An input over
    ``max_length`` is made to fit by cutting its premise (at a token boundary), never the
    claim or the prompt: what the pair formats' "longest first" does for a long premise."""
    texts = [text(p, h) for p, h in pairs]
    encoded = tokenizer(texts)
    ids, masks = encoded["input_ids"], encoded["attention_mask"]
    for i, row in enumerate(ids):
        if len(row) <= max_length:
            continue
        premise, hypothesis = pairs[i]
        offsets = tokenizer(premise, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        keep = len(offsets) - (len(row) - max_length)
        while True:
            cut = premise[: offsets[keep - 1][1]] if keep > 0 else ""
            row = tokenizer(text(cut, hypothesis))["input_ids"]
            if len(row) <= max_length or keep <= 0:
                break
            keep -= len(row) - max_length
        ids[i], masks[i] = row[:max_length], [1] * min(len(row), max_length)
    return {"input_ids": ids, "attention_mask": masks}


FORMATS: dict[str, JudgeFormat] = {f.name: f for f in (
    HHEMFormat(), AlignScoreFormat(), MiniCheckT5Format(), RerankerFormat(), MiniCheckFormat(), NLIFormat(),
)}
"""Every format, in the order folders are matched (the most specific first)."""


def split_format(spec: str | os.PathLike[str] | None) -> tuple[str | None, str | os.PathLike[str] | None]:
    """``"minicheck:/models/x"`` -> ``("minicheck", "/models/x")``; anything else -> ``(None, spec)``."""
    if isinstance(spec, str):
        head, sep, rest = spec.partition(":")
        if sep and head in FORMATS:
            return head, rest
    return None, spec


def detect_format(path: Path, named: str | None = None) -> tuple[JudgeFormat, FolderInfo]:
    """The format of the model folder ``path`` (``named``: the one the user named)."""
    info = FolderInfo.read(path)
    # A fresh object per judge: a format keeps what it read from its folder (a prompt, label tokens).
    if named is not None:
        if named not in FORMATS:
            raise UnknownJudgeFormat(f"unknown judge format {named!r}; known: {', '.join(FORMATS)}")
        return type(FORMATS[named])(), info
    for fmt in FORMATS.values():
        if fmt.matches(info):
            return type(fmt)(), info
    expected = "\n".join(f"  {f.name}: {f.requires}" for f in FORMATS.values())
    raise UnknownJudgeFormat(
        f"{path} is not a judge localeval can load. Found: {info.summary()}.\nExpected one of:\n{expected}\n"
        "Name the format before the path to choose one (e.g. minicheck:PATH); see `localeval judges`."
    )


def describe_formats() -> list[dict[str, str]]:
    """Every format as ``localeval judges`` lists it."""
    return [{"format": f.name, "what": f.title, "tasks": ", ".join(f.tasks), "folder": f.requires,
             "input": f.input_rule, "score": f.scoring, "source": f.source} for f in FORMATS.values()]
