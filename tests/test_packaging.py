"""Packaging: every package folder ships, and importing localeval touches no network."""

from __future__ import annotations

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


def test_import_is_offline(no_network):
    import importlib

    import localeval
    import localeval.metrics
    import localeval.text

    importlib.reload(localeval.text)
