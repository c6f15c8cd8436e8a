"""Which definition of completeness localeval's judgements can reach: variants, out of fold.

``python -m benchmarks.agreement.trace_variants [--cache FILE]``: on the TRACe benchmark's
RAGBench rows (`benchmarks.agreement.trace`: the harness' seeded sample, n = 225), one pass
judges what every variant needs -- utilization as shipped (evidence sentences, judged at
faithfulness' threshold), the relevance of *every* sentence (``screen=False``, so a screen
can be replayed), and, for the sentences relevant at context relevance's threshold, whether
the response entails them -- and each variant of `trace_completeness` is then scored from
those numbers:

* ``shipped``: relevant = context relevance's verdicts (screen on), utilized = utilization's;
* ``coref screen``: the screen keeps for the judge a sentence that opens with a pronoun or
  determiner ("It", "This", "They", ...) and follows a kept sentence of the same context;
* ``relevance threshold (CV)``: relevant at a completeness-only P(relevant) threshold;
* ``used chunks only``: relevant sentences of the chunks the response drew on only;
* ``soft relevance``: relevant-and-used / relevant weighted by P(relevant);
* ``neighbours used (k)``: a sentence within k sentences of a utilized one in its context
  counts as utilized (k = "chunk": anywhere in the same context);
* ``relevant or used``: the utilized sentences count as relevant too;
* ``response entails it (CV)``: a relevant sentence also counts as utilized when the
  response entails it at a threshold chosen by CV (a study, not a metric: a response longer
  than the judge's input is truncated, with the judge's warning, not windowed).

Every threshold is chosen on the other folds (5-fold, the harness' folds), utilization's as
`benchmarks.agreement.trace` chooses it. Margins over the floors (always the mean; word
overlap, as in trace.md) with paired bootstrap standard errors. Writes
``benchmarks/results/trace_variants.{json,md}``. Nothing is written to the judge.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.agreement import ragbench
from benchmarks.agreement.run import _cap
from benchmarks.agreement.scoring import Harness, pearson, rmse
from benchmarks.agreement.thresholds import FOLDS, _best_rmse_threshold, folds_of
from benchmarks.agreement.trace import _oof, margin, overlap_completeness
from benchmarks.lib.cli import add_data_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
__all__ = ["VARIANTS", "main", "variant_figures"]

# A sentence opening like this usually speaks of the subject of the sentence before it.
_PRONOUN = re.compile(r"(It|Its|This|These|That|Those|They|Their|Them|He|She|His|Her|Such)\b")
_GRID = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.3, 0.4171, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
"""Candidate values of a variant's own threshold."""

Row = dict[str, np.ndarray]
Scorer = Callable[[Row, float, float, float], "float | None"]
"""A row's completeness at (utilization threshold, relevance threshold, the variant's own parameter)."""


def _share(used: np.ndarray, weights: np.ndarray) -> float | None:
    return None if weights.sum() == 0 else float((weights * used).sum() / weights.sum())


def _near(row: Row, used: np.ndarray, k: int | None) -> np.ndarray:
    """Sentences within k sentences of a used one in the same context (``None``: anywhere in it)."""
    if k is None:
        return np.isin(row["context"], row["context"][used])
    out = used.copy()
    for i in np.flatnonzero(used):
        for j in range(max(0, i - k), min(len(used), i + k + 1)):
            out[j] |= row["context"][j] == row["context"][i]
    return out


def _relevant(row: Row, t: float, screen: str = "screened") -> np.ndarray:
    return (~row[screen] & (row["relevance"] >= t)).astype(float)


def _used(row: Row, tu: float) -> np.ndarray:
    return row["used"] >= tu


def _in_used_chunks(row: Row, tu: float, rel: float) -> float | None:
    used = _used(row, tu)
    # a response that drew on no chunk is scored over every relevant sentence (0.0), as shipped
    chunks = _near(row, used, None) if used.any() else np.ones(len(used), bool)
    return _share(used, _relevant(row, rel) * chunks)


