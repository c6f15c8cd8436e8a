"""One-off investigations behind a default or a design choice (run as scripts, like the entry
scripts one level up); their results stay in ``benchmarks/results/`` where the README cites them."""
