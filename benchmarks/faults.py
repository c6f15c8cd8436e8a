"""Fault injection: every way an adversarial user broke a run, run again, counted.

Each case builds a small input (good rows around the fault), runs ``localeval score`` (in this
process, through the command's own entry point, so an escaping exception is a crash) or
`localeval.evaluate`, and checks:

* **rows in / rows out**: input rows, and rows in the output (a refused run writes none);
* **crashes**: an exception that escaped, or an exit code other than 0 (done) or 2 (refused
  with a one-line error);
* **lost rows**: input rows missing from a finished run's output, or an input file changed;
* **silent changes**: a row whose score differs from the clean run's without a reason saying
  why (a damaged cache, a truncated sentence), or a refusal or warning that did not come.

All of them must read 0. The judge is the shipped default on the CPU, metric context_recall
(chunk_recall for the long-sentence case, context_relevance for the judge-pair budget). The
signal cases run ``python -m localeval score`` in a child process and stop it mid-run.

Run: ``python benchmarks/faults.py``; results go to ``benchmarks/results/faults.{json,md}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.files import command_line, write_results  # noqa: E402
from benchmarks.lib.machine import describe_machine, weights_sha256  # noqa: E402

METRIC = "context_recall"
FACTS = [
    ("Where is Paris?", "Paris is the capital of France.", "Paris is in France."),
    ("How tall is the Eiffel Tower?", "The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 330 metres tall."),
    ("When did the Berlin Wall fall?", "The Berlin Wall fell in 1989.", "It fell in 1989."),
    ("What is the boiling point of water?", "Water boils at 100 degrees Celsius at sea level.", "Water boils at 100 degrees Celsius."),
]


def good_rows(n: int) -> list[dict]:
    rows = []
    for i in range(n):
        q, ctx, ref = FACTS[i % len(FACTS)]
        rows.append({"user_input": q, "response": ref, "reference": ref, "retrieved_contexts": [ctx, "An unrelated sentence."]})
    return rows


@dataclass
class Outcome:
    case: str
    expected: str
    rows_in: int = 0
    rows_out: int = 0
    unscored: int = 0
    crashes: int = 0
    lost_rows: int = 0
    silent_changes: int = 0
    note: str = ""
    errors: list[str] = field(default_factory=list)


class Bench:
    def __init__(self, work: Path, judge) -> None:
        self.work, self.judge = work, judge
        self.current = "baseline"  # the case running, to name it if it crashes
        self.baseline = self.scores(self.write("baseline.jsonl", good_rows(8)))

    # --------------------------------------------------------------- helpers
    def write(self, name: str, rows: list, raw: bytes | None = None) -> Path:
        path = self.work / name
        if raw is not None:
            path.write_bytes(raw)
        else:
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        return path

    def cli(self, *args: str) -> tuple[int, str]:
        """``localeval score`` in this process; an exception escaping it is a crash."""
        from typer.testing import CliRunner

        from localeval.cli.main import app

        result = CliRunner().invoke(app, ["score", *args, "--no-progress"])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result.exit_code, result.output

    def scores(self, path: Path, *extra: str) -> list[float | None]:
        out = path.with_suffix(".out.jsonl")
        code, text = self.cli(str(path), "-m", METRIC, "-o", str(out), *extra)
        if code != 0:
            raise RuntimeError(text)
        return [json.loads(line)[METRIC] for line in out.read_text(encoding="utf-8").split("\n") if line]

    # --------------------------------------------------------------- case kinds
    def refused(self, case: str, make: Callable[[], tuple[Path, list[str]]], must_say: str) -> Outcome:
        """The run must be refused (exit 2, one line naming the problem), the input intact."""
        self.current = case
        o = Outcome(case, f"refused: {must_say}")
        data, args = make()
        before = data.read_bytes()
        o.rows_in = sum(1 for line in before.split(b"\n") if line.strip())
        code, text = self.cli(str(data), "-m", METRIC, *args)
        o.crashes = int(code not in (0, 2) or "Traceback" in text)
        o.lost_rows = o.rows_in if data.read_bytes() != before else 0
        o.silent_changes = int(code != 2 or must_say not in text)
        # Paths are shown relative to the work folder (resolved too: a lock names the real file).
        for folder in (str(self.work.resolve()), str(self.work)):
            text = text.replace(f"{folder}/", "").replace(folder, ".")
        o.note = text.strip().splitlines()[-1][:150] if text.strip() else ""
        return o

    def poison(self, case: str, path: Path, rows_in: int, bad_lines: set[int], reason: str, *,
               metric: str = METRIC, must_warn: str = "") -> Outcome:
        """Every row comes back; the poison ones unscored with ``reason`` and their line; the
        others scored (and, with ``must_warn``, a warning holding it came)."""
        self.current = case
        expected = f"{len(bad_lines)} row(s) unscored: {reason}" if bad_lines else "every row scored"
        if must_warn:
            expected += f", warned: {must_warn}"
        o = Outcome(case, expected, rows_in=rows_in)
        out = path.parent / f"{path.stem}.out.jsonl"
        if out.exists():
            out.write_text("previous run\n")  # an existing output: replaced, never lost half-way
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, text = self.cli(str(path), "-m", metric, "-o", str(out))
        said = next((str(c.message) for c in caught if must_warn and must_warn in str(c.message)), "")
        o.crashes = int(code != 0)
        if code != 0:
            o.note = text.strip()[-150:]
            return o
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n") if line]
        o.rows_out = len(rows)
        o.lost_rows = max(0, o.rows_in - o.rows_out)
        for row in rows:
            if row[metric] is None:
                o.unscored += 1
                why = row.get(f"{metric}_reason") or ""
                if row["_line"] not in bad_lines or reason not in why:
                    o.silent_changes += 1
            elif row["_line"] in bad_lines:
                o.silent_changes += 1
        if must_warn and not said:
            o.silent_changes += 1
        o.note = (said or next((r[f"{metric}_reason"] for r in rows if r[metric] is None), ""))[:150]
        return o

    def same_scores(self, case: str, expected: str, run: Callable[[], tuple[list, str]]) -> Outcome:
        """Scores must equal the clean run's (a fault must cost time, never a number)."""
        self.current = case
        o = Outcome(case, expected, rows_in=len(self.baseline))
        scores, note = run()
        o.rows_out = len(scores)
        o.lost_rows = max(0, o.rows_in - o.rows_out)
        o.silent_changes = sum(a != b for a, b in zip(scores, self.baseline))
        o.note = note[:150]
        return o


