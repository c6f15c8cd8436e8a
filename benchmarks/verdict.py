"""Does a learned claim verdict beat the bare max (and word overlap) on every development family?

    python benchmarks/verdict.py [--model PATH] [--features FILE] [--signals A,B | --candidates "A,B;A,B,C"] [--write]

1. **Signals.** Every item of six development families -- WiCE dev (claim vs whole cited
   article), SummaC validation (four subsets pooled), BEGIN dev, FRANK validation, RAGBench
   validation adherence, AttributionBench dev (a claim of a generative-search answer vs the
   references it cites; a class-balanced seeded sample, `benchmarks.ppi_signals`) -- is split into claims as `Faithfulness` splits a response, and
   every claim is judged by `attribute` exactly as the metric judges it (its 6 closest units,
   every unit judged), keeping each claim's signals (`localeval.evidence.verdict.SIGNALS`).
   Same samples as the agreement harness (`benchmarks.agreement.run.CAPS`, seeded). The
   signals are saved (``--features``) so that fitting again costs no judge call.
2. **Study.** An item is supported when its weakest claim is (min over claims, as the
   harness scores faithfulness). A logistic regression on standardised signals
   (scikit-learn, class-balanced) is fitted on item-level rows: the weakest claim of each
   item by P(entailment), with the item's label. Each family is then predicted by a model
   fitted on the *other* families (leave-one-family-out), its threshold chosen on those
   families (unweighted mean balanced accuracy), and compared with the judge alone
   (``p_best``) and word overlap (`benchmarks.lib.overlap`), each thresholded the same way on the
   same training families. Standard errors by bootstrap over items (1,000 resamples).
   With ``--candidates`` (several signal subsets) the subset is chosen too without the
   held-out family: on the other families, by their own leave-one-family-out log-loss (nested);
   choosing it by the held-out figures would be selection on the test families.
3. **Adoption.** The verdict is adopted only if, out of sample, its AUROC is at least the
   judge alone's on *every* family, and it gets at least as many claims right as the judge
   alone on both hand-written contrast sets (`contrast_set_check`: the contrast set of
   ``benchmarks/contrast.py`` and the check set of ``benchmarks/checks.py``; the families'
   unsupported claims mostly add words the source lacks, the contrast sets' never do, so a
   verdict that leans on word overlap can win the one and lose the other); with ``--write`` it is then fitted on all
   families and stored in the judge's ``config.json`` (``localeval.verdict``). Otherwise the
   results say so and nothing is stored.

Results: ``benchmarks/results/verdict.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, read_data, write_data, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402
from benchmarks.lib.metrics import (  # noqa: E402
    auroc,
    auroc_statistic,
    balanced_accuracy,
    macro_best_threshold,
    paired_bootstrap_se,
)
from benchmarks.lib.overlap import overlap_score  # noqa: E402

FAMILIES = ("wice", "summac", "begin", "frank", "ragbench", "attributionbench")
ATTRIBUTIONBENCH_SAMPLE = 400
"""AttributionBench items judged (class-balanced, seeded) unless the family is in ``--all-items``:
its 1,088 claims against long cited pages take about half an hour on two CPU cores."""
BOOTSTRAP = 1000


# ------------------------------------------------------------------ 1. signals

def load_items(data: Path, limit: int | None, everything: Sequence[str] = ()) -> dict[str, list[dict]]:
    """Per family: items ``{"text", "contexts", "label", "set"}`` (the harness's samples;
    every item of the families in ``everything``)."""
    from benchmarks.agreement.attribution import load_attribution_sets
    from benchmarks.agreement.frank import load_frank
    from benchmarks.agreement.ragbench import SUBSETS, load_ragbench
    from benchmarks.agreement.run import CAPS

    caps: dict[str, int | None] = {k: (min(v, limit) if limit else v) for k, v in CAPS.items()}
    for name in caps:
        if name.split("/")[0] in everything:
            caps[name] = limit
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
    from benchmarks.lib.readers import ATTRIBUTIONBENCH_FILE, read_attributionbench

    sample = limit if "attributionbench" in everything else min(limit or ATTRIBUTIONBENCH_SAMPLE, ATTRIBUTIONBENCH_SAMPLE)
    out["attributionbench"] = read_attributionbench(data / ATTRIBUTIONBENCH_FILE, sample)
    return out


def claims_of(texts: list[str]) -> list[list[str]]:
    """The claims the claim metrics judge in each text (skipped units left out)."""
    from localeval.metrics.decomposed import claim_units

    return [[u.text for u in units if u.skip_reason is None] for units, _ in claim_units(None, texts)]


def compute_signals(judge, items: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Each item gets ``claims``: per claim its signals and its word-overlap score."""
    from localeval.evidence.attribution import attribute

    for family, rows in items.items():
        start = time.perf_counter()
        claims = claims_of([r["text"] for r in rows])
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


def _fit(rows: list[dict], signals: list[str], vetoes: Sequence[str] = ()):
    from sklearn.linear_model import LogisticRegression

    from localeval.evidence.verdict import VerdictModel

    train = [(r, w) for r in rows if (w := _weakest(r)) is not None]
    x = np.asarray([[w["signals"][s] for s in signals] for _, w in train])
    y = np.asarray([r["label"] for r, _ in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    lr = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y)
    return VerdictModel(signals=signals, mean=mean.tolist(), scale=scale.tolist(), coef=lr.coef_[0].tolist(),
                        intercept=float(lr.intercept_[0]), vetoes=list(vetoes))


def _storable_threshold(t: float) -> float:
    """``t`` kept inside (0, 1), where a stored verdict's threshold is validated when the judge
    loads (a best threshold can fall on 0 when every item of a family scores above it)."""
    return min(max(float(t), 1e-4), 1 - 1e-4)


Fitter = Callable[[dict[str, list[dict]]], object]
"""Fits a claim verdict (`VerdictModel` or `CoverageVerdict`) on training families."""


def logistic_fitter(signals: list[str], vetoes: Sequence[str] = ()) -> Fitter:
    """A logistic regression on ``signals``, fitted on the training families pooled."""
    return lambda train: _fit([r for rows in train.values() for r in rows], signals, vetoes)


def coverage_fitter(powers: Sequence[float]) -> Fitter:
    """`CoverageVerdict` (``p_best * coverage_all ** power``): the power among ``powers`` with
    the best unweighted mean balanced accuracy over the training families (each at the
    threshold that maximises it), so a held-out family never takes part in choosing it."""
    from localeval.evidence.verdict import CoverageVerdict

    def fit(train: dict[str, list[dict]]):
        best = None
        for power in powers:
            model = CoverageVerdict(power=power)
            t, ba = macro_best_threshold([(np.asarray([r["label"] for r in rows]),
                                           _item_scores(rows, lambda c: model.supported(c["signals"])))
                                          for rows in train.values()])
            if best is None or ba > best[0] + 1e-12:
                best = (ba, model.model_copy(update={"threshold": _storable_threshold(t)}))
        return best[1]

    return fit


def _parameters(model) -> dict[str, float]:
    """What a fitted verdict learned: a logistic model's coefficients, a coverage verdict's power."""
    if getattr(model, "kind", "logistic") == "coverage":
        return {"power": model.power}
    return dict(zip(model.signals, (round(c, 3) for c in model.coef)))


def _scorers(model=None) -> dict:
    out = {"judge": lambda c: c["signals"]["p_best"], "overlap": lambda c: c["overlap"]}
    if model is not None:
        out["verdict"] = lambda c: model.supported(c["signals"])
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


def _held_out(train: dict[str, list[dict]], test: list[dict], fitter: Fitter, rng: np.random.Generator) -> dict:
    """``test`` scored by a model fitted on ``train``; every scorer's threshold chosen on ``train``."""
    model = fitter(train)
    y = np.asarray([r["label"] for r in test])
    figures: dict = {"n": len(test), "positives": int(y.sum())}
    scores: dict[str, np.ndarray] = {}
    for name, score in _scorers(model).items():
        t, _ = macro_best_threshold([
            (np.asarray([r["label"] for r in rows]), _item_scores(rows, score)) for rows in train.values()
        ])
        s = scores[name] = _item_scores(test, score)
        se_ba, se_auc = _bootstrap_se(y, s, t, rng)
        figures[name] = {"threshold": round(t, 4), "ba": balanced_accuracy(y, s, t), "ba_se": se_ba,
                         "auroc": auroc(y, s), "auroc_se": se_auc}
    for other in ("judge", "overlap"):
        # Paired: both scorers on the same resampled items, so shared hard items cancel out.
        se = paired_bootstrap_se(y, scores[other], scores["verdict"], {"auroc": auroc_statistic})["auroc"]
        figures["verdict"][f"auroc_minus_{other}"] = figures["verdict"]["auroc"] - figures[other]["auroc"]
        figures["verdict"][f"auroc_minus_{other}_se"] = se
    figures["signals"] = list(model.signals)
    figures["coef"] = _parameters(model)
    return figures


def leave_one_family_out(items: dict[str, list[dict]], signals: list[str] | None = None, vetoes: Sequence[str] = (),
                         fitter: Fitter | None = None) -> dict:
    """Each family scored by a verdict fitted on the others (``fitter``; default a logistic
    model on ``signals``)."""
    fitter = fitter or logistic_fitter(signals or [], vetoes)
    rng = np.random.default_rng(13)
    return {held: _held_out({f: rows for f, rows in items.items() if f != held}, items[held], fitter, rng)
            for held in FAMILIES if held in items}


def _balanced_log_loss(labels: np.ndarray, p: np.ndarray) -> float:
    """Mean of the two classes' log-losses (the model is fitted class-balanced, so scored so)."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float((-np.log(p[labels == 1]).mean() - np.log(1 - p[labels == 0]).mean()) / 2)


def selection_losses(items: dict[str, list[dict]], candidates: list[list[str]], vetoes: Sequence[str] = ()) -> list[float]:
    """Per candidate subset: its leave-one-family-out balanced log-loss (item = min over its
    claims), averaged over the families of ``items``. Uses only ``items``: called on the
    training families of an outer fold, it chooses a subset without seeing the held-out one."""
    losses = []
    for signals in candidates:
        per_family = []
        for held, test in items.items():
            model = _fit([r for f, rows in items.items() if f != held for r in rows], signals, vetoes)
            y = np.asarray([r["label"] for r in test])
            per_family.append(_balanced_log_loss(y, _item_scores(test, lambda c: model.supported(c["signals"]))))
        losses.append(float(np.mean(per_family)))
    return losses


def choose_signals(items: dict[str, list[dict]], candidates: list[list[str]],
                   vetoes: Sequence[str] = ()) -> tuple[list[str], list[float]]:
    """The candidate with the lowest `selection_losses` (ties: the earlier, i.e. fewer signals
    when candidates are listed from small to large)."""
    losses = selection_losses(items, candidates, vetoes)
    return candidates[int(np.argmin(losses))], losses


def nested_leave_one_family_out(items: dict[str, list[dict]], candidates: list[list[str]],
                                vetoes: Sequence[str] = ()) -> dict:
    """Leave one family out, the signal subset too chosen without the held-out family: on the
    other families, by their own leave-one-family-out log-loss (`choose_signals`). No figure of a
    held-out family takes part in choosing anything that scores it."""
    rng = np.random.default_rng(13)
    out = {}
    for held in FAMILIES:
        train = {f: rows for f, rows in items.items() if f != held}
        signals, losses = choose_signals(train, candidates, vetoes)
        out[held] = _held_out(train, items[held], logistic_fitter(signals, vetoes), rng) | {"selection_losses": losses}
    return out


def pooled_cv(items: dict[str, list[dict]], signals: list[str] | None = None, k: int = 5, vetoes: Sequence[str] = (),
              fitter: Fitter | None = None) -> dict:
    """The agreement harness's protocol (`benchmarks.agreement.thresholds.cv_binary`): k folds
    stratified per family; on each fold the verdict model is fitted and every scorer's one
    threshold chosen (mean BA over families) on the other folds of *all* families, then the
    fold is predicted. Judge and overlap figures therefore equal the harness's ``ba_cv``."""
    from benchmarks.agreement.thresholds import folds_of

    fitter = fitter or logistic_fitter(signals or [], vetoes)
    folds = {f: folds_of([r["label"] for r in rows], k) for f, rows in items.items()}
    names = ("verdict", "judge", "overlap")
    verdicts = {n: {f: np.zeros(len(rows), dtype=bool) for f, rows in items.items()} for n in names}
    for fold in range(k):
        train = {f: [r for r, g in zip(rows, folds[f]) if g != fold] for f, rows in items.items()}
        model = fitter(train)
        for name, score in _scorers(model).items():
            t, _ = macro_best_threshold([
                (np.asarray([r["label"] for r in rows]), _item_scores(rows, score)) for rows in train.values()
            ])
            for f, rows in items.items():
                test = np.flatnonzero(folds[f] == fold)
                verdicts[name][f][test] = _item_scores([rows[i] for i in test], score) >= t
    out = {}
    rng = np.random.default_rng(13)
    for f, rows in items.items():
        y = np.asarray([r["label"] for r in rows])
        out[f] = {"n": len(rows), **{n: balanced_accuracy(y, verdicts[n][f].astype(float), 0.5) for n in names}}
        out[f] |= {f"{n}_se": _bootstrap_se(y, verdicts[n][f].astype(float), 0.5, rng)[0] for n in names}
    return out


CONTRAST_SETS = ("contrast", "checks")
"""The hand-written sets a verdict must not lose ground on: ``benchmarks/contrast.py``'s contrast
set and ``benchmarks/checks.py``'s contradiction-check set."""


def _contrast_items(name: str) -> list:
    if name == "checks":
        from benchmarks.checks import DATA, load_items
    else:
        from benchmarks.contrast import DATA, load_items
    return load_items(DATA)


def contrast_set_check(judge, model, name: str = "contrast") -> dict:
    """A hand-written set (`CONTRAST_SETS`), each claim judged exactly as its benchmark judges
    it (context recall's unit options, every unit judged, the premise as the only context):
    correct verdicts of the judge alone (at context recall's stored threshold, the benchmark's
    figure) and of the verdict (at its own), overall and per category. A verdict that wins on
    the families by trusting word overlap would lose here, where every unsupported claim
    repeats the premise's words."""
    from localeval.evidence.attribution import attribute
    from localeval.metrics import ContextRecall

    items = _contrast_items(name)
    metric = ContextRecall(judge)
    threshold = metric.resolved_threshold()
    groups = [([it.claim], [it.premise]) for it in items]
    plain = attribute(judge, groups, max_units=metric.max_units, accept_at=None)
    learned = attribute(judge, groups, max_units=metric.max_units, accept_at=None, verdict=model)
    out: dict = {"set": name, "n": len(items), "judge_threshold": threshold, "verdict_threshold": model.threshold,
                 "categories": {}}
    for scorer in ("judge", "verdict"):
        out[scorer] = {"correct": 0}
    for it, (bare,), (support,) in zip(items, plain, learned):
        gold = it.label == "supported"
        row = out["categories"].setdefault(it.category, {"n": 0, "judge": 0, "verdict": 0})
        row["n"] += 1
        for scorer, s, t in (("judge", bare, threshold), ("verdict", support, model.threshold)):
            ok = (s.evidence is not None and s.probability >= t) == gold
            row[scorer] += int(ok)
            out[scorer]["correct"] += int(ok)
    for scorer in ("judge", "verdict"):
        acc = out[scorer]["correct"] / len(items)
        out[scorer] |= {"accuracy": acc, "se": float(np.sqrt(acc * (1 - acc) / len(items)))}
    return out


def adopt(lofo: dict) -> tuple[bool, list[str]]:
    """The families where the verdict's out-of-sample AUROC falls below the judge alone's (issue
    rule: adopted only where it is at least the judge's on every family)."""
    losses = [f for f, fig in lofo.items() if fig["verdict"]["auroc"] < fig["judge"]["auroc"]]
    return not losses, losses


def final_model(items: dict[str, list[dict]], signals: list[str] | None = None, vetoes: Sequence[str] = (),
                fitter: Fitter | None = None):
    """Fitted on every family; threshold = the best unweighted mean BA over the families."""
    model = (fitter or logistic_fitter(signals or [], vetoes))(items)
    t, ba = macro_best_threshold([
        (np.asarray([r["label"] for r in rows]), _item_scores(rows, lambda c: model.supported(c["signals"])))
        for rows in items.values()
    ])
    return model.model_copy(update={"threshold": _storable_threshold(round(float(t), 4)),
                                    "fitted_on": list(FAMILIES)}), ba


# ------------------------------------------------------------------ report

def markdown(result: dict) -> str:
    from localeval.evidence.verdict import SIGNALS

    lines = [
        "# Learned claim verdict vs the judge alone vs word overlap (leave one family out)",
        "",
        f"Judge: `{result['model']}` (sha256 {result['weights_sha256'][:12]}). Machine: "
        f"{result['machine']['cpu']}, {result['machine']['cpu_cores']} cores, {result['machine']['date_utc']}.",
        f"Command: `{result['command']}`.",
        "",
        *(["Verdict: `CoverageVerdict`, P(supported) = p_best * coverage_all ** power (no fitted coefficient;",
           "`coverage_all` = share of the claim's content words, numbers normalised, found in any context).",
           f"Each family is scored with the power among {result['coverage_powers']} that has the best mean BA on",
           "the other families, at a threshold chosen on those; the judge alone (highest P(entailment) over",
           "the claim's units) and word overlap are"] if result.get("coverage_powers") else
          ["Each family is scored by a logistic regression fitted on the other families, at a threshold chosen on",
           "those; the judge alone (highest P(entailment) over the claim's units) and word overlap are"]),
        "thresholded the same way on the same families. Item = min over its claims. BA and AUROC in %,",
        "+- one bootstrap standard error (1,000 resamples). Signals as the metric sees them: contrast",
        "rules on (``p_best`` after a rule's cut; ``contrast`` = a rule overruled the best-liked unit).",
        "n: the agreement harness's sample of a family, or its whole development split where the",
        "signals were computed with ``--all-items`` (here: every family whose n exceeds the harness's cap);",
        "AttributionBench: a class-balanced seeded sample (`benchmarks/ppi_signals.py`).",
        *([f"Signals read from: {', '.join(f'`{f}`' for f in result['signals_from'])} (each as committed with "
           "the code of its day; no judge call here but the contrast sets')."] if result.get("signals_from") else []),
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
    lines += ["AUROC margins of the verdict, +- one paired bootstrap SE (1,000 resamples of items; beyond the",
              "noise: |margin| > 2 SE):", "",
              "| family | verdict - judge | verdict - overlap |", "|---|---|---|"]
    for fam, f in result["lofo"].items():
        cells = []
        for other in ("judge", "overlap"):
            m, se = f["verdict"].get(f"auroc_minus_{other}"), f["verdict"].get(f"auroc_minus_{other}_se")
            cells.append("—" if m is None or se is None else
                         f"{100 * m:+.1f} +- {100 * se:.1f}{' (beyond 2 SE)' if abs(m) > 2 * se else ''}")
        lines.append(f"| {fam} | " + " | ".join(cells) + " |")
    lines.append("")
    if result["adopted"]:
        lines.append(f"**Adopted**: AUROC at least the judge alone's on every family and no fewer claims right on "
                     f"either contrast set; stored in the judge's config.json (threshold {result['final']['threshold']}).")
    else:
        families = [f for f in result["losses"] if f in result["lofo"]]
        margins = "; ".join(f"{fam} {100 * result['lofo'][fam]['verdict']['auroc']:.1f} vs judge "
                            f"{100 * result['lofo'][fam]['judge']['auroc']:.1f}" for fam in families)
        why = [f"its AUROC is below the judge alone's on {', '.join(families)} ({margins})"] if families else []
        for name, check in (result.get("contrast_set") or {}).items():
            if f"{name} set" in result["losses"]:
                why.append(f"it gets fewer {name}-set claims right than the judge alone "
                           f"({100 * check['verdict']['accuracy']:.1f} % vs {100 * check['judge']['accuracy']:.1f} %)")
        lines.append(f"**Not adopted**: {'; and '.join(why)}; the metrics keep the judge's highest probability.")
    sets = result.get("contrast_set") or {}
    if "categories" in sets:  # a result written when only the contrast set was checked
        sets = {"contrast": sets}
    vetoes = result["final"].get("vetoes") or []
    for name, c in sets.items():
        source = "checks/checks_test.jsonl" if name == "checks" else "contrast/contrast_test.jsonl"
        lines += ["", f"{name.capitalize()} set ({c['n']} hand-written pairs, `benchmarks/{source}`, judged as "
                  f"`benchmarks/{name}.py` judges them): claims right, judge alone at {c['judge_threshold']:.4f} vs "
                  f"the final verdict at {c['verdict_threshold']:.4f}"
                  + (f" (vetoes: {', '.join(vetoes)})" if vetoes else "") + ". Accuracy in %, +- binomial SE.", "",
                  "| category | n | judge | verdict |", "|---|---:|---:|---:|"]
        for cat, row in c["categories"].items():
            lines.append(f"| {cat} | {row['n']} | {100 * row['judge'] / row['n']:.1f} | {100 * row['verdict'] / row['n']:.1f} |")
        lines.append(f"| **overall** | {c['n']} | {100 * c['judge']['accuracy']:.1f} +- {100 * c['judge']['se']:.1f} | "
                     f"{100 * c['verdict']['accuracy']:.1f} +- {100 * c['verdict']['se']:.1f} |")
    if result.get("candidates"):
        lines += ["", "Signal subset: chosen for each held-out family on the other families only (nested): the",
                  "candidate with the lowest leave-one-family-out balanced log-loss among those. Mean",
                  "inner log-loss per candidate (columns) for each held-out family (rows); * = chosen.", "",
                  "| held out | " + " | ".join(f"[{i + 1}]" for i in range(len(result["candidates"]))) + " |",
                  "|---|" + "---|" * len(result["candidates"])]
        rows = list(result["lofo"].items()) + [("all families (final)", {"selection_losses": result["selection_losses"],
                                                                     "signals": result["signals"]})]
        for fam, f in rows:
            lines.append(f"| {fam} | " + " | ".join(
                f"{loss:.4f}{'*' if c == f['signals'] else ''}" for c, loss in zip(result["candidates"], f["selection_losses"])
            ) + " |")
        lines += [""] + [f"[{i + 1}] {', '.join(c)}" + ("  " if i + 1 < len(result["candidates"]) else "")
                         for i, c in enumerate(result["candidates"])]
    if result.get("per_candidate"):
        lines += ["", "For reference only (not how anything was chosen): each candidate fixed for every family,",
                  "leave-one-family-out verdict BA, and the families where it would fail the adoption rule.", "",
                  "| candidate | " + " | ".join(FAMILIES) + " | fails on |", "|---|" + "---|" * (len(FAMILIES) + 1)]
        for i, (c, f) in enumerate(result["per_candidate"].items()):
            lines.append(f"| [{i + 1}] | " + " | ".join(f"{100 * f['ba'][fam]:.1f}" for fam in FAMILIES)
                         + f" | {', '.join(f['losses']) or '-'} |")
    if result.get("coverage_powers"):
        lines += ["", "Power chosen for each held-out family (on the other families): "
                  + ", ".join(f"{fam} {f['coef']['power']:g}" for fam, f in result["lofo"].items())
                  + f"; on all families (final): {result['final']['power']:g}."]
    used = [s for s in SIGNALS if any(s in f["coef"] for f in result["lofo"].values())]
    lines += [] if not used else ["", "Coefficients (standardised signals) of each leave-one-out fit:", "",
              "| held out | " + " | ".join(used) + " |", "|---|" + "---|" * len(used)]
    for fam, f in result["lofo"].items() if used else ():
        lines.append(f"| {fam} | " + " | ".join(f"{f['coef'][s]:+.2f}" if s in f["coef"] else "" for s in used) + " |")
    lines += ["", "Out-of-fold BA under the agreement harness's protocol (5 folds stratified per family; model",
              f"({', '.join(result['signals'])}) and one threshold fitted on the other folds of every family;",
              "judge and overlap rows equal agreement.md's `ba_cv`), +- one bootstrap standard error.", ""]
    if result.get("candidates"):
        lines += ["The subset here is the one chosen on all families, so these figures are not nested.", ""]
    lines += ["| family | n | verdict BA | judge BA | overlap BA | verdict - overlap |", "|---|---|---|---|---|---|"]
    for fam, f in result["pooled_cv"].items():
        cells = " | ".join(f"{100 * f[n]:.1f} +- {100 * f.get(n + '_se', float('nan')):.1f}"
                           for n in ("verdict", "judge", "overlap"))
        lines.append(f"| {fam} | {f['n']} | {cells} | {100 * (f['verdict'] - f['overlap']):+.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    from localeval.judge import NLIJudge
    from localeval.evidence.verdict import SIGNALS

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_judge(p)
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--features", type=Path, nargs="+", default=None,
                   help="signals file(s): read and merged if they all exist (no judge call; e.g. verdict_signals.json.xz "
                        "and ppi_signals_attributionbench.json), else computed and written to the first")
    p.add_argument("--limit", type=int, default=None, help="at most N items per set (plumbing runs)")
    p.add_argument("--all-items", default="",
                   help="comma-separated families scored on every item of their split, not the harness's sample "
                        "(smaller standard errors where the sample holds few negatives)")
    p.add_argument("--signals", default=",".join(SIGNALS), help="comma-separated subset of the signals")
    p.add_argument("--candidates", default=None,
                   help="semicolon-separated signal subsets (each comma-separated); each held-out family's subset "
                        "is chosen among them on the other families (nested), the final one on all families")
    p.add_argument("--vetoes", default="",
                   help="comma-separated signals that cap a claim's P(supported) at the judge's (VerdictModel.vetoes)")
    p.add_argument("--coverage-powers", default=None,
                   help="comma-separated powers: study the coverage verdict p_best * coverage_all ** power "
                        "(CoverageVerdict) instead of a logistic model; each held-out family's power is chosen "
                        "on the other families")
    p.add_argument("--output", type=Path, default=None,
                   help="results file (default benchmarks/results/verdict.json, verdict_coverage.json with "
                        "--coverage-powers)")
    p.add_argument("--write", action="store_true", help="store the verdict model in the judge if it is adopted")
    args = p.parse_args(argv)

    judge = NLIJudge(args.model, device="cpu")
    if args.features and all(f.exists() for f in args.features):
        items = {}
        for f in args.features:
            items.update(read_data(f))
        missing = [f for f in FAMILIES if f not in items]
        if missing:
            p.error(f"--features: no signals for {missing}")
    else:
        everything = [f for f in args.all_items.split(",") if f]
        unknown = sorted(set(everything) - set(FAMILIES))
        if unknown:
            p.error(f"--all-items: unknown families {unknown}; known: {list(FAMILIES)}")
        items = lean(compute_signals(judge, load_items(args.data_dir, args.limit, everything)))
        if args.features:
            write_data(args.features[0], items)
    candidates = [[s for s in c.split(",") if s] for c in (args.candidates or "").split(";") if c.strip()]
    vetoes = [v for v in args.vetoes.split(",") if v]
    per_candidate = {}
    powers = [float(x) for x in (args.coverage_powers or "").split(",") if x.strip()]
    if args.coverage_powers is not None and not powers:
        p.error("--coverage-powers: give at least one power, e.g. 0.5,1,2")
    fitter = coverage_fitter(powers) if powers else None
    if fitter is not None:
        lofo = leave_one_family_out(items, fitter=fitter)
        signals, selection = ["p_best", "coverage_all"], []
    elif candidates:
        lofo = nested_leave_one_family_out(items, candidates, vetoes)
        signals, selection = choose_signals(items, candidates, vetoes)
        for c in candidates:  # each candidate fixed, un-nested: a reference, never a choice
            fixed = leave_one_family_out(items, c, vetoes)
            per_candidate[",".join(c)] = {"ba": {f: fig["verdict"]["ba"] for f, fig in fixed.items()},
                                          "losses": adopt(fixed)[1]}
    else:
        signals, selection = [s for s in args.signals.split(",") if s], []
        lofo = leave_one_family_out(items, signals, vetoes)
    adopted, losses = adopt(lofo)
    model, ba = final_model(items, signals, vetoes, fitter=fitter)
    contrast = {name: contrast_set_check(judge, model, name) for name in CONTRAST_SETS}
    for name, check in contrast.items():
        if check["verdict"]["correct"] < check["judge"]["correct"]:
            adopted, losses = False, [*losses, f"{name} set"]
    result = {
        "model": judge.name, "weights_sha256": weights_sha256(judge.path), "machine": describe_machine(),
        "command": command_line("python benchmarks/verdict.py", sys.argv[1:] if argv is None else argv), "signals": signals, "candidates": candidates, "selection_losses": selection, "per_candidate": per_candidate, "lofo": lofo,
        "pooled_cv": pooled_cv(items, signals, vetoes=vetoes, fitter=fitter), "coverage_powers": powers, "contrast_set": contrast, "adopted": adopted, "losses": losses,
        "final": model.model_dump() | {"in_sample_mean_ba": ba}, "limit": args.limit,
        "signals_from": [portable_path(f) for f in args.features or []],
    }
    report = markdown(result)
    print(report)
    name = "verdict_coverage.json" if powers else "verdict.json"
    write_results(args.output or REPO_ROOT / "benchmarks/results" / name, result, report)
    if args.write and adopted and not args.limit:
        from localeval.metrics.registry import METRICS
        from localeval.training.export import store_verdict

        # The metrics that decide on the verdict: their stored thresholds give way to its own.
        keys = [cls.threshold_key() for cls in METRICS.values() if getattr(cls, "reads_verdict", False)]
        store_verdict(judge.path, model.model_dump(), model.threshold, keys)
        print(f"verdict model stored in {portable_path(judge.path / 'config.json')}")
    return result


if __name__ == "__main__":
    main()
