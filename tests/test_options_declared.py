"""The run options are declared once, as `RunOptions`' fields: the configuration file's keys,
`evaluate()`'s and `score_dataset()`'s keywords and the CLI's ``score`` flags each reach every
field, and none of them holds a scoring option `RunOptions` lacks. A field added to
`RunOptions` fails here until every entry point takes it (and `VALUES` says how to set it)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pytest
from typer.testing import CliRunner

import localeval.runner as runner_package
from localeval.cli.main import app
from localeval.config import LocalevalConfig
from localeval.options import RENAMED_OPTIONS, RunOptions

evaluate_module = importlib.import_module("localeval.runner.evaluate")  # the package exports the function

# field -> (the CLI's arguments, the Python keyword's value, the field's value in RunOptions),
# every one different from the default.
VALUES: dict[str, tuple[list[str], Any, Any]] = {
    "model": (["--model", "some-judge"], "some-judge", "some-judge"),
    "device": (["--device", "cpu"], "cpu", "cpu"),
    "dtype": (["--dtype", "bf16"], "bf16", "bf16"),
    "batch_size": (["--batch-size", "7"], 7, 7),
    "thresholds": (["--threshold", "entailment=0.7"], {"entailment": 0.7}, {"entailment": 0.7}),
    "max_units": (["--max-units", "2"], 2, 2),
    "exhaustive": (["--exhaustive"], True, True),
    "candidates": (["--candidates", "bm25"], "bm25", "bm25"),
    "locate": (["--locate", "judge"], "judge", "judge"),
    "screen": (["--no-screen"], False, False),
    "contrasts": (["--no-contrasts"], False, False),
    "decomposer": (["--decomposer", "models/some.gguf"], "models/some.gguf", "models/some.gguf"),
    "block_size": (["--block-size", "9"], 9, 9),
    "cache": (["--cache", "verdicts.sqlite"], "verdicts.sqlite", "verdicts.sqlite"),
    "score_declined": (["--score-declined"], True, True),
    "relevance_model": (["--relevance-model", "models/reranker"], "models/reranker", "models/reranker"),
}


class Captured(ValueError):
    """Raised by the stand-in scorer once it has the run's options (no judge is loaded)."""


def test_every_field_has_a_test_value():
    assert set(VALUES) == set(RunOptions.model_fields)


def test_config_keys_are_derived_from_the_fields():
    fields = LocalevalConfig.model_fields
    assert set(RunOptions.model_fields) <= set(fields)
    # Keys the file spells as RunOptions does are RunOptions' own declaration; the others
    # are the file's encodings of the same option (0: every unit, "rule", "auto").
    encoded = {"model", "dtype", "max_units", "thresholds", "decomposer", "cache"}
    for name, info in RunOptions.model_fields.items():
        if name not in encoded:
            assert (fields[name].annotation, fields[name].default, fields[name].description) == (
                info.annotation, info.default, info.description), name
    config = LocalevalConfig(**{name: value for name, (_, value, _) in VALUES.items() if name != "cache"},
                             cache="verdicts.sqlite")
    assert config.run_options() == RunOptions(**{name: expected for name, (_, _, expected) in VALUES.items()})


@pytest.mark.parametrize("function", [evaluate_module.evaluate, evaluate_module.score_dataset])
def test_python_keywords_are_the_fields_and_run_level_settings(function):
    parameters = inspect.signature(function).parameters
    assert set(RunOptions.model_fields) <= set(parameters)
    # What is not a field is where rows come from and go to: `_run`'s own settings.
    run_level = set(inspect.signature(evaluate_module._run).parameters) | {"options", "dataset"}  # RAGAS' name for data
    run_level |= set(RENAMED_OPTIONS)  # the old names of renamed options, still taken
    assert set(parameters) - set(RunOptions.model_fields) <= run_level
    # Their defaults are RunOptions' defaults.
    defaults = {name: parameters[name].default for name in RunOptions.model_fields}
    assert evaluate_module.run_options(**defaults) == RunOptions()


def _capture(monkeypatch) -> dict[str, RunOptions]:
    seen: dict[str, RunOptions] = {}

    def run(data, metrics, column_map, options, **_):
        seen["options"] = options
        raise Captured("captured")

    monkeypatch.setattr(evaluate_module, "_run", run)
    return seen


def test_evaluate_and_score_dataset_pass_every_field(monkeypatch):
    seen = _capture(monkeypatch)
    expected = RunOptions(**{name: value for name, (_, _, value) in VALUES.items()})
    keywords = {name: value for name, (_, value, _) in VALUES.items()}
    with pytest.raises(Captured):
        evaluate_module.evaluate([], ["context_recall"], **keywords)
    assert seen.pop("options") == expected
    with pytest.raises(Captured):
        evaluate_module.score_dataset([], ["context_recall"], None, **keywords)
    assert seen.pop("options") == expected


