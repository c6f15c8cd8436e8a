"""Configuration: localeval.toml / [tool.localeval], flags over the file, `localeval config`,
thresholds that override the judge's stored ones without touching the shared judge."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from localeval.cli.main import app
from localeval.config import ConfigError, LocalevalConfig, load_config
from localeval.options import DEFAULT_MAX_UNITS

from bulk_helpers import make_rows, write_jsonl

cli = CliRunner()


def test_defaults_without_a_file(tmp_path):
    effective = load_config(cwd=tmp_path)
    assert effective.file is None and effective.config == LocalevalConfig()
    assert {source for _, _, source in effective.rows()} == {"default"}


def test_localeval_toml_then_flags(tmp_path):
    (tmp_path / "judges").mkdir()
    (tmp_path / "localeval.toml").write_text(
        'metrics = "context_recall, faithfulness"\nmodel = "judges/mine"\nbatch-size = 64\ncache = "v.sqlite"\n'
        '[thresholds]\nentailment = 0.7\n[column_map]\nreference = "gold.answer"\nuser_input = "q"\n'
    )
    effective = load_config(cwd=tmp_path, overrides={"batch_size": 8, "device": None, "column_map": {"reference": "gt"}})
    c = effective.config
    assert c.metrics == ["context_recall", "faithfulness"]
    assert c.model == str(tmp_path / "judges" / "mine")  # relative to the file, not to the cwd
    assert c.cache == str(tmp_path / "v.sqlite")
    assert c.batch_size == 8 and c.thresholds == {"entailment": 0.7}
    assert c.column_map == {"reference": "gt", "user_input": "q"}  # a flag replaces only its entries
    sources = dict((k, s) for k, _, s in effective.rows())
    assert sources["batch_size"] == "--batch-size" and sources["metrics"] == "localeval.toml"
    assert sources["device"] == "default" and sources["column_map"] == "localeval.toml + --column-map"


def test_decomposer_key_is_a_path_relative_to_the_file_or_rule(tmp_path):
    assert load_config(cwd=tmp_path).config.score_kwargs()["decomposer"] is None  # the rules
    (tmp_path / "localeval.toml").write_text('decomposer = "llms/smol.gguf"\n')
    c = load_config(cwd=tmp_path).config
    assert c.score_kwargs()["decomposer"] == str(tmp_path / "llms" / "smol.gguf")
    assert load_config(cwd=tmp_path, overrides={"decomposer": "rule"}).config.score_kwargs()["decomposer"] is None


def test_pyproject_table_and_precedence_of_localeval_toml(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.localeval]\nblock_size = 32\nengine = "ray"\n')
    effective = load_config(cwd=tmp_path)
    assert effective.config.block_size == 32 and effective.config.engine == "ray"
    assert dict((k, s) for k, _, s in effective.rows())["engine"] == "pyproject.toml [tool.localeval]"
    (tmp_path / "localeval.toml").write_text("block_size = 16\n")
    assert load_config(cwd=tmp_path).config.block_size == 16  # localeval.toml wins; files do not mix
    assert load_config(cwd=tmp_path).config.engine == "local"


def test_workers_and_profile_are_keys_the_flags_beat(tmp_path, monkeypatch):
    import localeval.runner as runner_package

    (tmp_path / "localeval.toml").write_text("workers = 2\nprofile = true\n")
    c = load_config(cwd=tmp_path).config
    assert (c.workers, c.profile) == (2, True)
    assert load_config(cwd=tmp_path, overrides={"workers": 1, "profile": False}).config.profile is False
    seen: dict = {}

    def score_dataset(data, metrics, output, column_map=None, *, options, workers=1, **_):
        seen["workers"] = workers
        raise ValueError("captured")

    monkeypatch.setattr(runner_package, "resolve_metrics", lambda metrics, *args, **kwargs: [])
    monkeypatch.setattr(runner_package, "score_dataset", score_dataset)
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "in.jsonl"
    data.write_text("{}\n")
    for args, expected in (([], 2), (["--workers", "1"], 1)):
        done = cli.invoke(app, ["score", str(data), *args])
        assert done.exit_code == 2 and "captured" in done.output, done.output
        assert seen.pop("workers") == expected
    with pytest.raises(ConfigError, match="workers"):
        (tmp_path / "localeval.toml").write_text("workers = 0\n")
        load_config(cwd=tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("bogus = 1\n", "unknown key(s) 'bogus'"),
        ("batch_size = 0\n", "batch_size"),
        ('engine = "spark"\n', "engine"),
        ("[thresholds]\nentailment = 1.5\n", "must be in [0, 1]"),
        ("metrics = []\n", "at least one metric"),
        ("block_size = \n", "not valid TOML"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path, text, message):
    path = tmp_path / "localeval.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="localeval.toml") as err:
        load_config(cwd=tmp_path)
    assert message in str(err.value)
    result = cli.invoke(app, ["config", "--config", str(path)])
    assert result.exit_code == 2 and message in result.output


def test_config_command_prints_values_and_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "localeval.toml").write_text('device = "cpu"\n[thresholds]\nrelevance = 0.4\n')
    result = cli.invoke(app, ["config"])
    assert result.exit_code == 0, result.output
    assert "localeval.toml" in result.output
    line = next(line for line in result.output.splitlines() if line.strip().startswith("device"))
    assert "cpu" in line and line.rstrip().endswith("# localeval.toml")
    data = json.loads(cli.invoke(app, ["config", "--json"]).output)
    assert data["settings"]["thresholds"] == {"value": {"relevance": 0.4}, "source": "localeval.toml"}
    assert data["settings"]["block_size"] == {"value": 256, "source": "default"}


def _scores(path) -> list:
    return [json.loads(line)["context_recall"] for line in path.read_text().splitlines()]


def test_score_reads_the_file_and_flags_override_it(tmp_path, monkeypatch, tiny_nli_dir):
    monkeypatch.chdir(tmp_path)
    data = write_jsonl(tmp_path / "in.jsonl", make_rows(4))
    (tmp_path / "localeval.toml").write_text(
        f'metrics = ["no_such_metric"]\nmodel = "{tiny_nli_dir.as_posix()}"\nprogress = false\n'
        "[thresholds]\nentailment = 0.0\n"
    )
    bad = cli.invoke(app, ["score", str(data), "-o", str(tmp_path / "a.jsonl")])
    assert bad.exit_code == 2 and "no_such_metric" in bad.output  # the file's metrics were used
    # Flags win; the file's threshold (0: every claim counts as entailed) still applies.
    ok = cli.invoke(app, ["score", str(data), "-m", "context_recall", "-o", str(tmp_path / "a.jsonl")])
    assert ok.exit_code == 0, ok.output
    low = [s for s in _scores(tmp_path / "a.jsonl") if s is not None]
    assert low and all(s == 1.0 for s in low)
    ok = cli.invoke(app, ["score", str(data), "-m", "context_recall", "--threshold", "entailment=1.0", "-o", str(tmp_path / "b.jsonl")])
    assert ok.exit_code == 0, ok.output
    high = [s for s in _scores(tmp_path / "b.jsonl") if s is not None]
    assert high and all(s == 0.0 for s in high)
    bad = cli.invoke(app, ["score", str(data), "-m", "context_recall", "--threshold", "entail=0.5"])
    assert bad.exit_code == 2 and "unknown threshold" in bad.output


def test_thresholds_do_not_touch_the_shared_judge(tiny_judge):
    from localeval.runner.run import resolve_metrics

    before = dict(tiny_judge.thresholds)
    [(_, metric)] = resolve_metrics(["context_recall"], model=tiny_judge, thresholds={"entailment": 0.9})
    assert metric.resolved_threshold() == 0.9 and metric.judge is tiny_judge  # no copy of the judge
    assert tiny_judge.thresholds == before


def test_max_units_key_maps_to_the_runner_option() -> None:
    from localeval.config import LocalevalConfig

    assert LocalevalConfig().score_kwargs()["max_units"] == DEFAULT_MAX_UNITS  # parsed once, here
    assert LocalevalConfig(max_units=0).score_kwargs()["max_units"] is None
    assert LocalevalConfig(max_units=3).score_kwargs()["max_units"] == 3
    with pytest.raises(ValueError):
        LocalevalConfig(max_units=-1)


def test_attribution_and_screen_options_from_file_and_flags(tmp_path):
    """candidates, locate and screen: keys of the file, flags over them, one RunOptions."""
    from localeval.options import CANDIDATE_SELECTORS, DEFAULT_LOCATE, DEFAULT_SELECTOR, RunOptions

    default = LocalevalConfig().run_options()
    assert (default.candidates, default.locate, default.screen) == (DEFAULT_SELECTOR, DEFAULT_LOCATE, True)
    (tmp_path / "localeval.toml").write_text('candidates = "bm25"\nlocate = "judge"\nscreen = false\n')
    effective = load_config(cwd=tmp_path)
    options = effective.config.run_options()
    assert (options.candidates, options.locate, options.screen) == ("bm25", "judge", False)
    assert dict((k, s) for k, _, s in effective.rows())["locate"] == "localeval.toml"
    flagged = load_config(cwd=tmp_path, overrides={"candidates": "hybrid", "screen": True}).config.run_options()
    assert (flagged.candidates, flagged.locate, flagged.screen) == ("hybrid", "judge", True)
    # Every selector the candidates module has is a value the options accept, and no other.
    from localeval.evidence.candidates import SELECTORS

    assert set(CANDIDATE_SELECTORS) == set(SELECTORS)
    for name in CANDIDATE_SELECTORS:
        assert RunOptions(candidates=name).candidates == name
    # A bad value fails while the file is read, naming the file and the key.
    for text, key in (('candidates = "bm26"\n', "candidates"), ('locate = "sentence"\n', "locate"),
                      ('screen = "maybe"\n', "screen")):
        (tmp_path / "localeval.toml").write_text(text)
        with pytest.raises(ConfigError, match=rf"localeval.toml: {key}: "):
            load_config(cwd=tmp_path)
    with pytest.raises(ValueError):
        RunOptions(candidates="bm26")


def test_attribution_and_screen_options_reach_the_metrics(tmp_path):
    """From the command line to the metrics the run builds: the summary's metadata lists each
    metric's options, and the run record keeps them (a resume with other values is refused)."""
    from tests.conftest import build_tiny_model

    five = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}
    tiny = build_tiny_model(tmp_path / "tiny5", five, {"max_length": 64, "tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}})
    data = write_jsonl(tmp_path / "rows.jsonl", make_rows(3))
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    base = ["score", str(data), "-m", "context_recall,context_relevance", "--model", str(tiny), "--no-progress",
            "-o", str(out)]
    result = cli.invoke(app, [*base, "--candidates", "bm25", "--locate", "judge", "--no-screen",
                              "--summary-json", str(summary)])
    assert result.exit_code == 0, result.output
    metrics = json.loads(summary.read_text())["run"]["metrics"]
    assert metrics["context_recall"]["options"]["candidates"] == "bm25"
    assert metrics["context_recall"]["options"]["locate"] == "judge"
    assert metrics["context_relevance"]["options"]["screen"] is False
    record = json.loads((tmp_path / "out.jsonl.run.json").read_text())["options"]
    assert (record["candidates"], record["locate"], record["screen"]) == ("bm25", "judge", False)
    # Each screened sentence would say so; with --no-screen every sentence is judged.
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    sentences = [s for r in rows for s in r["context_relevance_details"]["sentences"]]
    assert sentences and all(s.get("screened") is None for s in sentences)
    resumed = cli.invoke(app, [*base, "--candidates", "overlap", "--locate", "judge", "--no-screen", "--resume"])
    assert resumed.exit_code == 2 and "candidates" in resumed.output
    bad = cli.invoke(app, [*base, "--candidates", "bm26"])
    assert bad.exit_code == 2 and "candidates" in bad.output and "bm25" in bad.output


def test_exhaustive_from_file_and_flags_reaches_the_metrics(tmp_path):
    """``exhaustive``: a key of the file, ``--exhaustive/--no-exhaustive`` over it, one
    RunOptions, each claim metric built with it, and the run record keeps it (a resume with
    the other value is refused)."""
    from tests.conftest import build_tiny_model

    assert LocalevalConfig().run_options().exhaustive is False
    (tmp_path / "localeval.toml").write_text("exhaustive = true\n")
    effective = load_config(cwd=tmp_path)
    assert effective.config.run_options().exhaustive is True
    assert dict((k, s) for k, _, s in effective.rows())["exhaustive"] == "localeval.toml"
    assert load_config(cwd=tmp_path, overrides={"exhaustive": False}).config.run_options().exhaustive is False
    (tmp_path / "localeval.toml").write_text('exhaustive = "always"\n')
    with pytest.raises(ConfigError, match=r"localeval.toml: exhaustive: "):
        load_config(cwd=tmp_path)
    (tmp_path / "localeval.toml").unlink()

    five = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "relevant", 4: "not_relevant"}
    tiny = build_tiny_model(tmp_path / "tiny5", five, {"max_length": 64, "tasks": {"nli": [0, 1, 2], "relevance": [3, 4]}})
    data = write_jsonl(tmp_path / "rows.jsonl", make_rows(3))
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    base = ["score", str(data), "-m", "context_recall,faithfulness", "--model", str(tiny), "--no-progress",
            "-o", str(out)]
    result = cli.invoke(app, [*base, "--exhaustive", "--summary-json", str(summary)])
    assert result.exit_code == 0, result.output
    metrics = json.loads(summary.read_text())["run"]["metrics"]
    assert metrics["context_recall"]["options"]["exhaustive"] is True
    assert metrics["faithfulness"]["options"]["exhaustive"] is True
    assert json.loads((tmp_path / "out.jsonl.run.json").read_text())["options"]["exhaustive"] is True
    resumed = cli.invoke(app, [*base, "--no-exhaustive", "--resume"])
    assert resumed.exit_code == 2 and "exhaustive" in resumed.output
    again = cli.invoke(app, [*base, "--exhaustive", "--resume"])
    assert again.exit_code == 0, again.output


def test_exhaustive_keyword_of_evaluate(default_judge):
    """``evaluate(exhaustive=True)`` reaches the claim metrics: each claim then reports its
    highest probability over its units, never less than the early-accepting run's, with the
    same verdicts."""
    from localeval import evaluate
    from localeval.runner import resolve_metrics
    from localeval.runner.evaluate import run_options

    options = run_options(model=default_judge, exhaustive=True)
    assert options.exhaustive is True and run_options().exhaustive is False
    assert resolve_metrics(["context_recall", "faithfulness"], options)[1][1].exhaustive is True
    rows = [{"reference": "Paris is the capital of France. It has many museums.",
             "retrieved_contexts": ["Paris is the capital of France and its largest city.",
                                    "The capital of France is Paris. Paris has many museums and parks."]}]
    early = evaluate(rows, ["context_recall"], model=default_judge, show_progress=False)
    full = evaluate(rows, ["context_recall"], model=default_judge, exhaustive=True, show_progress=False)
    early_claims = early.rows[0].results["context_recall"].claims
    full_claims = full.rows[0].results["context_recall"].claims
    assert [c.attributed for c in early_claims] == [c.attributed for c in full_claims]
    assert all(f.probability >= e.probability for e, f in zip(early_claims, full_claims))
