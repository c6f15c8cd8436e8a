"""Fine-tuning loop: length-bucketed batches, AdamW with warmup + linear decay, a wall-clock
budget that stops training early enough to leave time for the held-out eval and export."""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from .examples import Example
from .model import TASK_IDS, multitask_loss

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)


@dataclass
class Encoded:
    input_ids: list[list[int]]
    token_type_ids: list[list[int]]
    labels: list[int]
    tasks: list[int]

    def __len__(self) -> int:
        return len(self.labels)


def encode(
    tokenizer: PreTrainedTokenizerBase, examples: Sequence[Example], max_length: int
) -> Encoded:
    # longest_first trims the longer side, in practice the premise/passage, and keeps claims whole.
    enc = tokenizer(
        [e.text_a for e in examples],
        [e.text_b for e in examples],
        truncation="longest_first",
        max_length=max_length,
    )
    types = enc.get("token_type_ids") or [[0] * len(ids) for ids in enc["input_ids"]]
    return Encoded(
        enc["input_ids"],
        types,
        [e.label for e in examples],
        [TASK_IDS[e.task] for e in examples],
    )


def bucketed_batches(
    lengths: Sequence[int], batch_size: int, rng: random.Random | None, chunk: int = 50
) -> list[list[int]]:
    """Shuffle, sort by length inside chunks of ``chunk`` batches, then shuffle the batches:
    little padding, yet no batch order tied to length. ``rng=None`` keeps input order (eval)."""
    order = list(range(len(lengths)))
    if rng is not None:
        rng.shuffle(order)
    size = batch_size * chunk
    batches: list[list[int]] = []
    for start in range(0, len(order), size):
        block = sorted(order[start : start + size], key=lambda i: lengths[i])
        batches += [block[i : i + batch_size] for i in range(0, len(block), batch_size)]
    if rng is not None:
        rng.shuffle(batches)
    return batches


def collate(
    data: Encoded, idx: Sequence[int], pad_id: int, device: torch.device
) -> dict[str, torch.Tensor]:
    width = max(len(data.input_ids[i]) for i in idx)
    ids = torch.full((len(idx), width), pad_id, dtype=torch.long)
    types = torch.zeros((len(idx), width), dtype=torch.long)
    mask = torch.zeros((len(idx), width), dtype=torch.long)
    for row, i in enumerate(idx):
        n = len(data.input_ids[i])
        ids[row, :n] = torch.tensor(data.input_ids[i])
        types[row, :n] = torch.tensor(data.token_type_ids[i])
        mask[row, :n] = 1
    return {
        "input_ids": ids.to(device),
        "token_type_ids": types.to(device),
        "attention_mask": mask.to(device),
        "labels": torch.tensor([data.labels[i] for i in idx], device=device),
        "tasks": torch.tensor([data.tasks[i] for i in idx], device=device),
    }


@dataclass
class TrainConfig:
    epochs: float = 1.0
    batch_size: int = 32
    lr: float = 4e-5
    weight_decay: float = 0.01
    warmup: float = 0.06
    seed: int = 13
    deadline: float | None = None
    """time.time() at which training must stop (None: no budget)."""
    started: float = 0.0
    log_every: int = 50


@dataclass
class TrainStats:
    steps: int = 0
    planned_steps: int = 0
    pairs: int = 0
    seconds: float = 0.0
    stopped_by_budget: bool = False
    final_loss: float = float("nan")

    @property
    def pairs_per_second(self) -> float:
        return self.pairs / self.seconds if self.seconds else 0.0


def _epoch_batches(
    data: Encoded, cfg: TrainConfig, rng: random.Random
) -> Iterator[list[int]]:
    lengths = [len(x) for x in data.input_ids]
    full = int(cfg.epochs)
    for _ in range(full):
        yield from bucketed_batches(lengths, cfg.batch_size, rng)
    frac = cfg.epochs - full
    if frac > 0:
        batches = bucketed_batches(lengths, cfg.batch_size, rng)
        yield from batches[: math.ceil(len(batches) * frac)]


def train(
    model: PreTrainedModel,
    data: Encoded,
    cfg: TrainConfig,
    device: torch.device,
    pad_id: int,
) -> TrainStats:
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    n_batches = math.ceil(len(data) / cfg.batch_size)
    planned = max(1, math.ceil(n_batches * cfg.epochs))
    warmup = max(1, int(planned * cfg.warmup))
    no_decay = ("bias", "LayerNorm.weight", "LayerNorm.bias")
    groups = [
        {
            "params": [
                p for n, p in model.named_parameters() if not n.endswith(no_decay)
            ],
            "weight_decay": cfg.weight_decay,
        },
        {
            "params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
            "weight_decay": 0.0,
        },
    ]
    opt = torch.optim.AdamW(groups, lr=cfg.lr)
    use_amp = device.type == "cuda"
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    model.to(device).train()

    stats = TrainStats(planned_steps=planned)
    t0 = time.time()
    budget = (cfg.deadline - t0) if cfg.deadline else None
    ema = None
    for step, idx in enumerate(_epoch_batches(data, cfg, rng), start=1):
        # Linear decay follows whichever is further along, steps or the time budget, so a run
        # cut short by its budget still ends at a small learning rate instead of mid-schedule.
        progress = step / planned
        if budget:
            progress = max(progress, (time.time() - t0) / budget)
        scale = min(
            step / warmup, max(0.0, (1 - progress) / max(1e-9, 1 - warmup / planned))
        )
        for g in opt.param_groups:
            g["lr"] = cfg.lr * min(1.0, scale)

        batch = collate(data, idx, pad_id, device)
        labels, tasks = batch.pop("labels"), batch.pop("tasks")
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
            logits = model(**batch).logits
        loss = multitask_loss(logits, labels, tasks)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()

        stats.steps, stats.pairs = step, stats.pairs + len(idx)
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        stats.final_loss = ema
        if step % cfg.log_every == 0 or step == 1:
            el = time.time() - t0
            log.info(
                "step %d/%d loss %.4f lr %.2e %.1f pairs/s elapsed %.0fs",
                step,
                planned,
                ema,
                opt.param_groups[0]["lr"],
                stats.pairs / el,
                el,
            )
        if cfg.deadline and time.time() >= cfg.deadline:
            stats.stopped_by_budget = True
            log.info(
                "time budget spent after %d/%d steps: stopping to evaluate and export",
                step,
                planned,
            )
            break
    stats.seconds = time.time() - t0
    model.eval()
    return stats
