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
        assert gc.get_freeze_count() >= at_start + len(kept)
        settle()  # once only
        with long_lived_heap() as inner:  # a nested run changes nothing
            inner()
        assert gc.get_freeze_count() >= at_start + len(kept)
    assert gc.get_freeze_count() == 0


def test_a_run_leaves_nothing_frozen(tiny_judge):
    gc.unfreeze()
    rows = [{"user_input": "Where is the museum?", "response": "The museum is in Oslo.",
             "retrieved_contexts": ["The museum is in Oslo. It opened in 1902."]}] * 3
    out = evaluate(rows, ["faithfulness"], model=tiny_judge, show_progress=False)
    assert len(out.rows) == 3 and all(r.results["faithfulness"].score is not None for r in out.rows)
    assert gc.get_freeze_count() == 0
