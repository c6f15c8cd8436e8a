"""`localeval` command line: score a dataset file (JSON Lines, CSV, Parquet), report on scored runs (HTML), show the configuration, list the local judges."""

from __future__ import annotations

import time

from pathlib import Path
from typing import Optional

import typer
import typer.core

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    # Plain click help: rich markup read "[tool.localeval]" as a style tag and dropped it,
    # showed a "<bool>" placeholder on flags and kept the docstrings' line breaks mid-sentence.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    help="Offline evaluation of retrieval-augmented generation with local judges.",
)


def _parse_column_map(items: list[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for item in items:
        field, sep, path = item.partition("=")
        if not sep or not field.strip() or not path.strip():
            raise ValueError(f"--column-map takes FIELD=COLUMN (or FIELD=col.key), got {item!r}")
        mapping[field.strip()] = path.strip()
    return mapping


def _name_values(items: list[str], flag: str, example: str) -> dict[str, float]:
    """``NAME=VALUE`` flag values as a table; a malformed one names the flag and an example."""
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise ValueError(f"{flag} takes {example}, got {item!r}")
    return out


def _parse_thresholds(items: list[str]) -> dict[str, float]:
    return _name_values(items, "--threshold", "NAME=VALUE (entailment=0.7)")


def _parse_fail_under_flags(items: list[str]) -> dict[str, float]:
    """``--fail-under`` values as the configuration's table (names are checked against the
    run's metrics later, by `localeval.runner.gates.parse_fail_under`)."""
    return _name_values(items, "--fail-under", "METRIC=VALUE (faithfulness=0.7)")


_CONFIG_HELP = "Configuration file (default: ./localeval.toml, else [tool.localeval] in ./pyproject.toml)."


class _ScoreCommand(typer.core.TyperCommand):
    """`score --help` lists the metric names, read from their declarations (data only: no
    metric module, no torch)."""

    def format_help(self, ctx, formatter) -> None:
        from localeval.catalog import ALIASES, plain_names

        self.epilog = f"Metrics: {', '.join(plain_names())}. RAGAS names: {', '.join(ALIASES)}."
        super().format_help(ctx, formatter)


def _version(value: bool) -> None:
    if value:
        from localeval import __version__

        typer.echo(f"localeval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the libraries' own output: model loading bars, Ray's log lines (default: hidden)."),
) -> None:
    """Offline evaluation of retrieval-augmented generation with local judges."""
    if verbose:  # otherwise LOCALEVAL_VERBOSE, if set, decides
        from localeval.quiet import set_verbose

        set_verbose(True)


@app.command(cls=_ScoreCommand)
def score(
    input_path: Path = typer.Argument(..., exists=True, dir_okay=False, help="Input file: JSON Lines, CSV or Parquet."),
    metrics: Optional[str] = typer.Option(None, "--metrics", "-m", help="Comma-separated metric names, listed below (default: context_recall)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Output file: .jsonl, .csv or .parquet (default: JSON Lines on stdout)."),
    model: Optional[str] = typer.Option(None, "--model", help="Judge name or local model directory: an NLI model, MiniCheck, HHEM-2.1-open or AlignScore folder, or FORMAT:PATH (see: localeval judges)."),
    relevance_model: Optional[str] = typer.Option(None, "--relevance-model", help="Separate relevance judge for the relevance metrics: a cross-encoder reranker folder (MS MARCO MiniLM, BGE reranker) or FORMAT:PATH (default: the judge's own relevance head)."),
    device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, cuda:1 ... (default: auto)."),
    dtype: Optional[str] = typer.Option(None, "--dtype", help="Judge number format: auto (fp32 on CPU, fp16 on CUDA), fp32, bf16 (2-3x faster on CPUs with native bf16; probabilities within ~0.02 of fp32), fp16."),
    precision: Optional[str] = typer.Option(None, "--precision", hidden=True, help="Deprecated name of --dtype."),
    max_units: Optional[int] = typer.Option(None, "--max-units", help="Units of the contexts each claim is judged against, those sharing most of its words (default: the metrics' own, 6; 0: every unit, slower on long contexts)."),
    candidates: Optional[str] = typer.Option(None, "--candidates", help="How the --max-units units of a claim are chosen: overlap (default: most of its words), bm25, embedding (MiniLM cosine), hybrid (overlap shortlist re-ranked by cosine)."),
    locate: Optional[str] = typer.Option(None, "--locate", help="How a claim's evidence is narrowed to one sentence: words (default: most of its words, no judge call) or judge (each sentence judged)."),
    screen: Optional[bool] = typer.Option(None, "--screen/--no-screen", help="Context relevance: decide sentences sharing no content word with the question without the judge (default: on); --no-screen judges every sentence."),
    contrasts: Optional[bool] = typer.Option(None, "--contrasts/--no-contrasts", help="Claims: a unit that states another number or unit, the opposite direction or state, or negates what the claim affirms cannot support it (default: on); --no-contrasts: the judge alone."),
    score_declined: Optional[bool] = typer.Option(None, "--score-declined/--no-score-declined", help="Score answers that decline to answer (\"I'm sorry, the documents do not say.\") as any answer (default: off: unscored with the reason \"the answer declines to answer\", counted in the summary)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show the libraries' own output: model loading bars, Ray's log lines (default: hidden)."),
    exhaustive: Optional[bool] = typer.Option(None, "--exhaustive/--no-exhaustive", help="Claim metrics: judge every chosen unit of a claim even after its closest unit accepts it, so each claim reports its highest probability (same verdicts, more judge calls; default: off)."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Pairs per judge forward pass (default: 32 on CPU, 128 on CUDA)."),
    block_size: Optional[int] = typer.Option(None, "--block-size", help="Rows scored together, a block (default: 256)."),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", hidden=True, help="Deprecated name of --block-size."),
    column_map: list[str] = typer.Option([], "--column-map", metavar="FIELD=COLUMN", help="FIELD=COLUMN or FIELD=column.key; repeat for several fields."),
    threshold: list[str] = typer.Option([], "--threshold", metavar="KEY=VALUE", help="KEY=VALUE, beats the judge's stored threshold: entailment, relevance, or a metric's own key (faithfulness=0.6); see localeval config."),
    cache: Optional[Path] = typer.Option(None, "--cache", dir_okay=False, help="SQLite file of judge verdicts, reused across runs."),
    resume: bool = typer.Option(False, "--resume", help="Keep the rows OUTPUT already holds; score and append the rest."),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="Show progress on stderr (default: on; model loading bars only with -v)."),
    engine: Optional[str] = typer.Option(None, "--engine", help="local (default) or ray (an actor pool: one per GPU, else one per CPU)."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster to join (auto: the one this node belongs to); default: a local one."),
    ray_actors: Optional[int] = typer.Option(None, "--ray-actors", help="Scoring actors for --engine ray."),
    decomposer: Optional[str] = typer.Option(None, "--decomposer", help="Claims and sub-questions: 'rule' (default) or a local instruction model (directory or .gguf file)."),
    config: Optional[Path] = typer.Option(None, "--config", dir_okay=False, help=_CONFIG_HELP),
    report_path: Optional[Path] = typer.Option(None, "--report", dir_okay=False, help="Also write an HTML report of the run here (needs --output)."),
    max_row_chars: Optional[int] = typer.Option(None, "--max-row-chars", help="Characters one row may hold (default 1,000,000); a row over it is unscored with the reason; 0: no limit."),
    max_contexts: Optional[int] = typer.Option(None, "--max-contexts", help="Contexts one row may hold (default 1,000); a row over it is unscored with the reason; 0: no limit."),
    max_row_pairs: Optional[int] = typer.Option(None, "--max-row-pairs", help="Judge pairs one metric may ask for one row, estimated before scoring (default 4,000: about two minutes on a CPU); a row over it is unscored with the reason; 0: no limit."),
    fail_under: list[str] = typer.Option([], "--fail-under", metavar="METRIC=VALUE", help="METRIC=VALUE: exit with 1 when the metric's mean is below VALUE; repeat for several metrics."),
    max_unscored: Optional[float] = typer.Option(None, "--max-unscored", min=0.0, max=100.0, help="Exit with 1 when more than this percentage of rows is unscored for a metric (a metric that scores no row always fails)."),
    summary_json: Optional[Path] = typer.Option(None, "--summary-json", help="Write the summary, the gates and the run's metadata (version, judge and its hash, thresholds) as JSON."),
    junit_xml: Optional[Path] = typer.Option(None, "--junit-xml", help="Write the gates as JUnit XML: one test case per metric."),
    resamples: int = typer.Option(1000, "--resamples", min=1, help="Bootstrap resamples of each mean's 95% interval (seeded: the same scores give the same interval)."),
    calibration: Optional[Path] = typer.Option(None, "--calibration", exists=True, dir_okay=False, help="Thresholds chosen on your labels by `localeval calibrate` (a --threshold beats them); named in the run's metadata."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Processes for the text side (splitting, parsing, windows) while this one judges each worker's pairs; the same scores as one process (default: the cores minus the judge's: 1 on a CPU judge)."),
    profile: Optional[bool] = typer.Option(None, "--profile/--no-profile", help="Print the time per row of each stage (read, split, parse, plan, judge, metric, write) after the run (default: off)."),
) -> None:
    """Score every row of INPUT_PATH. Each output row keeps its input fields plus _line and,
    per metric, the score, the reason for a missing score, and the details that explain it.
    Rows are written as their chunk finishes; after a crash, --resume goes on. Settings not
    given as flags come from the configuration file (see: localeval config). Exit codes: 0
    passed, 1 a gate failed (nothing scored, --fail-under, --max-unscored), 2 a usage or
    input error."""
    from rich.console import Console

    from localeval.judge import JudgeNotFoundError
    from localeval.cli.signals import Stopped, resume_hint, stop_on_signals
    from localeval.runner import resolve_metrics, score_dataset
    from localeval.runner.guard import check_run_paths, run_paths
    from localeval.runner.gates import check_gates, parse_fail_under, write_junit_xml, write_summary_json
    from localeval.runner.metadata import run_metadata
    from localeval.runner.output import check_writable, output_format
    from localeval.quiet import quiet_loading
    from localeval.options import RunOptions
    from localeval.runner.run import judges_of

    from localeval.runner.summary import bootstrap_settings

    given = locals()
    try:
        given.update(_renamed_flags(given))
        calibrated = _read_calibration(calibration)
        flags = {
            # Every run option by its field name (a test checks this command has each one);
            # then the flags whose spelling differs from the file's.
            **{key: given[key] for key in RunOptions.model_fields if key != "thresholds"},
            "metrics": metrics, "column_map": _parse_column_map(column_map) or None,
            "thresholds": {**calibrated.get("thresholds", {}), **_parse_thresholds(threshold)} or None,
            "cache": None if cache is None else str(cache),
            "progress": progress, "engine": engine, "ray_address": ray_address, "ray_actors": ray_actors,
            "max_row_chars": max_row_chars, "max_contexts": max_contexts, "max_row_pairs": max_row_pairs,
            # Gates may live in the configuration file too (CI keeps them beside the metrics).
            "fail_under": _parse_fail_under_flags(fail_under) or None, "max_unscored": max_unscored,
            "workers": workers, "profile": profile,  # run-level: the file may set them too
        }
        if verbose:
            from localeval.quiet import set_verbose

            set_verbose(True)
        settings = _load(config, flags).config
        if resume and output is None:
            raise ValueError("--resume needs --output")
        if report_path is not None and output is None:
            raise ValueError("--report needs --output (the report is read from the output file)")
        # Every file the run writes against every file it reads or writes (by resolved path
        # and inode), before anything is opened for writing.
        check_run_paths({"input": input_path}, {**run_paths(output, settings.cache), "--report": report_path,
                                                "--summary-json": summary_json, "--junit-xml": junit_xml})
        if output is not None:
            check_writable(output, "--output")
            output_format(output)
        for path, flag in ((report_path, "--report"), (summary_json, "--summary-json"), (junit_xml, "--junit-xml")):
            if path is not None:
                check_writable(path, flag)
        settings = _drop_unread_file_thresholds(settings, set(_parse_thresholds(threshold)))
        # The flags' and the file's encodings are parsed once, into the run's options.
        options = settings.run_options()
        # With the options: a --threshold key none of these metrics reads is refused here.
        names = [name for name, _ in resolve_metrics(settings.metrics, options, load_judge=False)]
        gates_under = parse_fail_under([f"{k}={v}" for k, v in settings.fail_under.items()], names)
        max_unscored = settings.max_unscored
        if settings.engine == "local":
            # Built here (not in score_dataset) to name the judge in the summary's title.
            with quiet_loading():
                built = resolve_metrics(settings.metrics, options)
        else:
            built = settings.metrics
        # --profile: the run in a session of our own, whose stage timers are read after it.
        profile, workers = settings.profile, settings.workers
        profiled = _profiled_session(options) if profile and settings.engine == "local" else None
        started = time.perf_counter()
        with bootstrap_settings(resamples), stop_on_signals():
            summary = score_dataset(input_path, built, output, settings.column_map or None, options=options,
                                    show_progress=settings.progress, resume=resume, engine=settings.engine,
                                    ray_address=settings.ray_address, ray_actors=settings.ray_actors,
                                    max_row_chars=settings.max_row_chars or None, max_contexts=settings.max_contexts or None,
                                    max_row_pairs=settings.max_row_pairs or None,
                                    session=profiled, workers=workers if settings.engine == "local" else (workers or 1))
        if profiled is not None:
            profiled.close()
            _print_profile(profiled, time.perf_counter() - started, summary.rows)
        elif profile:
            typer.echo("--profile times the local engine only; each Ray actor keeps its own timers", err=True)
    except (KeyboardInterrupt, Stopped) as exc:  # the files are whole: say how to go on
        typer.echo(resume_hint(exc, output), err=True)
        raise typer.Exit(130 if isinstance(exc, KeyboardInterrupt) else 143) from None
    except (JudgeNotFoundError, OSError, ImportError, ValueError, TypeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc

    judges = judges_of(built) if settings.engine == "local" else []
    where = f" with judge {judges[0].name} on {judges[0].device.type}" if judges else f" on engine {settings.engine}"
    console = Console(stderr=True, width=max(100, Console(stderr=True).width))
    for table in summary.tables(title=f"{summary.headline()}{where}"):
        console.print(table)
    gates = check_gates(summary, gates_under, max_unscored)
    meta = {**(run_metadata(built) if settings.engine == "local" else {}),
            "input": str(input_path), "output": None if output is None else str(output),
            **({"calibration": calibrated} if calibrated else {})}
    if summary_json is not None:
        write_summary_json(summary_json, summary, gates, meta)
    if junit_xml is not None:
        write_junit_xml(junit_xml, summary, gates)
    if report_path is not None and output is not None:
        _write_report([output], report_path, worst=10, title=None, metadata=meta)
    for failure in gates.failures:
        typer.echo(f"gate failed: {failure.message}", err=True)
    if not gates.passed:
        raise typer.Exit(1)


def _drop_unread_file_thresholds(settings, flagged: set[str]):
    """A threshold from the configuration file that none of this run's metrics reads is said in
    one line and left out (the file serves runs of other metrics too); one given as a flag is
    refused later, by `resolve_metrics`."""
    from localeval.metrics.judged import JudgedMetric
    from localeval.metrics.thresholds import unread_thresholds
    from localeval.runner import resolve_metrics

    if not settings.thresholds:
        return settings
    uses = {name: metric.threshold_uses() if isinstance(metric, JudgedMetric) else []
            for name, metric in resolve_metrics(settings.metrics, load_judge=False)}
    unread, said = unread_thresholds(settings.thresholds, uses)
    from_file = [key for key in unread if key not in flagged]
    if not from_file:
        return settings
    typer.echo(f"note: threshold {', '.join(map(repr, from_file))} from the configuration file is read by none of "
               f"this run's metrics ({said}); left out", err=True)
    kept = {k: v for k, v in settings.thresholds.items() if k not in from_file}
    return settings.model_copy(update={"thresholds": kept})


def _profiled_session(options):
    from localeval.judge.session import JudgeSession

    return JudgeSession(options)


def _print_profile(session, seconds: float, rows: int) -> None:
    """``--profile``: ms per row by stage (`localeval.runner.profile`), on stderr."""
    from localeval.runner.profile import stage_profile

    typer.echo("time per stage (ms per row; with --workers the text stages add up every worker):", err=True)
    typer.echo(stage_profile(session, seconds, rows).table(), err=True)


def _write_report(runs: list[Path], output: Path, *, worst: int, title: Optional[str], metadata: Optional[dict] = None) -> None:
    from localeval.reports import write_report

    if any(output.resolve() == run.resolve() for run in runs):
        typer.echo(f"error: the report would overwrite its input {output}; pass -o", err=True)
        raise typer.Exit(2)
    try:
        write_report(runs, output, worst=worst, title=title, metadata=metadata)
    except ImportError as exc:  # matplotlib comes with the `report` extra
        typer.echo(f"error: the HTML report needs matplotlib: pip install 'localeval[report]' ({exc})", err=True)
        raise typer.Exit(2) from exc
    except (ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"report written to {output}", err=True)


@app.command()
def report(
    runs: list[Path] = typer.Argument(..., exists=True, dir_okay=False, help="Output of localeval score (JSON Lines, CSV or Parquet); two or more files: compare them."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", dir_okay=False, help="HTML file to write (default: the first run's name with .html)."),
    worst: int = typer.Option(10, "--worst", min=0, help="Rows listed per metric (lowest scores; in a comparison, biggest changes)."),
    title: Optional[str] = typer.Option(None, "--title", help="Page title."),
    meta: Optional[Path] = typer.Option(None, "--meta", exists=True, dir_okay=False, help="The run's --summary-json file: its metadata (version, judge and hash, thresholds, options, date) is shown."),
) -> None:
    """Write a self-contained HTML report of a scored run: summary per metric, score
    histograms, every row (sortable, searchable), the lowest-scored rows with what explains
    them. With two runs of the same input, show which rows got better or worse, and why; with
    more, each run's mean per metric, its change from the first run, and the rows that moved
    most."""
    metadata = None
    if meta is not None:
        import json

        try:
            metadata = json.loads(meta.read_text(encoding="utf-8")).get("run")
        except (ValueError, AttributeError) as exc:
            typer.echo(f"error: {meta} is not a summary written by --summary-json ({exc})", err=True)
            raise typer.Exit(2) from exc
    _write_report(runs, output or runs[0].with_suffix(".html"), worst=worst, title=title, metadata=metadata)


def _read_calibration(path: Optional[Path]) -> dict:
    """The calibration file `localeval calibrate` wrote, as the run's metadata names it (its
    path, hash and thresholds); ``{}`` without one."""
    if path is None:
        return {}
    from localeval.calibrate import read_calibration

    return read_calibration(path)


@app.command()
def compare(
    runs: list[Path] = typer.Argument(..., exists=True, dir_okay=False, help="Two or more outputs of localeval score: each is compared with the first."),
    fail_worse: list[str] = typer.Option([], "--fail-worse", help="METRIC: exit with 1 when this metric got significantly worse in a later run (in its own direction: a rise of noise_sensitivity is worse); 'all' for every metric; repeat for several."),
    resamples: int = typer.Option(1000, "--resamples", min=1, help="Bootstrap resamples and permutations per metric."),
    seed: int = typer.Option(0, "--seed", help="Seed of the resampling (the same runs give the same figures)."),
    top: int = typer.Option(5, "--top", min=0, help="Rows that changed most, listed per metric and direction."),
    as_json: Optional[Path] = typer.Option(None, "--json", dir_okay=False, help="Also write every figure as JSON."),
    report_path: Optional[Path] = typer.Option(None, "--report", dir_okay=False, help="Also write the HTML comparison (rows with their explanations)."),
) -> None:
    """Is B better than A? Per metric: B - A, its 95% interval, a p-value, a verdict.

    Rows are paired by id (else by input line); per metric, the mean
    difference B - A with a paired bootstrap 95% interval and a paired permutation p-value,
    read in the metric's direction, the prediction-powered estimate of the difference when
    both runs carry human labels, and the rows that changed most. Exit codes: 0, 1 a
    --fail-worse metric got significantly worse, 2 a usage or input error."""
    import json

    from rich.console import Console

    from localeval.reports.significance import compare_files, render_text

    if len(runs) < 2:
        typer.echo("error: compare takes two run files or more", err=True)
        raise typer.Exit(2)
    try:
        results = compare_files(runs, resamples=resamples, seed=seed, top=top)
    except (ValueError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    known = {m.metric for r in results for m in r.metrics}
    watched = known if "all" in fail_worse else set(fail_worse)
    unknown = sorted(watched - known)
    if unknown:
        typer.echo(f"error: --fail-worse names metrics the runs do not share: {', '.join(unknown)}; compared: {', '.join(sorted(known))}", err=True)
        raise typer.Exit(2)
    console = Console(width=max(130, Console().width))
    for result in results:
        render_text(result, console)
    if as_json is not None:
        as_json.write_text(json.dumps([r.model_dump() for r in results], indent=2) + "\n", encoding="utf-8")
    if report_path is not None:
        _write_report(list(runs), report_path, worst=top, title=None)
    failed = [(r.b, m) for r in results for m in sorted(watched) if r.worse(m)]
    for name, metric in failed:
        typer.echo(f"gate failed: {metric} is significantly worse in {name}", err=True)
    if failed:
        raise typer.Exit(1)


@app.command("calibrate")
def calibrate_command(
    data: Path = typer.Argument(..., exists=True, dir_okay=False, help="Rows with human labels: a column human_<metric> (0/1 or a score in [0, 1]) on some rows."),
    metrics: str = typer.Option(..., "--metrics", "-m", help="Comma-separated metrics to calibrate (each needs its human_<metric> labels)."),
    output: Path = typer.Option(Path("calibration.json"), "--output", "-o", dir_okay=False, help="Calibration file to write (use it with: localeval score --calibration FILE)."),
    objective: Optional[str] = typer.Option(None, "--objective", help="ba (binary labels, default), rmse (graded labels, default) or pearson (graded)."),
    folds: int = typer.Option(5, "--folds", min=2, help="Cross-validation folds."),
    seed: int = typer.Option(0, "--seed", help="Seed of the folds."),
    model: Optional[str] = typer.Option(None, "--model", help="Judge name or local model directory."),
    device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, ... (default: auto)."),
    column_map: list[str] = typer.Option([], "--column-map", help="FIELD=COLUMN, human_<metric>=COLUMN for labels in another column; repeat."),
    cache: Optional[Path] = typer.Option(None, "--cache", dir_okay=False, help="SQLite file of judge verdicts, reused across runs (score's --cache)."),
) -> None:
    """Choose each metric's threshold on your labelled rows (human_<metric>) by cross-validation.

    Prints how well it agrees with the labels out of fold, beside the shipped threshold and word overlap
    calibrated the same way, and write the calibration file. Needs at least 30 labelled rows
    per metric (binary: 5 of each class). Exit codes: 0, 2 a usage or input error."""
    from rich.console import Console

    from localeval.judge import JudgeNotFoundError
    from localeval.calibrate import calibrate, print_report, write_calibration

    if objective not in (None, "ba", "rmse", "pearson"):
        typer.echo(f"error: --objective takes ba, rmse or pearson, got {objective!r}", err=True)
        raise typer.Exit(2)
    from localeval.runner.guard import check_run_paths

    try:
        # The labelled rows would be lost to a calibration file or a verdict cache written over them.
        check_run_paths({"input": data}, {"--output": output, "--cache": cache})
        names = [m.strip() for m in metrics.split(",") if m.strip()]
        report_ = calibrate(data, names, _parse_column_map(column_map) or None, model=model, device=device,
                            objective=objective, folds=folds, seed=seed, cache=cache)  # type: ignore[arg-type]
        write_calibration(report_, output)
    except (JudgeNotFoundError, OSError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    print_report(report_, Console(width=max(110, Console().width)))
    typer.echo(f"calibration written to {output}", err=True)


def _load(path: Optional[Path], flags: dict):
    import warnings

    from localeval.config import load_config

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FutureWarning)
        loaded = load_config(path, flags)
    for warning in caught:  # a renamed key in the file: one line, not a Python warning's two
        typer.echo(f"warning: {warning.message}", err=True)
    return loaded


def _renamed_flags(given: dict) -> dict:
    """The new option of each renamed flag given by its old name (--chunk-size, --precision),
    with a one-line warning; both spellings given is a usage error."""
    from localeval.options import RENAMED_OPTIONS

    out = {}
    for old, new in RENAMED_OPTIONS.items():
        if given.get(old) is None:
            continue
        flag, new_flag = f"--{old.replace('_', '-')}", f"--{new.replace('_', '-')}"
        if given.get(new) is not None:
            raise ValueError(f"{flag} is the old name of {new_flag}; give {new_flag} only")
        typer.echo(f"warning: {flag} is deprecated, use {new_flag}", err=True)
        out[new] = given[old]
    return out


@app.command("config")
def show_config(
    config: Optional[Path] = typer.Option(None, "--config", dir_okay=False, help=_CONFIG_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON (values and sources) instead of a table."),
) -> None:
    """Print the effective configuration of localeval score and where each value comes from."""
    import json

    from localeval.config import ConfigError

    try:
        effective = _load(config, {})
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    rows = effective.rows()
    uses = _thresholds_in_force(effective)
    if as_json:
        typer.echo(json.dumps({
            "file": effective.file,
            "settings": {k: {"value": v, "source": src} for k, v, src in rows},
            "thresholds_in_force": uses,
        }, indent=2))
        return
    typer.echo(f"configuration file: {effective.file or 'none (defaults)'}")
    for key, value, source in rows:
        shown = json.dumps(value) if isinstance(value, (dict, list, bool)) or value is None else str(value)
        typer.echo(f"  {key:<12} = {shown:<40} # {source}")
    if uses:
        typer.echo("thresholds in force (keys read in order: given per-metric, given generic, stored per-metric, stored generic):")
    for use in uses:
        reads = f"{use['metric']} {use['decision']} ({use['own_key']} > {use['decision']})"
        typer.echo(f"  {reads:<58} {use['key'] + ' = ' + str(use['value']):<30} # {use['source']}")


def _thresholds_in_force(effective) -> list[dict]:
    """Each decision of each configured metric with the key and value it will use; the judge's
    stored thresholds are read from its config.json (no weights are loaded)."""
    import json

    from localeval.judge import JudgeNotFoundError
    from localeval.judge.registry import resolve_model, stored_thresholds
    from localeval.metrics.thresholds import thresholds_in_force

    from localeval.evidence.verdict import verdict_from_config

    config = effective.config
    try:
        path = resolve_model(config.model)
        judge_config = json.loads((path / "config.json").read_text())
        stored = stored_thresholds(judge_config)
        verdict = verdict_from_config(judge_config)
        judge = path.name
    except (JudgeNotFoundError, OSError, ValueError):
        stored, verdict, judge = {}, None, None
    where = {
        "given": effective.sources.get("thresholds", "given"),
        "stored": f"stored with judge {judge}",
        "fallback": "no stored value: 0.5",
        "argument": "threshold=",
    }
    return [
        {"metric": u.metric, "decision": u.kind, "own_key": u.own_key, "key": u.choice.key, "value": u.choice.value, "source": where[u.choice.source]}
        for u in thresholds_in_force(config.metrics, stored, config.thresholds,
                                     verdict_threshold=None if verdict is None else verdict.threshold)
    ]


@app.command()
def models() -> None:
    """List the judges localeval can load, and where they are."""
    from localeval.judge import list_models

    found = list_models()
    if not found:
        typer.echo("no judges found (set LOCALEVAL_MODELS_DIR or train one: python -m localeval.training)")
        raise typer.Exit(1)
    for m in found:
        star = "*" if m.default else " "
        typer.echo(f"{star} {m.name:<32} {m.size_mb:>6.1f} MB  tasks={','.join(m.tasks)}  labels={','.join(m.labels)}")
        typer.echo(f"    {m.path}")


@app.command()
def judges(
    folder: Optional[Path] = typer.Argument(None, help="A model folder (or FORMAT:PATH) to check: which format reads it."),
) -> None:
    """List the judge formats localeval reads (NLI, MiniCheck, MiniCheck-Flan-T5, HHEM-2.1-open,
    AlignScore, cross-encoder rerankers), what a folder must contain for each, and how each
    writes its input and reads its score. With FOLDER: the format that reads it, or what was
    found there and what was expected (exit 2)."""
    from localeval.judge.formats import UnknownJudgeFormat, describe_formats, detect_format, split_format
    from localeval.judge.registry import JudgeNotFoundError, resolve_model

    if folder is not None:
        named, path = split_format(str(folder))
        try:
            fmt, info = detect_format(resolve_model(path), named)
        except (UnknownJudgeFormat, JudgeNotFoundError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        typer.echo(f"{info.path}: format {fmt.name} ({fmt.title}); tasks: {', '.join(fmt.tasks)}")
        return
    for row in describe_formats():
        typer.echo(f"{row['format']}: {row['what']}")
        for key in ("tasks", "folder", "input", "score", "source"):
            typer.echo(f"    {key + ':':<8}{row[key]}")


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
