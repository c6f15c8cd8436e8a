"""Training pipeline for localeval's default judge (NLI + relevance cross-encoder).

Run ``python -m localeval.training --help``. Modules: ``sources`` (one reader per data source),
``splits`` (the fixed held-out split), ``synthetic`` (task-shaped claims), ``data`` (the mix),
``model`` (two heads, multitask loss), ``train``, ``evaluate`` (held-out numbers, thresholds),
``export`` (the judge folder and its model card).
"""
