"""Per-claim judge signals of AttributionBench dev (the sixth development family), in the
shape of ``benchmarks/results/verdict_signals.json.xz`` (which holds the other five), so that
`benchmarks/ppi_study.py` reads all six families alike.

    python benchmarks/ppi_signals.py [--limit 400] [--output benchmarks/results/ppi_signals_attributionbench.json]

Every claim is judged exactly as `benchmarks/verdict.py` judges the other families
(`verdict.compute_signals`: the claim split as `Faithfulness` splits a response, its 6 closest
units of the cited references, every unit judged), plus its word-overlap score.
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

from benchmarks.lib.cli import meta_eval_dir  # noqa: E402
from benchmarks.lib.readers import ATTRIBUTIONBENCH_FILE, read_attributionbench  # noqa: E402
from benchmarks.verdict import compute_signals, lean  # noqa: E402

DATA = meta_eval_dir() / ATTRIBUTIONBENCH_FILE


def main(argv: list[str] | None = None) -> None:
    from localeval.judge import NLIJudge

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--limit", type=int, default=400, help="items kept, class-balanced and seeded (default 400; 0: all 1,088)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/ppi_signals_attributionbench.json")
    args = p.parse_args(argv)
    start = time.perf_counter()
    judge = NLIJudge(None, device="cpu")
    items = compute_signals(judge, {"attributionbench": read_attributionbench(args.data, args.limit)})
    args.output.write_text(json.dumps(lean(items)) + "\n", encoding="utf-8")
    print(f"{len(items['attributionbench'])} items in {time.perf_counter() - start:.0f} s -> {args.output}")


if __name__ == "__main__":
    main()
