"""Packaging: every package folder ships, and importing localeval touches no network."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "localeval").rglob("__init__.py")
    }
    assert found <= listed, f"add to pyproject packages: {sorted(found - listed)}"
    assert "localeval_models" in listed


def test_import_is_offline_and_leaves_torch_for_the_metrics():
    """A fresh process (the network guard on, as in every subprocess of the suite): importing
    localeval and its text tools loads no torch (the CLI starts fast; `localeval.metrics`
    loads it, for the judge) and tries no connection."""
    import localeval_netguard

    code = ("import sys, localeval, localeval.text; light = 'torch' not in sys.modules; "
            "import localeval.metrics; print(light, 'torch' in sys.modules)")
    before = len(localeval_netguard.logged_attempts())
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
    assert localeval_netguard.logged_attempts()[before:] == []


def _build_wheel(tmp_path: Path) -> Path:
    """`pip wheel --no-deps .` of a copy of the checkout (the build writes into its source)."""
    import shutil
    import subprocess
    import sys

    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__",
                                                              "benchmarks", "docs", "tests", ".pytest_cache"))
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                    str(source)], check=True, timeout=300, capture_output=True)
    [wheel] = out.glob("localeval-*.whl")
    return wheel


def test_the_wheel_carries_the_judge_a_lean_core_and_the_extras(tmp_path):
    """Issue 34, item 4: a CI job installs localeval from a wheel, not a checkout."""
    import os
    import subprocess
    import sys
    import zipfile
    from email.parser import Parser

    wheel = _build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [meta_name] = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(archive.read(meta_name).decode())
        judge = "localeval_models/localeval-judge-minilm-l6/"
        for part in ("model.safetensors", "config.json", "tokenizer.json"):
            assert judge + part in names
        assert archive.getinfo(judge + "model.safetensors").file_size > 10_000_000  # the weights, not a pointer
    extras = set(meta.get_all("Provides-Extra"))
    assert {"test", "ray", "report"} <= extras
    requires = meta.get_all("Requires-Dist")
    core = [r.split(";")[0].split("<")[0].split(">")[0].split("=")[0].split("[")[0].strip().lower()
            for r in requires if "extra ==" not in r]
    assert {"torch", "transformers", "spacy", "pydantic"} <= set(core)
    # Lean: what only tests, Ray, reports or tabular inputs need stays in an extra.
    assert not {"pytest", "ray", "matplotlib", "pandas", "pyarrow", "playwright", "ragas"} & set(core)
    for extra, needs in (("ray", "ray[data]"), ("report", "matplotlib"), ("test", "pytest")):
        assert any(r.startswith(needs) and f'extra == "{extra}"' in r for r in requires), extra

    # Installed into a fresh environment (its dependencies borrowed from this one), the judge
    # loads from the installed package, not from this checkout.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   timeout=300, capture_output=True)
    probe = ("import localeval, localeval_models; from localeval.judge.registry import resolve_model;"
             "print(localeval.__file__); print(resolve_model(None))")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOCALEVAL_MODELS_DIR")}
    out = subprocess.run([str(python), "-c", probe], check=True, timeout=120, capture_output=True, text=True,
                         cwd=tmp_path, env=env).stdout.split()
    assert all(str(venv) in line for line in out), out
    assert not any(str(ROOT) in line for line in out)