def test_score_dataset_refuses_keywords_beside_options(monkeypatch):
    _capture(monkeypatch)
    with pytest.raises(ValueError, match="exhaustive, candidates given beside options="):
        evaluate_module.score_dataset([], ["context_recall"], None, options=RunOptions(), candidates="bm25",
                                      exhaustive=True)


def _cli_capture(monkeypatch, tmp_path) -> tuple[dict[str, Any], Any]:
    """(what the CLI's `score` passes to the runner, an input file), with no judge loaded."""
    seen: dict[str, Any] = {}

    def score_dataset(data, metrics, output, column_map=None, *, options, **_):
        seen["options"] = options
        raise Captured("captured")

    monkeypatch.setattr(runner_package, "resolve_metrics", lambda metrics, *args, **kwargs: [])
    monkeypatch.setattr(runner_package, "score_dataset", score_dataset)
    monkeypatch.chdir(tmp_path)  # no configuration file here
    data = tmp_path / "in.jsonl"
    data.write_text("{}\n")
    return seen, data


def test_cli_score_passes_every_field(monkeypatch, tmp_path):
    seen, data = _cli_capture(monkeypatch, tmp_path)
    args = [arg for name in VALUES for arg in VALUES[name][0]]
    done = CliRunner().invoke(app, ["score", str(data), *args])
    assert done.exit_code == 2 and "captured" in done.output, done.output
    expected = {name: value for name, (_, _, value) in VALUES.items()}
    assert seen["options"] == RunOptions(**expected)


# Old spelling -> (the CLI's arguments, the Python value), for each renamed option.
OLD_SPELLINGS = {"chunk_size": (["--chunk-size", "9"], 9), "precision": (["--precision", "bf16"], "bf16")}


def test_every_renamed_option_has_an_old_spelling_here():
    assert set(OLD_SPELLINGS) == set(RENAMED_OPTIONS)
    assert not set(RENAMED_OPTIONS) & set(RunOptions.model_fields)


def test_old_names_still_work_in_run_options_and_evaluate_with_a_deprecation_warning(monkeypatch):
    seen = _capture(monkeypatch)
    for old, new in RENAMED_OPTIONS.items():
        value = OLD_SPELLINGS[old][1]
        with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated, use '{new}'"):
            assert RunOptions(**{old: value}) == RunOptions(**{new: value})
        with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated"), pytest.raises(Captured):
            evaluate_module.evaluate([], ["context_recall"], **{old: value})
        assert getattr(seen.pop("options"), new) == value
        with pytest.raises(ValueError, match="both given"), pytest.warns(DeprecationWarning):
            evaluate_module.score_dataset([], ["context_recall"], None, **{old: value, new: value})
    assert RunOptions(block_size=5).chunk_size == 5 and RunOptions(dtype="fp32").precision == "fp32"


def test_old_names_still_work_in_the_config_file_and_the_cli(monkeypatch, tmp_path):
    from localeval.config import ConfigError, load_config

    (tmp_path / "localeval.toml").write_text('chunk-size = 12\nprecision = "fp32"\n')
    with pytest.warns(FutureWarning) as caught:
        config = load_config(cwd=tmp_path).config
    assert sorted(str(w.message).split(": ")[-1] for w in caught) == [
        "'chunk_size' is deprecated, use 'block_size'", "'precision' is deprecated, use 'dtype'"]
    assert (config.block_size, config.dtype) == (12, "fp32")
    (tmp_path / "localeval.toml").write_text("chunk_size = 12\nblock_size = 13\n")
    with pytest.raises(ConfigError, match="give 'block_size' only"):
        load_config(cwd=tmp_path)
    (tmp_path / "localeval.toml").unlink()

    seen, data = _cli_capture(monkeypatch, tmp_path)
    args = [arg for flags, _ in OLD_SPELLINGS.values() for arg in flags]
    done = CliRunner().invoke(app, ["score", str(data), *args])
    assert "warning: --chunk-size is deprecated, use --block-size" in done.output, done.output
    assert "warning: --precision is deprecated, use --dtype" in done.output
    assert seen["options"] == RunOptions(block_size=9, dtype="bf16")
    done = CliRunner().invoke(app, ["score", str(data), "--chunk-size", "9", "--block-size", "9"])
    assert done.exit_code == 2 and "give --block-size only" in done.output, done.output
