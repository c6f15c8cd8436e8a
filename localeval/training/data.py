"""Assemble the training mix and the held-out set from all sources.

Order matters: every source is split first (QA paragraphs before any pair is derived from
them), so no held-out paragraph feeds a training relevance pair or synthetic claim.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from pathlib import Path

from . import contrast_pairs as contrast, sources, splits, synthetic
from .examples import Example, stable_hash

log = logging.getLogger(__name__)

# Relative share of the training pairs per source (before capping at the pool size). NLI
# outweighs relevance because claim support is what most metrics use, and MNLI/FEVER/synthetic
# (multi-sentence or claim-shaped premises) outweigh SNLI's caption premises.
DEFAULT_WEIGHTS: dict[str, float] = {
    "mnli": 10.0,
    "mnli_mm": 0.8,
    "snli": 8.0,
    "cad": 5.0,
    "fever": 8.0,
    "scitail": 1.8,
    "synthetic": 7.0,
    "qnli": 6.0,
    "qed": 5.0,
    "tydi": 3.0,
    "mlqa": 1.5,
    "boolq": 2.0,
}
# Sources built only on request (``--weights contrast=N`` or ``--sources ...,contrast``): the
# default mix, held-out set and thresholds stay exactly those of a run without them.
OPTIONAL_SOURCES = ("contrast", "halueval_qa")


@dataclass
class Dataset:
    train: list[Example]
    heldout: list[Example]
    pool_sizes: dict[str, int] = field(default_factory=dict)
    """Training pairs available per source after the split (before the mix picks from them)."""


def qa_split(
    items: list[sources.QAItem],
) -> tuple[list[sources.QAItem], list[sources.QAItem]]:
    """(train, held-out) QA items of one source, split by paragraph: the trainer and the judge
    benchmark (which rebuilds the held-out pairs) must agree on it."""
    # Each question yields ~4 relevance pairs; hold out ~1,000 pairs' worth of paragraphs.
    target = splits.heldout_size(len(items) * 4) // 4
    return splits.split_by_group(items, lambda it: it.paragraph, target)


def load_dataset(
    data_dir: Path,
    seed: int,
    use_synthetic: bool = True,
    only: set[str] | None = None,
    use_contrast: bool = False,
    contrast_reverse: bool = False,
    contrast_premise_chars: int = contrast.SHORT_PARAGRAPH,
    contrast_additions: bool = False,
    use_halueval: bool = False,
) -> Dataset:
    train_dir = data_dir / "train"
    train: list[Example] = []
    heldout: list[Example] = []

    def keep(name: str) -> bool:
        return only is None or name in only

    for name, reader in sources.NLI_READERS.items():
        if not keep(name):
            continue
        examples = reader(train_dir)
        for src in sorted({e.source for e in examples}):
            tr, ho = splits.split_examples([e for e in examples if e.source == src])
            train += tr
            heldout += ho
    if keep("halueval_qa") and (use_halueval or only is not None):
        tr, ho = splits.split_examples(sources.read_halueval_qa(train_dir))
        train += tr
        heldout += ho
    for name, reader in (
        ("qnli", sources.read_qnli),
        ("boolq", lambda d: sources.read_boolq(d, seed=0)),
    ):
        if keep(name):
            tr, ho = splits.split_examples(reader(train_dir))
            train += tr
            heldout += ho

    qa_train: list[sources.QAItem] = []
    qa_held: list[sources.QAItem] = []
    want_contrast = keep("contrast") and (use_contrast or only is not None)
    for name, reader in sources.QA_READERS.items():
        if not keep(name) and not want_contrast:
            continue
        tr_items, ho_items = qa_split(reader(train_dir))
        if keep(name):
            # Negatives are drawn within each side, never across the split.
            train += sources.qa_relevance(tr_items, seed=0)
            heldout += sources.qa_relevance(ho_items, seed=0)
        qa_train += tr_items
        qa_held += ho_items
    qa_train_kept = [it for it in qa_train if keep(it.source)]
    qa_held_kept = [it for it in qa_held if keep(it.source)]

    if use_synthetic and qa_train_kept and keep("synthetic"):
        nlp = synthetic.load_spacy()
        if nlp is None:
            log.warning(
                "no spaCy English model: synthetic claims use number/negation edits only"
            )
        # The synthetic split follows the QA split; the generator seed is fixed so the held-out
        # synthetic claims are the same in every run.
        train += synthetic.build_synthetic(qa_train_kept, seed=0, nlp=nlp)
        heldout += synthetic_heldout(qa_held_kept, nlp)

    if want_contrast and qa_train:
        # Like the synthetic claims, the contrast pairs follow the QA paragraph split, with
        # fixed generator seeds so the held-out side is the same in every run.
        parser = contrast.load_parser()
        if parser is None:
            log.warning(
                "no spaCy English model: contrast pairs use flips, number words and formats only"
            )
        train += contrast.build_contrast(qa_train, seed=0, nlp=parser, reverse=contrast_reverse,
                                         premise_chars=contrast_premise_chars, additions=contrast_additions)
        heldout += contrast_heldout(qa_held, parser)

    train = splits.drop_leaks(train, heldout)
    pool: dict[str, int] = {}
    for e in train:
        pool[e.source] = pool.get(e.source, 0) + 1
    return Dataset(train=train, heldout=heldout, pool_sizes=pool)


def synthetic_heldout(qa_held: list[sources.QAItem], nlp) -> list[Example]:
    """The held-out synthetic claims (fixed generator seed, capped), as every run builds them."""
    return synthetic.build_synthetic(qa_held, seed=1, nlp=nlp)[: splits.HELDOUT_CAP]


def contrast_heldout(qa_held: list[sources.QAItem], nlp) -> list[Example]:
    """The held-out contrast pairs (fixed generator seed, capped), as every run builds them."""
    return contrast.build_contrast(qa_held, seed=1, nlp=nlp)[: splits.HELDOUT_CAP]


def quotas(
    pool: dict[str, int], total: int, weights: dict[str, float]
) -> dict[str, int]:
    """Split ``total`` pairs over sources by weight, capping each at its pool and handing what a
    capped source cannot use to the others."""
    alloc = {s: 0 for s in pool}
    open_ = {s for s in pool if pool[s] > 0}
    remaining = total
    while remaining > 0 and open_:
        wsum = sum(weights.get(s, 1.0) for s in open_)
        given = 0
        for s in sorted(open_):
            share = int(remaining * weights.get(s, 1.0) / wsum)
            take = min(share, pool[s] - alloc[s])
            alloc[s] += take
            given += take
        open_ = {s for s in open_ if alloc[s] < pool[s]}
        if given == 0:
            break
        remaining -= given
    return alloc


def sample_mix(
    train: list[Example], max_pairs: int | None, weights: dict[str, float], seed: int
) -> list[Example]:
    """Pick the training mix: per-source quotas, items chosen by a seeded hash order."""
    by_source: dict[str, list[Example]] = {}
    for e in train:
        by_source.setdefault(e.source, []).append(e)
    total = max_pairs if max_pairs else len(train)
    alloc = quotas({s: len(v) for s, v in by_source.items()}, total, weights)
    mix: list[Example] = []
    for s, items in sorted(by_source.items()):
        items = sorted(items, key=lambda e: stable_hash(e.key, seed))
        mix += items[: alloc[s]]
    random.Random(seed).shuffle(mix)
    return mix
