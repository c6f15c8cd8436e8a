"""The answer-side metrics against the development labels that match them.

| label | localeval metric | how compared |
|---|---|---|
| RAGBench ``completeness_score`` (share of the relevant context information the response covers) | `FactualCorrectness(mode="recall")`, reference = the row's relevant sentences (GPT-4's keys, joined in document order) | RMSE, Pearson, Spearman |
| RAGBench ``adherence_score`` (bool: every response sentence supported) | `RAGChecker` figure ``faithfulness`` (same reference; response claims in some chunk / response claims) | AUROC; BA of "faithfulness = 1" |
| FRANK ``Factuality`` (graded) | `FactualCorrectness(mode="precision")`, response = summary, reference = article | Pearson, Spearman, RMSE |
| SummaC validation labels (bool) | the same, per subset | AUROC; BA of "precision = 1" |

Each sits beside two floors: word overlap (the share of a text's content words found in the
other: the reference's in the response for completeness, the response's in the contexts or
article for the others) and always predicting the mean label (RMSE) or chance (AUROC 0.5).

No development set here labels answer relevancy, semantic similarity or answer correctness
against a reference answer (RAGBench has no reference answers, and no answer-relevance
label), so those three are not in the table; RAGBench ``utilization_score`` (utilized context
sentences / context sentences) is measured by no new metric (context precision against the
response stays its proxy, in the main table).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.agreement import ragbench
from benchmarks.agreement.attribution import load_attribution_sets
from benchmarks.agreement.scoring import Harness, graded_figures, pearson, rmse, spearman
from benchmarks.lib.metrics import auroc, auroc_statistic, balanced_accuracy, paired_bootstrap_se
from benchmarks.lib.overlap import overlap_score

__all__ = ["RAGBENCH_ROWS", "relevant_reference", "score_answers", "markdown_lines"]


def relevant_reference(row: ragbench.RagbenchRow) -> str:
    """The row's relevant sentences (RAGBench keys), in document order: its reference."""
    parts = [ctx[a:b] for ctx, spans in zip(row.contexts, row.keys) for key, a, b in spans if key in row.relevant_keys]
    return " ".join(parts)


def _scores(results, figure: str = "score") -> np.ndarray:
    # An unscored row stays in, as 0 (never dropped): the count is reported beside.
    return np.array([getattr(r, figure) if getattr(r, figure) is not None else 0.0 for r in results], float)


def _unscored(results, figure: str = "score") -> int:
    return sum(getattr(r, figure) is None for r in results)


def _binary(labels, scores, floor) -> dict:
    labels = np.asarray(labels, int)
    return {"n": int(len(labels)), "auroc": _round(auroc(labels, scores)),
            "ba_all_supported": _round(balanced_accuracy(labels, (np.asarray(scores) >= 1.0).astype(float), 0.5)),
            "floor_overlap_auroc": _round(auroc(labels, floor))}


def graded_margin(gold, ours, floor) -> dict:
    """Pearson and RMSE of ``ours`` minus those of ``floor`` (``None``: the labels' mean), each
    ± one paired bootstrap standard error (`paired_bootstrap_se`, 1,000 resamples of rows)."""
    g, a = np.asarray(gold, float), np.asarray(ours, float)
    b = np.full(len(g), g.mean()) if floor is None else np.asarray(floor, float)
    stats = {"rmse": rmse} if floor is None else {"pearson": pearson, "rmse": rmse}
    se = paired_bootstrap_se(g, b, a, stats)
    return {name: _entry(stat(a, g), stat(b, g), se[name]) for name, stat in stats.items()}


def _entry(ours: float | None, floor: float | None, se: float | None) -> dict:
    margin = None if ours is None or floor is None else ours - floor
    return {"ours": _round(ours), "floor": _round(floor), "margin": _round(margin), "se": _round(se)}


def auroc_margin(labels, ours, floor) -> dict:
    """AUROC of ``ours`` minus the overlap floor's, ± one paired bootstrap standard error."""
    y, a, b = (np.asarray(x, float) for x in (labels, ours, floor))
    se = paired_bootstrap_se(y, b, a, {"auroc": auroc_statistic})
    return {"auroc": _entry(auroc_statistic(a, y), auroc_statistic(b, y), se["auroc"])}


def _round(x) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 4)


