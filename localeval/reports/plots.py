"""Score histograms drawn with matplotlib, returned as inline SVG.

The SVG is written with text as paths (no font to load) and without its XML prolog and DOCTYPE
(which names an external DTD), so it can sit inside the HTML page and the page loads nothing.
Each figure gets its own id salt: several SVGs in one page must not share element ids.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Sequence

__all__ = ["histogram_svg"]

_BINS = 10
_COLOURS = ("#3b6ea8", "#d9822b", "#2e8b57", "#c23b6b", "#7a5cc4", "#8c6d31", "#1f9bb4", "#5f5f5f")
"""One colour per run, distinct for up to eight runs (a series of nightly runs); beyond that
colours repeat with a hatch, so no two runs look the same."""
_HATCHES = ("", "//", "..", "xx")


def _plain(text: str) -> str:
    """Labels come from the file (metric and run names): kept to plain characters, because
    matplotlib parses "$...$" as math and copies text into SVG comments."""
    return re.sub(r"[^\w.\- ()]", "_", text)[:80]


def _short(label: str, limit: int = 28) -> str:
    """A legend label that fits half the figure's width (a run's file name may be long)."""
    text = _plain(label)
    return text if len(text) <= limit else "..." + text[-(limit - 3):]


def _finite(values: Iterable[float]) -> list[float]:
    return [min(1.0, max(0.0, v)) for v in values if not math.isnan(v)]


def histogram_svg(
    series: Sequence[tuple[str, Iterable[float]]],
    *,
    title: str,
    salt: str,
) -> str:
    """A histogram of scores in [0, 1] (10 bins) per named series (one run, or two to compare),
    NaN (unscored) left out; the legend gives each series' scored count."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    edges = [i / _BINS for i in range(_BINS + 1)]
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": salt, "font.size": 9}):
        legend_rows = math.ceil(len(series) / 2) if len(series) > 1 else 0
        fig, ax = plt.subplots(figsize=(4.0, 2.5 + 0.25 * legend_rows), dpi=100)
        try:
            data = [(label, _finite(values)) for label, values in series]
            width = 1.0 / _BINS / max(1, len(data))
            for i, (label, values) in enumerate(data):
                counts = [0] * _BINS
                for v in values:
                    counts[min(_BINS - 1, int(v * _BINS))] += 1
                lefts = [e + i * width for e in edges[:-1]]
                ax.bar(lefts, counts, width=width * 0.95, align="edge", color=_COLOURS[i % len(_COLOURS)],
                       hatch=_HATCHES[(i // len(_COLOURS)) % len(_HATCHES)],
                       label=f"{_short(label)} ({len(values)} scored)")
            ax.set_xlim(0, 1)
            ax.set_xticks(edges[::2])
            ax.set_xlabel("score")
            ax.set_ylabel("rows")
            ax.yaxis.get_major_locator().set_params(integer=True)
            ax.spines[["top", "right"]].set_visible(False)
            if len(data) == 1:
                ax.set_title(f"{_plain(title)} ({len(data[0][1])} scored)")
                fig.tight_layout()
            else:  # the legend goes under the axes, where it hides no bar
                ax.set_title(_plain(title))
                # Two entries per legend row, and room for every row: with three runs in one
                # row the legend ran past the figure's edges and was cut.
                fig.legend(loc="lower center", ncol=min(2, len(data)), frameon=False, fontsize=8)
                fig.tight_layout(rect=(0, 0.25 * legend_rows / (2.5 + 0.25 * legend_rows) + 0.02, 1, 1))
            buf = io.StringIO()
            # "tight": the saved canvas grows to hold whatever was drawn, so nothing is clipped.
            fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
        finally:
            plt.close(fig)
    svg = buf.getvalue()
    # From <svg on: the prolog and DOCTYPE are not allowed (nor needed) inside HTML; the RDF
    # metadata and comments carry nothing the page shows.
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S).strip()