VARIANTS: dict[str, tuple[Scorer, bool]] = {
    # name -> (scorer, is its own parameter chosen by CV over _GRID?)
    "shipped": (lambda r, tu, rel, _: _share(_used(r, tu), _relevant(r, rel)), False),
    "coref screen": (lambda r, tu, rel, _: _share(_used(r, tu), _relevant(r, rel, "coref")), False),
    "relevance threshold (CV)": (lambda r, tu, rel, t: _share(_used(r, tu), _relevant(r, t)), True),
    "used chunks only": (lambda r, tu, rel, _: _in_used_chunks(r, tu, rel), False),
    "soft relevance": (lambda r, tu, rel, _: _share(_used(r, tu), np.where(~r["screened"], r["relevance"], 0.0)), False),
    "neighbours used (1)": (lambda r, tu, rel, _: _share(_near(r, _used(r, tu), 1), _relevant(r, rel)), False),
    "neighbours used (2)": (lambda r, tu, rel, _: _share(_near(r, _used(r, tu), 2), _relevant(r, rel)), False),
    "neighbours used (chunk)": (lambda r, tu, rel, _: _share(_near(r, _used(r, tu), None), _relevant(r, rel)), False),
    "relevant or used (CV)": (lambda r, tu, rel, t: _share(_used(r, tu), np.maximum(_relevant(r, t), _used(r, tu))), True),
    "response entails it (CV)": (lambda r, tu, rel, t: _share(_used(r, tu) | (r["entailed"] >= t), _relevant(r, rel)), True),
}


def sentence_table(rows, utilization, relevance, entailed: dict[tuple[int, int], float]) -> list[Row]:
    """Per row, per localeval sentence: what every variant reads."""
    from localeval.evidence.candidates import relevance_screen

    out = []
    for ri, (row, u, r) in enumerate(zip(rows, utilization, relevance)):
        assert [(s.context_index, s.start) for s in u.sentences] == [(s.context_index, s.start) for s in r.sentences]
        texts = [s.text for s in r.sentences]
        screened = np.array([why is not None for why in relevance_screen(row.question, texts)], bool)
        context = np.array([s.context_index for s in r.sentences], int)
        coref = screened.copy()
        for i in range(1, len(texts)):
            if screened[i] and not screened[i - 1] and context[i] == context[i - 1] and _PRONOUN.match(texts[i].lstrip()):
                coref[i] = False
        keys = [ragbench.key_spans(row, s.context_index, s.start, s.end) for s in r.sentences]
        out.append({
            "gold_relevant": np.array([bool(k & row.relevant_keys) for k in keys], bool),
            "gold_used": np.array([bool(k & row.utilized_keys) for k in keys], bool),
            "used": np.array([s.probability for s in u.sentences]), "relevance": np.array([s.probability for s in r.sentences]),
            "screened": screened, "coref": coref, "context": context,
            "entailed": np.array([entailed.get((ri, si), 0.0) for si in range(len(texts))]),
        })
    return out


def _predict(table: list[Row], ix, scorer: Scorer, tu: float, rel_t: float, param: float) -> np.ndarray:
    return np.array([np.nan if (s := scorer(table[i], tu, rel_t, param)) is None else s for i in ix], float)


def cv_variant(table: list[Row], util_gold: np.ndarray, comp_gold: np.ndarray, scorer: Scorer, tune: bool,
               rel_t: float) -> tuple[np.ndarray, list[float]]:
    """Out-of-fold completeness: utilization's threshold and the variant's own chosen on the
    other folds (its own by RMSE over the rows it scores there)."""
    folds = folds_of([0] * len(table), FOLDS)
    oof, chosen = np.full(len(table), np.nan), []
    for fold in range(FOLDS):
        train = np.flatnonzero(folds != fold)
        tu = _best_rmse_threshold([table[i]["used"] for i in train], util_gold[train])
        param = rel_t
        if tune:
            def error(p: float) -> float:
                pred = _predict(table, train, scorer, tu, rel_t, p)
                ok = np.isfinite(pred) & np.isfinite(comp_gold[train])
                return rmse(pred[ok], comp_gold[train][ok]) if ok.any() else np.inf
            param = min(_GRID, key=error)
        chosen.append(param)
        test = np.flatnonzero(folds == fold)
        oof[test] = _predict(table, test, scorer, tu, rel_t, param)
    return oof, chosen


