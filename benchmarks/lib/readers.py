"""Readers of the evaluation-only and meta-evaluation sets, in the form the benchmark scores.

Every file is parsed as it comes from upstream (see each folder's SOURCE.txt / README under the
data directory). Two task shapes:

* `PairTask`: (evidence, claim) pairs, judged directly. ``kind`` says how: ``nli3`` (gold is
  entailment / neutral / contradiction; also scored as entailed-vs-not), ``binary`` (gold 1 =
  supported) or ``relevance`` (gold 1 = the passage is relevant to the question).
* `AttributionTask`: items of (claims, contexts, label), judged through
  `localeval.evidence.attribution.attribute` exactly as the metrics do: a claim's support is
  the best window of any context, and an item's score aggregates its claims (``min``: an
  answer is supported only if every sentence of it is).

Big sets are subsampled with a fixed seed, stratified by label (pair sets in proportion,
attribution sets class-balanced: see `stratified_sample`); ``n_total`` keeps the size before
sampling.
"""

from __future__ import annotations

import csv
import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = [
    "AttributionItem",
    "AttributionTask",
    "PairTask",
    "SAMPLE_CAPS",
    "stratified_sample",
    "load_eval_only",
    "load_meta_eval",
]

SEED = 13

# Default caps per set, chosen so that a full run on 2 CPU cores stays near 15 minutes
# (attribution sets cost one judge call per claim per window, hence their lower caps).
SAMPLE_CAPS: dict[str, int] = {
    "anli/test": 900,
    "climate_fever/pairs": 900,
    "covidfact/test": 401,
    "healthver/test": 700,
    "scifact/train+dev": 773,
    "sick/test": 1500,
    "wice/dev-oracle-chunks": 349,
    "wice/dev-article": 349,
    "summac/factcc": 311,
    "summac/polytope": 200,
    "summac/summeval": 100,
    "summac/xsumfaith": 300,
    "begin/dev": 1229,
}

TaskKind = Literal["nli3", "binary", "relevance"]


@dataclass
class PairTask:
    name: str
    section: str
    kind: TaskKind
    pairs: list[tuple[str, str]]
    """(evidence, claim) -- or (passage, question) for relevance."""
    labels: list
    """nli3: 'entailment' | 'neutral' | 'contradiction'; binary/relevance: 1 or 0."""
    n_total: int
    source: str
    note: str = ""
    original_labels: list[str] = field(default_factory=list)


@dataclass
class AttributionItem:
    claims: list[str]
    contexts: list[str]
    label: int
    original_label: str


@dataclass
class AttributionTask:
    name: str
    section: str
    items: list[AttributionItem]
    n_total: int
    source: str
    note: str = ""
    aggregate: Literal["min"] = "min"

    @property
    def labels(self) -> list[int]:
        return [item.label for item in self.items]


