"""The fixed held-out split carved out of every source before any training.

Membership depends only on the text (a hash of each item's group under a constant salt), never
on ``--seed`` or on file order, so every run, on any machine, holds out the same items. Whole
groups (all hypotheses of one premise, all questions of one paragraph) go to one side, so the
held-out numbers are not inflated by a premise the model has already seen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from .examples import Example, stable_hash

T = TypeVar("T")

SPLIT_SALT = 20261122
"""Changing this changes the held-out set; keep it fixed across releases."""
HELDOUT_CAP = 1000
HELDOUT_FRACTION = 0.12


def heldout_size(
    n: int, cap: int = HELDOUT_CAP, fraction: float = HELDOUT_FRACTION
) -> int:
    return min(cap, round(n * fraction))


def split_by_group(
    items: Sequence[T], group: Callable[[T], str], target: int
) -> tuple[list[T], list[T]]:
    """Return (train, heldout): groups in hash order fill the held-out side up to ``target``."""
    groups: dict[str, list[int]] = {}
    for i, item in enumerate(items):
        groups.setdefault(group(item), []).append(i)
    held: set[int] = set()
    for g in sorted(groups, key=lambda g: stable_hash(g, SPLIT_SALT)):
        if len(held) >= target:
            break
        held.update(groups[g])
    train = [x for i, x in enumerate(items) if i not in held]
    heldout = [x for i, x in enumerate(items) if i in held]
    return train, heldout


def split_examples(
    examples: Sequence[Example], target: int | None = None
) -> tuple[list[Example], list[Example]]:
    n = heldout_size(len(examples)) if target is None else target
    return split_by_group(examples, lambda e: e.group or e.key, n)


def drop_leaks(train: list[Example], heldout: Sequence[Example]) -> list[Example]:
    """Remove training pairs that also occur (after normalisation) on the held-out side of any
    source: the collected files overlap in places (INVENTORY.md lists the known cases)."""
    held_keys = {e.key for e in heldout}
    return [e for e in train if e.key not in held_keys]


def write_manifest(
    path: Path, heldout: Sequence[Example], train_counts: dict[str, int]
) -> None:
    """Held-out pair ids per source, so a later benchmark can exclude what the judge trained on
    and re-use exactly these items."""
    by_source: dict[str, list[str]] = {}
    for e in heldout:
        by_source.setdefault(e.source, []).append(e.key)
    manifest = {
        "salt": SPLIT_SALT,
        "key": "sha1 of lower-cased, whitespace-normalised 'text_a<TAB>text_b', first 16 hex digits",
        "train_pool_sizes": train_counts,
        "heldout": {s: sorted(keys) for s, keys in sorted(by_source.items())},
    }
    path.write_text(json.dumps(manifest, indent=0) + "\n", encoding="utf-8")
