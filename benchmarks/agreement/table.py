"""The agreement figures, as JSON sections and as a markdown table beside the peers' numbers.

Every figure is computed at the thresholds the judge ships with after the run (``final``: the
chosen ones when they were written, else the stored ones); ``CV`` columns are out-of-fold
figures of the cross-validated threshold choice (see `thresholds`).
"""

from __future__ import annotations

import numpy as np

from benchmarks.lib.metrics import auroc, balanced_accuracy
from benchmarks.agreement import ablation, answers, frank, ragbench
from benchmarks.agreement.run import PEERS
from benchmarks.agreement.scoring import graded_figures, pearson, rmse, spearman
from benchmarks.agreement.thresholds import share_at

__all__ = ["build_sections", "markdown"]


def _f(x, digits=3):
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "—"
    return f"{x:.{digits}f}"


def _pct(x):
    return "—" if x is None or not np.isfinite(x) else f"{100 * x:.1f}"


def _oof_slices(sets, oof: dict[str, list]) -> dict[tuple[str, str], np.ndarray]:
    """Out-of-fold verdicts of each (set, metric), cut from its family's pooled list."""
    out, offset = {}, {}
    for b in sets:
        start = offset.get(b.family, 0)
        out[(b.name, b.metric)] = np.asarray(oof[b.family][start:start + len(b.labels)], float)
        offset[b.family] = start + len(b.labels)
    return out


def _binary_row(name, metric, labels, stat, share, overlap, oof, floor_oof, n_total, peer="", extra=None) -> dict:
    return {
        "set": name, "metric": metric, "n": int(len(labels)), "n_total": n_total,
        "ba_final": round(balanced_accuracy(labels, share, 1.0), 4),  # every claim supported
        "ba_cv": round(balanced_accuracy(labels, oof, 0.5), 4),
        "auroc": round(auroc(labels, stat), 4),
        "floor_ba_cv": round(balanced_accuracy(labels, floor_oof, 0.5), 4),
        "floor_auroc": round(auroc(labels, overlap), 4),
        "peer": peer, **(extra or {}),
    }