RAGBENCH_ROWS = 15
"""RAGBench rows per subset for the answer-side metrics (a fresh stratified sample, at most the
main table's cap): RAGChecker judges every claim of the response and of the reference against
every document (hundreds of pairs per row), so the main table's 25-50 rows per subset would
roughly double the run's time."""


def score_answers(harness: Harness, data: Path, caps: dict[str, int | None], frank_rows: list[dict]) -> dict:
    """Every answer-side figure: RAGBench per subset, FRANK, SummaC per subset."""
    out: dict[str, list[dict]] = {"ragbench": [], "summaries": [], "margins": []}
    # Pooled over subsets for the margins: (gold, ours, overlap floor) per target.
    pooled: dict[str, tuple[list, list, list]] = {k: ([], [], []) for k in ("completeness", "adherence", "summac")}
    rb = ragbench.load_ragbench(data, {s: min(c for c in (caps.get(f"ragbench/{s}"), RAGBENCH_ROWS) if c is not None)
                                       for s in ragbench.SUBSETS})
    for subset, (rows, _) in rb.items():
        samples = [{**r.sample(), "reference": relevant_reference(r)} for r in rows]
        recall = harness.score(samples, ["factual_recall"])["factual_recall"]
        checked = harness.score(samples, ["ragchecker"])["ragchecker"]
        comp = ragbench.gold_arrays(rows, "completeness")
        ok = np.isfinite(comp)
        floor = np.array([overlap_score(s["reference"], [s["response"]]) for s in samples])
        adherence = [r.adherence for r in rows]
        adherence_floor = [overlap_score(s["response"], s["retrieved_contexts"]) for s in samples]
        for target, parts in (("completeness", (comp[ok], _scores(recall)[ok], floor[ok])),
                              ("adherence", (adherence, _scores(checked, "faithfulness"), adherence_floor))):
            for acc, part in zip(pooled[target], parts):
                acc.extend(np.asarray(part, float).tolist())
        out["ragbench"].append({
            "set": f"ragbench/{subset}", "n": len(rows), "completeness_n": int(ok.sum()),
            "completeness": graded_figures(_scores(recall)[ok], comp[ok]) if ok.sum() > 1 else None,
            "completeness_floor_overlap": graded_figures(floor[ok], comp[ok]) if ok.sum() > 1 else None,
            "unscored": _unscored(recall),
            "adherence": _binary(adherence, _scores(checked, "faithfulness"), adherence_floor),
        })

    fact = np.array([r["Factuality"] for r in frank_rows], float)
    samples = [{"response": r["summary"], "reference": r["article"]} for r in frank_rows]
    precision = _scores(harness.score(samples, ["factual_precision"])["factual_precision"])
    floor = np.array([overlap_score(s["response"], [s["reference"]]) for s in samples])
    out["margins"] += [
        {"target": "FRANK Factuality", "ours": "factual_correctness precision", "floor": "word overlap", "n": len(fact),
         **graded_margin(fact, precision, floor)},
        {"target": "FRANK Factuality", "ours": "factual_correctness precision", "floor": "always the mean",
         "n": len(fact), **graded_margin(fact, precision, None)},
    ]
    out["summaries"].append({
        "set": "frank/valid", "n": len(frank_rows), **graded_figures(precision, fact),
        "floor_overlap": graded_figures(floor, fact),
        "auroc": _round(auroc((fact >= 1.0).astype(int), precision)),
    })
    for family, name, task in load_attribution_sets(data, caps):
        if family != "summac":
            continue
        samples = [{"response": " ".join(it.claims), "reference": " ".join(it.contexts)} for it in task.items]
        results = harness.score(samples, ["factual_precision"])["factual_precision"]
        floor = [overlap_score(s["response"], [s["reference"]]) for s in samples]
        for acc, part in zip(pooled["summac"], ([it.label for it in task.items], _scores(results), floor)):
            acc.extend(np.asarray(part, float).tolist())
        out["summaries"].append({"set": name, **_binary([it.label for it in task.items], _scores(results), floor),
                                 "pearson": _round(pearson(_scores(results), [it.label for it in task.items])),
                                 "spearman": _round(spearman(_scores(results), [it.label for it in task.items]))})
    gold, ours, floor = pooled["completeness"]
    out["margins"] += [
        {"target": "RAGBench completeness", "ours": "factual_correctness recall", "floor": "word overlap",
         "n": len(gold), **graded_margin(gold, ours, floor)},
        {"target": "RAGBench completeness", "ours": "factual_correctness recall", "floor": "always the mean",
         "n": len(gold), **graded_margin(gold, ours, None)},
    ]
    for target, name, ours_name in (("adherence", "RAGBench adherence", "ragchecker faithfulness"),
                                    ("summac", "SummaC (4 subsets)", "factual_correctness precision")):
        gold, ours, floor = pooled[target]
        out["margins"].append({"target": name, "ours": ours_name, "floor": "word overlap", "n": len(gold),
                               **auroc_margin(gold, ours, floor)})
    return out


