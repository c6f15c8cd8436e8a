"""Shared fixtures: a tiny randomly initialised NLI model for plumbing tests, the real default
judge (loaded once per session) for judgement tests, and a network guard.

The whole suite runs with the network blocked (`netguard/localeval_netguard.py`): in this
process from `pytest_configure` on, and in every Python subprocess a test starts (its
``sitecustomize`` is put on PYTHONPATH). The Hugging Face offline switches are removed from
the environment first, so passing proves localeval needs no network, not that those switches
kept a library quiet. Any attempt, even one a library swallowed, fails the run at the end.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

NETGUARD_DIR = Path(__file__).resolve().parent / "netguard"
sys.path.insert(0, str(NETGUARD_DIR))
import localeval_netguard  # noqa: E402

# Environment switches that would make Hugging Face libraries stay offline on their own.
OFFLINE_SWITCHES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")


def pytest_configure(config) -> None:
    # Before any test module imports transformers (huggingface_hub reads these at import).
    for name in OFFLINE_SWITCHES:
        os.environ.pop(name, None)
    fd, log = tempfile.mkstemp(prefix="localeval-netguard-", suffix=".log")
    os.close(fd)
    os.environ[localeval_netguard.LOG_ENV] = log
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(NETGUARD_DIR), os.environ.get("PYTHONPATH")]))
    localeval_netguard.install()
    _share_the_cores()


def _share_the_cores() -> None:
    """One torch thread per test process when pytest-xdist runs as many processes as there are
    cores (set before any test imports torch; the processes tests start inherit it): two
    threads each on a full 2-core machine wait on each other at every operation (measured on
    2 cores: the suite in two processes took 457 s with two threads each, 369 s with one)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and workers >= (os.cpu_count() or 1):
        os.environ["OMP_NUM_THREADS"] = "1"
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)


def pytest_unconfigure(config) -> None:
    log = os.environ.pop(localeval_netguard.LOG_ENV, None)
    if log:
        Path(log).unlink(missing_ok=True)


@pytest.fixture(scope="session", autouse=True)
def network_blocked():
    """Every test runs with the network blocked; at the end, no attempt may have been made."""
    assert localeval_netguard.installed()
    yield
    # The log holds this process's attempts and those of every subprocess.
    attempts = localeval_netguard.logged_attempts() or localeval_netguard.ATTEMPTS
    assert not attempts, f"network access was attempted during the tests: {attempts}"


SHARED_DATA = Path(os.environ.get("LOCALEVAL_DATA_DIR") or Path(__file__).resolve().parents[2] / "shared" / "data")
"""The shared data folder beside the repository (SPEC, meta-eval sets; ``LOCALEVAL_DATA_DIR``
overrides it). Tests read it through the `shared_data` fixture only."""


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder; a test that needs it is skipped, with the reason, where the
    folder is not beside the repository (a bare clone)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not present ({SHARED_DATA})")
    return SHARED_DATA


# ---------------------------------------------------------------------- markers
# Set from what a test uses, so a test added anywhere is marked without being told to
# (the markers are registered in pyproject.toml). Explicit marks add to these.
SLOW_MODULES = frozenset({"test_agreement", "test_benchmarks", "test_decomposer_llm", "test_report", "test_training",
                          "test_training_contrast"})
"""Modules that run benchmark or training scripts end to end, load a generative model, or
drive a browser."""
_SUBPROCESS = re.compile(r"\bsubprocess\.|sys\.executable")
_RAY = re.compile(r"""engine\s*=\s*["']ray["']|\bimport ray\b|\bray\.init\(""")


def _sources(item) -> Iterator[str]:
    """The test function's source and that of every fixture it uses that the tests define."""
    funcs = [getattr(item, "function", None)]
    fixtureinfo = getattr(item, "_fixtureinfo", None)
    for defs in (fixtureinfo.name2fixturedefs.values() if fixtureinfo else ()):
        funcs += [d.func for d in defs]
    tests_dir = str(Path(__file__).resolve().parent)
    for func in funcs:
        try:
            if inspect.getsourcefile(func).startswith(tests_dir):
                yield inspect.getsource(func)
        except (TypeError, OSError):
            continue


def markers_for(item) -> set[str]:
    """The markers a test gets from what it uses."""
    module = Path(str(item.fspath)).stem
    text = "\n".join(_sources(item))
    found = set()
    if "default_judge" in item.fixturenames:
        found.add("judge")
    if module in SLOW_MODULES:
        found.add("slow")
    if _SUBPROCESS.search(text):
        found.add("subprocess")
    if module == "test_ray_engine" or any("ray" in name.split("_") for name in item.fixturenames) or _RAY.search(text):
        found.add("ray")
    return found


_FIRST = ("ray", "slow", "subprocess")
"""Modules with a test of these markers run first, in this order: the suite runs in two
processes (pytest-xdist, a module to a process), and the long modules started last would
leave one process working alone at the end."""


def _rank(markers: set[str]) -> int:
    return min((_FIRST.index(m) for m in markers if m in _FIRST), default=len(_FIRST))


def pytest_collection_modifyitems(config, items) -> None:
    ranks: dict[str, int] = {}
    for item in items:
        found = markers_for(item)
        for name in found:
            item.add_marker(name)
        module = str(item.fspath)
        ranks[module] = min(ranks.get(module, len(_FIRST)), _rank(found))
    items.sort(key=lambda item: ranks[str(item.fspath)])  # stable: a module's own order is kept

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
    from localeval.judge import NLIJudge

    return NLIJudge(tiny_nli_dir, device="cpu")


@pytest.fixture(scope="session")
def default_judge():
    """The shipped default judge: the real model every judgement test must use."""
    from localeval.judge import get_judge

    return get_judge(None)


@pytest.fixture()
def no_network():
    """Kept for the tests that name it: the network is blocked for the whole suite (see
    `network_blocked`); this checks the guard is on and that the test made no attempt."""
    assert localeval_netguard.installed()
    before = len(localeval_netguard.ATTEMPTS)
    yield
    assert localeval_netguard.ATTEMPTS[before:] == [], "network access attempted"


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module. Two threads on a busy 2-core machine cost ~0.15 s per
    new input shape (they wait on each other), which makes tiny-judge tests 100x slower."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
