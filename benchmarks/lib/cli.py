"""The command-line options the benchmark scripts share: the judge (``--model``) and the data
folder. One place, so every script finds the data the same way (``$LOCALEVAL_DATA_DIR``, else the
``shared/data`` folder beside the repository) and says the same thing in ``--help``; copies of
the default drifted apart, and three of them pointed at a folder that does not exist.

Flag names stay each script's own (``--data-dir``, ``--data``): result files record command lines."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchmarks.lib.files import REPO_ROOT

__all__ = ["DATA_ENV", "JUDGE_HELP", "add_data_dir", "add_judge", "data_root", "meta_eval_dir"]

DATA_ENV = "LOCALEVAL_DATA_DIR"
"""The variable naming the data folder, for machines where it is not beside the repository."""

JUDGE_HELP = "judge name or folder (default: the shipped judge)"


def data_root() -> Path:
    """The shared data folder (SPEC sets, ``meta-eval/``...): ``$LOCALEVAL_DATA_DIR`` when set,
    else ``../shared/data`` beside the repository (the repository holds no data of its own; a
    ``data`` folder inside it does not exist). An empty variable counts as unset, so
    ``LOCALEVAL_DATA_DIR= python ...`` does not send a script to the working directory."""
    value = os.environ.get(DATA_ENV)
    return Path(value) if value else REPO_ROOT.parent / "shared" / "data"


def meta_eval_dir() -> Path:
    """The meta-evaluation sets: ``meta-eval`` under :func:`data_root`."""
    return data_root() / "meta-eval"


def add_judge(parser: argparse.ArgumentParser, *, help: str = JUDGE_HELP) -> None:
    """``--model``, default None: the judge ``localeval`` ships, as ``get_judge(None)`` loads it.
    ``help`` is for scripts where the option means something narrower (a judge folder only)."""
    parser.add_argument("--model", default=None, help=help)


def add_data_dir(parser: argparse.ArgumentParser, *, sub: str | None, flag: str = "--data-dir",
                 help: str | None = None) -> None:
    """A data folder option (a ``Path``) defaulting to :func:`data_root`, or its ``sub`` folder
    (``"meta-eval"`` for scripts that read only the meta-evaluation sets). ``sub`` has no default:
    each script states which folder it takes, as the two are easy to confuse. The default is read
    when the parser is built, so ``--help`` shows the folder a run would use."""
    default = data_root() / sub if sub else data_root()
    tail = f"/{sub}" if sub else ""
    text = help or (f"the {sub} folder" if sub else "the data folder")
    parser.add_argument(flag, type=Path, default=default,
                        help=f"{text} (default: ${DATA_ENV}{tail} or ../shared/data{tail}: %(default)s)")
