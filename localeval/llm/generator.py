"""Greedy text generation with a local causal language model (transformers).

`TransformersGenerator` opens either a Hugging Face model directory (safetensors weights only,
as for the judges) or a single GGUF file, which transformers de-quantises to fp32 through the
``gguf`` package (``pip install "localeval[llm]"``). Nothing is downloaded: every load is
``local_files_only`` and never runs code shipped with the model.

llama-cpp-python would run GGUF files faster, but it has no wheel for this platform and
compiles C++ on install, so it is not wired in; any object with ``generate(prompts) ->
list[str]`` and an ``identity`` string can be passed to `LLMDecomposer` instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import Protocol, runtime_checkable

__all__ = ["Generator", "TransformersGenerator", "file_identity"]


@runtime_checkable
class Generator(Protocol):
    """What `LLMDecomposer` needs from a model: completions of prompts, and an identity
    (changes whenever the completions could change) for the decomposition cache."""

    identity: str

    def generate(self, prompts: list[str]) -> list[str]: ...


def file_identity(path: Path) -> str:
    """sha256 of a model file, or of a directory's weights, config and tokenizer files."""
    digest = hashlib.sha256()
    if path.is_file():
        files = [path]
    else:
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in {".safetensors", ".json", ".model", ".txt"})
    for file in files:
        digest.update(file.name.encode())
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:32]


class TransformersGenerator:
    """A local causal LM answering a batch of prompts with greedy decoding.

    Args:
        path: a model directory (``config.json`` + ``*.safetensors``) or a ``.gguf`` file.
        device: ``"cpu"``, ``"cuda"``... (default: CUDA when present, else CPU).
        max_new_tokens: tokens generated per prompt at most.
        batch_size: prompts per ``generate`` call (left-padded).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        device: str | None = None,
        max_new_tokens: int = 128,
        batch_size: int = 8,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.path = Path(path).expanduser()
        if not self.path.exists():
            raise FileNotFoundError(
                f"no local model at {self.path}: the LLM decomposer takes a model directory or a "
                ".gguf file on disk (localeval never downloads)"
            )
        if max_new_tokens < 1 or batch_size < 1:
            raise ValueError("max_new_tokens and batch_size must be >= 1")
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        if self.path.is_file():
            if self.path.suffix.lower() != ".gguf":
                raise ValueError(f"{self.path} is a file but not a .gguf: give a model directory or a GGUF file")
            if importlib.util.find_spec("gguf") is None:
                raise ImportError('reading a .gguf file needs the gguf package: pip install "localeval[llm]"')
            where, tok_extra = self.path.parent, {"gguf_file": self.path.name}
            extra = dict(tok_extra)
        else:
            if not any(self.path.glob("*.safetensors")):
                raise FileNotFoundError(f"{self.path} has no .safetensors weights; localeval loads safetensors only")
            where, tok_extra, extra = self.path, {}, {"use_safetensors": True}
        self.tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=True, trust_remote_code=False, **tok_extra)
        dtype = torch.float16 if self.device.type == "cuda" else torch.float32
        self.model = AutoModelForCausalLM.from_pretrained(
            where, local_files_only=True, trust_remote_code=False, dtype=dtype, **extra
        ).to(self.device)
        self.model.eval()
        # Left padding: every prompt of a batch ends where its generation starts.
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.identity = f"{file_identity(self.path)}:max_new_tokens={max_new_tokens}"
        self._lock = threading.Lock()  # one generate at a time (`ascore` runs rows in threads)

    def __repr__(self) -> str:
        return f"TransformersGenerator({self.path.name!r}, device={self.device.type!r})"

    def _wrap(self, prompt: str) -> str:
        """The prompt as the model expects it: in its chat template when it has one."""
        if getattr(self.tokenizer, "chat_template", None):
            messages = [{"role": "user", "content": prompt}]
            return self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return prompt

    def generate(self, prompts: list[str]) -> list[str]:
        import torch

        out: list[str] = []
        with self._lock, torch.inference_mode():
            for start in range(0, len(prompts), self.batch_size):
                part = [self._wrap(p) for p in prompts[start : start + self.batch_size]]
                encoded = self.tokenizer(part, return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
                generated = self.model.generate(
                    **encoded,
                    do_sample=False,
                    max_new_tokens=self.max_new_tokens,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
                new = generated[:, encoded["input_ids"].shape[1] :]
                out.extend(self.tokenizer.batch_decode(new, skip_special_tokens=True))
        return out
