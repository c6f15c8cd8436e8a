"""Evidence: what a judge's verdicts say about a claim or a question, and where in the contexts.

Claim attribution (`attribution`: which units of the contexts support a claim), candidate
selection (`candidates`: which units are worth a judge call), a claim's verdict from more than
its best unit (`verdict`) and relevance of passages to a question (`relevance`). They use the
judge (`localeval.judge`) and never the other way round (tests/test_layering.py).
"""