def _cases(b: Bench) -> list[Callable[[], Outcome]]:
    w = b.work
    good = good_rows(6)
    line = json.dumps(good[0]).encode()

    def jsonl(name: str, lines: list[bytes]) -> Path:
        return b.write(name, [], raw=b"\n".join(lines) + b"\n")

    def poison_jsonl(case: str, bad: bytes, reason: str) -> Callable[[], Outcome]:
        def run() -> Outcome:
            return b.poison(case, jsonl(f"{case}.jsonl", [line, bad, line]), 3, {2} if reason else set(), reason)
        return run

    def out_over_in(extra: list[str], link: bool = False) -> Callable[[], tuple[Path, list[str]]]:
        def make() -> tuple[Path, list[str]]:
            data = b.write("in.jsonl", good)
            target = data
            if link:
                target = w / "hardlink.jsonl"
                target.unlink(missing_ok=True)
                os.link(data, target)
            return data, ["-o", str(target), *extra]
        return make

    def full_device() -> tuple[Path, list[str]]:
        # /dev/full has no output extension (refused as an unknown format): a .jsonl name for it.
        link = w / "full.jsonl"
        link.unlink(missing_ok=True)
        link.symlink_to("/dev/full")
        return b.write("in.jsonl", good), ["-o", str(link)]

    def csv_file(name: str, rows: list[list[str]], bom: bool = False) -> Path:
        path = w / name
        with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["user_input", "response", "reference", "retrieved_contexts"])
            writer.writerows(rows)
        return path

    def csv_row(r: dict) -> list[str]:
        return [r["user_input"], r["response"], r["reference"], json.dumps(r["retrieved_contexts"])]

    def csv_case(case: str, rows: list[list[str]], bad: set[int], reason: str, bom: bool = False, raw: Callable[[bytes], bytes] | None = None):
        def run() -> Outcome:
            path = csv_file(f"{case}.csv", rows, bom)
            if raw is not None:
                path.write_bytes(raw(path.read_bytes()))
            return b.poison(case, path, len(rows), bad, reason)
        return run

    def csv_own_output() -> Outcome:
        big = dict(good[0], retrieved_contexts=["Paris is the capital of France. " * 5000])
        first = w / "own.csv"
        data = b.write("own-in.jsonl", [big, good[1]])
        code, text = b.cli(str(data), "-m", METRIC, "-o", str(first))
        if code != 0:
            return Outcome("csv: own output read back (_input > 131,072 chars)", "", crashes=1, note=text[-150:])
        return b.poison("csv: own output read back (_input > 131,072 chars)", first, 2, set(), "")

    def resume_case(case: str, args_of: Callable[[Path, Path], list[str]], must_say: str, hold_lock: bool = False, drop_record: bool = False):
        def make() -> tuple[Path, list[str]]:
            data = b.write("resume-in.jsonl", good)
            out = w / f"{case[:12].replace(' ', '_')}.out.jsonl"
            code, text = b.cli(str(data), "-m", METRIC, "-o", str(out))
            assert code == 0, text
            if drop_record:
                from localeval.runner.guard import record_path

                record_path(out).unlink()
            return data, args_of(data, out)

        def run() -> Outcome:
            from localeval.runner.guard import OutputLock

            if not hold_lock:
                return b.refused(case, make, must_say)
            data, args = make()
            with OutputLock(Path(args[1])):
                return b.refused(case, lambda: (data, args), must_say)
        return run

    def resume_other_input() -> Outcome:
        out, second = _resumed(b, good)
        return b.refused("resume: another input", lambda: (second, ["-o", str(out), "--resume"]), "the input")

    def cache_case(case: str, damage: Callable[[Path], None], expect_moved: bool) -> Callable[[], Outcome]:
        def run() -> tuple[list, str]:
            b.current = case
            data = w / "baseline.jsonl"
            cache = w / f"{case[:10].replace(' ', '_')}.sqlite"
            b.scores(data, "--cache", str(cache))  # fill it
            damage(cache)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                scores = b.scores(data, "--cache", str(cache))
            said = [str(c.message) for c in caught if "verdict cache" in str(c.message)]
            if expect_moved and not said:
                scores = [None] * len(scores)  # not said: counted as silent
            return scores, said[0] if said else "stored verdicts validated; invalid ones judged again"

        return lambda: b.same_scores(case, "same scores as without a cache" + (", file moved aside, said so" if expect_moved else ""), run)

    def garbage(path: Path) -> None:
        for p in path.parent.glob(path.name + "*"):
            p.unlink()
        path.write_bytes(b"not a database at all " * 100)

    def truncated(path: Path) -> None:
        _checkpoint(path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])

    def flipped(path: Path) -> None:
        _checkpoint(path)
        data = bytearray(path.read_bytes())
        for i in range(200):
            data[(4096 + i * 97) % len(data)] ^= 0xFF
        path.write_bytes(bytes(data))

    def stored(values: list[float]) -> Callable[[Path], None]:
        def damage(path: Path) -> None:
            import numpy as np

            db = sqlite3.connect(path)
            db.execute("UPDATE judgements SET probs = ?", (np.array(values, dtype=np.float32).tobytes(),))
            db.commit()
            db.close()
        return damage

    def reserved() -> Outcome:
        o = Outcome("input columns named _error / after a metric", "namespaced as input.<name>, with a warning", rows_in=2)
        rows = [dict(good[0], _error="mine", context_recall=0.5), good[1]]
        data = b.write("reserved.jsonl", rows)
        out = w / "reserved.out.jsonl"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, _ = b.cli(str(data), "-m", METRIC, "-o", str(out))
        written = [json.loads(x) for x in out.read_text().splitlines()]
        o.rows_out = len(written)
        o.crashes = int(code != 0)
        kept = written[0].get("input._error") == "mine" and written[0].get("input.context_recall") == 0.5
        warned = any("output column" in str(c.message) for c in caught)
        o.silent_changes = int(not (kept and warned))
        o.note = next((str(c.message) for c in caught if "output column" in str(c.message)), "")[:150]
        return o

    def both_names() -> Outcome:
        o = Outcome("both question and user_input", "user_input scored, a warning says so", rows_in=1)
        data = b.write("both.jsonl", [dict(good[0], question="Something else?")])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, _ = b.cli(str(data), "-m", METRIC, "-o", str(w / "both.out.jsonl"))
        o.crashes = int(code != 0)
        o.rows_out = len((w / "both.out.jsonl").read_text().splitlines())
        said = [str(c.message) for c in caught if "is scored" in str(c.message)]
        o.silent_changes = int(not said)
        o.note = said[0][:150] if said else ""
        return o

    def long_sentence() -> Outcome:
        from localeval.metrics import ChunkRecall
        from localeval.schema import Sample

        o = Outcome("chunk_recall: fact at the end of an over-long sentence", "read, not cut at the token limit", rows_in=3, rows_out=3)
        filler = ", ".join(["the committee reviewed the annual budget report of the regional office in detail"] * 30)
        fact = "the Eiffel Tower is 330 metres tall"  # shorter than the pieces' 8-word overlap
        metric = ChunkRecall(b.judge)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first, last, none = (
                metric.score_many([Sample(user_input="How tall is the Eiffel Tower?", response="The Eiffel Tower is 330 metres tall.",
                                          retrieved_contexts=[context])])[0].evaluated_chunks[0]
                for context in (f"{fact}, {filler}.", f"{filler}, {fact}.", f"{filler}.")
            )
        truncated = any("truncated" in str(w.message) for w in caught)
        # Truncated, the fact-last sentence would read exactly as the filler alone.
        o.silent_changes = int(truncated or last.relevance == none.relevance)
        o.note = (f"relevance: fact first {first.relevance:.3f}, fact last {last.relevance:.3f}, no fact {none.relevance:.3f}; "
                  f"truncation warning: {truncated}")
        return o

    huge = dict(good[0], retrieved_contexts=["Paris is the capital of France. " * 40_000])
    many = dict(good[0], retrieved_contexts=["Paris is in France."] * 10_000)
    deep = b'{"user_input": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    return [
        lambda: b.refused("-o the input", out_over_in([]), "is the input file"),
        lambda: b.refused("-o the input --resume", out_over_in(["--resume"]), "is the input file"),
        lambda: b.refused("-o a hard link to the input", out_over_in([], link=True), "is the input file"),
        lambda: b.refused("--report the input", lambda: (b.write("in.jsonl", good), ["-o", str(w / "r.out.jsonl"), "--report", str(w / "in.jsonl")]), "is the input file"),
        lambda: b.refused("-o a directory", lambda: (b.write("in.jsonl", good), ["-o", str(w)]), "is a directory"),
        lambda: b.refused("-o /dev/full (as full.jsonl)", full_device, "No space left on device"),
        poison_jsonl("jsonl: nested 5,000 levels", deep, "nested more than"),
        poison_jsonl("jsonl: value nested 250 levels", b'{"user_input": "q", "x": ' + b"[" * 250 + b"]" * 250 + b"}", "nested more than"),
        poison_jsonl("jsonl: one invalid UTF-8 byte", line.replace(b"Paris", b"Pa\xffris", 1), "invalid UTF-8"),
        poison_jsonl("jsonl: raw CR inside a string", line.replace(b"Paris is in France.", b"Paris is\rin France.", 1), ""),
        lambda: b.poison("jsonl: UTF-8 BOM", jsonl("bom.jsonl", [b"\xef\xbb\xbf" + line, line]), 2, set(), ""),
        csv_case("csv: UTF-8 BOM (Excel)", [csv_row(r) for r in good[:3]], set(), "", bom=True),
        csv_case("csv: cell of 160,000 chars", [csv_row(dict(good[0], retrieved_contexts=["Paris is the capital of France. " * 5000])), csv_row(good[1])], set(), ""),
        csv_case("csv: one invalid UTF-8 byte", [csv_row(good[0]), csv_row(dict(good[1], response="BAD")), csv_row(good[2])], {2}, "invalid UTF-8",
                 raw=lambda data: data.replace(b"BAD", b"B\xffD")),
        csv_own_output,
        resume_other_input,
        resume_case("resume: other threshold", lambda d, o: ["-o", str(o), "--resume", "--threshold", "entailment=0.9"], "the options (thresholds)"),
        resume_case("resume: a second run at once", lambda d, o: ["-o", str(o), "--resume"], "another localeval run", hold_lock=True),
        resume_case("resume: no run record", lambda d, o: ["-o", str(o), "--resume"], "no run record", drop_record=True),
        cache_case("cache: garbage file", garbage, True),
        cache_case("cache: truncated file", truncated, True),
        cache_case("cache: 200 flipped bytes", flipped, True),
        cache_case("cache: NaN verdicts", stored([float("nan"), 0.5, 0.5]), False),
        cache_case("cache: wrong-length verdicts", stored([1.0]), False),
        reserved,
        both_names,
        long_sentence,
        lambda: _budget(b, "row budget: one 1.28M-character context", huge, "max_row_chars"),
        lambda: _budget(b, "row budget: 10,000 contexts", many, "max_contexts"),
        *_written_paths_and_caches(b, good),
        *_inputs_and_signals(b, good),
    ]


