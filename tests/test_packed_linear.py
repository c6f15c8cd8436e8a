"""bf16 linear layers on oneDNN's packed weights (localeval.judge.kernels): the shipped
judge's verdicts are those of the plain layers, and fp32 is left as it is."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from localeval.judge import NLIJudge
from localeval.judge.dtypes import cpu_has_native_bf16

PAIRS = [
    ("The Eiffel Tower is in Paris. It was finished in 1889 for the World's Fair.", "The tower was completed in 1889."),
    ("The Eiffel Tower is in Paris.", "The tower is in Rome."),
    ("Water boils at 100 degrees Celsius at sea level, and at lower temperatures on high mountains "
     "because the air pressure there is lower.", "Water boils at a lower temperature on mountains."),
    ("Cats are mammals.", "Cats lay eggs."),
    ("The meeting moved from Monday to Wednesday afternoon.", "The meeting is on Wednesday."),
]


def test_fp32_judge_is_not_packed(tiny_nli_dir) -> None:
    judge = NLIJudge(tiny_nli_dir, device="cpu")
    assert judge.packed_linears == 0
    assert any(type(m) is torch.nn.Linear for m in judge.model.modules())


def test_packed_bf16_judge_gives_the_plain_layers_verdicts(monkeypatch) -> None:
    if not cpu_has_native_bf16():
        with pytest.raises(ValueError, match="bf16"):
            NLIJudge(None, device="cpu", precision="bf16")
        return
    packed = NLIJudge(None, device="cpu", precision="bf16")
    monkeypatch.setenv("LOCALEVAL_PACKED_LINEAR", "0")
    plain = NLIJudge(None, device="cpu", precision="bf16")
    linears = sum(type(m) is torch.nn.Linear for m in plain.model.modules())
    assert plain.packed_linears == 0 and linears > 0
    # The attention projections, the feed-forward input and the heads (384-wide inputs) are
    # packed; a shape whose kernels round differently at some probed row count stays plain.
    assert 0 < packed.packed_linears <= linears
    left = sum(type(m) is torch.nn.Linear for m in packed.model.modules())
    assert packed.packed_linears + left == linears
    for batch_size in (2, 5):  # ragged batches: padded to different lengths
        a = packed.predict(PAIRS, task="nli", batch_size=batch_size)
        b = plain.predict(PAIRS, task="nli", batch_size=batch_size)
        assert np.abs(a - b).max() <= 1e-3
        np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-5)
    rel_a = packed.predict(PAIRS, task="relevance", batch_size=5)
    rel_b = plain.predict(PAIRS, task="relevance", batch_size=5)
    assert np.abs(rel_a - rel_b).max() <= 1e-3
    # The verdicts themselves: a supported claim above a contradicted one.
    assert a[0, packed.layout.entailment] > a[1, packed.layout.entailment]
