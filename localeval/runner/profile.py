"""Where a run's time went: milliseconds per row by stage, from a session's public timers.

`JudgeSession.timings` counts seconds per stage (read, split, parse, plan, judge, metric,
write; `localeval.judge.session.STAGES`) and `JudgeSession.counters` what the judge did.
`stage_profile` turns them, with the run's wall time and row count, into one `StageProfile`:
what ``localeval score --profile`` prints and ``benchmarks/bulk_speed.py --profile`` stores.
With ``--workers`` the text stages are summed over the worker processes (CPU seconds, which
may exceed the wall time); ``judge`` is the judge process's own.
"""

from __future__ import annotations

from pydantic import BaseModel

from localeval.judge.session import STAGES, JudgeSession

__all__ = ["StageProfile", "stage_profile"]


class StageProfile(BaseModel):
    """Milliseconds per row by stage (``other``: wall time no stage timer saw) and the judge's
    work per row."""

    rows: int
    seconds: float
    ms_per_row: dict[str, float]
    non_judge_ms_per_row: float
    judge_pairs_per_row: float
    pairs_requested_per_row: float
    cache_hits_per_row: float

    def table(self) -> str:
        """A Markdown table: one line per stage, then the totals."""
        lines = ["| stage | ms per row | share |", "|---|---|---|"]
        total = sum(self.ms_per_row.values()) or 1.0
        for stage, ms in self.ms_per_row.items():
            lines.append(f"| {stage} | {ms:.2f} | {ms / total:.1%} |")
        lines += [
            f"| **all** ({self.rows} rows, {self.seconds:.1f} s) | {1000 * self.seconds / max(self.rows, 1):.2f} | |",
            "",
            f"outside the judge: {self.non_judge_ms_per_row:.2f} ms per row; judge pairs per row: "
            f"{self.judge_pairs_per_row} (asked {self.pairs_requested_per_row}, read from the cache "
            f"{self.cache_hits_per_row})",
        ]
        return "\n".join(lines)


def stage_profile(session: JudgeSession, seconds: float, rows: int) -> StageProfile:
    """The profile of a run of ``rows`` rows that took ``seconds`` in ``session``."""
    n = max(rows, 1)
    ms = {stage: round(1000 * session.timings.seconds.get(stage, 0.0) / n, 3) for stage in STAGES}
    # Never negative: with workers the text stages add up CPU time of several processes.
    ms["other"] = round(max(0.0, 1000 * seconds / n - sum(ms.values())), 3)
    counters = session.counters
    return StageProfile(
        rows=rows, seconds=round(seconds, 3), ms_per_row=ms,
        non_judge_ms_per_row=round(1000 * seconds / n - ms["judge"], 3),
        judge_pairs_per_row=round(counters.pairs_judged / n, 2),
        pairs_requested_per_row=round(counters.pairs_requested / n, 2),
        cache_hits_per_row=round(counters.cache_hits / n, 2),
    )
