"""RAGBench's TRACe utilization and completeness, against localeval's sentence-level metrics.

``python -m benchmarks.agreement.trace``: the RAGBench part of the agreement harness only
(the same rows: `benchmarks.agreement.run.CAPS`, seeded and stratified), scoring
``trace_utilization`` and ``trace_completeness`` (both ways of counting a used sentence)
through `localeval.evaluate()` with one verdict cache, and writing
``benchmarks/results/trace.{json,md}``. ``--write-threshold`` stores the utilization threshold
chosen on all of these rows under ``trace_utilization`` in the judge's config.json (the figures
reported for it are the out-of-fold ones).

Figures per subset and pooled: RMSE and Pearson at the thresholds stored with the judge, and
out of fold (a utilization threshold chosen by 5-fold CV on the other folds, RMSE); floors:
always the mean, and word overlap (a sentence is used when the response repeats a share of
its content words >= t, t chosen by the same CV; for completeness, relevant when it holds a
share of the question's content words >= the relevance floor's CV threshold).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.lib.cli import add_data_dir, add_judge
from benchmarks.lib.files import portable_path
from benchmarks.lib.metrics import paired_bootstrap_se

from benchmarks.agreement import ragbench
from benchmarks.agreement.run import _cap
from benchmarks.agreement.scoring import Harness, graded_figures, pearson, rmse
from benchmarks.agreement.thresholds import FOLDS, _best_rmse_threshold, cv_graded, folds_of, share_at

REPO_ROOT = Path(__file__).resolve().parents[2]
__all__ = ["main", "margin", "overlap_completeness", "trace_figures"]


def _probs(results, relevant_only: bool = False) -> list[list[float] | None]:
    """Per row, the utilized-probability of each sentence (of each relevant one); ``None`` for
    an unscored row (completeness: no relevant sentence)."""
    out: list[list[float] | None] = []
    for r in results:
        if r.score is None:
            out.append(None)
            continue
        out.append([s.probability for s in r.sentences if s.relevant or not relevant_only])
    return out


def _figures(probs: list[list[float] | None], gold: np.ndarray, stored: float, subsets: list[str]) -> dict:
    """Pooled and per-subset figures over rows both scored by us and labelled (finite gold)."""
    keep = [i for i, p in enumerate(probs) if p is not None and np.isfinite(gold[i])]
    p = [probs[i] for i in keep]
    g = gold[keep]
    cv = cv_graded(p, g, stored)
    at_stored = share_at(p, stored)
    oof = np.asarray(cv["oof_scores"])
    per = {}
    for subset in dict.fromkeys(subsets):
        ix = [j for j, i in enumerate(keep) if subsets[i] == subset]
        per[subset] = {"n": len(ix), **graded_figures(at_stored[ix], g[ix]), "rmse_cv": round(rmse(oof[ix], g[ix]), 4)}
    return {
        "n": len(keep), "n_unscored": sum(1 for x in probs if x is None),
        "n_gold_missing": int((~np.isfinite(gold)).sum()),
        "stored_threshold": stored, "at_stored": graded_figures(at_stored, g),
        "cv_threshold": cv["threshold"], "cv": cv["cv"], "subsets": per,
    }


def _oof(probs: list[list[float] | None], gold: np.ndarray) -> np.ndarray:
    """Per row, the out-of-fold score `_figures` reports (threshold chosen by `cv_graded` on
    the other folds); NaN where we or the label give none."""
    keep = [i for i, p in enumerate(probs) if p is not None and np.isfinite(gold[i])]
    out = np.full(len(gold), np.nan)
    out[keep] = cv_graded([probs[i] for i in keep], gold[keep], 0.5)["oof_scores"]
    return out


def margin(gold: np.ndarray, ours: np.ndarray, floor: np.ndarray | None) -> dict:
    """RMSE(ours) - RMSE(floor) and Pearson(ours) - Pearson(floor) over the rows both score,
    with paired bootstrap standard errors (`paired_bootstrap_se`: 1,000 resamples of rows,
    seeded). ``floor=None``: always the mean (the labels' mean on those rows; its Pearson is
    undefined). A margin is outside the noise when it is more than two standard errors from 0."""
    ok = np.isfinite(gold) & np.isfinite(ours) & (np.ones(len(gold), bool) if floor is None else np.isfinite(floor))
    g, a = gold[ok], ours[ok]
    b = np.full(len(g), g.mean()) if floor is None else floor[ok]
    se = paired_bootstrap_se(g, b, a, {"rmse": rmse, "pearson": pearson})
    out: dict = {"n": int(ok.sum()), "rmse": round(rmse(a, g), 4), "floor_rmse": round(rmse(b, g), 4),
                 "rmse_margin": round(rmse(a, g) - rmse(b, g), 4), "rmse_margin_se": round(se["rmse"], 4)}
    ra, rb = pearson(a, g), pearson(b, g)
    if ra is not None and rb is not None and se["pearson"] is not None:
        out |= {"pearson_margin": round(ra - rb, 4), "pearson_margin_se": round(se["pearson"], 4)}
    out["outside_noise"] = abs(out["rmse_margin"]) > 2 * out["rmse_margin_se"]
    return out


def overlap_completeness(rows) -> tuple[list[list[float] | None], float]:
    """The word-overlap floor for completeness: per row, the utilization overlap of each
    sentence holding >= t of the question's content words (t: the relevance floor's CV
    threshold; ``None`` when none does), and t."""
    util_overlap = [ragbench.overlap_utilization_probs(r) for r in rows]
    rel_overlap = [ragbench.overlap_sentence_probs(r) for r in rows]
    t_rel = cv_graded(rel_overlap, [r.relevance for r in rows], 0.5)["threshold"]
    return [[u for u, q in zip(us, qs) if q >= t_rel] or None for us, qs in zip(util_overlap, rel_overlap)], t_rel


def trace_figures(rows, subsets, results: dict[str, list], thresholds: dict[str, float]) -> dict:
    util_gold = np.array([r.utilization for r in rows], float)
    comp_gold = np.array([r.completeness for r in rows], float)
    out = {
        "utilization_evidence": _figures(_probs(results["trace_utilization"]), util_gold,
                                         thresholds["utilization"], subsets),
        "utilization_entailing": _figures(_probs(results["trace_utilization_entailing"]), util_gold,
                                          thresholds["utilization"], subsets),
        "completeness": _figures(_probs(results["trace_completeness"], relevant_only=True), comp_gold,
                                 thresholds["utilization"], subsets),
        "completeness_entailing": _figures(_probs(results["trace_completeness_entailing"], relevant_only=True),
                                           comp_gold, thresholds["utilization"], subsets),
    }
    # Completeness as shipped: "utilized" at utilization's threshold, here the one chosen for
    # utilization on the other folds (out of fold, as the utilization figures).
    util_probs = _probs(results["trace_utilization"])
    comp_probs = _probs(results["trace_completeness"], relevant_only=True)
    folds = folds_of([0] * len(rows), FOLDS)
    pred = np.full(len(rows), np.nan)
    for fold in range(FOLDS):
        train = [i for i in range(len(rows)) if folds[i] != fold and util_probs[i] is not None]
        t = _best_rmse_threshold([util_probs[i] for i in train], util_gold[train])
        for i in range(len(rows)):
            if folds[i] == fold and comp_probs[i] is not None:
                pred[i] = share_at([comp_probs[i]], t)[0]
    ok = np.isfinite(pred) & np.isfinite(comp_gold)
    out["completeness"]["at_utilization_threshold_cv"] = graded_figures(pred[ok], comp_gold[ok])
    # floors: word overlap, thresholds by the same CV
    util_overlap = [ragbench.overlap_utilization_probs(r) for r in rows]
    out["floor_utilization_overlap"] = _figures(util_overlap, util_gold, 0.5, subsets)
    comp_overlap, t_rel = overlap_completeness(rows)
    out["floor_completeness_overlap"] = _figures(comp_overlap, comp_gold, 0.5, subsets)
    out["floor_completeness_overlap"]["relevance_overlap_threshold"] = t_rel
    # Margins over the floors, out of fold, with paired bootstrap standard errors.
    util_oof = _oof(util_probs, util_gold)
    out["margins"] = {
        "utilization": {"ours": "trace_utilization, used=evidence",
                        "overlap": margin(util_gold, util_oof, _oof(util_overlap, util_gold)),
                        "mean": margin(util_gold, util_oof, None)},
        "completeness": {"ours": "trace_completeness as shipped",
                         "overlap": margin(comp_gold, pred, _oof(comp_overlap, comp_gold)),
                         "mean": margin(comp_gold, pred, None)},
    }
    # the chunk-level proxies these metrics replace are not rescored here (see agreement.md)
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m benchmarks.agreement.trace", description=__doc__.split("\n")[0])
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--limit-per-set", type=int, default=None, help="cap every subset at N rows (quick runs)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/trace.json")
    add_judge(p)
    p.add_argument("--cache", type=Path, default=None,
                   help="SQLite verdict cache: a re-run judges only pairs it has not seen (changing the judge's "
                        "config.json starts a new one)")
    p.add_argument("--write-threshold", action="store_true",
                   help="store the chosen trace_utilization threshold in the judge's config.json (full runs only)")
    args = p.parse_args(argv)
    if args.write_threshold and args.limit_per_set is not None:
        p.error("--write-threshold needs a full run")

    from localeval.judge import get_judge
    from localeval.judge.cache import JudgementCache
    from localeval.metrics import TraceCompleteness, TraceUtilization

    from benchmarks.agreement.trace_table import markdown, replaced_proxies
    from localeval.training.export import store_thresholds

    from benchmarks.lib.files import finite, write_results
    from benchmarks.lib.machine import describe_machine, weights_sha256

    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    start = time.perf_counter()
    judge = get_judge(args.model)
    # As shipped (early acceptance at faithfulness' threshold: probabilities below it are exact,
    # so the CV over thresholds below it is too); "entailing" judges every chosen unit anyway.
    # Each is given the threshold faithfulness decides at, so the figures "at the stored
    # threshold" are those of the decision before a utilization threshold was chosen.
    base = TraceUtilization(judge).judging_threshold()
    harness = Harness(judge, {
        "trace_utilization": TraceUtilization(judge, threshold=base),
        "trace_completeness": TraceCompleteness(judge, threshold=base),
        "trace_utilization_entailing": TraceUtilization(judge, used="entailing", exhaustive=True, threshold=base),
        "trace_completeness_entailing": TraceCompleteness(judge, used="entailing", exhaustive=True, threshold=base),
    }, JudgementCache(args.cache))
    rb = ragbench.load_ragbench(args.data_dir, {s: _cap(f"ragbench/{s}", args.limit_per_set) for s in ragbench.SUBSETS})
    rows, subsets, results = [], [], {k: [] for k in harness.metrics}
    timings = {}
    for subset, (sub_rows, _) in rb.items():
        t0 = time.perf_counter()
        samples = [r.sample() for r in sub_rows]
        got = harness.score(samples, ["trace_utilization", "trace_completeness"])
        # its own call: it shares the metric name with the evidence one
        got |= harness.score(samples, ["trace_utilization_entailing", "trace_completeness_entailing"])
        for k in results:
            results[k] += got[k]
        rows += sub_rows
        subsets += [subset] * len(sub_rows)
        timings[subset] = round(time.perf_counter() - t0, 1)
        log(f"ragbench/{subset}: {len(sub_rows)} rows, {timings[subset]} s")
    thresholds = {"utilization": base,
                  "relevance": harness.metrics["trace_completeness"].resolved_threshold("relevance")}
    figures = trace_figures(rows, subsets, results, thresholds)
    report = finite({
        "command": "python -m benchmarks.agreement.trace" + (f" --limit-per-set {args.limit_per_set}" if args.limit_per_set else "")
        + (f" --model {args.model}" if args.model else "") + (" --write-threshold" if args.write_threshold else ""),
        "model": judge.name, "weights_sha256": weights_sha256(judge.path), "machine": describe_machine(),
        "elapsed_s": round(time.perf_counter() - start, 1), "timings_s": timings,
        "n_total": {s: n for s, (_, n) in rb.items()}, "thresholds": thresholds, "figures": figures,
        "replaced_proxies": replaced_proxies(),
        "written": {"trace_utilization": figures["utilization_evidence"]["cv_threshold"]} if args.write_threshold else {},
    })
    if args.write_threshold:
        store_thresholds(judge.path, report["written"])
    text = markdown(report)
    write_results(args.output, report, text)
    print(text)
    log(f"wrote {portable_path(args.output)} and {portable_path(args.output.with_suffix('.md'))}")
    return report


if __name__ == "__main__":
    main()