def build_sections(state: dict, final: dict[str, float]) -> dict:
    rb, rbr = state["rb"], state["rb_results"]
    choice = state["choice"]
    sections: dict[str, list[dict]] = {"relevance": [], "completeness_utilization": [], "binary": [], "frank": [], "ablation": []}

    # ------------------------------------------------ RAGBench graded targets, per subset
    offset = 0
    for subset, (rows, n_total) in rb.items():
        n = len(rows)
        sl = slice(offset, offset + n)
        offset += n
        rel_res = rbr[subset]["context_relevance"]
        probs = [[s.probability for s in r.sentences] for r in rel_res]
        gold = ragbench.gold_arrays(rows, "relevance")
        ours = graded_figures(share_at(probs, final["context_relevance"]), gold)
        gpt = [(r.peers["gpt3_context_relevance"], r.relevance) for r in rows if "gpt3_context_relevance" in r.peers]
        sections["relevance"].append({
            "set": f"ragbench/{subset}", "n": n, "n_total": n_total, **ours,
            "rmse_cv": round(rmse(choice["context_relevance"]["oof_scores"][sl], gold), 4),
            "floor_overlap_rmse_cv": round(rmse(state["floor_rel"]["oof_scores"][sl], gold), 4),
            **{f"sentence_{k}": v for k, v in ragbench.sentence_prf(rows, rel_res, final["context_relevance"]).items()},
            "gpt35_rmse_these_rows": round(rmse(*zip(*gpt)), 4) if gpt else None,
            "gpt35_pearson_these_rows": _r(pearson(*zip(*gpt))) if gpt else None,
            "peer": PEERS["ragbench_relevance_rmse"],
        })
        # TRACe completeness and utilization, on localeval's sentences, at the stored thresholds
        comp = ragbench.gold_arrays(rows, "completeness")
        comp_res = rbr[subset]["trace_completeness"]
        ok = np.array([np.isfinite(g) and r.score is not None for g, r in zip(comp, comp_res)], bool)
        cr = np.array([r.score if r.score is not None else np.nan for r in comp_res])
        util_gold = ragbench.gold_arrays(rows, "utilization")
        # never None on RAGBench (every row has a context); 0.0 would be the used share of nothing
        util = np.array([r.score if r.score is not None else 0.0 for r in rbr[subset]["trace_utilization"]])
        gptu = [(r.peers["gpt35_utilization"], r.utilization) for r in rows if "gpt35_utilization" in r.peers]
        sections["completeness_utilization"].append({
            "set": f"ragbench/{subset}", "n": n,
            "completeness": graded_figures(cr[ok], comp[ok]), "completeness_n": int(ok.sum()),
            "completeness_unscored": int(sum(r.score is None for r in comp_res)),
            "utilization": graded_figures(util, util_gold),
            "utilization_floor_overlap_rmse_cv": round(rmse(state["floor_util"]["oof_scores"][sl], util_gold), 4),
            "gpt35_utilization_rmse_these_rows": round(rmse(*zip(*gptu)), 4) if gptu else None,
        })

    # ------------------------------------------------ binary: adherence per subset, WiCE, SummaC, BEGIN, FRANK
    fchoice = choice["faithfulness"]
    slices = _oof_slices(state["faith_sets"], fchoice["oof"])
    floor_slices = _oof_slices(state["faith_sets"], fchoice["floor"]["oof"])
    rslices = _oof_slices(state["recall_sets"], choice["context_recall"]["oof"])
    rfloor = _oof_slices(state["recall_sets"], choice["context_recall"]["floor"]["oof"])
    rbb = state["rb_binary"]
    offset = 0
    for subset, (rows, n_total) in rb.items():
        sl = slice(offset, offset + len(rows))
        offset += len(rows)
        labels = rbb.labels[sl]
        gpt = [r.peers.get("gpt3_adherence") for r in rows]
        gpt_auc = auroc(labels, gpt) if all(g is not None for g in gpt) else None
        sections["binary"].append(_binary_row(
            f"ragbench/{subset} (adherence)", "faithfulness", labels, rbb.stat[sl],
            _share(rbb, final["faithfulness"])[sl], rbb.overlap[sl], slices[("ragbench/all", "faithfulness")][sl],
            floor_slices[("ragbench/all", "faithfulness")][sl], n_total, PEERS["ragbench_adherence_auroc"],
            {"gpt35_auroc_these_rows": None if gpt_auc is None or not np.isfinite(gpt_auc) else round(gpt_auc, 4)},
        ))
    for b in state["binary_sets"] + [state["frank_set"]]:
        sl_model = rslices if b.metric == "context_recall" else slices
        sl_floor = rfloor if b.metric == "context_recall" else floor_slices
        peer = PEERS["wice"] if b.family == "wice" else PEERS.get(b.name, "")
        sections["binary"].append(_binary_row(
            b.name, b.metric, b.labels, b.stat, _share(b, final[b.metric]), b.overlap,
            sl_model[(b.name, b.metric)], sl_floor[(b.name, b.metric)], b.n_total, peer,
        ))

    # ------------------------------------------------ FRANK correlations with Factuality
    fr, rows = state["frank_set"], state["frank_rows"]
    fact = [r["Factuality"] for r in rows]
    ours = _share(fr, final["faithfulness"])
    sections["frank"].append({"metric": "localeval faithfulness (share of claims supported)", "n": len(rows),
                              "pearson": _r(pearson(ours, fact)), "spearman": _r(spearman(ours, fact))})
    sections["frank"].append({"metric": "localeval faithfulness (lowest claim probability)", "n": len(rows),
                              "pearson": _r(pearson(fr.stat, fact)), "spearman": _r(spearman(fr.stat, fact))})
    sections["frank"].append({"metric": "floor: word overlap (lowest claim share)", "n": len(rows),
                              "pearson": _r(pearson(fr.overlap, fact)), "spearman": _r(spearman(fr.overlap, fact))})
    for name, figs in frank.baseline_correlations(state["data"], rows).items():
        sections["frank"].append({"metric": f"FRANK baseline: {name}", **figs})

    # ------------------------------------------------ ablation pairs
    for subset, ab in state["ablation"].items():
        for metric in ablation.ABLATION_METRICS:
            full, abl = ab.full[metric], ab.ablated[metric]
            if metric == "context_recall":  # at the final threshold
                full = share_at(ab.cr_probs[0], final["context_recall"]).tolist()
                abl = share_at(ab.cr_probs[1], final["context_recall"]).tolist()
            sections["ablation"].append({
                "set": f"ragbench/{subset}", "metric": metric, **ablation.pairwise(full, abl),
                "floor_overlap_accuracy": ablation.pairwise(*ab.overlap[metric])["accuracy"],
            })
    sections["answers"] = state["answers"]
    return sections