def _written_paths_and_caches(b: Bench, good: list[dict]) -> list[Callable[[], Outcome]]:
    """Files a run writes over files it reads, locks through links, caches that cannot be
    used or were damaged bit by bit."""
    w = b.work

    def with_output(extra: Callable[[Path, Path], list[str]], resume: bool = False) -> Callable[[], tuple[Path, list[str]]]:
        def make() -> tuple[Path, list[str]]:
            data = b.write("paths-in.jsonl", good)
            out = w / "paths.out.jsonl"
            if resume and not out.exists():
                code, text = b.cli(str(data), "-m", METRIC, "-o", str(out))
                assert code == 0, text
            return data, ["-o", str(out), *extra(data, out), *(["--resume"] if resume else [])]
        return make

    def kept(case: str, make: Callable[[], tuple[Path, list[str]]], must_say: str) -> Callable[[], Outcome]:
        """Refused, and neither the input nor the output (nor any file beside) changed."""
        def run() -> Outcome:
            data, args = make()
            files = {p: p.read_bytes() for p in w.iterdir() if p.is_file()}
            o = b.refused(case, lambda: (data, args), must_say)
            changed = [p.name for p in w.iterdir() if p.is_file() and files.get(p) != p.read_bytes()]
            o.lost_rows += len(changed)  # a file changed, created or renamed away
            o.lost_rows += sum(not p.exists() for p in files)
            return o
        return run

    def linked(case: str, hard: bool) -> Callable[[], Outcome]:
        def run() -> Outcome:
            from localeval.runner.guard import OutputLock

            data = b.write("link-in.jsonl", good)
            target, name = w / "x.out.jsonl", w / ("hard.out.jsonl" if hard else "sym.out.jsonl")
            for path in (target, name):
                path.unlink(missing_ok=True)
            with OutputLock(target) as lock:  # another run writing x.out.jsonl
                target.write_text("row being written\n")
                lock.pin()
                os.link(target, name) if hard else name.symlink_to(target)
                o = b.refused(case, lambda: (data, ["-o", str(name)]), "another localeval run")
                o.lost_rows += int(target.read_text() != "row being written\n")
            return o
        return run

    def device_cache(case: str, device: str) -> Callable[[], Outcome]:
        def run() -> tuple[list, str]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                scores = b.scores(w / "baseline.jsonl", "--cache", device)
            said = [str(c.message) for c in caught if "cannot be used" in str(c.message)]
            return (scores if len(said) == 1 else [None] * len(scores)), said[0] if said else ""
        return lambda: b.same_scores(case, "same scores, one warning, run goes on without it", run)

    def foreign_cache() -> tuple[Path, list[str]]:
        path = w / "paths-app.sqlite"
        if not path.exists():
            db = sqlite3.connect(path)
            db.execute("CREATE TABLE users (id INTEGER, name TEXT)")
            db.commit()
            db.close()
        return with_output(lambda d, o: ["--cache", str(path)])()

    def bit_flips() -> Outcome:
        """200 single-bit flips in stored results and verdicts (10 per re-run): every score and
        every detail must stay as judged (a mismatching checksum is a miss)."""
        case = "cache: 200 bit flips in stored results and verdicts"
        b.current = case
        o = Outcome(case, "every score and detail as judged (checksum: a flip is a miss)", rows_in=8, rows_out=8)
        # The baseline's 8 rows are 4 distinct samples: 4 stored results and their verdicts.
        data, cache = w / "baseline.jsonl", w / "flips.sqlite"
        out = data.with_suffix(".out.jsonl")
        b.scores(data, "--cache", str(cache))
        clean = [_scored_part(json.loads(x)) for x in out.read_text().splitlines()]
        rng = random.Random(0)
        changed_rows = flips = reruns = 0
        while flips < 200:
            db = sqlite3.connect(cache)
            # Both tables are WITHOUT ROWID: a value is found again by its primary key.
            values = [("UPDATE analyses SET value = ? WHERE text = ? AND kind = ?", (t, k), v) for t, k, v in
                      db.execute("SELECT text, kind, value FROM analyses WHERE kind LIKE 'result/%'")]
            values += [("UPDATE judgements SET probs = ? WHERE model = ? AND key = ?", (m, k), v)
                       for m, k, v in db.execute("SELECT model, key, probs FROM judgements")]
            batch = rng.sample(values, min(10, len(values), 200 - flips))
            flips += len(batch)
            for sql, key, value in batch:
                flipped = bytearray(value)
                bit = rng.randrange(len(flipped) * 8)
                flipped[bit // 8] ^= 1 << (bit % 8)
                db.execute(sql, (bytes(flipped), *key))
            db.commit()
            db.close()
            b.scores(data, "--cache", str(cache))
            again = [_scored_part(json.loads(x)) for x in out.read_text().splitlines()]
            changed_rows += sum(a != c for a, c in zip(again, clean))
            reruns += 1
        o.silent_changes = changed_rows
        o.note = f"{flips} flipped bits over {reruns} re-runs (one bit in each of up to 10 values per re-run): " \
                 f"{changed_rows} rows whose score or details changed"
        return o

    return [
        kept("--summary-json the input", with_output(lambda d, o: ["--summary-json", str(d)]), "is the input file"),
        kept("--junit-xml the input", with_output(lambda d, o: ["--junit-xml", str(d)]), "is the input file"),
        kept("--summary-json the output", with_output(lambda d, o: ["--summary-json", str(o)]), "same file"),
        kept("--junit-xml the output --resume", with_output(lambda d, o: ["--junit-xml", str(o)], resume=True), "same file"),
        kept("--summary-json = --junit-xml", with_output(lambda d, o: ["--summary-json", str(w / "s.json"), "--junit-xml", str(w / "s.json")]), "same file"),
        kept("--summary-json the run record", with_output(lambda d, o: ["--summary-json", f"{o}.run.json"]), "same file"),
        kept("--cache the output", with_output(lambda d, o: ["--cache", str(o)]), "same file"),
        kept("--cache the output --resume", with_output(lambda d, o: ["--cache", str(o)], resume=True), "same file"),
        kept("--cache the input", with_output(lambda d, o: ["--cache", str(d)]), "is the input file"),
        linked("-o a symlink to an output another run writes", hard=False),
        linked("-o a hard link to an output another run writes", hard=True),
        device_cache("cache: /dev/null", "/dev/null"),
        device_cache("cache: /dev/full", "/dev/full"),
        kept("cache: a SQLite file of another program", foreign_cache, "another program"),
        bit_flips,
    ]


def _scored_part(row: dict) -> dict:
    return {k: v for k, v in row.items() if k.startswith(METRIC)}


def _inputs_and_signals(b: Bench, good: list[dict]) -> list[Callable[[], Outcome]]:
    """Values Python cannot decode, duplicate names, wrong encodings and separators, a
    reserved column, an over-long sentence, the judge-pair budget, and signals."""
    w = b.work
    line = json.dumps(good[0])

    def huge_int() -> Outcome:
        path = b.write("huge-int.jsonl", [], raw=f'{line}\n{{"user_input": "q", "n": {"7" * 5000}}}\n{line}\n'.encode())
        (w / "huge-int.out.jsonl").write_text("previous run\n")
        return b.poison("jsonl: an integer of 5,000 digits (existing output)", path, 3, {2}, "integer string conversion")

    def dup_key() -> Outcome:
        raw = f'{line}\n{line[:-1]}, "user_input": "Where is Paris?"}}\n'.encode()
        return b.poison("jsonl: a duplicate key", b.write("dup.jsonl", [], raw=raw), 2, set(), "", must_warn="appears twice")

    def dup_column() -> Outcome:
        path = w / "dup.csv"
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["user_input", "response", "reference", "retrieved_contexts", "response"])
            writer.writerow([good[0]["user_input"], "x", good[0]["reference"], json.dumps(good[0]["retrieved_contexts"]), good[0]["response"]])
        return b.poison("csv: a duplicate column", path, 1, set(), "", must_warn="appears twice")

    def semicolons() -> Outcome:
        case = "csv: ';'-separated"
        b.current = case
        o = Outcome(case, "a hint names the separator; nothing scored (exit 1, the documented gate)", rows_in=1)
        path = w / "semi.csv"
        path.write_text("user_input;response;reference\nWhere is Paris?;Paris.;Paris is in France.\n", encoding="utf-8")
        out = w / "semi.out.jsonl"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, text = b.cli(str(path), "-m", METRIC, "-o", str(out))
        said = next((str(c.message) for c in caught if "looks separated by ';'" in str(c.message)), "")
        o.crashes = int(code not in (1, 2) or "Traceback" in text)
        o.rows_out = len(out.read_text().splitlines()) if out.exists() else 0
        o.unscored = o.rows_out
        o.lost_rows = max(0, o.rows_in - o.rows_out)
        o.silent_changes = int(not said)
        o.note = said[:150]
        return o

    def utf16() -> tuple[Path, list[str]]:
        path = w / "u16.jsonl"
        path.write_text(line + "\n", encoding="utf-16")
        return path, ["-o", str(w / "u16.out.jsonl")]

    def user_warnings() -> Outcome:
        case = "input column named _warnings, then --resume"
        b.current = case
        o = Outcome(case, "kept as input._warnings, warned, not counted as localeval's", rows_in=2)
        data = b.write("warn.jsonl", [dict(good[0], _warnings=["mine"]), good[1]])
        out = w / "warn.out.jsonl"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code, _ = b.cli(str(data), "-m", METRIC, "-o", str(out))
            code2, text = b.cli(str(data), "-m", METRIC, "-o", str(out), "--resume")
        written = [json.loads(x) for x in out.read_text().splitlines()]
        o.rows_out, o.crashes = len(written), int(code != 0 or code2 != 0)
        kept = written[0].get("input._warnings") == ["mine"] and "_warnings" not in written[0]
        warned = any("'_warnings'" in str(c.message) for c in caught)
        o.silent_changes = int(not (kept and warned) or "with warnings" in text)
        o.note = next((str(c.message) for c in caught if "'_warnings'" in str(c.message)), "")[:150]
        return o

    def every_position() -> Outcome:
        from localeval.judge.session import JudgeSession
        from localeval.metrics import ChunkRecall
        from localeval.schema import Sample

        positions = list(range(0, 501, 10))
        case = f"chunk_recall: a fact at every 10th word of a 500-word sentence ({len(positions)} places)"
        b.current = case
        o = Outcome(case, "relevant and included wherever it sits", rows_in=len(positions), rows_out=len(positions))
        filler = " ".join(["the committee reviewed the annual budget report of the regional office in detail and"] * 40).split()[:500]
        fact = "the Eiffel Tower is 330 metres tall".split()
        samples = [Sample(user_input="How tall is the Eiffel Tower?", response="The Eiffel Tower is 330 metres tall.",
                          retrieved_contexts=[" ".join(filler[:p] + fact + filler[p:]) + "."]) for p in positions]
        with JudgeSession() as session:
            results = ChunkRecall(b.judge).score_many(samples, session=session)
        chunks = [r.evaluated_chunks[0] for r in results]
        o.silent_changes = sum(not (c.is_relevant and c.is_included) for c in chunks)
        rel = [c.relevance for c in chunks]
        o.note = f"relevance min {min(rel):.3f}, max {max(rel):.3f}; scores {sorted({r.score for r in results})}"
        return o

    def pair_budget() -> Outcome:
        row = dict(good[0], retrieved_contexts=["Paris is the capital of France. " * 5_000])  # 160k characters
        path = b.write("pairs.jsonl", [good[0], row, good[1]])
        return b.poison("row budget: 5,000 sentences (160k characters), context_relevance", path, 3, {2},
                        "max_row_pairs", metric="context_relevance")

    def stopped(case: str, sig: signal.Signals, suffix: str) -> Callable[[], Outcome]:
        def run() -> Outcome:
            b.current = case
            o = Outcome(case, "stops, no staged file left, says how to go on", rows_in=200)
            data = b.write(f"sig-{sig.name}.jsonl", good_rows(200))
            out = w / f"sig-{sig.name}.out{suffix}"
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
            proc = subprocess.Popen([sys.executable, "-m", "localeval", "score", str(data), "-o", str(out), "-m", METRIC,
                                     "--no-progress", "--chunk-size", "1"], stderr=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, env=env, text=True)
            deadline = time.monotonic() + 180
            started = (lambda: list(w.glob(f".{out.name}.*.tmp"))) if suffix == ".csv" else \
                (lambda: out.exists() and out.stat().st_size > 0)
            while not started() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=180)
            left = list(w.glob(f".{out.name}.*")) + list(w.glob(f"{out.name}.lock"))
            hint = next((x for x in err.splitlines() if x.startswith("stopped by")), "")
            o.crashes = int("Traceback" in err)
            o.rows_out = len(out.read_text().splitlines()) if suffix == ".jsonl" and out.exists() else 0
            o.lost_rows = len(left)
            o.silent_changes = int(not hint or proc.returncode not in (130, 143))
            o.note = f"exit {proc.returncode}: {hint}"[:150]
            if suffix == ".jsonl" and hint:  # the resume it suggests finishes the file
                code, _ = b.cli(str(data), "-m", METRIC, "-o", str(out), "--resume")
                rows = [json.loads(x)["_line"] for x in out.read_text().splitlines()]
                o.lost_rows += int(code != 0 or rows != list(range(1, 201)))
                o.rows_out = len(rows)
            return o
        return run

    return [
        huge_int, dup_key, dup_column, semicolons,
        lambda: b.refused("jsonl: UTF-16 file", utf16, "UTF-16"),
        user_warnings, every_position, pair_budget,
        stopped("SIGTERM during a CSV run", signal.SIGTERM, ".csv"),
        stopped("SIGINT during a JSON Lines run, then --resume", signal.SIGINT, ".jsonl"),
    ]


