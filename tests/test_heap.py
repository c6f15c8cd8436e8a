"""A run keeps its long-lived objects out of the collector's full passes, and leaves nothing
frozen behind it."""

from __future__ import annotations

import gc

from localeval import evaluate
from localeval.runner.heap import long_lived_heap


def test_freezes_during_the_block_and_unfreezes_after():
    gc.unfreeze()
    with long_lived_heap() as settle:
        at_start = gc.get_freeze_count()
        assert at_start > 0
        kept = [[i] for i in range(5000)]  # made after the start: not frozen yet
        settle()
        # An object frozen at the start that dies meanwhile leaves the count: a few may, so
        # the count grows by nearly (not exactly) the 5,000 objects made since.
        frozen = gc.get_freeze_count()
        assert frozen - at_start > 0.9 * len(kept)
        settle()  # once only
        with long_lived_heap() as inner:  # a nested run changes nothing
            inner()
        assert gc.get_freeze_count() > frozen - 0.1 * len(kept)
    assert gc.get_freeze_count() == 0


def test_a_run_leaves_nothing_frozen(tiny_judge):
    gc.unfreeze()
    rows = [{"user_input": "Where is the museum?", "response": "The museum is in Oslo.",
             "retrieved_contexts": ["The museum is in Oslo. It opened in 1902."]}] * 3
    out = evaluate(rows, ["faithfulness"], model=tiny_judge, show_progress=False)
    assert len(out.rows) == 3 and all(r.results["faithfulness"].score is not None for r in out.rows)
    assert gc.get_freeze_count() == 0


def _rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def test_freed_pages_go_back_to_the_system():
    from localeval.runner.heap import _malloc_trim, release_freed_memory

    assert _malloc_trim() is not None  # glibc, as on every Linux machine this runs on
    blocks = [bytearray(100_000) for _ in range(2000)]  # ~200 MB on the C heap (below mmap's size)
    pinned = bytearray(100_000)  # above them: the heap's top cannot simply shrink
    del blocks
    before = _rss_mb()
    release_freed_memory()
    assert _rss_mb() < before - 100
    del pinned


def _env_after_import(env: dict[str, str]) -> str:
    import os
    import subprocess
    import sys

    code = ("import os, localeval.judge as b; "
            "print(os.environ.get(b.kernels.ONEDNN_CACHE_ENV, '<unset>'))")
    clean = {k: v for k, v in os.environ.items() if k != "ONEDNN_PRIMITIVE_CACHE_CAPACITY"}
    done = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_backends_bound_onednn_kernel_cache_and_keep_a_users_value():
    from localeval.judge.kernels import ONEDNN_CACHE_CAPACITY

    assert _env_after_import({}) == str(ONEDNN_CACHE_CAPACITY)
    assert _env_after_import({"ONEDNN_PRIMITIVE_CACHE_CAPACITY": "512"}) == "512"
