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
