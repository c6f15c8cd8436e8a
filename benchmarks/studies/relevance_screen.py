"""The context-relevance screen: how many sentences it decides without the judge, and agreement.

    python -m benchmarks.studies.relevance_screen [--cache /tmp/localeval-screen.sqlite]

On the RAGBench validation rows the agreement harness uses for context relevance (its loader,
its seeded samples and caps), every sentence is judged once (``ContextRelevance(screen=False)``).
Each screen setting (`localeval.evidence.candidates.relevance_screen`: ``max_overlap``,
``min_question_words``) then sets its screened sentences to probability 0 -- exactly what the
metric reports for them -- and the harness's figures are recomputed against the labels:

* RMSE and Pearson of the score (share of relevant sentences) vs ``relevance_score``, at the
  stored threshold and out of fold (`cv_graded`, as the harness chooses the threshold);
* sentence precision / recall / F1 of the relevant sentence keys (`sentence_prf`);
* the share of sentences screened, and how many screened sentences the labels call relevant
  or utilized (the response used them), or the judge would have called relevant.

The standard error of the RMSE change vs judging everything is a paired bootstrap over rows
(1,000 resamples, fixed seed). A setting loses no agreement when its RMSE is not more than one
standard error above judging everything, at the stored threshold and out of fold, its Pearson
not more than one standard error (of its change) below, and its sentence F1 not more than
``F1_TOLERANCE`` below.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from benchmarks.agreement import ragbench
from benchmarks.agreement.run import CAPS
from benchmarks.agreement.scoring import Harness, pearson, rmse
from benchmarks.agreement.thresholds import cv_graded, share_at
from benchmarks.lib.cli import add_data_dir
from benchmarks.lib.files import REPO_ROOT, command_line, publish
from benchmarks.lib.machine import describe_machine
from benchmarks.lib.metrics import paired_bootstrap_se

__all__ = ["SETTINGS", "study"]

SETTINGS: list[tuple[float, int] | None] = [None, (0.0, 1), (0.0, 2), (0.0, 3), (0.15, 2), (0.2, 2), (0.25, 2), (0.34, 2)]
"""(max_overlap, min_question_words); None = no screen (every sentence judged)."""
F1_TOLERANCE = 0.02
"""Largest drop of sentence F1 (relevant keys) that still counts as no loss."""


class _Screened:
    """A result stand-in with the screened sentences at probability 0 (for `sentence_prf`)."""

    def __init__(self, result, probs):
        self.sentences = [s.model_copy(update={"probability": p}) for s, p in zip(result.sentences, probs)]


def _bootstrap_se(gold: np.ndarray, base: np.ndarray, other: np.ndarray) -> tuple[float, float]:
    """Paired bootstrap standard errors of the RMSE change and of the Pearson change."""
    se = paired_bootstrap_se(gold, base, other, {"rmse": rmse, "pearson": pearson})
    return se["rmse"] or 0.0, se["pearson"] or 0.0


def study(data: Path, cache_path: Path, log=print) -> dict:
    from localeval.judge import get_judge
    from localeval.judge.cache import JudgementCache
    from localeval.evidence.candidates import relevance_screen
    from localeval.metrics import ContextRelevance

    judge = get_judge(None)
    stored = float(judge.thresholds.get("context_relevance", judge.thresholds["relevance"]))
    rb = ragbench.load_ragbench(data, {s: CAPS.get(f"ragbench/{s}") for s in ragbench.SUBSETS})
    rows = [r for s in rb for r in rb[s][0]]
    harness = Harness(judge, {"context_relevance": ContextRelevance(judge, level="sentence", screen=False)},
                      JudgementCache(cache_path))
    results = harness.score([r.sample() for r in rows], ["context_relevance"])["context_relevance"]
    gold = ragbench.gold_arrays(rows, "relevance")
    full = [[s.probability for s in res.sentences] for res in results]
    base_scores = share_at(full, stored)
    out = []
    for setting in SETTINGS:
        probs, screened, gold_rel, gold_used, judge_rel = [], 0, 0, 0, 0
        for row, res, p in zip(rows, results, full):
            if setting is None:
                probs.append(p)
                continue
            max_overlap, min_words = setting
            why = relevance_screen(row.question, [s.text for s in res.sentences], max_overlap=max_overlap,
                                   min_question_words=min_words)
            kept = []
            for s, prob, reason in zip(res.sentences, p, why):
                if reason is None:
                    kept.append(prob)
                    continue
                kept.append(0.0)
                screened += 1
                keys = ragbench.key_spans(row, s.context_index, s.start, s.end)
                gold_rel += bool(keys & row.relevant_keys)
                gold_used += bool(keys & row.utilized_keys)
                judge_rel += prob >= stored
            probs.append(kept)
        scores = share_at(probs, stored)
        cv = cv_graded(probs, gold, stored)
        total = sum(len(p) for p in full)
        entry = {
            "setting": "none" if setting is None else {"max_overlap": setting[0], "min_question_words": setting[1]},
            "sentences": total, "screened": screened, "screened_share": round(screened / total, 4),
            "screened_gold_relevant": gold_rel, "screened_gold_utilized": gold_used,
            "screened_judge_relevant": judge_rel,
            "rmse": round(rmse(scores, gold), 4), "pearson": _r(pearson(scores, gold)),
            "rmse_cv": cv["cv"]["rmse"], "pearson_cv": cv["cv"]["pearson"],
            **dict(zip(("rmse_change_se", "pearson_change_se"), (round(x, 4) for x in _bootstrap_se(gold, base_scores, scores)))),
            **{f"sentence_{k}": v for k, v in ragbench.sentence_prf(
                rows, [_Screened(res, p) for res, p in zip(results, probs)], stored).items()},
        }
        log(f"{entry['setting']}: screened {entry['screened_share']:.1%}, RMSE {entry['rmse']} (CV {entry['rmse_cv']})")
        out.append(entry)
    base = out[0]
    for entry in out:
        entry["keeps_agreement"] = (entry["rmse"] <= base["rmse"] + entry["rmse_change_se"]
                                    and entry["rmse_cv"] <= base["rmse_cv"] + entry["rmse_change_se"]
                                    and entry["pearson"] >= base["pearson"] - entry["pearson_change_se"]
                                    and entry["sentence_f1"] >= base["sentence_f1"] - F1_TOLERANCE)
    return {"judge": judge.name, "threshold": stored, "rows": len(rows),
            "rows_per_subset": {s: [len(rb[s][0]), rb[s][1]] for s in rb}, "settings": out}


def _r(x):
    return None if x is None else round(x, 4)


def markdown(result: dict, command: str, machine: dict) -> str:
    lines = [
        f"# Context-relevance screen: {result['judge']}",
        "",
        f"- command: `{command}`; {machine['date_utc']}, {machine['cpu']} ({machine['cpu_cores']} cores, shared)",
        f"- data: RAGBench validation, the agreement harness's rows: n = {result['rows']} ("
        + ", ".join(f"{s} {a}/{b}" for s, (a, b) in result["rows_per_subset"].items()) + ")",
        f"- threshold: the stored relevance threshold {result['threshold']}; CV: chosen out of fold as the harness does",
        "- screened sentences get probability 0 (what the metric reports); 'gold relevant / utilized': "
        "screened sentences RAGBench labels relevant / used by the response; 'judge relevant': "
        "screened sentences the judge would have called relevant",
        "",
        "| screen (max overlap, min question words) | screened | gold relevant / utilized among them | judge relevant among them "
        "| RMSE (± SE of change) | RMSE (CV) | Pearson (± SE of change) | sentence P / R / F1 | keeps agreement |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for e in result["settings"]:
        s = e["setting"]
        name = "none (judge every sentence)" if s == "none" else f"{s['max_overlap']}, {s['min_question_words']}"
        lines.append(
            f"| {name} | {e['screened']}/{e['sentences']} ({100 * e['screened_share']:.1f} %) | "
            f"{e['screened_gold_relevant']} / {e['screened_gold_utilized']} | {e['screened_judge_relevant']} | "
            f"{e['rmse']:.3f} ± {e['rmse_change_se']:.3f} | {e['rmse_cv']:.3f} | {e['pearson']:.3f} ± {e['pearson_change_se']:.3f} | "
            f"{e['sentence_precision']:.2f} / {e['sentence_recall']:.2f} / {e['sentence_f1']:.2f} | "
            f"{'yes' if e['keeps_agreement'] else 'no'} |")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_dir(p, flag="--data", sub="meta-eval")
    p.add_argument("--cache", type=Path, default=Path("/tmp/localeval-screen.sqlite"))
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/relevance_screen.json")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    result = study(args.data, args.cache, log=lambda m: print(m, file=sys.stderr, flush=True))
    machine = describe_machine()
    result["machine"] = machine
    report = markdown(result, command_line("python -m benchmarks.studies.relevance_screen", argv), machine)
    publish(args.output, result, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
