"""The judge's number format: the choices, their errors, and bf16 where the CPU has it."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from localeval.judge import NLIJudge
from localeval.judge.dtypes import cpu_has_native_bf16, resolve_dtype

CPU = torch.device("cpu")
PAIRS = [("a man sleeps in the park .", "a man sleeps ."), ("the dog runs .", "the cat eats .")] * 8


def test_auto_keeps_the_reference_formats() -> None:
    assert resolve_dtype(None, CPU) is torch.float32
    assert resolve_dtype("auto", CPU) is torch.float32
    assert resolve_dtype("AUTO", torch.device("cuda")) is torch.float16
    assert resolve_dtype("fp32", torch.device("cuda")) is torch.float32


def test_impossible_choices_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown precision"):
        resolve_dtype("int4", CPU)
    with pytest.raises(ValueError, match="needs a CUDA device"):
        resolve_dtype("fp16", CPU)
    if cpu_has_native_bf16():
        assert resolve_dtype("bf16", CPU) is torch.bfloat16
    else:
        with pytest.raises(ValueError, match="emulated"):
            resolve_dtype("bf16", CPU)


def test_native_bf16_detection_matches_cpuinfo() -> None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        text = ""
    expected = ("avx512_bf16" in text or "amx_bf16" in text) and "flags" in text
    import platform

    if platform.machine() not in ("x86_64", "AMD64"):
        expected = False
    assert cpu_has_native_bf16() is expected


def test_bf16_judge_is_cached_apart_and_close_to_fp32(tiny_nli_dir) -> None:
    if not cpu_has_native_bf16():
        with pytest.raises(ValueError, match="emulated"):
            NLIJudge(tiny_nli_dir, device="cpu", precision="bf16")
        return
    fp32 = NLIJudge(tiny_nli_dir, device="cpu")
    bf16 = NLIJudge(tiny_nli_dir, device="cpu", precision="bf16")
    assert fp32.dtype is torch.float32 and bf16.dtype is torch.bfloat16
    assert fp32.identity != bf16.identity  # a bf16 verdict never answers an fp32 run from the cache
    a = fp32.predict(PAIRS, task="nli", batch_size=4)
    b = bf16.predict(PAIRS, task="nli", batch_size=4)
    assert b.dtype == np.float32 and np.isfinite(b).all()
    np.testing.assert_allclose(b.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(a - b).max() < 0.05


def test_dtype_is_a_config_key_and_a_cli_flag(tmp_path, tiny_nli_dir) -> None:
    from typer.testing import CliRunner

    from localeval.cli.main import app
    from localeval.config import LocalevalConfig

    assert LocalevalConfig().score_kwargs()["dtype"] == "auto"
    with pytest.raises(ValueError, match="dtype"):
        LocalevalConfig(dtype="int8")
    data = tmp_path / "rows.jsonl"
    data.write_text(json.dumps({"reference": "a man sleeps .", "retrieved_contexts": ["a man sleeps in the park ."]}) + "\n")
    result = CliRunner().invoke(app, ["score", str(data), "--model", str(tiny_nli_dir), "--dtype", "fp16",
                                      "--device", "cpu", "--no-progress"])
    assert result.exit_code == 2 and "CUDA" in result.output
    result = CliRunner().invoke(app, ["score", str(data), "--model", str(tiny_nli_dir), "--dtype", "fp32",
                                      "--device", "cpu", "--no-progress", "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0, result.output
    row = json.loads((tmp_path / "out.jsonl").read_text())
    assert 0.0 <= row["context_recall"] <= 1.0
