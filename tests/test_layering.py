"""No code outside `localeval/judge/` reads or writes a judge's private attributes: a judge
is a pure predictor, and run state lives in the run's `JudgeSession` (public counters, memos,
cache). Checked on the source, so it stays true."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Names that hold a judge in localeval's code and benchmarks.
JUDGE_NAMES = {"judge", "tiny_judge", "default_judge", "fp32", "bf16", "fallback", "scorer"}


def _judge_expr(node: ast.expr) -> bool:
    """``judge``, ``self.judge``, ``b.judge``, ``metric.judge`` ..."""
    if isinstance(node, ast.Name):
        return node.id in JUDGE_NAMES or node.id.endswith("_judge")
    if isinstance(node, ast.Attribute):
        return node.attr in JUDGE_NAMES or node.attr.endswith("_judge")
    return False


def private_judge_access(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if _judge_expr(node.value):
                found.append(f"{where}:{node.lineno}: .{node.attr}")
        # getattr(judge, "_x") / setattr(judge, "_x", ...) / judge.__dict__
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"getattr", "setattr", "hasattr"}:
            args = node.args
            if len(args) >= 2 and _judge_expr(args[0]) and isinstance(args[1], ast.Constant) \
                    and str(args[1].value).startswith("_"):
                found.append(f"{where}:{node.lineno}: {node.func.id}(.., {args[1].value!r})")
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and _judge_expr(node.value):
            found.append(f"{where}:{node.lineno}: .__dict__")
    return found


def test_no_private_judge_attribute_outside_the_judge_package():
    files = [p for p in (ROOT / "localeval").rglob("*.py") if "judge" not in p.relative_to(ROOT).parts]
    files += list((ROOT / "benchmarks").rglob("*.py"))
    offending = [hit for path in files for hit in private_judge_access(path)]
    assert not offending, "private judge attributes used outside localeval/judge:\n" + "\n".join(offending)


def test_the_check_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / "probe.py"
    sample.write_text("judge._score_unique = 1\nx = self.judge._batch_cap\ngetattr(judge, '_identity')\n"
                      "judge.__dict__.pop('a')\njudge.predict([])\n")
    assert len(private_judge_access(sample)) == 4
