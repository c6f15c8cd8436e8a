"""The human-readable side of a benchmark run: one markdown document, also printed."""

from __future__ import annotations

__all__ = ["markdown_report", "results_table"]

SECTION_TITLES = {
    "held_out": "Held-out splits of the training sources",
    "eval_only": "Evaluation-only sets (never trained on)",
    "meta_eval": "Meta-evaluation dev sets",
}

HEADER = (
    "| set | n (pos) | acc 3-way | acc @t | BA @t | BA oracle | AUROC "
    "| floor BA @t | floor BA oracle | floor AUROC |"
)


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.1f}"


def _auc(value: float | None) -> str:
    return "-" if value is None or value != value else f"{value:.3f}"


def _row(r: dict) -> str:
    m, o = r["model"], r.get("overlap") or {}
    return (
        f"| {r['set']} | {r['n']} ({r['n_positive']}) | {_pct(m['accuracy_3way'])} "
        f"| {_pct(m['accuracy_binary'])} | {_pct(m['balanced_accuracy'])} "
        f"| {_pct(m['balanced_accuracy_oracle'])} | {_auc(m['auroc'])} "
        f"| {_pct(o.get('balanced_accuracy'))} | {_pct(o.get('balanced_accuracy_oracle'))} "
        f"| {_auc(o.get('auroc'))} |"
    )


def results_table(rows: list[dict]) -> str:
    lines: list[str] = []
    for section, title in SECTION_TITLES.items():
        chosen = [r for r in rows if r["section"] == section]
        if not chosen:
            continue
        lines += [f"### {title}", "", HEADER, "|" + "---|" * 10]
        lines += [_row(r) for r in chosen]
        lines.append("")
    return "\n".join(lines)


# Published figures on the same data families (not always the same split), for orientation.
REFERENCES = [
    "WiCE (LLM-AggreFact, test split, balanced accuracy): AlignScore 66.0, SummaC-ZS 62.8, "
    "MiniCheck-DeBERTa-L 69.4, MiniCheck-FT5 72.2, GPT-4o 78.5",
    "SummaC benchmark (test split, balanced accuracy) FactCC / Polytope / SummEval / XSumFaith: "
    "SummaC-ZS 83.8 / 62.0 / 78.7 / 58.4; SummaC-Conv 89.5 / 62.7 / 81.7 / 66.4",
    "Word-overlap floor on WiCE dev as measured before this benchmark existed: balanced accuracy "
    "62.8 / AUROC 0.74 vs the whole article, 68.4 vs oracle chunks",
]


def _speed_lines(speed: dict) -> list[str]:
    lines = [f"- model load: {speed.get('load_seconds')} s"]
    names = {"cpu": "CPU", "cpu_short": "CPU, short pairs (SICK sentence pairs)", "gpu": "GPU"}
    for key, name in names.items():
        s = speed.get(key)
        if s:
            lines.append(
                f"- {name}: **{s['pairs_per_second']} pairs/s** ({s['pairs']} pairs of "
                f"{s['mean_tokens_per_pair']} tokens on average, batch {s['batch_size']}, {s['dtype']}, "
                f"torch threads {s['torch_threads']}, 1-min load average {s.get('load_average_1min')})"
            )
    return lines


def markdown_report(result: dict) -> str:
    machine, model, thr = result["machine"], result["model"], result["threshold"]
    gpu = machine["gpu"]["name"] if machine.get("gpu") else "none"
    lines = [
        f"# Judge benchmark: {model['name']}",
        "",
        f"- date (UTC): {machine['date_utc']}; CPU: {machine['cpu']} ({machine['cpu_cores']} cores, "
        f"torch threads {machine['torch_threads']}); GPU: {gpu}; judged on: {result['device']}",
        f"- torch {machine['torch']}, transformers {machine['transformers']}, python {machine['python']}",
        f"- model weights sha256: `{model['weights_sha256']}`; max_length {model['max_length']}",
        f"- command: `{result['command']}`",
        f"- wall time: {result['wall_seconds']} s",
        "",
        "## Decision threshold",
        "",
        f"- procedure: {thr['procedure']}",
        f"- chosen entailment threshold **t = {thr['chosen']:.4f}** (mean dev balanced accuracy "
        f"{_pct(thr['chosen_dev_balanced_accuracy'])}); the config held {thr['config_before']:.4f}; "
        f"written to config.json: {thr['written']}",
        f"- word-overlap floor: its own threshold chosen the same way, t = {thr['overlap_chosen']:.4f}",
        f"- relevance threshold (as stored, not tuned here): {result['thresholds_used']['relevance']:.4f}",
        f"- columns `@t` use t = {result['thresholds_used']['entailment']:.4f} (relevance sets: the relevance "
        "threshold); `oracle` = the set's own best threshold, an upper bound, not a result",
        "",
        "## Results",
        "",
        "Percentages; BA = balanced accuracy (supported vs not); floor = word-overlap baseline "
        "(share of the claim's content words found in the evidence). The threshold was chosen on "
        "WiCE / SummaC / BEGIN dev, so their `@t` figures are in-sample; eval-only and held-out "
        "figures are out-of-sample.",
        "",
        results_table(result["rows"]),
        "Published reference points (other splits, other threshold procedures: loose comparisons only):",
        "",
        *[f"- {line}" for line in REFERENCES],
        "",
        "## Speed",
        "",
        *_speed_lines(result["speed"]),
        "",
        "## Sets and sample sizes",
        "",
        "| set | used / total | label mapping | source |",
        "|---|---|---|---|",
    ]
    for r in result["rows"]:
        lines.append(f"| {r['set']} | {r['n']} / {r['n_total']} | {r.get('label_mapping') or ''} | {r['source']} |")
    if result.get("notes"):
        lines += ["", "## Notes", "", *[f"- {n}" for n in result["notes"]]]
    return "\n".join(lines) + "\n"
