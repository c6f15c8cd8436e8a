"""Held-out splits of the judge's own training sources, taken from `localeval.training`.

The trainer carves a fixed held-out side out of every source before training (membership is a
hash of each item's group, never a seed) and lists the pair ids it held out in the model's
``heldout_manifest.json``. The benchmark rebuilds the held-out pairs with the trainer's own
code (`localeval.training.data.load_dataset`), then keeps exactly the ids of the manifest when
the model has one, so "held-out" here means what this judge did not see.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.lib.readers import PairTask, stratified_sample

__all__ = ["HELDOUT_CAP", "load_held_out"]

# Pairs scored per source: the held-out sides hold up to 1,000 each, more than a 2-core CPU
# run can afford for a dozen sources next to everything else.
HELDOUT_CAP = 400


def _rebuild(data: Path, with_contrast: bool = False) -> list:
    """Every held-out Example, as `python -m localeval.training` builds them (the contrast
    pairs only for a judge trained with them: parsing their paragraphs takes a minute)."""
    from localeval.training import contrast_pairs as contrast, sources, synthetic
    from localeval.training import data as tdata

    # Generated sources are left to the steps below: with them, load_dataset would also build
    # their (large) training sides, which the benchmark does not need.
    held = list(tdata.load_dataset(data, seed=0, use_synthetic=False).heldout)
    qa_held = [it for reader in sources.QA_READERS.values() for it in tdata.qa_split(reader(data / "train"))[1]]
    held += tdata.synthetic_heldout(qa_held, synthetic.load_spacy())
    if with_contrast:
        held += tdata.contrast_heldout(qa_held, contrast.load_parser())
    return held


def _to_task(name: str, examples: list, limit: int | None) -> PairTask:
    from localeval.training.examples import NLI2, NLI3, REL

    task = examples[0].task
    kind = {NLI3: "nli3", NLI2: "binary", REL: "relevance"}[task]
    names = {0: "entailment", 1: "neutral", 2: "contradiction"}
    # localeval.training encodes "yes" (entailed / relevant) as label 0; benchmark gold is 1 = yes.
    gold = [names[e.label] if task == NLI3 else int(e.label == 0) for e in examples]
    keep = stratified_sample(gold, min(HELDOUT_CAP, limit) if limit is not None else HELDOUT_CAP)
    return PairTask(
        name=f"{name}/held-out",
        section="held_out",
        kind=kind,
        pairs=[(examples[i].text_a, examples[i].text_b) for i in keep],
        labels=[gold[i] for i in keep],
        original_labels=[str(gold[i]) for i in keep],
        n_total=len(examples),
        source=f"held-out side of the training source '{examples[0].source}' ({task})",
        note={NLI3: "", NLI2: "entailed = supported", REL: "relevant = positive"}[task],
    )


def load_held_out(data: Path, limit: int | None, model_dir: Path | None = None) -> tuple[list[PairTask], str]:
    """One task per (source, task kind); the note says how the pairs were obtained."""
    manifest_path = model_dir / "heldout_manifest.json" if model_dir else None
    has_manifest = manifest_path is not None and manifest_path.is_file()
    manifest = json.loads(manifest_path.read_text())["heldout"] if has_manifest else {}
    try:
        held = _rebuild(data, with_contrast="contrast" in manifest)
    except ImportError as exc:
        return [], f"held-out splits skipped: localeval.training is not importable ({exc})"
    note = "held-out pairs rebuilt with localeval.training.data (the trainer's readers and split)"
    if has_manifest:
        wanted = {(source, key) for source, keys in manifest.items() for key in keys}
        found = {(e.source, e.key) for e in held}
        held = [e for e in held if (e.source, e.key) in wanted]
        missing = len(wanted - found)
        note += f"; restricted to the model's heldout_manifest.json ({len(wanted)} ids, {missing} not rebuilt)"
    else:
        note += "; the model has no heldout_manifest.json, so nothing checks it was trained with this split"
    by_name: dict[str, list] = {}
    for e in held:
        by_name.setdefault(f"{e.source}:{e.task}", []).append(e)
    tasks = []
    order = {"nli3": 0, "nli2": 1, "rel": 2}
    for key in sorted(by_name, key=lambda k: (order.get(by_name[k][0].task, 3), k)):
        source, task = key.split(":")
        several = sum(k.startswith(f"{source}:") for k in by_name) > 1
        tasks.append(_to_task(f"{source}-{task}" if several else source, by_name[key], limit))
    return tasks, note