def _share(b, t: float) -> np.ndarray:
    return b.share(t)


def _r(x):
    return None if x is None else round(x, 4)


# ====================================================================== markdown
def markdown(report: dict) -> str:
    s = report["sections"]
    th = report["thresholds"]
    lines = [
        "# Agreement with human (and GPT-4) labels",
        "",
        f"Judge `{report['model']}` (weights sha256 `{report['weights_sha256'][:12]}`), scored through "
        "`localeval.evaluate()` with metric objects, on the development splits in `meta-eval/`. "
        f"Run: `{report['command']}` ({report['elapsed_s']:.0f} s on {report['machine']['cpu_cores']} CPU cores, "
        f"{report['machine']['cpu']}; {report['machine']['date_utc']}). "
        "n = items used / in the split (seeded, stratified samples). Peers' numbers are published "
        "figures on the sets' *test* splits unless marked *these rows*; ours are on development data.",
        "",
        "## Thresholds (chosen by 5-fold cross-validation, stored with the judge)",
        "",
        "| metric key | before | chosen | agreement, out of fold (CV) | in sample | word-overlap floor (CV) |",
        "|---|---|---|---|---|---|",
    ]
    for key, c in th["choices"].items():
        if "families" in c:
            cv = "; ".join(f"{f} BA {_pct(v['ba_cv'])}" for f, v in c["families"].items())
            ins = "; ".join(f"{f} {_pct(v['ba_chosen_in_sample'])}" for f, v in c["families"].items())
            fl = "; ".join(f"{f} {_pct(v['ba_cv'])}" for f, v in c["floor"]["families"].items())
        else:
            cv = f"RMSE {_f(c['cv']['rmse'])}, Pearson {_f(c['cv']['pearson'])}"
            ins = f"RMSE {_f(c['chosen_in_sample']['rmse'])}"
            fl = (f"RMSE {_f(report['floors']['relevance_overlap_cv']['rmse'])} "
                  f"(always the mean: {_f(c['cv']['mean_floor_rmse'])})")
        lines.append(f"| `{key}` | {c['stored_before']:.4f} | {c['threshold']:.4f} | {cv} | {ins} | {fl} |")
    lines += ["", f"Thresholds in force for every figure below: {', '.join(f'`{k}` {v:.4f}' for k, v in th['final'].items())} "
              f"({'written to config.json by this run' if th['written'] else 'as stored in config.json; the chosen ones were not written'}).", ""]

    lines += [
        "## RAGBench: context relevance vs `relevance_score` (relevant sentences / sentences)",
        "",
        "| subset | n | RMSE | RMSE (CV) | Pearson | sentence P / R / F1 | floor: overlap RMSE (CV) | floor: always the mean | GPT-3.5 judge, these rows: RMSE / Pearson |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in s["relevance"]:
        lines.append(
            f"| {r['set']} | {r['n']}/{r['n_total']} | {_f(r['rmse'])} | {_f(r['rmse_cv'])} | {_f(r['pearson'])} | "
            f"{_f(r['sentence_precision'], 2)} / {_f(r['sentence_recall'], 2)} / {_f(r['sentence_f1'], 2)} | "
            f"{_f(r['floor_overlap_rmse_cv'])} | {_f(r['mean_floor_rmse'])} | {_f(r['gpt35_rmse_these_rows'])} / {_f(r['gpt35_pearson_these_rows'])} |"
        )
    lines += ["", f"Published (RAGBench test, relevance RMSE): {PEERS['ragbench_relevance_rmse']}.", ""]

    lines += [
        "## RAGBench: TRACe completeness (`trace_completeness`) and utilization (`trace_utilization`), sentence level",
        "",
        "Completeness over the rows both RAGBench and localeval score (n; localeval leaves a row unscored when no "
        "sentence is relevant). More figures (CV thresholds, both ways of counting a used sentence): "
        "benchmarks/results/trace.md.",
        "",
        "| subset | completeness n | completeness RMSE / Pearson | floor: mean | utilization RMSE / Pearson | floor: overlap RMSE (CV) | floor: mean | GPT-3.5 utilization RMSE, these rows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in s["completeness_utilization"]:
        c, u = r["completeness"], r["utilization"]
        lines.append(
            f"| {r['set']} | {r.get('completeness_n', '—')} | {_f(c['rmse'])} / {_f(c['pearson'])} | {_f(c['mean_floor_rmse'])} | {_f(u['rmse'])} / {_f(u['pearson'])} | "
            f"{_f(r['utilization_floor_overlap_rmse_cv'])} | {_f(u['mean_floor_rmse'])} | {_f(r['gpt35_utilization_rmse_these_rows'])} |"
        )

    lines += [
        "",
        "## Faithfulness and context recall as attribution (supported vs not)",
        "",
        "BA = balanced accuracy (%) of the metric's verdict \"every claim supported\" at the final "
        "threshold; CV = the same with thresholds chosen out of fold; AUROC of the lowest claim "
        "probability. Floor: word overlap (lowest share of a claim's content words found in the "
        "contexts), its threshold chosen by the same CV.",
        "",
        "| set | metric | n | BA | BA (CV) | AUROC | floor BA (CV) | floor AUROC | peers (published) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in s["binary"]:
        peer = r["peer"]
        if r.get("gpt35_auroc_these_rows") is not None:
            peer = f"GPT-3.5 these rows: AUROC {_f(r['gpt35_auroc_these_rows'])}; {peer}"
        lines.append(
            f"| {r['set']} | {r['metric']} | {r['n']}/{r['n_total']} | {_pct(r['ba_final'])} | {_pct(r['ba_cv'])} | "
            f"{_f(r['auroc'])} | {_pct(r['floor_ba_cv'])} | {_f(r['floor_auroc'])} | {peer} |"
        )

    lines += ["", "## FRANK (validation): correlation with the human factuality score", "",
              "Plain Pearson / Spearman over the same summaries for every row (the FRANK paper reports "
              "partial correlations controlling for the system, so its published values differ).", "",
              "| metric | n | Pearson | Spearman |", "|---|---|---|---|"]
    for r in s["frank"]:
        lines.append(f"| {r['metric']} | {r['n']} | {_f(r['pearson'])} | {_f(r['spearman'])} |")

    lines += ["", "## Ablation pairs (RAGBench): full row vs the row without the documents holding the relevant sentences", "",
              "Pairwise accuracy = share of pairs where the full row scores higher, ties counted one half.", "",
              "| set | metric | pairs | pairwise accuracy | full higher | ties | floor: word overlap |", "|---|---|---|---|---|---|---|"]
    for r in s["ablation"]:
        lines.append(f"| {r['set']} | {r['metric']} | {r['n']} | {_pct(r['accuracy'])} | {_pct(r['above'])} | {_pct(r['ties'])} | {_pct(r['floor_overlap_accuracy'])} |")
    lines.append("")
    if "answers" in s:  # results written before the answer-side metrics have none
        lines += answers.markdown_lines(s["answers"])
    return "\n".join(lines)
