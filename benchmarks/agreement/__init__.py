"""Agreement of localeval's metrics with human (and GPT-4) labels, through the public API.

Each dataset family has its module (`ragbench`, `attribution`, `frank`, `ablation`); every
one scores rows with `localeval.evaluate()` and metric objects built by `scoring.build_metrics`,
so the numbers are what a user gets. `thresholds` chooses per-metric thresholds by k-fold
cross-validation, `table` renders the results beside the peers' published numbers. Run it
with ``python -m benchmarks.agreement`` (see ``--help``).
"""
