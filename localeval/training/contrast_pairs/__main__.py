"""``python -m localeval.training.contrast_pairs``: count the contrast pairs per kind and label built
from the training side of the QA sources, and print a few of each kind."""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from pathlib import Path

from .. import data as data_mod
from .. import sources
from ..sources import QAItem
from . import KINDS, SHORT_PARAGRAPH, generate, load_parser


def _main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m localeval.training.contrast_pairs",
        description="Count the contrast pairs per kind and label built from the training side "
        "of the QA sources, and print a few of each kind.",
    )
    p.add_argument("--data-dir", type=Path,
                   default=Path(os.environ.get("LOCALEVAL_DATA_DIR", "../shared/data")))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-items", type=int, default=None)
    p.add_argument("--show", type=int, default=3, help="examples printed per kind")
    p.add_argument("--reverse", action="store_true", help="add each edit the other way round")
    p.add_argument("--premise-chars", type=int, default=SHORT_PARAGRAPH,
                   help="longest paragraph kept whole as the premise")
    p.add_argument("--additions", action="store_true", help="add the 'addition' kind")
    args = p.parse_args(argv)
    started, cpu_started = time.time(), time.process_time()
    train_items: list[QAItem] = []
    for reader in sources.QA_READERS.values():
        train_items += data_mod.qa_split(reader(args.data_dir / "train"))[0]
    nlp = load_parser()
    pairs = generate(train_items, args.seed, nlp, args.max_items, reverse=args.reverse,
                     premise_chars=args.premise_chars, additions=args.additions)
    counts = Counter((kind, e.label == 0) for e, kind in pairs)
    print(f"{len(pairs)} pairs in {time.time() - started:.0f} s wall, "
          f"{time.process_time() - cpu_started:.0f} s CPU (spaCy parser: {'yes' if nlp else 'no'})")
    print(f"{'kind':15} {'entailed':>9} {'not':>7} {'total':>7}")
    for kind in KINDS:
        pos, neg = counts[(kind, True)], counts[(kind, False)]
        print(f"{kind:15} {pos:9d} {neg:7d} {pos + neg:7d}")
    shown: Counter[str] = Counter()
    for e, kind in pairs:
        if shown[kind] < args.show:
            shown[kind] += 1
            print(f"\n[{kind}] label={e.label} ({e.task})\n  P: {e.text_a[:300]}\n  H: {e.text_b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