def _f(x) -> str:
    return "—" if x is None else f"{x:.3f}"


def markdown_lines(section: dict) -> list[str]:
    lines = [
        "## Answer-side metrics (factual correctness, RAGChecker)",
        "",
        f"RAGBench (at most {RAGBENCH_ROWS} rows per subset): reference = the row's relevant sentences (GPT-4's keys). Completeness vs "
        "`factual_correctness` recall (reference claims the response states); adherence vs "
        "`ragchecker`'s faithfulness (AUROC; BA of \"faithfulness = 1\"). Floors: word overlap, "
        "always the mean (RMSE) / chance (AUROC 0.5). Unscored rows count as 0 and are listed.",
        "",
        "| subset | completeness RMSE / Pearson | floor: overlap RMSE / Pearson | floor: mean RMSE | adherence AUROC / BA | floor: overlap AUROC | unscored |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in section["ragbench"]:
        c, fl, a = r["completeness"] or {}, r["completeness_floor_overlap"] or {}, r["adherence"]
        lines.append(
            f"| {r['set']} ({r['n']}) | {_f(c.get('rmse'))} / {_f(c.get('pearson'))} | {_f(fl.get('rmse'))} / {_f(fl.get('pearson'))} | "
            f"{_f(c.get('mean_floor_rmse'))} | {_f(a['auroc'])} / {_f(a['ba_all_supported'])} | {_f(a['floor_overlap_auroc'])} | {r['unscored']} |"
        )
    lines += [
        "",
        "Summaries vs their source (`factual_correctness`, `mode=\"precision\"`: summary claims the article entails).",
        "",
        "| set | n | Pearson / Spearman | RMSE (floor: mean) | AUROC | BA (\"precision = 1\") | floor: overlap |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in section["summaries"]:
        floor = r.get("floor_overlap")
        floor_text = (f"Pearson {_f(floor['pearson'])}" if floor else f"AUROC {_f(r.get('floor_overlap_auroc'))}")
        lines.append(
            f"| {r['set']} | {r['n']} | {_f(r.get('pearson'))} / {_f(r.get('spearman'))} | "
            f"{_f(r.get('rmse'))} ({_f(r.get('mean_floor_rmse'))}) | {_f(r.get('auroc'))} | {_f(r.get('ba_all_supported'))} | {floor_text} |"
        )
    lines += _margin_lines(section.get("margins", []))
    return lines


def _margin_lines(margins: list[dict]) -> list[str]:
    """Pooled margins over the floors, ± one paired bootstrap SE."""
    if not margins:
        return [""]
    lines = [
        "",
        "Margins over the floors, pooled over the subsets above: ours minus floor, ± one paired bootstrap standard "
        "error (1,000 resamples of rows, seed 13). For RMSE a negative margin is better; for Pearson and AUROC a "
        "positive one. Beyond the noise: |margin| > 2 SE.",
        "",
        "| target | ours | floor | n | statistic | ours | floor | margin ± SE | beyond 2 SE |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in margins:
        for stat in ("pearson", "rmse", "auroc"):
            if stat not in m:
                continue
            f = m[stat]
            known = f["se"] is not None and f["margin"] is not None
            beyond = ("yes" if abs(f["margin"]) > 2 * f["se"] else "no") if known else "—"
            margin = f"{f['margin']:+.3f} ± {f['se']:.3f}" if known else "—"
            lines.append(f"| {m['target']} | {m['ours']} | {m['floor']} | {m['n']} | {stat} | {_f(f['ours'])} | "
                         f"{_f(f['floor'])} | {margin} | {beyond} |")
    return lines + [""]
