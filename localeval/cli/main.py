"""`localeval` command line: score a dataset file (JSON Lines, CSV, Parquet), list the local judges."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
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


@app.command()
def score(
    input_path: Path = typer.Argument(..., exists=True, dir_okay=False, help="Input file: JSON Lines, CSV or Parquet."),
    metrics: str = typer.Option("context_recall", "--metrics", "-m", help="Comma-separated metric names (RAGAS names work too)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Output JSON Lines, or .parquet (default: JSON Lines on stdout)."),
    model: Optional[str] = typer.Option(None, "--model", help="Judge name or local model directory."),
    device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, cuda:1 ... (default: auto)."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Pairs per judge forward pass (default: 32 on CPU, 128 on CUDA)."),
    chunk_size: int = typer.Option(256, "--chunk-size", help="Rows scored together."),
    column_map: list[str] = typer.Option([], "--column-map", help="FIELD=COLUMN or FIELD=column.key; repeat for several fields."),
    cache: Optional[Path] = typer.Option(None, "--cache", dir_okay=False, help="SQLite file of judge verdicts, reused across runs."),
    resume: bool = typer.Option(False, "--resume", help="Keep the rows OUTPUT already holds; score and append the rest."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress on stderr."),
    decomposer: str = typer.Option("rule", "--decomposer", help="Claims and sub-questions: 'rule' (default) or a local instruction model (directory or .gguf file)."),
) -> None:
    """Score every row of INPUT_PATH; each output row keeps its input fields plus ``_line``
    and, per metric, the score, the reason for a missing score, and the details that explain
    it. Rows are written as their chunk finishes; after a crash, ``--resume`` goes on."""
    from rich.console import Console

    from localeval.backends import JudgeNotFoundError
    from localeval.runner import resolve_metrics, score_dataset
    from localeval.runner.run import judges_of

    try:
        mapping = _parse_column_map(column_map)
        if resume and output is None:
            raise ValueError("--resume needs --output")
        built = resolve_metrics(metrics, model=model, device=device, batch_size=batch_size, decomposer=decomposer)
        summary = score_dataset(
            input_path, built, output, mapping, chunk_size=chunk_size,
            cache=cache, show_progress=progress, resume=resume,
        )
    except (JudgeNotFoundError, FileNotFoundError, ImportError, ValueError, TypeError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc

    judges = judges_of(built)
    where = f" with judge {judges[0].name} on {judges[0].device.type}" if judges else ""
    console = Console(stderr=True, width=max(100, Console(stderr=True).width))
    console.print(summary.to_table(title=f"{summary.rows} rows scored{where}"))


@app.command()
def models() -> None:
    """List the judges localeval can load, and where they are."""
    from localeval.backends import list_models

    found = list_models()
    if not found:
        typer.echo("no judges found (set LOCALEVAL_MODELS_DIR or train one: python -m localeval.training)")
        raise typer.Exit(1)
    for m in found:
        star = "*" if m.default else " "
        typer.echo(f"{star} {m.name:<32} {m.size_mb:>6.1f} MB  tasks={','.join(m.tasks)}  labels={','.join(m.labels)}")
        typer.echo(f"    {m.path}")


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
