"""`localeval` command line: score a JSON Lines file, list the local judges."""

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


@app.command()
def score(
    input_path: Path = typer.Argument(..., exists=True, dir_okay=False, help="Input JSON Lines file."),
    metrics: str = typer.Option("context_recall", "--metrics", "-m", help="Comma-separated metric names."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Output JSON Lines (default: stdout)."),
    model: Optional[str] = typer.Option(None, "--model", help="Judge name or local model directory."),
    device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, cuda:1 ... (default: auto)."),
    batch_size: int = typer.Option(32, "--batch-size", help="Pairs per judge forward pass."),
    chunk_size: int = typer.Option(256, "--chunk-size", help="Rows scored together."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
) -> None:
    """Score every row of INPUT_PATH; each output row keeps its input fields plus, per metric,
    the score, the reason for a missing score, and the details that explain it."""
    from localeval.backends import JudgeNotFoundError, get_judge
    from localeval.metrics.claim_support import JudgedMetric
    from localeval.metrics.registry import resolve_name
    from localeval.runner import score_file

    names = [n.strip() for n in metrics.split(",") if n.strip()]
    judge = None
    built = []
    try:
        for name in names:
            cls, options = resolve_name(name)
            if issubclass(cls, JudgedMetric):
                judge = judge or get_judge(model, device=device)
                options.update(model=judge, batch_size=batch_size)
            built.append(cls(**options))
    except (JudgeNotFoundError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc

    handle = open(output, "w", encoding="utf-8") if output else sys.stdout
    try:
        summary = score_file(input_path, handle, built, chunk_size=chunk_size, show_progress_bar=progress)
    finally:
        if output:
            handle.close()
    where = f" with judge {judge.name} on {judge.device.type}" if judge else ""
    typer.echo(f"{summary.rows} rows scored{where}", err=True)
    for m in summary.metrics:
        mean = "n/a" if m.mean is None else f"{m.mean:.4f}"
        typer.echo(f"  {m.metric:<20} mean {mean}  scored {m.scored}  unscored {m.unscored}", err=True)
        for reason, count in sorted(m.reasons.items()):
            typer.echo(f"      {count} x {reason}", err=True)


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