def _resumed(b: Bench, good: list[dict]) -> tuple[Path, Path]:
    """An output written from one input, and another input to resume it with."""
    out = b.work / "resume-other.out.jsonl"
    if not out.exists():
        code, text = b.cli(str(b.write("resume-first.jsonl", good)), "-m", METRIC, "-o", str(out))
        assert code == 0, text
    return out, b.write("resume-second.jsonl", good_rows(7))


def _budget(b: Bench, case: str, row: dict, budget: str) -> Outcome:
    path = b.write(f"{budget}.jsonl", [good_rows(1)[0], row, good_rows(1)[0]])
    return b.poison(case, path, 3, {2}, budget)


def _checkpoint(path: Path) -> None:
    """Fold the WAL into the main file, so damaging the file damages the verdicts."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)


def to_markdown(result: dict) -> str:
    m = result["machine"]
    lines = [
        "# Fault injection",
        "",
        f"`{result['command']}` on {m['cpu']} ({m['cpu_cores']} cores), Python {m['python']}, torch {m['torch']}, "
        f"{m['os']}, {m['date_utc']}. Judge `{result['judge']}` (weights sha256 `{result['weights_sha256'][:16]}...`), metric `{METRIC}`.",
        "",
        "Every case must read 0 crashes, 0 lost rows, 0 silent changes "
        "(see the docstring of `benchmarks/faults.py` for what each column counts).",
        "",
        "| case | expected | rows in | rows out | unscored | crashes | lost rows | silent changes | what localeval said |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for o in result["cases"]:
        note = o["note"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {o['case']} | {o['expected']} | {o['rows_in']} | {o['rows_out']} | {o['unscored']} | "
                     f"{o['crashes']} | {o['lost_rows']} | {o['silent_changes']} | {note} |")
    t = result["totals"]
    lines += ["", f"**Totals: {t['cases']} cases, {t['crashes']} crashes, {t['lost_rows']} lost rows, "
              f"{t['silent_changes']} silent changes.**", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/faults.json")
    args = parser.parse_args(argv)

    from localeval.judge import get_judge

    judge = get_judge(None)  # the one `localeval score` loads (shared in this process)
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp:
        bench = Bench(Path(tmp), judge)
        for case in _cases(bench):
            try:
                outcome = case()
            except Exception as exc:  # noqa: BLE001 - a crash is what this counts
                outcome = Outcome(bench.current, "", crashes=1, note=f"{type(exc).__name__}: {exc}"[:150])
                outcome.errors.append(traceback.format_exc())
            # Results are committed: the temporary folder's path says nothing to a reader.
            outcome.note = outcome.note.replace(f"{tmp}/", "").replace(tmp, ".")
            outcomes.append(outcome)
            print(f"{outcome.case:<58} in={outcome.rows_in:<3} out={outcome.rows_out:<3} crashes={outcome.crashes} "
                  f"lost={outcome.lost_rows} silent={outcome.silent_changes}", flush=True)
    totals = {"cases": len(outcomes), **{k: sum(getattr(o, k) for o in outcomes) for k in ("crashes", "lost_rows", "silent_changes")}}
    result = {
        "command": command_line("python benchmarks/faults.py", list(argv or [])),
        "machine": describe_machine(),
        "judge": judge.name,
        "weights_sha256": weights_sha256(judge.path),
        "cases": [asdict(o) for o in outcomes],
        "totals": totals,
    }
    write_results(args.output, result, to_markdown(result))
    print(to_markdown(result))
    return 0 if totals["crashes"] == totals["lost_rows"] == totals["silent_changes"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
