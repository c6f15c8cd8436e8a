"""benchmarks/lib/cli.py: the benchmark scripts' shared options, and the data folder they
default to ($LOCALEVAL_DATA_DIR, else ../shared/data beside the repository)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # `benchmarks` is not installed

from benchmarks.lib.cli import JUDGE_HELP, add_data_dir, add_judge, data_root, meta_eval_dir  # noqa: E402

BESIDE = ROOT.parent / "shared" / "data"


def test_data_root_honours_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("LOCALEVAL_DATA_DIR", str(tmp_path))
    assert data_root() == tmp_path
    assert meta_eval_dir() == tmp_path / "meta-eval"


def test_data_root_falls_back_to_the_folder_beside_the_repository(monkeypatch):
    monkeypatch.delenv("LOCALEVAL_DATA_DIR", raising=False)
    assert data_root() == BESIDE
    monkeypatch.setenv("LOCALEVAL_DATA_DIR", "")  # empty: unset, not the working directory
    assert data_root() == BESIDE


def test_add_data_dir_meta_eval_and_root(monkeypatch, tmp_path):
    monkeypatch.setenv("LOCALEVAL_DATA_DIR", str(tmp_path))
    p = argparse.ArgumentParser()
    add_data_dir(p, sub="meta-eval")
    assert p.parse_args([]).data_dir == tmp_path / "meta-eval"
    assert p.parse_args(["--data-dir", "elsewhere"]).data_dir == Path("elsewhere")  # a Path, as given
    p = argparse.ArgumentParser()
    add_data_dir(p, sub=None)
    assert p.parse_args([]).data_dir == tmp_path
    assert "LOCALEVAL_DATA_DIR" in p.format_help()


def test_add_data_dir_custom_flag_and_help(monkeypatch):
    monkeypatch.delenv("LOCALEVAL_DATA_DIR", raising=False)
    p = argparse.ArgumentParser()
    add_data_dir(p, flag="--data", sub="meta-eval", help="the sets to read")
    args = p.parse_args([])
    assert args.data == BESIDE / "meta-eval" and not hasattr(args, "data_dir")
    assert "the sets to read" in p.format_help()


def test_add_judge_defaults_to_the_shipped_judge():
    p = argparse.ArgumentParser()
    add_judge(p)
    assert p.parse_args([]).model is None
    assert p.parse_args(["--model", "some/folder"]).model == "some/folder"
    assert JUDGE_HELP in p.format_help()
    p = argparse.ArgumentParser()
    add_judge(p, help="judge folder only")
    assert "judge folder only" in p.format_help() and p.parse_args([]).model is None


@pytest.mark.parametrize("module", ["benchmarks.studies.candidates", "benchmarks.studies.relevance_screen",
                                    "benchmarks.long_context"])
def test_formerly_broken_scripts_default_to_the_shared_meta_eval_folder(monkeypatch, module):
    """These three read ``$LOCALEVAL_DATA_DIR`` or ``<repo>/data``, which does not exist: without
    the variable they looked for the sets in the wrong place."""
    monkeypatch.delenv("LOCALEVAL_DATA_DIR", raising=False)
    args = importlib.import_module(module).parse_args([])
    assert args.data == BESIDE / "meta-eval"
