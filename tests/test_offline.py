"""No network, no telemetry (issue 9, item 2).

The whole suite already runs with sockets blocked (tests/conftest.py). These tests prove the
guard reaches subprocesses, and score with every metric and the default judge in a fresh
process whose environment has none of the Hugging Face offline switches: where the system
allows it (``unshare -rn``), that process also runs in a network namespace with no network
at all, so even a connection attempted below Python (C or Rust code) could not succeed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import localeval_netguard
from localeval.metrics.registry import METRICS

from conftest import OFFLINE_SWITCHES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rag_eval.jsonl"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_SWITCHES}
    env[localeval_netguard.LOG_ENV] = str(tmp_path / "network.log")
    # One torch thread: two on a busy 2-core machine wait on each other (see conftest).
    env["OMP_NUM_THREADS"] = "1"
    return env


def _no_network_namespace() -> list[str]:
    """``unshare -rn`` (a user and network namespace: no interface but a down loopback) when
    this system allows it, else nothing (the Python-level guard still applies)."""
    if shutil.which("unshare") is None:
        return []
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, timeout=30)
    return ["unshare", "-rn"] if probe.returncode == 0 else []


def test_guard_reaches_subprocesses(tmp_path):
    env = _env(tmp_path)
    assert str(Path(localeval_netguard.__file__).parent) in env["PYTHONPATH"].split(os.pathsep)
    code = (
        "import socket\n"
        "a, b = socket.socketpair()  # AF_UNIX stays allowed\n"
        "a.sendall(b'x'); assert b.recv(1) == b'x'\n"
        "socket.create_connection(('example.com', 80), timeout=1)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "network access attempted" in proc.stderr, proc.stderr
    assert "getaddrinfo('example.com')" in (tmp_path / "network.log").read_text()


def test_every_metric_scores_without_network_or_offline_switches(tmp_path):
    env = _env(tmp_path)
    assert not set(OFFLINE_SWITCHES) & set(env)
    out = tmp_path / "scored.jsonl"
    metrics = ",".join(sorted(METRICS))
    command = [sys.executable, "-m", "localeval", "score", str(EXAMPLE), "--metrics", metrics, "-o", str(out), "--no-progress"]
    proc = subprocess.run(
        [*_no_network_namespace(), *command], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    # Exit 1 is the CI gate (localeval.runner.gates): the example has no column some metrics
    # need (IDs, a response), so those score no row. Anything else would be a failure.
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    # Exit 1 is also what Python gives when it cannot import localeval at all: say so.
    assert out.exists(), f"no output was written (exit {proc.returncode}): {proc.stderr[-3000:]}"
    assert not (tmp_path / "network.log").exists(), (tmp_path / "network.log").read_text()
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n")[:-1]]
    assert len(rows) == len(EXAMPLE.read_text().strip().splitlines())
    for row in rows:
        assert set(METRICS) <= row.keys()
    assert any(row["context_recall"] == 1.0 for row in rows)  # the default judge really judged
