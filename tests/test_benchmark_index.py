"""The benchmarks' index stays whole: every entry script has a row in benchmarks/README.md's
table, every result file the READMEs cite is in the tree, and every script's default output
points at a committed result. Read from the files only (no script is run), so it is cheap."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
INDEX = BENCHMARKS / "README.md"
READMES = (ROOT / "README.md", INDEX)
MAIN_GUARD = re.compile(r"""^if __name__ == ["']__main__["']:""", re.M)


def entry_scripts() -> list[Path]:
    """Every file of benchmarks/ a user runs: a module with a main guard (a package's
    ``__main__.py``), and the shell scripts."""
    found = [p for p in BENCHMARKS.rglob("*.py") if p.name == "__main__.py" or MAIN_GUARD.search(p.read_text(encoding="utf-8"))]
    return sorted(found + list(BENCHMARKS.glob("*.sh")))


def names_of(script: Path) -> list[str]:
    """How a command may name the script: its path, or its module for ``python -m``."""
    rel = script.relative_to(ROOT)
    if script.suffix != ".py":
        return [rel.as_posix()]
    parts = rel.with_suffix("").parts
    module = ".".join(parts[:-1] if parts[-1] == "__main__" else parts)
    return [rel.as_posix(), module]


def table_commands() -> list[str]:
    """The first cell of every row of the "Entry scripts" table."""
    text = INDEX.read_text(encoding="utf-8")
    section = text[text.index("## Entry scripts"):]
    section = section[:section.index("\n## ", 1)]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [re.match(r"\| `(.*?)` \|", row).group(1) for row in rows]


def named(name: str, command: str) -> bool:
    """``name`` in ``command`` as a whole (``benchmarks.agreement`` is not named by
    ``benchmarks.agreement.trace``)."""
    return re.search(rf"(?<![\w./]){re.escape(name)}(?![\w.]*\w)", command) is not None


def test_every_entry_script_has_a_row_in_the_benchmarks_readme_table():
    scripts, commands = entry_scripts(), table_commands()
    assert len(scripts) >= 30 and commands
    missing = [s.relative_to(ROOT).as_posix() for s in scripts
               if not any(named(n, c) for n in names_of(s) for c in commands)]
    assert not missing, f"entry scripts missing from the table in benchmarks/README.md: {missing}"


def test_the_index_check_tells_a_module_from_its_submodules():
    assert named("benchmarks.agreement", "python -m benchmarks.agreement --limit-per-set 2")
    assert not named("benchmarks.agreement", "python -m benchmarks.agreement.trace")
    assert not named("benchmarks/checks.py", "python benchmarks/studies/checks.py")
    assert names_of(BENCHMARKS / "agreement" / "__main__.py")[1] == "benchmarks.agreement"


def cited_results(readme: Path) -> list[tuple[str, Path]]:
    """Result files a README cites: its markdown links into a results folder, and the paths
    ``benchmarks/results/...`` its prose writes out (relative to the repository root; command
    examples in code blocks name files a user would write, so they are left out)."""
    text = readme.read_text(encoding="utf-8")
    cited = [(target, readme.parent / target) for target in re.findall(r"\]\(([^)#\s]+)\)", text)
             if "results/" in target]
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    cited += [(path, ROOT / path) for path in re.findall(r"benchmarks/results/[\w./-]*\w", prose)]
    return cited


def test_every_result_file_the_readmes_cite_exists():
    for readme in READMES:
        cited = cited_results(readme)
        assert len(cited) >= 20, readme.name
        broken = [target for target, path in cited if not path.exists()]
        assert not broken, f"{readme.relative_to(ROOT)} cites result files that are not there: {broken}"
        assert not [t for t, _ in cited if "/archive/" in t], "a README cites a superseded run"


def test_every_scripts_default_output_is_a_committed_result():
    defaults = re.compile(r"""["']benchmarks/results/([\w./-]+)["']|["']benchmarks["'] / ["']results["'] / ["']([\w.-]+)["']""")
    checked = 0
    for script in entry_scripts():
        for match in defaults.finditer(script.read_text(encoding="utf-8")):
            name = match.group(1) or match.group(2)
            result = BENCHMARKS / "results" / name
            assert result.exists() or result.with_suffix(".md").exists(), f"{script.name}: {name}"
            checked += 1
    assert checked >= 20
