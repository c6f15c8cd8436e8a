"""spaCy's attribute ruler against localeval's lookup ruler (`localeval.text.ruler`), in turns.

    python benchmarks/studies/lookup_ruler.py [--rows 100] [--rounds 2]

Two measurements, each ruler in turn within one process, so both meet the same load:

* parsing the hand-written texts of the benchmarks (check sets, contrast set, realistic rows)
  and the bulk rows with the whole pipeline but the entity recogniser: seconds, and whether
  every token's part of speech, tag, lemma, morphology and dependency is the same;
* context recall on `bulk_speed`'s rows (the shipped judge, bf16): milliseconds per row
  outside the judge, the best of ``--rounds`` runs of each.

Results: ``benchmarks/results/lookup_ruler.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_judge  # noqa: E402
from benchmarks.lib.files import command_line, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

FIELDS = ("premise", "claim", "response", "reference", "question")


def benchmark_texts(rows: list[dict]) -> list[str]:
    texts: list[str] = []
    for path in sorted((REPO_ROOT / "benchmarks").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            texts += [item[k] for k in FIELDS if isinstance(item.get(k), str)]
            texts += [c for c in item.get("retrieved_contexts") or [] if isinstance(c, str)]
    for row in rows:
        texts += [row["response"], row["reference"], *row["retrieved_contexts"]]
    return list(dict.fromkeys(t for t in texts if t))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    add_judge(parser)
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/lookup_ruler.json")
    args = parser.parse_args(argv)

    from benchmarks.bulk_speed import make_rows, measured
    from localeval.judge import get_judge
    from localeval.text.entities import load_nlp
    from localeval.text.ruler import FACTORY

    nlp = load_nlp()
    if FACTORY not in nlp.pipe_names:
        raise SystemExit("this spaCy pipeline keeps spaCy's ruler: nothing to compare")

    def use(ruler: str) -> None:
        on, off = ("attribute_ruler", FACTORY) if ruler == "spaCy" else (FACTORY, "attribute_ruler")
        nlp.enable_pipe(on)
        nlp.disable_pipe(off)

    rows = make_rows(args.rows, seed=1)
    texts = benchmark_texts(rows)
    parse_s: dict[str, list[float]] = {"spaCy": [], "lookup": []}
    parsed: dict[str, list] = {}
    for _ in range(args.rounds):
        for ruler in parse_s:
            use(ruler)
            start = time.perf_counter()
            docs = list(nlp.pipe(texts, disable=["ner"]))
            parse_s[ruler].append(time.perf_counter() - start)
            parsed[ruler] = [[(t.pos_, t.tag_, t.lemma_, str(t.morph), t.dep_) for t in d] for d in docs]
    tokens = sum(len(d) for d in parsed["spaCy"])
    same = parsed["spaCy"] == parsed["lookup"]

    judge = get_judge(args.model, device="cpu", precision="bf16")
    measured(make_rows(8, seed=5), ["context_recall"], judge, 32)  # warm-up
    outside: dict[str, list[float]] = {"spaCy": [], "lookup": []}
    for _ in range(args.rounds):
        for ruler in outside:
            use(ruler)
            run = measured(rows, ["context_recall"], judge, 32)
            outside[ruler].append((run.seconds - run.judge_seconds) / len(rows) * 1000)
    use("lookup")

    result = {"machine": describe_machine(), "command": command_line("python benchmarks/studies/lookup_ruler.py", argv),
              "texts": len(texts), "tokens": tokens, "same_attributes": same,
              "parse_s": {k: [round(v, 2) for v in vs] for k, vs in parse_s.items()},
              "context_recall_rows": args.rows,
              "outside_judge_ms_per_row": {k: [round(v, 1) for v in vs] for k, vs in outside.items()}}
    publish(args.output, result, render(result))
    return 0


def render(r: dict) -> str:
    m = r["machine"]
    best = {k: min(v) for k, v in r["parse_s"].items()}
    out = {k: min(v) for k, v in r["outside_judge_ms_per_row"].items()}
    return "\n".join([
        "# spaCy's attribute ruler against the lookup ruler",
        "",
        f"Measured {m['date_utc']} on {m['cpu']} ({m['cpu_cores']} cores), torch {m['torch']}. "
        f"Command: `{r['command']}`. Each ruler in turn, best of the rounds.",
        "",
        "| | spaCy's ruler | lookup ruler | ratio |",
        "|---|---|---|---|",
        f"| parse {r['texts']} texts ({r['tokens']} tokens), s | {best['spaCy']:.2f} | {best['lookup']:.2f} | "
        f"{best['lookup'] / best['spaCy']:.2f} |",
        f"| context recall, {r['context_recall_rows']} rows: ms per row outside the judge | {out['spaCy']:.1f} | "
        f"{out['lookup']:.1f} | {out['lookup'] / out['spaCy']:.2f} |",
        "",
        f"Every token's part of speech, tag, lemma, morphology and dependency the same: "
        f"**{'yes' if r['same_attributes'] else 'NO'}**.",
        "",
        "All rounds: " + json.dumps({"parse_s": r["parse_s"], "outside_ms": r["outside_judge_ms_per_row"]}),
        "",
    ])


if __name__ == "__main__":
    raise SystemExit(main())
