"""Does a learned claim verdict beat the bare max (and word overlap) on every development family?

    python benchmarks/verdict.py [--model PATH] [--features FILE] [--write]

1. **Signals.** Every item of five development families -- WiCE dev (claim vs whole cited
   article), SummaC validation (four subsets pooled), BEGIN dev, FRANK validation, RAGBench
   validation adherence -- is split into claims as `Faithfulness` splits a response, and
   every claim is judged by `attribute` exactly as the metric judges it (its 6 closest units,
   every unit judged), keeping each claim's signals (`localeval.backends.verdict.SIGNALS`).
   Same samples as the agreement harness (`benchmarks.agreement.run.CAPS`, seeded). The
   signals are saved (``--features``) so that fitting again costs no judge call.
2. **Study.** An item is supported when its weakest claim is (min over claims, as the
   harness scores faithfulness). A logistic regression on standardised signals
   (scikit-learn, class-balanced) is fitted on item-level rows: the weakest claim of each
   item by P(entailment), with the item's label. Each family is then predicted by a model
   fitted on the *other* families (leave-one-family-out), its threshold chosen on those
   families (unweighted mean balanced accuracy), and compared with the judge alone
   (``p_best``) and word overlap (`benchmarks.overlap`), each thresholded the same way on the
   same training families. Standard errors by bootstrap over items (1,000 resamples).
3. **Adoption.** The learned verdict is adopted only if it beats both the judge alone and
   overlap alone on *every* family out of sample; with ``--write`` it is then fitted on all
   families and stored in the judge's ``config.json`` (``localeval.verdict``). Otherwise the
   results say so and nothing is stored.

Results: ``benchmarks/results/verdict.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.files import command_line, portable_path, write_results  # noqa: E402
from benchmarks.machine import describe_machine, weights_sha256  # noqa: E402
from benchmarks.metrics import auroc, balanced_accuracy, macro_best_threshold  # noqa: E402
from benchmarks.overlap import overlap_score  # noqa: E402

FAMILIES = ("wice", "summac", "begin", "frank", "ragbench")
BOOTSTRAP = 1000


# ------------------------------------------------------------------ 1. signals

def load_items(data: Path, limit: int | None) -> dict[str, list[dict]]:
    """Per family: items ``{"text", "contexts", "label", "set"}`` (the harness's samples)."""
    from benchmarks.agreement.attribution import load_attribution_sets
    from benchmarks.agreement.frank import load_frank
    from benchmarks.agreement.ragbench import SUBSETS, load_ragbench
    from benchmarks.agreement.run import CAPS

    caps = {k: (min(v, limit) if limit else v) for k, v in CAPS.items()}
    out: dict[str, list[dict]] = {f: [] for f in FAMILIES}
    for family, name, task in load_attribution_sets(data, caps):
        for it in task.items:
            out[family].append({"text": " ".join(it.claims), "contexts": it.contexts, "label": it.label, "set": name})
    for r in load_frank(data, caps["frank/valid"])[0]:
        out["frank"].append({"text": r["summary"], "contexts": [r["article"]], "label": int(r["Factuality"] >= 1.0),
                             "set": "frank/valid"})
    for subset, (rows, _) in load_ragbench(data, {s: caps[f"ragbench/{s}"] for s in SUBSETS}).items():
        for r in rows:
            out["ragbench"].append({"text": r.response, "contexts": r.contexts, "label": r.adherence,
                                    "set": f"ragbench/{subset}"})
    return out


def compute_signals(judge, items: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Each item gets ``claims``: per claim its signals and its word-overlap score."""
    from localeval.backends.attribution import attribute
    from localeval.metrics.decomposed import claim_units

    for family, rows in items.items():
        start = time.perf_counter()
        claims = [[u.text for u in units if u.skip_reason is None] for units, _ in claim_units(None, [r["text"] for r in rows])]
        groups = [(c, r["contexts"]) for c, r in zip(claims, rows)]
        supports = attribute(judge, groups, locate_sentence=False, accept_at=None, signals=True)
        for row, texts, support in zip(rows, claims, supports):
            row["claims"] = [
                {"text": t, "signals": s.signals, "overlap": overlap_score(t, row["contexts"])}
                for t, s in zip(texts, support)
            ]
        print(f"  {family}: {len(rows)} items, {sum(len(c) for c in claims)} claims, {time.perf_counter() - start:.0f} s",
              flush=True)
    return items


def lean(items: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """What the study reads, without the texts (a small file to keep beside the results)."""
    return {
        family: [{"set": r["set"], "label": r["label"],
                  "claims": [{k: c[k] for k in ("signals", "overlap")} for c in r["claims"]]} for r in rows]
        for family, rows in items.items()
    }


# ------------------------------------------------------------------ 2. study

def _weakest(row: dict) -> dict | None:
    return min(row["claims"], key=lambda c: c["signals"]["p_best"]) if row["claims"] else None


def _item_scores(rows: list[dict], score) -> np.ndarray:
    """Item score = min over its claims of ``score(claim)``; an item without claims: 0."""
    return np.asarray([min((score(c) for c in r["claims"]), default=0.0) for r in rows])


def _fit(rows: list[dict], signals: list[str]):
    from sklearn.linear_model import LogisticRegression

    from localeval.backends.verdict import VerdictModel

    train = [(r, w) for r in rows if (w := _weakest(r)) is not None]
    x = np.asarray([[w["signals"][s] for s in signals] for _, w in train])
    y = np.asarray([r["label"] for r, _ in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    lr = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y)
    return VerdictModel(signals=signals, mean=mean.tolist(), scale=scale.tolist(), coef=lr.coef_[0].tolist(),
                        intercept=float(lr.intercept_[0]))


def _scorers(model=None) -> dict:
    out = {"judge": lambda c: c["signals"]["p_best"], "overlap": lambda c: c["overlap"]}
    if model is not None:
        out["verdict"] = lambda c: model.probability(c["signals"])
    return out


def _bootstrap_se(labels: np.ndarray, scores: np.ndarray, t: float, rng: np.random.Generator) -> tuple[float, float]:
    ba, au = [], []
    n = len(labels)
    for _ in range(BOOTSTRAP):
        i = rng.integers(0, n, n)
        if labels[i].min() == labels[i].max():
            continue
        ba.append(balanced_accuracy(labels[i], scores[i], t))
        au.append(auroc(labels[i], scores[i]))
    return float(np.std(ba)), float(np.std(au))


def leave_one_family_out(items: dict[str, list[dict]], signals: list[str]) -> dict:
    rng = np.random.default_rng(13)
    out = {}
    for held in FAMILIES:
        train = {f: rows for f, rows in items.items() if f != held}
        model = _fit([r for rows in train.values() for r in rows], signals)
        test = items[held]
        y = np.asarray([r["label"] for r in test])
        figures = {"n": len(test), "positives": int(y.sum())}
        for name, score in _scorers(model).items():
            t, _ = macro_best_threshold([
                (np.asarray([r["label"] for r in rows]), _item_scores(rows, score)) for rows in train.values()
            ])
            s = _item_scores(test, score)
            se_ba, se_auc = _bootstrap_se(y, s, t, rng)
            figures[name] = {"threshold": round(t, 4), "ba": balanced_accuracy(y, s, t), "ba_se": se_ba,
                             "auroc": auroc(y, s), "auroc_se": se_auc}
        figures["coef"] = dict(zip(signals, (round(c, 3) for c in model.coef)))
        out[held] = figures
    return out


def pooled_cv(items: dict[str, list[dict]], signals: list[str], k: int = 5) -> dict:
    """The agreement harness's protocol (`benchmarks.agreement.thresholds.cv_binary`): k folds
    stratified per family; on each fold the verdict model is fitted and every scorer's one
    threshold chosen (mean BA over families) on the other folds of *all* families, then the
    fold is predicted. Judge and overlap figures therefore equal the harness's ``ba_cv``."""
    from benchmarks.agreement.thresholds import folds_of

    folds = {f: folds_of([r["label"] for r in rows], k) for f, rows in items.items()}
    names = ("verdict", "judge", "overlap")
    verdicts = {n: {f: np.zeros(len(rows), dtype=bool) for f, rows in items.items()} for n in names}
    for fold in range(k):
        train = {f: [r for r, g in zip(rows, folds[f]) if g != fold] for f, rows in items.items()}
        model = _fit([r for rows in train.values() for r in rows], signals)
        for name, score in _scorers(model).items():
            t, _ = macro_best_threshold([
                (np.asarray([r["label"] for r in rows]), _item_scores(rows, score)) for rows in train.values()
            ])
            for f, rows in items.items():
                test = np.flatnonzero(folds[f] == fold)
                verdicts[name][f][test] = _item_scores([rows[i] for i in test], score) >= t
    out = {}
    for f, rows in items.items():
        y = np.asarray([r["label"] for r in rows])
        out[f] = {"n": len(rows), **{n: balanced_accuracy(y, verdicts[n][f].astype(float), 0.5) for n in names}}
    return out


def adopt(lofo: dict) -> tuple[bool, list[str]]:
    losses = [f for f, fig in lofo.items()
              if not (fig["verdict"]["ba"] > fig["judge"]["ba"] and fig["verdict"]["ba"] > fig["overlap"]["ba"])]
    return not losses, losses


def final_model(items: dict[str, list[dict]], signals: list[str]):
    """Fitted on every family; threshold = the best unweighted mean BA over the families."""
    model = _fit([r for rows in items.values() for r in rows], signals)
    t, ba = macro_best_threshold([
        (np.asarray([r["label"] for r in rows]), _item_scores(rows, lambda c: model.probability(c["signals"])))
        for rows in items.values()
    ])
    return model.model_copy(update={"threshold": round(float(t), 4), "fitted_on": list(FAMILIES)}), ba


# ------------------------------------------------------------------ report

def markdown(result: dict) -> str:
    lines = [
        "# Learned claim verdict vs the judge alone vs word overlap (leave one family out)",
        "",
        f"Judge: `{result['model']}` (sha256 {result['weights_sha256'][:12]}). Machine: "
        f"{result['machine']['cpu']}, {result['machine']['cpu_cores']} cores, {result['machine']['date_utc']}.",
        f"Command: `{result['command']}`.",
        "",
        "Each family is scored by a logistic regression fitted on the other four, at a threshold chosen on",
        "those four; the judge alone (highest P(entailment) over the claim's units) and word overlap are",
        "thresholded the same way on the same families. Item = min over its claims. BA and AUROC in %,",
        "+- one bootstrap standard error (1,000 resamples).",
        "",
        "| family | n (pos) | verdict BA | judge BA | overlap BA | verdict AUROC | judge AUROC | overlap AUROC |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for fam, f in result["lofo"].items():
        cells = [f"{fam}", f"{f['n']} ({f['positives']})"]
        for key in ("ba", "auroc"):
            for name in ("verdict", "judge", "overlap"):
                cells.append(f"{100 * f[name][key]:.1f} +- {100 * f[name][key + '_se']:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    mean = {n: np.mean([f[n]["ba"] for f in result["lofo"].values()]) for n in ("verdict", "judge", "overlap")}
    lines += ["", "Mean BA over families: " + ", ".join(f"{n} {100 * v:.1f}" for n, v in mean.items()) + ".", ""]
    if result["adopted"]:
        lines.append(f"**Adopted**: beats both on every family; stored in the judge's config.json "
                     f"(threshold {result['final']['threshold']}).")
    else:
        lines.append("**Not adopted**: it does not beat both the judge alone and overlap alone on "
                     f"{', '.join(result['losses'])}; the metrics keep the judge's highest probability.")
    lines += ["", "Coefficients (standardised signals) of each leave-one-out fit:", "",
              "| held out | " + " | ".join(result["signals"]) + " |", "|---|" + "---|" * len(result["signals"])]
    for fam, f in result["lofo"].items():
        lines.append(f"| {fam} | " + " | ".join(f"{f['coef'][s]:+.2f}" for s in result["signals"]) + " |")
    lines += ["", "Out-of-fold BA under the agreement harness's protocol (5 folds stratified per family; model",
              "and one threshold fitted on the other folds of every family; judge and overlap rows equal",
              "agreement.md's `ba_cv`). A BA's SE is about 3.5 points at n = 200, 2.2 at n = 500.", "",
              "| family | n | verdict BA | judge BA | overlap BA | verdict - overlap |", "|---|---|---|---|---|---|"]
    for fam, f in result["pooled_cv"].items():
        lines.append(f"| {fam} | {f['n']} | {100 * f['verdict']:.1f} | {100 * f['judge']:.1f} | {100 * f['overlap']:.1f} "
                     f"| {100 * (f['verdict'] - f['overlap']):+.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    from localeval.backends import NLIJudge
    from localeval.backends.verdict import SIGNALS

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=None, help="judge name or folder (default: the shipped judge)")
    p.add_argument("--data-dir", type=Path, default=REPO_ROOT.parent / "shared" / "data" / "meta-eval")
    p.add_argument("--features", type=Path, default=None,
                   help="signals file: read if it exists (no judge call), else computed and written there")
    p.add_argument("--limit", type=int, default=None, help="at most N items per set (plumbing runs)")
    p.add_argument("--signals", default=",".join(SIGNALS), help="comma-separated subset of the signals")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/verdict.json")
    p.add_argument("--write", action="store_true", help="store the verdict model in the judge if it is adopted")
    args = p.parse_args(argv)

    judge = NLIJudge(args.model, device="cpu")
    if args.features and args.features.exists():
        items = json.loads(args.features.read_text())
    else:
        items = lean(compute_signals(judge, load_items(args.data_dir, args.limit)))
        if args.features:
            args.features.write_text(json.dumps(items))
    signals = [s for s in args.signals.split(",") if s]
    lofo = leave_one_family_out(items, signals)
    adopted, losses = adopt(lofo)
    model, ba = final_model(items, signals)
    result = {
        "model": judge.name, "weights_sha256": weights_sha256(judge.path), "machine": describe_machine(),
        "command": command_line("python benchmarks/verdict.py", sys.argv[1:] if argv is None else argv), "signals": signals, "lofo": lofo,
        "pooled_cv": pooled_cv(items, signals), "adopted": adopted, "losses": losses,
        "final": model.model_dump() | {"in_sample_mean_ba": ba}, "limit": args.limit,
    }
    report = markdown(result)
    print(report)
    write_results(args.output, result, report)
    if args.write and adopted and not args.limit:
        config_path = judge.path / "config.json"
        config = json.loads(config_path.read_text())
        config.setdefault("localeval", {})["verdict"] = model.model_dump()
        config_path.write_text(json.dumps(config, indent=2) + "\n")
        print(f"verdict model stored in {portable_path(config_path)}")
    return result


if __name__ == "__main__":
    main()
