"""No code outside `localeval/judge/` reads or writes a judge's private attributes: a judge
is a pure predictor, and run state lives in the run's `JudgeSession` (public counters, memos,
cache). Checked on the source, so it stays true."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


# --- The import contract -------------------------------------------------------------------
# localeval's packages in layers, lowest first: a module imports only from its own layer or
# below. Within a layer any arrow is allowed, but no module-level import cycle anywhere.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("localeval", "localeval.quiet", "localeval.schema", "localeval.catalog", "localeval.stats",
     "localeval.options", "localeval.config"),  # plain data and checks of a user's input
    ("localeval.text",),  # text analysis: sentences, claims, windows, rules
    ("localeval.judge",),  # the model: loading, formats, registry, cache, session
    ("localeval.evidence",),  # what verdicts say: attribution, candidates, verdicts, relevance
    ("localeval.llm",),  # the optional instruction-model decomposer
    ("localeval.metrics",),
    ("localeval.runner", "localeval.compat"),
    ("localeval.reports", "localeval.calibrate", "localeval.testing", "localeval.training"),
    ("localeval.cli", "localeval.__main__", "localeval.backends"),  # entry points; the deprecated alias
)
# Upward imports inside a function, each with its reason. Anything else upward fails.
LAZY_UPWARD: dict[tuple[str, str], str] = {
    ("localeval.judge.nli", "localeval.evidence.verdict"):
        "a judge reads the learned verdict rule stored in its config.json on load, so a damaged one fails there",
}
# The runner's public API is its package; the reports use nothing else of it.
PUBLIC_ONLY: dict[str, str] = {"localeval.reports": "localeval.runner"}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module, module: str, is_package: bool) -> list[tuple[str, int, bool]]:
    """(imported name, line, at module level) of every localeval import; ``TYPE_CHECKING``
    blocks are skipped (annotations only)."""
    found: list[tuple[str, int, bool]] = []

    def visit(nodes: list[ast.stmt], top: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse, top)
                continue
            if isinstance(node, ast.Import):
                found.extend((a.name, node.lineno, top) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = module if is_package else module.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                found.append((base, node.lineno, top))
                found.extend((f"{base}.{a.name}", node.lineno, top) for a in node.names)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], (ast.stmt, ast.excepthandler)):
                    nested = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    visit(inner, nested if not isinstance(node, ast.ClassDef) else top)

    visit(tree.body, True)
    return [(name, line, top) for name, line, top in found if name == "localeval" or name.startswith("localeval.")]


def import_graph(root: Path) -> dict[str, list[tuple[str, int, bool]]]:
    """module -> (localeval module it imports, line, at module level), for every module under
    ``root``/localeval."""
    paths = {_module_name(p, root): p for p in (root / "localeval").rglob("*.py")}

    def owner(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, list[tuple[str, int, bool]]] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges = {(target, line, top) for name, line, top in _imports(tree, module, path.name == "__init__.py")
                 if (target := owner(name)) is not None and target != module}
        graph[module] = sorted(edges)
    return graph


def layer_of(module: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> int:
    matches = [(len(p), i) for i, layer in enumerate(layers) for p in layer
               if module == p or (p != "localeval" and module.startswith(p + "."))]
    if not matches:
        raise AssertionError(f"{module} is in no declared layer: add its package to LAYERS")
    return max(matches)[1]


def contract_breaches(graph: dict[str, list[tuple[str, int, bool]]], layers=LAYERS, lazy=LAZY_UPWARD,
                      public=PUBLIC_ONLY) -> list[str]:
    """Upward arrows (module-level, or lazy and unlisted), reaches past a public API, and
    module-level import cycles."""
    found = []
    for module, edges in graph.items():
        for target, line, top in edges:
            if layer_of(target, layers) > layer_of(module, layers) and (top or (module, target) not in lazy):
                found.append(f"{module}:{line} imports {target} from a higher layer")
            for client, api in public.items():
                if (module == client or module.startswith(client + ".")) and target.startswith(api + "."):
                    found.append(f"{module}:{line} imports {target}: use the public {api}")
    found += [f"import cycle: {' -> '.join(cycle)}" for cycle in import_cycles(graph)]
    return found


def import_cycles(graph: dict[str, list[tuple[str, int, bool]]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules, over module-level imports (Tarjan)."""
    edges = {m: sorted({t for t, _, top in e if top and t in graph}) for m, e in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while (w := stack.pop()) != v:
                group.append(w)
            groups.append(sorted([v, *group]))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return [group for group in groups if len(group) > 1]


def test_localeval_keeps_its_import_contract():
    breaches = contract_breaches(import_graph(ROOT))
    assert not breaches, "import contract broken:\n" + "\n".join(breaches)


def test_every_listed_lazy_import_still_exists():
    # A stale exception would silently allow the arrow again later.
    graph = import_graph(ROOT)
    for module, target in LAZY_UPWARD:
        assert any(t == target and not top for t, _, top in graph[module]), (module, target)


def test_the_contract_catches_an_upward_import_and_a_cycle():
    layers = (("localeval.text",), ("localeval.judge",), ("localeval.metrics",), ("localeval.runner",),
              ("localeval.reports",))
    clean = {"localeval.judge.nli": [("localeval.text.sentences", 3, True)], "localeval.text.sentences": [],
             "localeval.metrics.a": [("localeval.judge.nli", 1, True)], "localeval.runner": [],
             "localeval.reports.data": [("localeval.runner", 2, True)]}
    assert contract_breaches(clean, layers, {}, PUBLIC_ONLY) == []
    upward = {**clean, "localeval.text.sentences": [("localeval.metrics.a", 7, True)]}
    breaches = contract_breaches(upward, layers, {}, PUBLIC_ONLY)
    assert "localeval.text.sentences:7 imports localeval.metrics.a from a higher layer" in breaches
    assert any(b.startswith("import cycle: localeval.judge.nli -> ") for b in breaches)
    lazy = {**clean, "localeval.text.sentences": [("localeval.metrics.a", 7, False)]}
    assert len(contract_breaches(lazy, layers, {}, PUBLIC_ONLY)) == 1  # lazy, unlisted: still upward
    assert contract_breaches(lazy, layers, {("localeval.text.sentences", "localeval.metrics.a"): "why"}, PUBLIC_ONLY) == []
    private = {**clean, "localeval.reports.data": [("localeval.runner.summary", 2, True)]}
    assert contract_breaches(private, layers, {}, PUBLIC_ONLY) == [
        "localeval.reports.data:2 imports localeval.runner.summary: use the public localeval.runner"]


def test_the_old_backends_package_still_imports_with_a_deprecation_warning():
    import importlib
    import sys

    import localeval.evidence.attribution
    import localeval.judge.dtypes
    import localeval.judge.session

    sys.modules.pop("localeval.backends", None)  # imported again: its warning is what a user sees
    with pytest.warns(DeprecationWarning, match="localeval.backends is deprecated"):
        backends = importlib.import_module("localeval.backends")
    from localeval.backends.session import JudgeSession  # the README's earlier example

    assert JudgeSession is localeval.judge.session.JudgeSession
    assert sys.modules["localeval.backends.attribution"] is localeval.evidence.attribution
    assert sys.modules["localeval.backends.precision"] is localeval.judge.dtypes
    assert backends.NLIJudge is localeval.judge.NLIJudge
