"""Shared fixtures: a tiny randomly initialised NLI model for plumbing tests, the real default
judge (loaded once per session) for judgement tests, and a network guard."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

TINY_WORDS = (
    "the a an is are was were of in on at to and or not no it he she they paris france "
    "capital city berlin germany river cat dog sat mat docker image build push azure "
    "registry cluster create kubectl apply yaml deployment credentials get aks acr moon "
    "sun water cold hot red blue green big small one two three . , ? ! : - 1 2 3"
).split()


def build_tiny_model(directory: Path, id2label: dict[int, str], extra: dict | None = None) -> Path:
    """A 2-layer, 32-wide BERT classifier with a WordPiece vocab written here, in safetensors."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    directory.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *TINY_WORDS]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(directory / "vocab.txt"), do_lower_case=True)
    tokenizer.model_max_length = 128
    tokenizer.save_pretrained(directory)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(config)
    model.save_pretrained(directory, safe_serialization=True)
    if extra:
        data = json.loads((directory / "config.json").read_text())
        data["localeval"] = extra
        (directory / "config.json").write_text(json.dumps(data, indent=2))
    return directory


@pytest.fixture(scope="session")
def tiny_nli_dir(tmp_path_factory) -> Path:
    return build_tiny_model(
        tmp_path_factory.mktemp("tiny-nli"),
        {0: "contradiction", 1: "neutral", 2: "entailment"},
        {"max_length": 64},
    )


@pytest.fixture(scope="session")
def tiny_judge(tiny_nli_dir):
    from localeval.backends import NLIJudge

    return NLIJudge(tiny_nli_dir, device="cpu")


@pytest.fixture(scope="session")
def default_judge():
    """The shipped default judge: the real model every judgement test must use."""
    from localeval.backends import get_judge

    return get_judge(None)


@pytest.fixture()
def no_network(monkeypatch):
    """Make any attempt to open a network connection fail loudly."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield
