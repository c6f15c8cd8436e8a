"""Can a word-coverage gate lift the judge above word overlap on FRANK without losing the
hand-written sets? Every gate shape, both sides of the trade.

    python benchmarks/studies/coverage_gates.py [--features FILE] [--data-dir DIR] [--rules frank]

On FRANK the judge ranks summaries below word overlap (faithfulness AUROC 0.79 vs 0.83, n 671),
in every error category, most for out-of-article content (`frank_errors.py`). The coverage
verdict (``p_best * coverage_all ** power``, `localeval.evidence.verdict.CoverageVerdict`)
closes that gap only at powers whose threshold accepts what the judge rejects
(`verdict_coverage.md`). This study asks the narrower question: keeping the judge's own
threshold (so a gate can only reject *more*), is there a gate

    P(supported) = p_best * min(1, coverage / full) ** power

that ranks FRANK above word overlap while both hand-written sets (the contrast set and the
contradiction-check set, where every supported claim the gate rejects is a loss) keep their
figures? ``full`` is the coverage from which no discount applies. Two coverages:

* ``all``: the share of the claim's content words (numbers normalised) found in any context,
  the `coverage_all` signal (`localeval.text.coverage.coverage_words`);
* ``rare``: the same share over the claim's rarer words only, those the judge's tokenizer
  splits into several word pieces (an offline stand-in for "specific": names, technical
  nouns), plus its numbers. The idea: out-of-article content is specific, while the
  hand-written sets' paraphrases change common words ("rose" / "increased").

Families: the committed signals of `benchmarks/verdict.py` (``--features``; no judge call for
them; claim texts re-cut here by the metrics' own claim splitting to compute ``rare``, checked
to give the committed ``coverage_all``). Hand-written sets: judged here as `verdict.py`'s
contrast check judges them (context recall's unit options, every unit judged), at context
recall's stored threshold. With ``--rules FAMILY`` (default frank) that family is also
judged with the contrast rules on and off, to show how much of its gap the rules make.

Results: ``benchmarks/results/coverage_gates.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
from itertools import product
from pathlib import Path
from typing import Callable, Sequence

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from benchmarks.lib.cli import add_data_dir, add_judge  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, publish, read_data  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402
from benchmarks.lib.metrics import auroc, auroc_statistic, paired_bootstrap_se  # noqa: E402

FULLS = (0.5, 0.75, 1.0)
POWERS = (1.0, 2.0, 4.0)
COVERAGES = ("all", "rare")
MARGIN_FAMILIES = ("wice", "frank", "attributionbench")
"""The families where the claims issue asks the judge to rank above word overlap."""
HAND_WRITTEN = ("contrast", "checks")

Signals = dict[str, float]


# ------------------------------------------------------------------ the math

def gate(full: float, power: float, coverage: str) -> Callable[[Signals], float]:
    """P(supported) of a claim under the gate: the judge's probability, discounted below
    ``full`` coverage."""
    key = f"coverage_{coverage}"
    return lambda s: float(s["p_best"]) * min(1.0, float(s[key]) / full) ** power


def share_found(wanted: set[str], found: set[str]) -> float:
    return 1.0 - len(wanted - found) / len(wanted) if wanted else 1.0


def rare_words(text: str, pieces: Callable[[str], int]) -> set[str]:
    """The coverage words of ``text`` whose surface form ``pieces`` splits into more than one
    piece, and its numbers."""
    from localeval.text.coverage import _WORD, _spelled, _word, numbers_in

    words = {w for token in _WORD.findall(_spelled(text)) if (w := _word(token)) is not None and pieces(token) > 1}
    return words | set(numbers_in(text))


def lexical(claim: str, contexts: Sequence[str], pieces: Callable[[str], int]) -> Signals:
    """Both coverages of a claim against its contexts."""
    from localeval.text.coverage import coverage_words

    found: set[str] = set()
    for context in contexts:
        found |= coverage_words(context)
    return {"coverage_all": share_found(set(coverage_words(claim)), found),
            "coverage_rare": share_found(rare_words(claim, pieces), found)}


def item_scores(rows: list[dict], score: Callable[[Signals], float]) -> np.ndarray:
    """Faithfulness's item score: its weakest claim's (`verdict._item_scores`), from its signals."""
    from benchmarks.verdict import _item_scores

    return _item_scores(rows, lambda c: score(c["signals"]))


def overlap_scores(rows: list[dict]) -> np.ndarray:
    from benchmarks.verdict import _item_scores

    return _item_scores(rows, lambda c: c["overlap"])


def accuracy(items: list[dict], score: Callable[[Signals], float], threshold: float) -> float:
    """Share of hand-written claims decided right (supported when found and at the threshold)."""
    return float(np.mean([(it["found"] and score(it["signals"]) >= threshold) == bool(it["label"]) for it in items]))


def sweep(families: dict[str, list[dict]], sets: dict[str, list[dict]], threshold: float,
          fulls: Sequence[float] = FULLS, powers: Sequence[float] = POWERS,
          coverages: Sequence[str] = COVERAGES) -> dict:
    """The judge alone, word overlap and every gate: AUROC per family, the margin over overlap
    (paired bootstrap SE) on `MARGIN_FAMILIES`, and accuracy on the hand-written sets."""
    labels = {f: np.asarray([r["label"] for r in rows]) for f, rows in families.items()}
    overlap = {f: overlap_scores(rows) for f, rows in families.items()}

    def row(name: str, score: Callable[[Signals], float]) -> dict:
        scores = {f: item_scores(rows, score) for f, rows in families.items()}
        out = {"name": name, "auroc": {f: auroc(labels[f], s) for f, s in scores.items()},
               "sets": {n: accuracy(items, score, threshold) for n, items in sets.items()}, "margin": {}}
        for f in MARGIN_FAMILIES:
            if f in scores:
                se = paired_bootstrap_se(labels[f], overlap[f], scores[f], {"auroc": auroc_statistic})["auroc"]
                out["margin"][f] = {"value": out["auroc"][f] - auroc(labels[f], overlap[f]), "se": se}
        return out

    judge = row("judge alone", lambda s: float(s["p_best"]))
    gates = [row(f"{cov}, full {full:g}, power {power:g}", gate(full, power, cov)) | {
        "coverage": cov, "full": full, "power": power} for cov, full, power in product(coverages, fulls, powers)]
    for g in gates:
        g["keeps_sets"] = all(g["sets"][n] >= judge["sets"][n] - 1e-12 for n in g["sets"])
        g["above_overlap"] = all(m["value"] > 0 for m in g["margin"].values())
        g["at_least_judge"] = all(g["auroc"][f] >= judge["auroc"][f] - 1e-12 for f in g["auroc"])
    return {"judge": judge, "overlap": {f: auroc(labels[f], overlap[f]) for f in families},
            "n": {f: {"items": len(rows), "positives": int(labels[f].sum())} for f, rows in families.items()},
            "gates": gates, "any_passes": any(g["keeps_sets"] and g["above_overlap"] for g in gates)}


# ------------------------------------------------------------------ the data

def family_texts(families: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
    """The texts and contexts of the signals file's items: `verdict.load_items`'s samples, or
    every item of a family whose signals were computed with ``--all-items`` (its count tells);
    items whose labels differ from the file's are refused."""
    from benchmarks.verdict import load_items

    texts = load_items(data_dir, None)
    whole = [f for f, rows in families.items() if len(rows) != len(texts[f])]
    if whole:
        texts |= {f: rows for f, rows in load_items(data_dir, None, whole).items() if f in whole}
    for family, rows in families.items():
        if [r["label"] for r in texts[family]] != [r["label"] for r in rows]:
            raise SystemExit(f"{family}: the signals file's items are not verdict.py's (other data or sample?)")
    return texts


def attach_rare(families: dict[str, list[dict]], data_dir: Path, pieces: Callable[[str], int]) -> None:
    """Re-cut each family's claims as `verdict.py` cut them and add ``coverage_rare`` to the
    committed signals; a re-cut that does not give the committed claims is refused."""
    from benchmarks.verdict import claims_of

    texts = family_texts(families, data_dir)
    for family, rows in families.items():
        source = texts[family]
        for row, src, claims in zip(rows, source, claims_of([r["text"] for r in source])):
            if len(claims) != len(row["claims"]):
                raise SystemExit(f"{family}: claims re-cut differ from the signals file's (other claim code?)")
            for text, claim in zip(claims, row["claims"]):
                words = lexical(text, src["contexts"], pieces)
                if abs(words["coverage_all"] - claim["signals"]["coverage_all"]) > 1e-9:
                    raise SystemExit(f"{family}: coverage_all recomputed differs from the signals file's")
                claim["signals"]["coverage_rare"] = words["coverage_rare"]


def judge_sets(judge, pieces: Callable[[str], int]) -> tuple[dict[str, list[dict]], float]:
    """The hand-written sets judged as `verdict.contrast_set_check` judges them, with both
    coverages; and the threshold they are decided at (context recall's)."""
    from benchmarks.verdict import _contrast_items
    from localeval.evidence.attribution import attribute
    from localeval.metrics import ContextRecall

    metric = ContextRecall(judge)
    out = {}
    for name in HAND_WRITTEN:
        items = _contrast_items(name)
        supports = attribute(judge, [([it.claim], [it.premise]) for it in items], max_units=metric.max_units,
                             accept_at=None, signals=True)
        out[name] = [{"label": int(it.label == "supported"), "category": it.category, "found": s.evidence is not None,
                      "signals": {"p_best": s.probability} | lexical(it.claim, [it.premise], pieces)}
                     for it, (s,) in zip(items, supports)]
    return out, metric.resolved_threshold()


def rules_on_off(judge, family: str, data_dir: Path, rows: list[dict]) -> dict:
    """``family`` judged with the contrast rules on and off: faithfulness's item AUROC each
    way (paired bootstrap SE of the difference) and the claims each rule overruled."""
    from collections import Counter

    from benchmarks.verdict import claims_of
    from localeval.evidence.attribution import attribute

    source = family_texts({family: rows}, data_dir)[family]
    claims = claims_of([r["text"] for r in source])
    groups = list(zip(claims, [r["contexts"] for r in source]))
    y = np.asarray([r["label"] for r in source])
    runs = {on: attribute(judge, groups, locate_sentence=False, accept_at=None, contrasts=on) for on in (True, False)}
    scores = {on: np.asarray([min((s.probability for s in row), default=0.0) for row in runs[on]]) for on in runs}
    fired = Counter((s.contrast.split(":")[0], "supported" if label else "unsupported")
                    for row, label in zip(runs[True], y) for s in row if s.contrast)
    se = paired_bootstrap_se(y, scores[False], scores[True], {"auroc": auroc_statistic})["auroc"]
    return {"family": family, "n": len(y), "auroc_rules_on": auroc(y, scores[True]),
            "auroc_rules_off": auroc(y, scores[False]), "difference_se": se,
            "overruled": [{"rule": r, "label": lab, "claims": n} for (r, lab), n in sorted(fired.items())]}


# ------------------------------------------------------------------ report

def verdict_line(s: dict) -> str:
    """What the sweep says, in one sentence."""
    passing = [g["name"] for g in s["gates"] if g["keeps_sets"] and g["above_overlap"]]
    if passing:
        return "**A gate passes both sides**: " + "; ".join(passing) + "."
    keeping = [g for g in s["gates"] if g["keeps_sets"]]
    above = [g for g in s["gates"] if g["above_overlap"]]
    parts = [f"**No gate passes both sides** ({len(s['gates'])} gates): {len(keeping)} keep both hand-written sets"]
    if keeping:
        best = max(keeping, key=lambda g: g["margin"]["frank"]["value"] if "frank" in g["margin"] else 0.0)
        parts.append(f"(best FRANK margin among them {100 * best['margin'].get('frank', {}).get('value', 0.0):+.1f})")
    parts.append(f"and {len(above)} rank every margin family above word overlap")
    if above:
        best = max(above, key=lambda g: min(g["sets"].values()))
        parts.append("(the best of them on the hand-written sets: " +
                     ", ".join(f"{n} {100 * v:.1f} vs {100 * s['judge']['sets'][n]:.1f}" for n, v in best["sets"].items()) + ")")
    return " ".join(parts) + "."


def markdown(result: dict) -> str:
    s = result["sweep"]
    fams = list(s["n"])
    margined = [f for f in MARGIN_FAMILIES if f in fams]
    head = "| verdict | " + " | ".join(fams) + " | " + " | ".join(f"{f} - overlap" for f in margined) + \
        " | " + " | ".join(s["judge"]["sets"]) + " |"
    lines = [
        "# Coverage gates: FRANK against the hand-written sets", "",
        f"Command: `{result['command']}`. Machine: {result['machine']['cpu']}, {result['machine']['cpu_cores']} cores, "
        f"{result['machine']['date_utc']}. Signals: `{result['features']}` (families; no judge call for them). "
        f"Hand-written sets judged here, decided at context recall's threshold {result['threshold']}.", "",
        "Gate: P(supported) = p_best * min(1, coverage / full) ** power, at the judge's own threshold (it can only "
        "reject more than the judge). `all`: share of the claim's content words found in the contexts; `rare`: "
        "the same over its words the judge's tokenizer splits into several pieces, and its numbers. AUROC of "
        "faithfulness's item score (weakest claim), %; margins ± paired bootstrap SE (1,000 resamples); "
        "hand-written sets: claims decided right, %.", "",
        "n (items / positives): " + ", ".join(f"{f} {v['items']}/{v['positives']}" for f, v in s["n"].items()) + ".", "",
        head, "|" + "---|" * (1 + len(fams) + len(margined) + len(s["judge"]["sets"])),
    ]

    def cells(r: dict) -> str:
        margins = [f"{100 * m['value']:+.1f} ± {100 * m['se']:.1f}" if m["se"] is not None else f"{100 * m['value']:+.1f}"
                   for m in (r["margin"][f] for f in margined)]
        return " | ".join([f"{100 * r['auroc'][f]:.1f}" for f in fams] + margins +
                          [f"{100 * r['sets'][n]:.1f}" for n in r["sets"]])

    lines.append("| word overlap | " + " | ".join(f"{100 * s['overlap'][f]:.1f}" for f in fams) + " |" +
                 " — |" * (len(margined) + len(s["judge"]["sets"])))
    lines.append(f"| **{s['judge']['name']}** | {cells(s['judge'])} |")
    for g in s["gates"]:
        mark = " (keeps both sets)" if g["keeps_sets"] else ""
        lines.append(f"| {g['name']}{mark} | {cells(g)} |")
    lines += ["", verdict_line(s)]
    rules = result.get("rules")
    if rules:
        lines += ["", f"## The contrast rules on {rules['family']} (n {rules['n']})", "",
                  f"Faithfulness item AUROC (today's code, judged here) with the rules "
                  f"{100 * rules['auroc_rules_on']:.1f}, without {100 * rules['auroc_rules_off']:.1f} (difference "
                  f"{100 * (rules['auroc_rules_on'] - rules['auroc_rules_off']):+.1f} ± {100 * rules['difference_se']:.1f}); "
                  f"word overlap {100 * s['overlap'][rules['family']]:.1f}. Claims each rule overruled:", "",
                  "| rule | on supported claims | on unsupported claims |", "|---|---|---|"]
        fired: dict[str, dict[str, int]] = {}
        for r in rules["overruled"]:
            fired.setdefault(r["rule"], {})[r["label"]] = r["claims"]
        for rule, counts in sorted(fired.items()):
            lines.append(f"| {rule} | {counts.get('supported', 0)} | {counts.get('unsupported', 0)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--features", type=Path, default=REPO_ROOT / "benchmarks/results/verdict_signals_six.json.xz")
    add_data_dir(p, sub="meta-eval")
    add_judge(p)
    p.add_argument("--rules", default="frank", help="family judged with the contrast rules on and off ('' skips)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/coverage_gates.json")
    args = p.parse_args(argv)

    from localeval.judge import NLIJudge

    judge = NLIJudge(args.model, device="cpu")
    pieces = lambda token: len(judge.tokenizer.tokenize(token))  # noqa: E731
    families = read_data(args.features)
    attach_rare(families, args.data_dir, pieces)
    sets, threshold = judge_sets(judge, pieces)
    result = {"command": command_line("python benchmarks/studies/coverage_gates.py", argv),
              "features": portable_path(args.features), "machine": describe_machine(), "threshold": threshold,
              "sweep": sweep(families, sets, threshold)}
    if args.rules:
        result["rules"] = rules_on_off(judge, args.rules, args.data_dir, families[args.rules])
    publish(args.output, result, markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