def diagnostics(rows, table: list[Row], rel_t: float) -> dict:
    """Why completeness is hard here: localeval's used and relevant sentences beside RAGBench's
    (its keys mapped onto localeval's sentences), at utilization's threshold chosen on all rows."""
    tu = _best_rmse_threshold([t["used"] for t in table], ragbench.gold_arrays(rows, "utilization"))
    cat = {k: np.concatenate([t[k] for t in table]) for k in ("used", "relevance", "screened", "coref",
                                                              "gold_relevant", "gold_used")}
    ours_rel = ~cat["screened"] & (cat["relevance"] >= rel_t)
    rescued = cat["screened"] & ~cat["coref"]
    return {
        "sentences": int(len(ours_rel)), "used_per_row": round(float((cat["used"] >= tu).sum()) / len(table), 2),
        "gold_used_per_row": round(float(cat["gold_used"].sum()) / len(table), 2),
        "relevant": int(ours_rel.sum()), "gold_relevant": int(cat["gold_relevant"].sum()),
        "relevant_both": int((ours_rel & cat["gold_relevant"]).sum()),
        "coref_kept": int(rescued.sum()), "coref_kept_judged_relevant": int((rescued & (cat["relevance"] >= rel_t)).sum()),
        "coref_kept_gold_relevant": int((rescued & cat["gold_relevant"]).sum()),
    }


