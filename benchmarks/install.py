"""How long the core install takes and how much it puts on disk: a fresh virtual environment
(no system packages), a CPU build of torch, then the localeval wheel with its core
dependencies only (no extra), as the README's CI job does. Then the installed wheel scores one
row with the judge it carries, from a folder outside the checkout.

    python -m benchmarks.install [--wheel dist/localeval-0.1.0-py3-none-any.whl] [--torch "torch==2.13.0+cpu"]

Without --wheel, the wheel is built first (``pip wheel --no-deps``). Pip reads whatever index
the machine is configured with (here a local mirror, so the times are unpacking and compiling,
not downloading). Writes benchmarks/results/install.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.lib.machine import describe_machine

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "results" / "install.md"
PROBE = ("from localeval import Sample; from localeval.metrics import ContextRecall; "
         "from localeval.judge.registry import resolve_model; import localeval; "
         "print(localeval.__file__); print(resolve_model(None)); "
         "print(ContextRecall().score(Sample(reference='Paris is in France.', "
         "retrieved_contexts=['Paris is the capital of France.'])).score)")


# The venv's own Python must not see this checkout (PYTHONPATH): the point is what an install
# without it holds.
_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOCALEVAL_MODELS_DIR")}


def _timed(command: list[str], **kwargs) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, env=_ENV, **kwargs)
    return time.perf_counter() - started


def _megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path)
    parser.add_argument("--torch", default="torch==2.13.0+cpu")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="localeval-install-") as tmp:
        work = Path(tmp)
        wheel = args.wheel
        if wheel is None:  # built from a copy: a build writes build/ and *.egg-info into its source
            source = work / "src"
            shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__",
                                                                      "benchmarks", "docs", "tests"))
            _timed([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(source)])
            [wheel] = (work / "dist").glob("localeval-*.whl")
        venv = work / "venv"
        _timed([sys.executable, "-m", "venv", str(venv)])
        python = str(venv / "bin" / "python")
        site = next((venv / "lib").glob("python*/site-packages"))
        before = _megabytes(venv)
        torch_s = _timed([python, "-m", "pip", "install", "-q", args.torch])
        core_s = _timed([python, "-m", "pip", "install", "-q", str(wheel)])
        probe = subprocess.run([python, "-c", PROBE], check=True, capture_output=True, text=True, cwd=work,
                               env=_ENV).stdout.split()
        packages = subprocess.run([python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True,
                                  env=_ENV).stdout
        sizes = {
            "wheel": wheel.stat().st_size / 2**20,
            "environment": _megabytes(venv) - before,
            "torch": _megabytes(site / "torch"),
        }
        assert str(venv) in probe[0] and str(venv) in probe[1] and float(probe[2]) == 1.0, probe
        shutil.rmtree(venv)
    machine = describe_machine()
    rows = [
        ("CPU torch (`pip install " + args.torch + "`)", f"{torch_s:.0f} s", f"{sizes['torch']:.0f} MiB"),
        ("localeval wheel + core dependencies", f"{core_s:.0f} s", f"{sizes['environment'] - sizes['torch']:.0f} MiB"),
        ("total (fresh venv)", f"{torch_s + core_s:.0f} s", f"{sizes['environment']:.0f} MiB"),
    ]
    table = "| step | time | on disk |\n|---|---|---|\n" + "".join(f"| {a} | {b} | {c} |\n" for a, b, c in rows)
    text = (
        "# Core install: time and size\n\n"
        f"`python -m benchmarks.install` on {machine.get('cpu')} ({machine.get('cpu_cores', '?')} cores, shared), {machine.get('date_utc')}, "
        f"Python {sys.version.split()[0]}; packages from this machine's pip index (a local mirror: no download "
        "time). One run: on a shared machine, read the times as a rough scale.\n\n"
        f"{table}\nThe wheel is {sizes['wheel']:.1f} MiB (the judge's weights are most of it); "
        f"{len(packages.splitlines())} packages installed. The installed wheel scored a row with its own judge "
        "from outside the checkout (context recall 1.0).\n"
    )
    RESULT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