def stratified_sample(
    labels: Sequence, k: int | None, seed: int = SEED, balanced: bool = False
) -> list[int]:
    """Indices of a label-stratified random sample of size ~k, in the original order.

    ``balanced=False``: every label keeps its share of the set (accuracy stays comparable to
    the full set). ``balanced=True``: labels share the sample as equally as their sizes allow,
    so a rare class is kept whole. Balanced accuracy and AUROC do not depend on the class
    mix, so for them this spends a fixed budget where the uncertainty is: on the rare class.
    """
    n = len(labels)
    if k is None or k >= n:
        return list(range(n))
    by_label: dict[object, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        by_label[label].append(i)
    counts = _balanced_counts(by_label, k) if balanced else _proportional_counts(by_label, k, n)
    rng = random.Random(seed)
    chosen: list[int] = []
    for lab, ix in sorted(by_label.items(), key=lambda kv: str(kv[0])):
        chosen.extend(rng.sample(ix, min(counts[lab], len(ix))))
    return sorted(chosen)


def _proportional_counts(by_label: dict, k: int, n: int) -> dict:
    # Largest-remainder allocation: quotas sum to k, and every label keeps at least one item.
    quotas = {lab: len(ix) * k / n for lab, ix in by_label.items()}
    counts = {lab: max(1, int(q)) for lab, q in quotas.items()}
    for lab in sorted(quotas, key=lambda x: quotas[x] - int(quotas[x]), reverse=True):
        if sum(counts.values()) >= k:
            break
        counts[lab] += 1
    return counts


def _balanced_counts(by_label: dict, k: int) -> dict:
    # Water-filling: equal shares; a label smaller than its share gives the rest to the others.
    counts: dict = {}
    left, open_labels = k, sorted(by_label, key=lambda lab: len(by_label[lab]))
    while open_labels:
        share = left // len(open_labels)
        lab = open_labels.pop(0)
        counts[lab] = min(len(by_label[lab]), share) if open_labels else min(len(by_label[lab]), left)
        left -= counts[lab]
    return counts


def _cap(name: str, limit: int | None) -> int | None:
    caps = [c for c in (SAMPLE_CAPS.get(name), limit) if c is not None]
    return min(caps) if caps else None


def _pair_task(
    name: str,
    section: str,
    kind: TaskKind,
    rows: list[tuple[str, str, object, str]],
    source: str,
    limit: int | None,
    note: str = "",
) -> PairTask:
    """rows: (evidence, claim, gold, original label)."""
    keep = stratified_sample([r[2] for r in rows], _cap(name, limit))
    return PairTask(
        name=name,
        section=section,
        kind=kind,
        pairs=[(rows[i][0], rows[i][1]) for i in keep],
        labels=[rows[i][2] for i in keep],
        original_labels=[rows[i][3] for i in keep],
        n_total=len(rows),
        source=source,
        note=note,
    )


def _tsv(path: Path) -> list[dict[str, str]]:
    # QUOTE_NONE: these RTE-style files contain bare double quotes inside the text.
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


ATTRIBUTIONBENCH_FILE = "attributionbench/dev_all_subset_balanced.noLFQA.jsonl"
"""AttributionBench's development split, under the meta-eval folder."""


def read_attributionbench(path: Path, limit: int | None = None) -> list[dict]:
    """Items ``{"text", "contexts", "label", "set"}``: each claim against the references it
    cites, ``set`` naming its source dataset; ``limit``: a class-balanced seeded sample."""
    items = []
    for r in _jsonl(path):
        refs = r["references"] if isinstance(r["references"], list) else [r["references"]]
        items.append({"text": r["claim"], "contexts": [str(x) for x in refs if str(x).strip()],
                      "label": int(r["attribution_label"] == "attributable"),
                      "set": f"attributionbench/{r['src_dataset']}"})
    if not limit or limit >= len(items):
        return items
    rng = random.Random(0)
    keep = []
    for label in (0, 1):
        pool = [i for i, it in enumerate(items) if it["label"] == label]
        keep += rng.sample(pool, min(len(pool), limit // 2))
    return [items[i] for i in sorted(keep)]


# ---------------------------------------------------------------- eval-only sets
def read_anli(data: Path, limit: int | None) -> PairTask:
    path = data / "eval-only/anli/generative-nli/anli_r1r2r3_test.jsonl"
    rows = [(r["premise"], r["hypothesis"], r["label"], r["tag"]) for r in _jsonl(path)]
    return _pair_task("anli/test", "eval_only", "nli3", rows, "ANLI v0.1 test R1+R2+R3", limit)


def read_climate_fever(data: Path, limit: int | None) -> PairTask:
    rows = []
    for claim in _jsonl(data / "eval-only/climate_fever/climate-fever.jsonl"):
        for ev in claim["evidences"]:
            label = ev["evidence_label"]
            rows.append((ev["evidence"], claim["claim"], int(label == "SUPPORTS"), label))
    return _pair_task(
        "climate_fever/pairs", "eval_only", "binary", rows,
        "Climate-FEVER claim vs each annotated Wikipedia sentence",
        limit, note="SUPPORTS = supported; REFUTES and NOT_ENOUGH_INFO = not supported",
    )


def _rte_rows(path: Path) -> list[tuple[str, str, int, str]]:
    rows = []
    for r in _tsv(path):
        values = list(r.values())  # header names differ by file (Sentence2 / sentence2 / label / entailment)
        evidence, claim, label = values[1], values[2], values[3]
        rows.append((evidence, claim, int(label == "entailment"), label))
    return rows


def read_covidfact(data: Path, limit: int | None) -> PairTask:
    rows = _rte_rows(data / "eval-only/covidfact/rte_covidfact_test1.tsv")
    return _pair_task(
        "covidfact/test", "eval_only", "binary", rows,
        "COVID-Fact RTE test1 (claim vs gold evidence sentences)", limit,
        note="entailment = supported; not_entailment (counter-claims) = not supported",
    )


def read_scifact(data: Path, limit: int | None) -> PairTask:
    folder = data / "eval-only/scifact"
    rows = _rte_rows(folder / "rte_scifact_dev.tsv") + _rte_rows(folder / "rte_scifact_train.tsv")
    return _pair_task(
        "scifact/train+dev", "eval_only", "binary", rows,
        "SciFact claim vs rationale sentences (RTE format, train+dev: never trained on)", limit,
    )


def read_healthver(data: Path, limit: int | None) -> PairTask:
    with (data / "eval-only/healthver/healthver_test.csv").open(encoding="utf-8", newline="") as fh:
        rows = [(r["evidence"], r["claim"], int(r["label"] == "Supports"), r["label"]) for r in csv.DictReader(fh)]
    return _pair_task(
        "healthver/test", "eval_only", "binary", rows, "HealthVer test (claim vs abstract evidence)",
        limit, note="Supports = supported; Refutes and Neutral = not supported",
    )


# ---------------------------------------------------------------- meta-eval sets
def read_sick(data: Path, limit: int | None) -> PairTask:
    rows = []
    for r in _tsv(data / "meta-eval/sick/SICK.txt"):
        if r["SemEval_set"] == "TEST":
            label = r["entailment_label"].lower()
            rows.append((r["sentence_A"], r["sentence_B"], label, label))
    return _pair_task("sick/test", "meta_eval", "nli3", rows, "SICK SemEval test, A -> B", limit)


def _wice_label(label: str) -> int:
    # As LLM-AggreFact does: only fully supported claims count as supported; a partially
    # supported claim states something the source does not back, which is what a RAG
    # faithfulness check must flag.
    return int(label == "supported")


_WICE_NOTE = "supported = supported; partially_supported and not_supported = not supported"


def _attribution_task(
    name: str, items: list[AttributionItem], source: str, limit: int | None, note: str = ""
) -> AttributionTask:
    keep = stratified_sample([it.label for it in items], _cap(name, limit), balanced=True)
    return AttributionTask(
        name=name, section="meta_eval", items=[items[i] for i in keep],
        n_total=len(items), source=source, note=note,
    )


def read_wice_oracle(data: Path, limit: int | None) -> AttributionTask:
    chunks: dict[str, list[str]] = defaultdict(list)
    first: dict[str, dict] = {}
    for r in _jsonl(data / "meta-eval/wice/oracle_chunks_claim/dev.jsonl"):
        key = r["meta"]["id"]
        first.setdefault(key, r)
        chunks[key].append("\n\n".join(r["evidence"]))
    items = [
        AttributionItem([r["claim"]], chunks[k], _wice_label(r["label"]), r["label"])
        for k, r in first.items()
    ]
    return _attribution_task(
        "wice/dev-oracle-chunks", items,
        "WiCE dev, claim vs its oracle evidence chunks (each chunk a context)", limit, _WICE_NOTE,
    )


def read_wice_article(data: Path, limit: int | None) -> AttributionTask:
    items = [
        # One context per cited article. Its lines (as extracted from the web page) are joined
        # by blank lines: many lack final punctuation ("Skip to content"), and a blank line is
        # where localeval's splitter ends a sentence, so windows keep the page's own units.
        AttributionItem([r["claim"]], ["\n\n".join(r["evidence"])], _wice_label(r["label"]), r["label"])
        for r in _jsonl(data / "meta-eval/wice/claim/dev.jsonl")
    ]
    return _attribution_task(
        "wice/dev-article", items, "WiCE dev, claim vs the whole cited article", limit, _WICE_NOTE,
    )


def _split(text: str, splitter: Callable[[str], list]) -> list[str]:
    claims = [s.text.strip() for s in splitter(text)]
    return [c for c in claims if c] or [text.strip()]


SUMMAC_SUBSETS = ("factcc", "polytope", "summeval", "xsumfaith")


def read_summac(data: Path, subset: str, limit: int | None, splitter: Callable[[str], list]) -> AttributionTask:
    raw = json.loads((data / f"meta-eval/summac/{subset}.json").read_text(encoding="utf-8"))
    items = [
        AttributionItem(_split(r["claim"], splitter), [r["document"]], int(r["label"]), str(r["label"]))
        for r in raw.values()
    ]
    return _attribution_task(
        f"summac/{subset}", items,
        f"SummaC benchmark {subset} (validation cut), document vs summary sentences", limit,
        note="label 1 = consistent summary; summary score = min over its sentences",
    )


def read_begin(data: Path, limit: int | None, splitter: Callable[[str], list]) -> AttributionTask:
    items = []
    for source, filename in (("wow", "begin_dev_wow.tsv"), ("topicalchat", "begin_dev_tc.tsv"), ("cmu-dog", "begin_dev_cmu.tsv")):
        for r in _tsv(data / "meta-eval/begin" / source / filename):
            label = r["begin_label"]
            items.append(
                AttributionItem(_split(r["response"], splitter), [r["knowledge"]], int(label == "Fully attributable"), label)
            )
    return _attribution_task(
        "begin/dev", items, "BEGIN dev (wow + topicalchat + cmu-dog), knowledge vs response sentences",
        limit, note="Fully attributable = supported; Not fully attributable and Generic = not supported",
    )


# ---------------------------------------------------------------- entry points
def load_eval_only(data: Path, limit: int | None = None) -> list[PairTask]:
    return [
        read_anli(data, limit),
        read_climate_fever(data, limit),
        read_covidfact(data, limit),
        read_healthver(data, limit),
        read_scifact(data, limit),
    ]


def load_meta_eval(
    data: Path, limit: int | None = None, splitter: Callable[[str], list] | None = None
) -> tuple[list[AttributionTask], list[PairTask]]:
    """(attribution tasks, pair tasks) of the meta-eval folder."""
    if splitter is None:
        from localeval.text import split_sentences as splitter  # the metrics' own splitter
    attribution = [read_wice_oracle(data, limit), read_wice_article(data, limit)]
    attribution += [read_summac(data, s, limit, splitter) for s in SUMMAC_SUBSETS]
    attribution.append(read_begin(data, limit, splitter))
    return attribution, [read_sick(data, limit)]
