"""The markdown of `benchmarks.agreement.trace`'s results."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["markdown"]

_AGREEMENT = Path(__file__).resolve().parents[2] / "benchmarks/results/agreement.json"


def _f(x, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def replaced_proxies(path: Path = _AGREEMENT) -> dict[str, dict]:
    """Per subset, the RMSE of the chunk-level proxies these metrics replaced, from an agreement
    run made before the replacement (same rows); ``{}`` once the file holds the new metrics."""
    try:
        sections = json.loads(path.read_text())["sections"]["completeness_utilization"]
    except (OSError, KeyError, ValueError):
        return {}
    if any("completeness_unscored" in r for r in sections):  # already the TRACe metrics
        return {}
    return {r["set"].split("/", 1)[1]: {"utilization_rmse": r["utilization"]["rmse"],
                                        "completeness_rmse": r["completeness"]["rmse"]} for r in sections}


_FLOORS = {"overlap": "word overlap (CV)", "mean": "always the mean"}


def _verdict(m: dict) -> str:
    """Plain words for a margin: better / worse than the floor, and whether beyond the noise."""
    side = "below (better than)" if m["rmse_margin"] < 0 else "above (worse than)"
    noise = "outside the noise (|margin| > 2 SE)" if m["outside_noise"] else "within the noise (|margin| <= 2 SE)"
    return f"{side} the floor, {noise}"


def _margin_lines(margins: dict) -> list[str]:
    """The margins table and one sentence per (metric, floor)."""
    if not margins:
        return []
    lines = [
        "## Margins over the floors (out of fold)",
        "",
        "Margin = RMSE(ours) - RMSE(floor) (negative: ours is better) and Pearson(ours) - Pearson(floor), over the "
        "rows both score; ± one paired bootstrap standard error (1,000 resamples of rows, seed 13, "
        "`benchmarks.lib.metrics.paired_bootstrap_se`). Ours and the overlap floor are out of fold (5-fold, as above); "
        "the mean floor predicts the labels' mean over those rows (in sample, so it is a stiff floor; its Pearson is "
        "undefined).",
        "",
        "| target | ours | floor | n | RMSE ours | RMSE floor | RMSE margin ± SE | Pearson margin ± SE | beyond 2 SE |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    text = []
    for target, entry in margins.items():
        ours = entry["ours"]
        for floor, m in ((k, v) for k, v in entry.items() if k in _FLOORS):
            pm = (f"{m['pearson_margin']:+.3f} ± {m['pearson_margin_se']:.3f}" if "pearson_margin" in m else "—")
            lines.append(f"| {target} | {ours} | {_FLOORS[floor]} | {m['n']} | {m['rmse']:.3f} | {m['floor_rmse']:.3f} | "
                         f"{m['rmse_margin']:+.3f} ± {m['rmse_margin_se']:.3f} | {pm} | {'yes' if m['outside_noise'] else 'no'} |")
            text.append(f"- {target} (`{ours}`) vs {_FLOORS[floor]}: RMSE {m['rmse']:.3f} vs {m['floor_rmse']:.3f}, "
                        f"margin {m['rmse_margin']:+.3f} ± {m['rmse_margin_se']:.3f}: {_verdict(m)}.")
    return lines + ["", *text, ""]


def markdown(report: dict) -> str:
    f = report["figures"]
    m = report["machine"]
    th = report["thresholds"]
    lines = [
        "# RAGBench TRACe: sentence-level utilization and completeness",
        "",
        f"Judge `{report['model']}` (weights sha256 `{report['weights_sha256'][:12]}`), scored through "
        f"`localeval.evaluate()` on RAGBench validation rows (the agreement harness' seeded, stratified "
        f"sample). Run: `{report['command']}` ({report['elapsed_s']:.0f} s on {m['cpu_cores']} CPU cores, "
        f"{m['cpu']}; {m['date_utc']}).",
        "",
        "Gold: RAGBench's GPT-4 sentence labels, `utilization_score` = utilized sentences / sentences, "
        "`completeness_score` = relevant and utilized / relevant (rows whose completeness label is empty are "
        "left out). Ours: `trace_utilization` and `trace_completeness` on localeval's own sentences. "
        f"RMSE / Pearson: at faithfulness' stored threshold (utilized at P(entailment) >= {th['utilization']:.4f}); "
        f"relevant at P(relevant) >= {th['relevance']:.4f} (context relevance's) throughout. "
        "CV: the utilization threshold chosen on the other 4 folds (5-fold), figures out of fold; "
        "\"CV threshold\" is the one chosen on all rows"
        + (f", written to the judge's config.json as `trace_utilization` ({report['written']['trace_utilization']:.4f}) "
           "and used by the metrics by default." if report.get("written") else " (not written)."),
        "",
        "## Pooled",
        "",
        "| target | ours | n | RMSE | Pearson | Spearman | RMSE (CV) | Pearson (CV) | CV threshold | floor: overlap RMSE (CV) | floor: always the mean |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = (("utilization", "trace_utilization, used=evidence", "utilization_evidence", "floor_utilization_overlap"),
            ("utilization", "trace_utilization, used=entailing", "utilization_entailing", "floor_utilization_overlap"),
            ("completeness", "trace_completeness, used=evidence", "completeness", "floor_completeness_overlap"),
            ("completeness", "trace_completeness, used=entailing", "completeness_entailing", "floor_completeness_overlap"))
    for target, name, key, floor in rows:
        x, fl = f[key], f[floor]
        lines.append(
            f"| {target} | {name} | {x['n']} | {_f(x['at_stored']['rmse'])} | {_f(x['at_stored']['pearson'])} | "
            f"{_f(x['at_stored']['spearman'])} | {_f(x['cv']['rmse'])} | {_f(x['cv']['pearson'])} | {x['cv_threshold']:.4f} | "
            f"{_f(fl['cv']['rmse'])} (n {fl['n']}) | {_f(x['at_stored']['mean_floor_rmse'])} |"
        )
    c = f["completeness"]
    shipped = c.get("at_utilization_threshold_cv")
    lines += [
        "",
        *([f"Completeness as shipped (utilized at utilization's threshold, chosen on the other folds): "
           f"RMSE (CV) {_f(shipped['rmse'])}, Pearson {_f(shipped['pearson'])} (n {c['n']}). The completeness rows' "
           "own CV threshold is the best any threshold does for completeness.", ""] if shipped else []),
        f"Completeness: {c['n_unscored']} rows unscored by us (no sentence judged relevant: `None` with a reason), "
        f"{c['n_gold_missing']} rows without a RAGBench label; figures are over the {c['n']} rows both give. "
        f"Overlap floor for completeness: relevant when the sentence holds >= "
        f"{f['floor_completeness_overlap']['relevance_overlap_threshold']:.3f} of the question's content words "
        "(the relevance floor's CV threshold), used as for utilization. Other definitions of completeness, "
        "each out of fold against the same floors: [trace_variants.md](trace_variants.md).",
        "",
        *_margin_lines(f.get("margins") or {}),
        "## Per subset (`used=evidence`; RMSE at faithfulness' threshold, RMSE (CV) out of fold)",
        "",
        "| subset | n | utilization RMSE / RMSE (CV) / Pearson | floor: overlap (CV) / mean | replaced proxy RMSE (ContextPrecision response) | "
        "completeness n | completeness RMSE / RMSE (CV) / Pearson | floor: overlap (CV) / mean | replaced proxy RMSE (ChunkRecall) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    proxies = report.get("replaced_proxies") or {}
    u, fu, fc = f["utilization_evidence"], f["floor_utilization_overlap"], f["floor_completeness_overlap"]
    for subset, us in u["subsets"].items():
        cs, fus, fcs = c["subsets"].get(subset, {}), fu["subsets"][subset], fc["subsets"].get(subset, {})
        px = proxies.get(subset, {})
        lines.append(
            f"| {subset} | {us['n']}/{report['n_total'][subset]} | {_f(us['rmse'])} / {_f(us['rmse_cv'])} / {_f(us['pearson'])} | "
            f"{_f(fus['rmse_cv'])} / {_f(us['mean_floor_rmse'])} | {_f(px.get('utilization_rmse'))} | "
            f"{cs.get('n', 0)} | {_f(cs.get('rmse'))} / {_f(cs.get('rmse_cv'))} / {_f(cs.get('pearson'))} | "
            f"{_f(fcs.get('rmse_cv'))} / {_f(cs.get('mean_floor_rmse'))} | {_f(px.get('completeness_rmse'))} |"
        )
    lines += ["", "Replaced proxies: the chunk-level figures of the last full agreement run "
              "(`benchmarks/results/agreement.json`, same rows), kept for comparison.", ""]
    return "\n".join(lines)
