"""benchmarks/gpu_session.sh: the GPU session's one command, run here as a CPU dry run (tiny
sizes, this machine's packages), and the reassembly of the judge it brings back; and the
HaluEval QA training source it trains with."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import build_tiny_model

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_session.sh"
DATA = ROOT.parent / "shared" / "data"
FIVE = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not (DATA / "train" / "nli" / "halueval_qa").is_dir(), reason="needs ../shared/data")
def test_dry_run_writes_what_a_device_call_can_bring_back(tmp_path):
    tiny = build_tiny_model(tmp_path / "tiny5", FIVE, {"max_length": 64, "tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}})
    out = tmp_path / "out"
    env = {**os.environ, "DRY_RUN": "1", "OUT": str(out), "BULK_MODEL": str(tiny), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(["bash", str(SCRIPT), "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    files = sorted(p for p in out.rglob("*") if p.is_file())
    # The device tool's limits on what comes back: at most 8 files of 16 MiB, 64 MiB in all.
    assert len(files) <= 8 and all(p.stat().st_size < 16 * 2**20 for p in files)
    assert sum(p.stat().st_size for p in files) < 64 * 2**20
    with tarfile.open(out / "bulk.tar.gz") as archive:
        archive.extractall(tmp_path / "bulk", filter="data")
    compare = json.loads((tmp_path / "bulk" / "bulk" / "bulk_workers.json").read_text())
    target = json.loads((tmp_path / "bulk" / "bulk" / "bulk_speed.json").read_text())
    assert {r["workers"] for r in compare["workers"]} == {1, 2} and compare["profile"]
    assert all(r["identical_to_first"] for r in compare["workers"])
    assert {r["workers"] for r in target["workers"]} == {2} and {r["rows"] for r in target["workers"]} == {2}
    study = json.loads((tmp_path / "bulk" / "bulk" / "judge_gpu.json").read_text())
    assert {r["busy_cores"] for r in study["runs"]} == {0, 2} and all(r["pairs_per_s"] > 0 for r in study["runs"])
    log = (out / "gpu_session.log").read_text()
    # Trained on data prepared beforehand (as pack prepares the device run's), read back.
    assert "--prepare-only" in log and "data read from" in log
    assert "bulk (target): python3 benchmarks/bulk_speed.py --only-workers" in log and "--init models/localeval-judge-minilm-l6" in log
    assert len(list(out.glob("judge-weights.part*"))) >= 2  # the 44 MB judge does not fit one file

    judge = tmp_path / "judge"
    rebuilt = subprocess.run(["bash", str(SCRIPT), "reassemble", str(out), str(judge)], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert (judge / "model.safetensors").stat().st_size == sum(p.stat().st_size for p in out.glob("judge-weights.part*"))
    record = json.loads((judge / "config.json").read_text())["localeval"]
    assert record["training"]["init"].endswith("localeval-judge-minilm-l6")
    assert record["training"]["lr"] == 2e-5  # the script's continued-training rate, not the trainer's 4e-5
    assert "halueval_qa" in json.dumps(record["training"])


def test_reassembly_refuses_a_damaged_piece(tmp_path):
    out, judge = tmp_path / "out", tmp_path / "judge"
    (out / "src").mkdir(parents=True)
    weights = os.urandom(3000)
    (out / "src" / "model.safetensors").write_bytes(weights)
    (out / "src" / "model.safetensors.sha256").write_text(f"{hashlib.sha256(weights).hexdigest()}  model.safetensors\n")
    subprocess.run(["tar", "-czf", str(out / "judge-rest.tar.gz"), "-C", str(out / "src"), "model.safetensors.sha256"], check=True)
    (out / "judge-weights.part00").write_bytes(weights[:1500])
    (out / "judge-weights.part01").write_bytes(weights[1500:])
    ok = subprocess.run(["bash", str(SCRIPT), "reassemble", str(out), str(judge)], capture_output=True, text=True)
    assert ok.returncode == 0 and _sha256(judge / "model.safetensors") == hashlib.sha256(weights).hexdigest()
    (out / "judge-weights.part01").write_bytes(weights[1500:-1] + b"x")
    bad = subprocess.run(["bash", str(SCRIPT), "reassemble", str(out), str(tmp_path / "again")], capture_output=True, text=True)
    assert bad.returncode != 0


@pytest.mark.skipif(not (DATA / "train" / "nli" / "halueval_qa").is_dir(), reason="needs ../shared/data")
def test_halueval_source_pairs_each_item_and_splits_by_knowledge():
    from localeval.training import sources, splits

    examples = sources.read_halueval_qa(DATA / "train")
    assert len(examples) == 2 * 5586  # SOURCE.txt: 5,586 items, a right and a hallucinated answer each
    assert sum(e.label == 0 for e in examples) == sum(e.label == 1 for e in examples)
    assert not any(sources._GLUED.search(e.text_a) for e in examples)  # "...century.First for Women" split
    train, held = splits.split_examples(examples)
    assert {e.text_a for e in train}.isdisjoint({e.text_a for e in held})


def test_install_joins_the_pieces_once_all_have_arrived(tmp_path):
    """`pack` cuts one archive into pieces (one per device call); `install` waits for all,
    checks the joined archive's hash and unpacks site/ and data/."""
    build, gpu = tmp_path / "build", tmp_path / "gpu"
    (build / "site" / "somepkg").mkdir(parents=True)
    (build / "site" / "somepkg" / "__init__.py").write_text("VALUE = 1\n" + "# padding\n" * 2000)
    (build / "data" / "train" / "nli").mkdir(parents=True)
    (build / "data" / "train" / "nli" / "pairs.jsonl").write_text('{"premise": "a", "hypothesis": "b"}\n')
    archive = tmp_path / "runtime.tar.xz"
    subprocess.run(f"tar -C {build} -cf - site data | xz -0 > {archive}", shell=True, check=True)
    data = archive.read_bytes()
    manifest = f"pieces=2\nsha256={hashlib.sha256(data).hexdigest()}\n"
    for i, piece in enumerate((data[: len(data) // 2], data[len(data) // 2 :]), 1):
        (gpu / f"part{i}").mkdir(parents=True)
        (gpu / f"part{i}" / f"runtime.tar.xz.{i - 1:02d}").write_bytes(piece)
        (gpu / f"part{i}" / "manifest").write_text(manifest)
    # The device tool replaces the tree's ignored .gpu/ on each call with what that call
    # carries: the first call brings part1 alone, the second part2 alone.
    later = tmp_path / "later"
    (gpu / "part2").rename(later)
    stage = tmp_path / "stage"

    def install() -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(SCRIPT), "install"], env={**os.environ, "GPU_DIR": str(gpu), "STAGE": str(stage)},
                              capture_output=True, text=True, timeout=60)

    first = install()
    assert first.returncode == 0 and "have 1 of 2 pieces" in first.stderr and not (stage / "site").exists()
    shutil.rmtree(gpu / "part1")
    later.rename(gpu / "part2")
    second = install()
    assert second.returncode == 0, second.stderr
    assert (stage / "site" / "somepkg" / "__init__.py").read_text().startswith("VALUE = 1")
    assert not list(stage.glob("part*"))  # the pieces are not kept beside what they unpacked to
    assert (stage / "data" / "train" / "nli" / "pairs.jsonl").is_file()
