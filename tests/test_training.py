"""Plumbing of the judge-training pipeline on a tiny random BERT, plus the source readers on
the real files when the shared data folder sits beside the repository (as in CI)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from localeval.training import data as data_mod
from localeval.training import sources, splits, synthetic
from localeval.training.cli import main
from localeval.training.examples import ID2LABEL, NLI2, NLI3, REL, Example
from localeval.training.model import TASK_IDS, multitask_loss


WORDS = (  # noqa: SIM905 - a word list is easier to read as one string
    "a an the man woman dog cat is are was not no sleeps runs eats plays in on at park city paris "
    "france berlin germany capital of river born 1990 2001 who what where when which did does "
    "football piano guitar red blue big small two three . , ? the"
).split()


def _tiny_encoder(directory: Path) -> Path:
    from transformers import BertConfig, BertModel, BertTokenizerFast

    directory.mkdir(parents=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS)]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizerFast(
        vocab_file=str(directory / "vocab.txt"), do_lower_case=True
    ).save_pretrained(directory)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(directory, safe_serialization=True)
    return directory


def _tiny_data(root: Path) -> Path:
    """A miniature ``train/`` tree in the same formats as the real one (only a few sources)."""
    rng = random.Random(0)
    train = root / "train"
    mnli = train / "nli/mnli/generative-nli"
    mnli.mkdir(parents=True)
    snli_dir = train / "nli/snli/generative-nli"
    snli_dir.mkdir(parents=True)
    subjects, verbs = (
        ["a man", "a woman", "the dog", "the cat"],
        ["sleeps", "runs", "eats", "plays"],
    )
    rows = []
    for i in range(60):
        s, v = rng.choice(subjects), rng.choice(verbs)
        other = rng.choice([x for x in verbs if x != v])
        rows.append(
            {
                "premise": f"{s} {v} in the park {i % 7}.",
                "hypothesis": f"{s} {v}.",
                "label": "entailment",
            }
        )
        rows.append(
            {
                "premise": f"{s} {v} in the park {i % 7}.",
                "hypothesis": f"{s} {other}.",
                "label": "contradiction",
            }
        )
        rows.append(
            {
                "premise": f"{s} {v} in paris {i % 5}.",
                "hypothesis": f"{s} {v} in the city.",
                "label": "neutral",
            }
        )
    text = "\n".join(json.dumps(r) for r in rows) + "\n"
    (mnli / "mnli_dev_matched.jsonl").write_text(text)
    (snli_dir / "snli_dev.jsonl").write_text(text)
    becel = train / "nli/snli/becel"
    becel.mkdir(parents=True)
    codes = {"entailment": 0, "neutral": 1, "contradiction": 2}
    tsv = ["premise\thypothesis\tlabel"] + [
        f"{r['premise']} two.\t{r['hypothesis']}\t{codes[r['label']]}"
        for r in rows[:60]
    ]
    (becel / "snli_test.tsv").write_text("\n".join(tsv) + "\n")
    qnli = train / "relevance/qnli/poisoned-prompt-tuning"
    qnli.mkdir(parents=True)
    lines = ["question\tsentence\tlabel"]
    for i in range(40):
        lines.append(
            f"who plays football {i}?\tthe man plays football in berlin {i}.\t0"
        )
        lines.append(f"who plays piano {i}?\tthe river is big {i}.\t1")
    (qnli / "qnli_glue_dev.tsv").write_text("\n".join(lines) + "\n")
    (qnli / "qnli_heldout_from_glue_train.tsv").write_text(
        "question\tsentence\tlabel\n"
    )
    return root


def test_multitask_loss_routes_each_task_to_its_head() -> None:
    logits = torch.zeros(3, 5)
    logits[0, 0] = 5.0  # confident entailment
    logits[1, 1] = 5.0  # confident neutral: correct for binary "not entailed"
    logits[2, 3] = 5.0  # confident relevant
    labels = torch.tensor([0, 1, 0])
    tasks = torch.tensor([TASK_IDS[NLI3], TASK_IDS[NLI2], TASK_IDS[REL]])
    assert multitask_loss(logits, labels, tasks).item() < 0.05
    assert multitask_loss(logits, torch.tensor([2, 0, 1]), tasks).item() > 4.0


def test_split_is_fixed_and_keeps_groups_together() -> None:
    ex = [
        Example(
            f"premise {i // 3}", f"hyp {i}", i % 3, NLI3, "s", group=f"premise {i // 3}"
        )
        for i in range(300)
    ]
    tr1, ho1 = splits.split_examples(ex, target=30)
    _, ho2 = splits.split_examples(list(reversed(ex)), target=30)
    assert {e.key for e in ho1} == {e.key for e in ho2}
    assert not {e.group for e in tr1} & {e.group for e in ho1}
    assert len(tr1) + len(ho1) == 300


def test_synthetic_edits() -> None:
    rng = random.Random(0)
    assert synthetic.negate("The river is long.") == "The river is not long."
    assert synthetic.negate("He was not born there.") == "He was born there."
    changed = synthetic.change_number("It opened in 1990 with 300 rooms.", rng)
    assert changed and changed != "It opened in 1990 with 300 rooms."
    items = [
        sources.QAItem(
            f"who q{i}?",
            (
                f"Paris is the capital of France number {i}.",
                f"Berlin has {i + 3} rivers today.",
            ),
            i % 2,
            "qed",
        )
        for i in range(20)
    ]
    ex = synthetic.build_synthetic(items, seed=0, nlp=None)
    assert ex and all(e.source == "synthetic" and e.task in (NLI2, NLI3) for e in ex)


def test_quotas_cap_and_redistribute() -> None:
    q = data_mod.quotas({"a": 10, "b": 1000}, 100, {"a": 1.0, "b": 1.0})
    assert q["a"] == 10 and q["b"] >= 85


def test_train_and_export_tiny(tmp_path: Path) -> None:
    encoder = _tiny_encoder(tmp_path / "enc")
    data_dir = _tiny_data(tmp_path / "data")
    out = tmp_path / "judge"
    rc = main(
        [
            "--data-dir",
            str(data_dir),
            "--output",
            str(out),
            "--encoder",
            str(encoder),
            "--sources",
            "mnli,snli,qnli",
            "--no-synthetic",
            "--max-train-pairs",
            "120",
            "--batch-size",
            "16",
            "--max-length",
            "64",
            "--epochs",
            "1",
            "--device",
            "cpu",
            "--seed",
            "3",
            "--time-budget-minutes",
            "1",
        ]
    )
    assert rc == 0
    cfg = json.loads((out / "config.json").read_text())
    assert {int(k): v for k, v in cfg["id2label"].items()} == ID2LABEL
    block = cfg["localeval"]
    assert block["format"] == 1
    assert block["tasks"] == {"nli": [0, 1, 2], "relevance": [3, 4]}
    assert block["max_length"] == 64
    assert set(block["thresholds"]) == {"entailment", "relevance"}
    assert all(0.0 <= v <= 1.0 for v in block["thresholds"].values())
    assert block["training"]["seed"] == 3 and block["training"]["sources"]
    # A minute is ample for eight tiny steps: the held-out pass is timed on this machine, not
    # reserved at a fixed CPU rate (which, with the export margin, left no time to train).
    assert block["training"]["stopped_by_time_budget"] is False
    assert (out / "model.safetensors").exists() and (out / "README.md").exists()
    report = json.loads((out / "heldout_eval.json").read_text())
    assert {"mnli", "snli", "qnli"} <= set(report["per_source"])
    manifest = json.loads((out / "heldout_manifest.json").read_text())
    assert manifest["heldout"]["mnli"]

    from safetensors import safe_open

    with safe_open(str(out / "model.safetensors"), "pt") as fh:
        tensors = [fh.get_tensor(k) for k in fh.keys()]  # noqa: SIM118 - safe_open is not iterable
    assert all(t.dtype == torch.float16 for t in tensors if t.is_floating_point())

    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(str(out)).float()
    tok = AutoTokenizer.from_pretrained(str(out))
    batch = tok(["a man sleeps in the park."], ["a man sleeps."], return_tensors="pt")
    with torch.no_grad():
        logits = model(**batch).logits
    assert logits.shape == (1, 5) and torch.isfinite(logits).all()

    # Continued training from the exported (fp16) judge: trains in fp32, keeps the earlier
    # stage's record and its window, and the card lists both commands.
    stage2 = tmp_path / "judge2"
    common = ["--data-dir", str(data_dir), "--sources", "mnli,snli,qnli", "--no-synthetic"]
    rc = main(
        [
            *common,
            "--init",
            str(out),
            "--output",
            str(stage2),
            "--max-train-pairs",
            "60",
            "--batch-size",
            "16",
            "--device",
            "cpu",
            "--seed",
            "4",
        ]
    )
    assert rc == 0
    # No --max-length: the stage keeps the window of the judge it continues (64 here, not the
    # trainer's default), or it would be exported cutting long pairs shorter than its parent.
    assert json.loads((stage2 / "config.json").read_text())["localeval"]["max_length"] == 64
    tr2 = json.loads((stage2 / "config.json").read_text())["localeval"]["training"]
    assert tr2["max_length"] == 64
    assert tr2["seed"] == 4 and tr2["init"] == str(out)
    assert [s["seed"] for s in tr2["earlier_stages"]] == [3]
    card = (stage2 / "README.md").read_text()
    assert "--seed 3" in card and "--seed 4" in card and "Stage 2" in card
    # A benchmark storing a tuned threshold keeps the card in step with config.json.
    from localeval.training.export import store_thresholds

    store_thresholds(stage2, {"faithfulness": 0.4242})
    assert "faithfulness 0.4242" in (stage2 / "README.md").read_text()
    with pytest.raises(SystemExit):
        main([*common, "--init", str(out), "--encoder", str(encoder), "--output", str(tmp_path / "x")])
    with pytest.raises(SystemExit):
        main([*common, "--init", str(tmp_path / "enc"), "--output", str(tmp_path / "y")])


def test_readers_on_real_files(shared_data) -> None:
    train = shared_data / "train"
    if not train.is_dir():
        pytest.skip(f"no training sources in {shared_data}")
    expected = {
        "mnli": 9000,
        "snli": 19000,
        "cad": 10000,
        "scitail": 2000,
        "fever": 13000,
    }
    for name, reader in sources.NLI_READERS.items():
        ex = reader(train)
        assert len(ex) >= expected[name], name
        assert {e.label for e in ex} <= {0, 1, 2}
        assert all(e.text_a and e.text_b for e in ex[:200])
    fever = sources.read_fever(train)
    assert {e.task for e in fever} == {NLI2} and "-LRB-" not in " ".join(
        e.text_a for e in fever[:500]
    )
    qnli = sources.read_qnli(train)
    assert len(qnli) > 15000 and {e.label for e in qnli} == {0, 1}
    # Passage first, question second (same order as NLI: evidence first).
    assert all(
        e.text_b.rstrip().endswith("?")
        for e in qnli[:50]
        if e.text_b.rstrip()[-1] in "?."
    )
    boolq = sources.read_boolq(train)
    assert len(boolq) == 2 * 3270
    for name, reader in sources.QA_READERS.items():
        items = reader(train)
        assert len(items) > 1000, name
        assert all(0 <= it.answer < len(it.sentences) for it in items)
    tydi = sources.read_tydi(train)
    hits = sum(1 for it in tydi[:300] if it.sentences[it.answer])
    assert hits == 300


def test_prepared_data_is_read_back_and_refused_for_another_recipe(tmp_path: Path, caplog) -> None:
    """--prepared: the data a run trains on, built once (--prepare-only), read back by the run
    without its data folder, and refused for other options (never silently trained on)."""
    from localeval.training import prepared

    encoder = _tiny_encoder(tmp_path / "enc")
    data_dir = _tiny_data(tmp_path / "data")
    file = tmp_path / "prepared.jsonl.xz"
    recipe = ["--sources", "mnli,snli,qnli", "--no-synthetic", "--max-train-pairs", "60", "--seed", "5"]
    assert main(["--data-dir", str(data_dir), *recipe, "--prepared", str(file), "--prepare-only"]) == 0
    assert file.is_file() and not (tmp_path / "judge").exists()

    common = ["--encoder", str(encoder), "--batch-size", "16", "--max-length", "64", "--device", "cpu"]
    built = tmp_path / "built"
    assert main(["--data-dir", str(data_dir), *recipe, *common, "--output", str(built)]) == 0
    caplog.set_level("INFO", logger="localeval.training")
    read = tmp_path / "read"
    assert main(["--data-dir", str(tmp_path / "absent"), *recipe, *common, "--prepared", str(file),
                 "--output", str(read)]) == 0
    assert any("data read from" in r.getMessage() for r in caplog.records)
    # The same pairs, the same held-out set: the same manifest and the same held-out report.
    assert (read / "heldout_manifest.json").read_text() == (built / "heldout_manifest.json").read_text()
    tr_built = json.loads((built / "config.json").read_text())["localeval"]["training"]
    tr_read = json.loads((read / "config.json").read_text())["localeval"]["training"]
    assert tr_read["mix"] == tr_built["mix"] and tr_read["pool_sizes"] == tr_built["pool_sizes"]

    other = [r if r != "5" else "6" for r in recipe]  # another seed: another mix
    with pytest.raises(SystemExit, match="another recipe"):
        main(["--data-dir", str(tmp_path / "absent"), *other, *common, "--prepared", str(file),
              "--output", str(tmp_path / "x")])
    # A file cut short (a copy broken off) is refused too.
    import lzma

    lines = lzma.decompress(file.read_bytes()).splitlines(keepends=True)
    file.write_bytes(lzma.compress(b"".join(lines[:-3])))
    with pytest.raises(prepared.PreparedMismatch, match="incomplete"):
        prepared.read_prepared(file, json.loads(lines[0])["key"])
    with pytest.raises(SystemExit, match="--prepare-only needs --prepared"):
        main(["--data-dir", str(data_dir), *recipe, "--prepare-only"])


def test_heldout_judges_study_reads_a_prepared_file(tmp_path: Path) -> None:
    """benchmarks/studies/heldout_judges.py: every judge at every window on the held-out pairs of
    a prepared file, the trainer's own figures; one judge named twice reads the same."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.studies import heldout_judges

    from localeval.training.model import load_for_training

    # A judge folder with its heads saved (an encoder alone would get fresh random heads on
    # every load, and two loads would not be one judge).
    model, tokenizer = load_for_training(_tiny_encoder(tmp_path / "enc"))
    encoder = tmp_path / "judge"
    model.save_pretrained(str(encoder))
    tokenizer.save_pretrained(str(encoder))
    data_dir = _tiny_data(tmp_path / "data")
    file = tmp_path / "prepared.jsonl.xz"
    assert main(["--data-dir", str(data_dir), "--sources", "mnli,snli,qnli", "--no-synthetic",
                 "--max-train-pairs", "40", "--prepared", str(file), "--prepare-only"]) == 0
    out = tmp_path / "heldout_judges.json"
    assert heldout_judges.main(["--prepared", str(file), f"a={encoder}", f"b={encoder}", "--max-lengths", "16,64",
                                "--output", str(out)]) == 0
    result = json.loads(out.read_text())
    runs = {(r["judge"], r["max_length"]): r for r in result["runs"]}
    assert set(runs) == {(j, n) for j in "ab" for n in (16, 64)}
    assert runs["a", 64]["pooled"] == runs["b", 64]["pooled"]
    assert {"mnli", "snli", "qnli"} <= set(runs["a", 16]["per_source"])
    assert result["pairs"] == runs["a", 16]["pooled"]["n_nli"] + runs["a", 16]["pooled"]["n_relevance"]
    table = out.with_suffix(".md").read_text()
    assert "| a @16 | b @16 | a @64 | b @64 |" in table and "**pooled NLI**" in table
    # No machine's absolute path in a result file (relative to the repository, as every benchmark).
    assert not any(w.partition("=")[2].startswith("/") or w.startswith("/") for w in result["command"].split())
    assert not any(v.startswith("/") for v in result["judges"].values())
    with pytest.raises(SystemExit):
        heldout_judges.main(["--prepared", str(file), f"a={tmp_path / 'absent'}", "--output", str(out)])