def variant_figures(rows, table: list[Row], rel_t: float) -> dict:
    util_gold = ragbench.gold_arrays(rows, "utilization")
    comp_gold = ragbench.gold_arrays(rows, "completeness")
    comp_overlap, _ = overlap_completeness(rows)
    floor = _oof(comp_overlap, comp_gold)
    out = {}
    for name, (scorer, tune) in VARIANTS.items():
        oof, chosen = cv_variant(table, util_gold, comp_gold, scorer, tune, rel_t)
        ok = np.isfinite(oof) & np.isfinite(comp_gold)
        r = pearson(oof[ok], comp_gold[ok])
        out[name] = {"n": int(ok.sum()), "rmse_cv": round(rmse(oof[ok], comp_gold[ok]), 4),
                     "pearson_cv": None if r is None else round(r, 4), "mean_prediction": round(float(oof[ok].mean()), 4),
                     "chosen": [round(float(c), 4) for c in chosen],
                     "mean": margin(comp_gold, oof, None), "overlap": margin(comp_gold, oof, floor)}
    return out


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = [
        "# TRACe completeness: variants, out of fold",
        "",
        f"Judge `{report['model']}`; RAGBench validation, the TRACe benchmark's rows (n = {report['rows']}); "
        f"`{report['command']}` ({report['elapsed_s']:.0f} s on {m['cpu_cores']} CPU cores, {m['cpu']}; {m['date_utc']}). "
        "Variants are defined in `benchmarks/agreement/trace_variants.py`. Every threshold chosen on the other folds "
        "(5-fold); margin = RMSE(variant) - RMSE(floor) over the rows both score, ± one paired bootstrap SE "
        "(1,000 resamples, seeded). Gold labels: mean "
        f"{report['gold_mean']:.3f}, {report['gold_ones']:.0%} of rows exactly 1.0.",
        "",
        "| variant | n | RMSE (CV) | Pearson (CV) | mean prediction | vs always the mean: margin ± SE | "
        "vs word overlap: margin ± SE (n) | own threshold per fold |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, v in report["variants"].items():
        mean, ov = v["mean"], v["overlap"]
        pc = "—" if v["pearson_cv"] is None else f"{v['pearson_cv']:.3f}"
        lines.append(
            f"| {name} | {v['n']} | {v['rmse_cv']:.3f} | {pc} | {v['mean_prediction']:.3f} | "
            f"{mean['rmse_margin']:+.3f} ± {mean['rmse_margin_se']:.3f} | "
            f"{ov['rmse_margin']:+.3f} ± {ov['rmse_margin_se']:.3f} ({ov['n']}) | "
            + ("—" if not VARIANTS[name][1] else ", ".join(f"{c:g}" for c in v["chosen"])) + " |")
    d = report["diagnostics"]
    lines += ["", f"Sentences ({d['sentences']}): localeval credits {d['used_per_row']} used sentences per row "
              f"(the evidence of each claim, at utilization's threshold) where RAGBench's labels mark {d['gold_used_per_row']}; "
              f"{d['relevant']} sentences are relevant for context relevance, {d['gold_relevant']} for RAGBench, "
              f"{d['relevant_both']} for both. The pronoun rule keeps {d['coref_kept']} screened sentences for the judge: "
              f"it calls {d['coref_kept_judged_relevant']} relevant, RAGBench {d['coref_kept_gold_relevant']}."]
    best = min(report["variants"].items(), key=lambda kv: kv[1]["mean"]["rmse_margin"])
    lines += ["", f"Closest to the mean floor: `{best[0]}`, {best[1]['mean']['rmse_margin']:+.3f} ± "
              f"{best[1]['mean']['rmse_margin_se']:.3f} RMSE above it; "
              + ("no variant beats both floors." if all(v["mean"]["rmse_margin"] >= 0 or v["overlap"]["rmse_margin"] >= 0
                                                       for v in report["variants"].values())
                 else "see the table for variants below both floors."), ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m benchmarks.agreement.trace_variants", description=__doc__.split("\n")[0])
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--limit-per-set", type=int, default=None, help="cap every subset at N rows (quick runs)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/trace_variants.json")
    p.add_argument("--cache", type=Path, default=None, help="SQLite verdict cache")
    args = p.parse_args(argv)

    from localeval.judge import get_judge
    from localeval.judge.cache import JudgementCache
    from localeval.metrics import ContextRelevance, TraceUtilization

    from benchmarks.lib.files import finite, write_results
    from benchmarks.lib.machine import describe_machine

    start = time.perf_counter()
    judge = get_judge(None)
    base = TraceUtilization(judge).judging_threshold()
    relevance = ContextRelevance(judge, level="sentence", screen=False)
    rel_t = relevance.resolved_threshold()
    harness = Harness(judge, {"u": TraceUtilization(judge, threshold=base), "r": relevance}, JudgementCache(args.cache))
    rb = ragbench.load_ragbench(args.data_dir, {s: _cap(f"ragbench/{s}", args.limit_per_set) for s in ragbench.SUBSETS})
    rows = [r for s in rb for r in rb[s][0]]
    got = harness.score([r.sample() for r in rows], ["u", "r"])
    # Does the response entail the sentence? Asked of the sentences relevant as shipped only
    # (the one variant that reads it keeps the shipped relevant set).
    where = [(ri, si) for ri, res in enumerate(got["r"]) for si, s in enumerate(res.sentences)
             if s.probability >= rel_t and rows[ri].response.strip()]
    probs = judge.entailment_probability([(rows[ri].response, got["r"][ri].sentences[si].text) for ri, si in where])
    table = sentence_table(rows, got["u"], got["r"], dict(zip(where, map(float, probs))))
    gold = ragbench.gold_arrays(rows, "completeness")
    report = finite({
        "command": "python -m benchmarks.agreement.trace_variants"
        + (f" --limit-per-set {args.limit_per_set}" if args.limit_per_set else ""),
        "model": judge.name, "machine": describe_machine(), "rows": len(rows),
        "gold_mean": float(np.nanmean(gold)), "gold_ones": float(np.nanmean(gold[np.isfinite(gold)] == 1.0)),
        "relevance_threshold": rel_t, "diagnostics": diagnostics(rows, table, rel_t),
        "variants": variant_figures(rows, table, rel_t),
    })
    report["elapsed_s"] = round(time.perf_counter() - start, 1)
    text = markdown(report)
    write_results(args.output, report, text)
    print(text)
    return report


if __name__ == "__main__":
    main()
