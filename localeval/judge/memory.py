"""`SessionMemory`: what a `JudgeSession` remembers of the text it has seen, apart from verdicts.

* memos of derived values (`remember`: a context's units, claims, contrast reasons, ...), a
  bounded LRU per kind;
* sentence splits (a `SplitMemo`) and the text functions' results (a
  `localeval.text.memo.TextMemo`: tokens, parses, numbers, word sets), active while the
  session's metrics score (`active`);
* stored text analyses (`localeval.text.analyses.TextAnalyses`): with a cache file, read for a
  whole block of rows at once (`prefetch`) and new ones written once per block (`flush`).

The runner empties it per block of rows (`clear`), so memory stays bounded and a block's
numbers depend on that block alone. The session holds one and hands its methods on, so
callers keep asking the session (``session.remember(...)``, ``session.analyses``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

from localeval.judge.cache import JudgementCache
from localeval.text.analyses import TextAnalyses
from localeval.text.memo import TextMemo, remembering
from localeval.text.sentences import SplitMemo, remembering_splits

__all__ = ["SessionMemory"]

T = TypeVar("T")

_DERIVED_MEMO_SIZE = 4096
"""Entries of each kind of derived value (e.g. a context's units) a session remembers
within a chunk (`JudgeSession.clear_memory` empties them all per chunk)."""


class SessionMemory:
    """The derived-text memos and stored analyses of one session (see the module docstring).

    Args:
        store: the cache whose file holds the analyses; ``None``: nothing is stored.
        timer: the session's stage timer (`Timings.stage`), so building an analysis is
            timed where it belongs.
    """

    def __init__(self, store: JudgementCache | None, timer: Callable[[str], AbstractContextManager[None]]) -> None:
        self._timer = timer
        self.analyses = TextAnalyses(store)
        self.splits = SplitMemo(store=self.analyses, timer=timer)
        self.text_memo = TextMemo()
        self._derived: dict[str, OrderedDict[Hashable, Any]] = {}

    @contextmanager
    def active(self) -> Iterator[None]:
        """Within the block, sentence splits and the text functions' results are remembered here."""
        with remembering_splits(self.splits), remembering(self.text_memo):
            yield

    def clear(self) -> None:
        """Forget every derived value, split and text function's result (the file keeps the
        stored analyses)."""
        self._derived.clear()
        self.splits.clear()
        self.text_memo.clear()

    @property
    def remembered(self) -> int:
        """How many derived values and text functions' results are held."""
        return sum(len(memo) for memo in self._derived.values()) + len(self.text_memo)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Read the stored analyses of ``texts`` from the cache file in one query."""
        self.analyses.prefetch(texts, derive=self.splits.stored_sentences)

    def flush(self) -> None:
        """Write the analyses made since the last flush (one transaction)."""
        self.analyses.flush()

    def _timed(self, stage: str, build: Callable[[], T]) -> T:
        with self._timer(stage):
            return build()

    def analysis(self, kind: str, text: str, build: Callable[[], T], encode: Callable[[T], bytes | None],
                 decode: Callable[[bytes], T | None], *, stage: str = "plan") -> T:
        """An analysis of ``text`` (``kind`` names it with its parameters and code identity,
        `localeval.text.analyses`): remembered for the session, read from the cache file when
        stored there, else ``build()`` (timed as ``stage``) and stored. ``encode`` may refuse
        (``None``) and ``decode`` may reject (``None``: built again)."""
        def make() -> T:
            if self.analyses.enabled:
                value = self.analyses.load(kind, text)
                found = decode(value) if value is not None else None
                if found is not None:
                    return found
            with self._timer(stage):
                built = build()
            if self.analyses.enabled:
                self.analyses.save(kind, text, encode(built))
            return built

        return self.remember(kind, text, make)

    def detect_language(self, text: str) -> str | None:
        """`localeval.text.language.detect_language`, stored with the session's analyses."""
        from localeval.text.analyses import code_identity
        from localeval.text.language import detect_language

        if not self.analyses.enabled:
            return detect_language(text)
        kind = f"language/{code_identity(('localeval.text.language',), ('py3langid',))}"
        # Stored as the ISO code, or "-" for "not sure" (None).
        code = self.analysis(kind, text, lambda: detect_language(text) or "-", str.encode, _language_code,
                             stage="metric")
        return None if code == "-" else code

    def contrasts(self, triples: Sequence[tuple[str, str, str]],
                  rules: tuple[str, ...] | None = None) -> list[str | None]:
        """`localeval.text.contrast_rules.contrast` of each ``(claim, premise, source)`` under
        ``rules`` (default: all): stored with the session's analyses (one query per call), so
        a re-run in a new process reads the reasons back instead of parsing again (the role
        and merge rules' parse is the costly part). The reasons not known yet are found in
        one call, so their parses are batched (`localeval.text.contrast_rules.contrast_many`)."""
        from localeval.text.analyses import text_digest
        from localeval.text.contrast_rules import CONTRAST_RULES, contrast_identity, contrast_many

        rules = rules or CONTRAST_RULES
        kind = f"contrast/{contrast_identity()}/{','.join(rules)}"
        digests: dict[str, str] = {}  # a group's pairs share one (long) source: hashed once

        def key(claim: str, premise: str, source: str) -> str:
            if source not in digests:
                digests[source] = text_digest(source).hex()
            return f"{claim}\x1f{premise}\x1f{digests[source]}"

        keys = [key(*t) for t in triples]
        if self.analyses.enabled:
            self.analyses.fetch(keys)
        memo = self._derived.get(kind, {})
        new = {k: t for k, t in zip(keys, triples)
               if k not in memo and (not self.analyses.enabled or self.analyses.load(kind, k, count=False) is None)}
        found = dict(zip(new, self._timed("metric", lambda: contrast_many(list(new.values()), rules)))) if new else {}

        def build(k: str, t: tuple[str, str, str]) -> Callable[[], str | None]:
            return lambda: found[k] if k in found else contrast_many([t], rules)[0]

        if not self.analyses.enabled:  # remembered for the session only (a claim meets a unit again)
            return [self.remember(kind, k, build(k, t)) for k, t in zip(keys, triples)]
        return [self.analysis(kind, k, build(k, t), _encode_reason, _decode_reason, stage="metric") or None
                for k, t in zip(keys, triples)]

    def remember(self, kind: str, key: Hashable, build: Callable[[], T]) -> T:
        """``build()``, remembered under ``(kind, key)`` for the session (a bounded memo per
        kind; e.g. the units a context is cut into, shared by rows and metrics)."""
        memo = self._derived.setdefault(kind, OrderedDict())
        if key in memo:
            memo.move_to_end(key)
            return memo[key]
        value = memo[key] = build()
        while len(memo) > _DERIVED_MEMO_SIZE:
            memo.popitem(last=False)
        return value


def _encode_reason(reason: str | None) -> bytes:
    return b"\x00" if reason is None else reason.encode("utf-8")  # "\x00": no rule fired


def _decode_reason(value: bytes) -> str | None:
    """A stored contrast reason ("rule: why"); a value that is not one (damaged) is made
    again. ``None`` means "not found" to `JudgeSession.analysis`, so "no rule fired" is
    the empty string."""
    from localeval.text.contrast_rules import CONTRAST_RULES

    if value == b"\x00":
        return ""
    try:
        reason = value.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return reason if reason.partition(":")[0] in CONTRAST_RULES else None


def _language_code(value: bytes) -> str | None:
    """A stored language: an ISO 639 code or "-" (not sure); ``None`` (detect again) for
    anything else (a damaged value)."""
    code = value.decode("ascii", "replace")
    return code if code == "-" or (code.isalpha() and code.islower() and 2 <= len(code) <= 3) else None
