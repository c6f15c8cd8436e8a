"""HTML fragments that explain one row's score for one metric, from the details the metric
wrote: claims no context supports, chunk information the answer leaves out, the context with
its relevant and irrelevant sentences highlighted, entities not found, and so on.

Every piece of text from the file goes through `esc`. The renderer is chosen by the metric's
name (`RENDERERS`, filled by `renders`; an output column named with a RAGAS alias is resolved
to its metric first), never by guessing from the keys of the details; a metric without a
renderer of its own (a custom one, say) gets `generic`. Details written before a field was
renamed (``rank`` / ``id_chunk`` -> ``context_index``) are read through the metric's result
model, whose validation aliases accept the old names.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

__all__ = ["MAX_TEXT", "RENDERERS", "Renderer", "clip", "contexts_of", "esc", "explain", "fmt", "generic", "highlight",
           "renderer_for", "renders", "row_fields"]

Renderer = Callable[[dict[str, Any], "list[str] | None"], str]
"""``(details, the row's retrieved contexts or None) -> HTML`` for one metric's details."""

RENDERERS: dict[str, Renderer] = {}
"""Metric name -> the renderer of its details (see `renders`)."""


def _of(part: int, total: int, noun: str, nouns: str | None = None) -> str:
    """"1 of 1 claim", "2 of 3 claims": the noun agrees with the total."""
    return f"{part} of {total} {noun if total == 1 else (nouns or noun + 's')}"


def renders(*metrics: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated function as the renderer of ``metrics`` (their registry names)."""

    def register(fn: Renderer) -> Renderer:
        for name in metrics:
            RENDERERS[name] = fn
        return fn

    return register

_MAX_JSON = 4000
MAX_TEXT = 20_000
"""Characters of one text shown: a 100k-word context in ten rows would make a page no one reads."""


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` escaped, cut at ``limit`` characters with a note saying how much is left out."""
    if len(text) <= limit:
        return esc(text)
    return f'{esc(text[:limit])}<span class="muted"> ... ({len(text) - limit:,} more characters)</span>'


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def fmt(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "n/a"
    return f"{value:.3f}"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in _list(value) if isinstance(v, dict)]


def contexts_of(record: dict[str, Any]) -> list[str] | None:
    """The row's retrieved contexts (RAGAS or older field name), when they are a list of text."""
    for key in ("retrieved_contexts", "contexts"):
        value = record.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
    return None


def row_fields(record: dict[str, Any]) -> list[tuple[str, str]]:
    """The row's question, response and reference, under whichever name it used."""
    out = []
    for label, keys in (("question", ("user_input", "question")), ("response", ("response", "answer")),
                        ("reference", ("reference", "ground_truth"))):
        for key in keys:
            if isinstance(record.get(key), str):
                out.append((label, record[key]))
                break
    return out


def highlight(text: str, spans: Sequence[tuple[int, int, str, str]]) -> str:
    """``text`` escaped, with each ``(start, end, css class, tooltip)`` span marked. Spans that
    do not fit the text or overlap an earlier one are left unmarked rather than guessed at."""
    out: list[str] = []
    pos = 0
    shown = min(len(text), MAX_TEXT)
    # Details read from a file may hold anything: a non-integer offset sorts first and is skipped.
    def key(span: tuple[Any, Any, str, str]) -> tuple[int, int]:
        return tuple(v if isinstance(v, int) else -1 for v in span[:2])  # type: ignore[return-value]

    for start, end, css, tip in sorted(spans, key=key):
        if not (isinstance(start, int) and isinstance(end, int)) or start < pos or end <= start or end > shown:
            continue
        out.append(esc(text[pos:start]))
        out.append(f'<mark class="{esc(css)}" title="{esc(tip)}">{esc(text[start:end])}</mark>')
        pos = end
    out.append(clip(text[pos:], shown - pos))
    return "".join(out)


def _evidence(ev: Any) -> str:
    if not isinstance(ev, dict) or not ev.get("text"):
        return '<span class="muted">none</span>'
    where = f"context {ev['context_index']}: " if isinstance(ev.get("context_index"), int) else ""
    return f'<span class="muted">{esc(where)}</span>{esc(ev["text"])}'


def _contrast(reason: Any) -> str:
    """The contrast rule that overruled the judge's favourite unit, under the evidence."""
    if not isinstance(reason, str) or not reason:
        return ""
    return f'<br><span class="muted">overruled by a rule: {esc(reason)}</span>'


def _in_contexts(verdict: Any) -> str:
    """A factual-correctness claim's second verdict, from the retrieved contexts, when it has one."""
    if not isinstance(verdict, dict):
        return ""
    said = "supported" if verdict.get("attributed") else "not supported"
    return (f'<br><span class="muted">retrieved contexts: {said} ({fmt(verdict.get("probability"))}): </span>'
            + _evidence(verdict.get("evidence")))


def _claim_rows(claims: list[dict[str, Any]], yes: str, no: str) -> str:
    """Claims as table rows, unsupported first: verdict, text, probability, best evidence."""
    ordered = [c for c in claims if not c.get("attributed")] + [c for c in claims if c.get("attributed")]
    return "".join(
        f'<tr class="{"ok" if c.get("attributed") else "bad"}"><td>{yes if c.get("attributed") else no}</td>'
        f"<td>{esc(c.get('text', ''))}</td><td class=num>{fmt(c.get('probability'))}</td>"
        f"<td>{_evidence(c.get('evidence'))}{_contrast(c.get('contrast'))}{_in_contexts(c.get('contexts'))}</td></tr>"
        for c in ordered
    )


def _claim_table(claims: list[dict[str, Any]], yes: str, no: str) -> str:
    return ('<table class="claims"><tr><th></th><th>claim</th><th>prob.</th><th>best evidence</th></tr>'
            + _claim_rows(claims, yes, no) + "</table>")


@renders("context_recall", "faithfulness")
def _claims(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    claims = _dicts(details.get("claims"))
    if not claims:
        return '<p class="muted">no claim to check</p>'
    missing = sum(1 for c in claims if not c.get("attributed"))
    head = (f'<p><b>{_of(missing, len(claims), "claim")} not supported</b> by any retrieved context '
            f'(threshold {fmt(details.get("threshold"))}); the best evidence found is shown.</p>')
    return head + _claim_table(claims, "supported", "not supported")


@renders("factual_correctness")
def _factual(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    """Response claims against the reference and back (factual correctness, RAGChecker)."""
    response, reference = _dicts(details.get("response_claims")), _dicts(details.get("reference_claims"))
    wrong = sum(1 for c in response if not c.get("attributed"))
    missing = sum(1 for c in reference if not c.get("attributed"))
    out = (f'<p>precision {fmt(details.get("precision"))}, recall {fmt(details.get("recall"))}, '
           f'F1 {fmt(details.get("f1"))} (threshold {fmt(details.get("threshold"))})</p>')
    declined = [t for t in _list(details.get("non_answer_statements")) if isinstance(t, str)]
    if details.get("non_answer") or declined:
        out += ('<p class="bad"><b>non-answer:</b> ' + esc(" / ".join(declined) or "empty response") + "</p>")
    if details.get("capped"):
        why = ("the response answers yes/no the other way from the reference" if details.get("opposite_answer")
               else "a response claim is supported neither by the reference nor by the retrieved contexts")
        out += f'<p class="bad"><b>capped:</b> at 0.5, {esc(why)}</p>'
    if response:
        out += (f"<p><b>{_of(wrong, len(response), 'response claim')} not supported by the reference</b></p>"
                + _claim_table(response, "correct", "not in the reference"))
    if reference:
        out += (f"<p><b>{_of(missing, len(reference), 'reference claim')} missing from the response</b></p>"
                + _claim_table(reference, "stated", "missing"))
    return out


_RAGCHECKER_FIGURES = (
    ("overall", ("precision", "recall", "f1")),
    ("retriever", ("claim_recall", "context_precision")),
    ("generator", ("context_utilization", "noise_sensitivity_relevant", "noise_sensitivity_irrelevant",
                   "hallucination", "self_knowledge", "faithfulness")),
)


@renders("ragchecker")
def _ragchecker(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    rows = "".join(
        f"<tr><td>{group}</td><td>{esc(name.replace('_', ' '))}</td><td class=num>{fmt(details.get(name))}</td></tr>"
        for group, names in _RAGCHECKER_FIGURES for name in names)
    chunks = _dicts(details.get("chunks"))
    relevant = ", ".join(str(c.get("context_index")) for c in chunks if c.get("relevant")) or "none"
    return (f'<table class="claims"><tr><th></th><th>figure</th><th>value</th></tr>{rows}</table>'
            f"<p>relevant chunks (entail a reference claim): {esc(relevant)}</p>" + _factual(details))


@renders("answer_relevancy")
def _answer_statements(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    statements = _dicts(details.get("statements"))
    if not statements:
        return '<p class="bad">empty response: it does not address the question</p>'
    items = "".join(
        f'<li class="{"ok" if s.get("relevant") else "bad"}">'
        f'{"non-answer" if s.get("non_answer") else ("relevant" if s.get("relevant") else "not relevant")} '
        f'({fmt(s.get("probability"))}): {esc(s.get("text", ""))}</li>' for s in statements)
    irrelevant = sum(1 for s in statements if not s.get("relevant"))
    return (f"<p><b>{_of(irrelevant, len(statements), 'statement')} {'does' if irrelevant == 1 else 'do'} not address the question</b> "
            f'(threshold {fmt(details.get("threshold"))})</p><ul>{items}</ul>')


@renders("semantic_similarity")
def _similarity(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    flag = ' <span class="bad">(non-answer)</span>' if details.get("non_answer") else ""
    return (f'<p>cosine similarity of response and reference: {fmt(details.get("cosine"))}'
            f' <span class="muted">({esc(details.get("model") or "embedding model")})</span>{flag}</p>')


@renders("answer_correctness")
def _answer_correctness(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    weights = _list(details.get("weights"))
    factual, similarity = details.get("factual"), details.get("similarity")
    head = (f"<p>{fmt(weights[0] if weights else None)} x factual correctness F1 "
            f"+ {fmt(weights[1] if len(weights) > 1 else None)} x semantic similarity</p>")
    return (head + (_factual(factual) if isinstance(factual, dict) else "")
            + (_similarity(similarity) if isinstance(similarity, dict) else ""))


@renders("chunk_recall")
def _chunks_recall(details: dict[str, Any], contexts: list[str] | None) -> str:
    chunks = _dicts(details.get("evaluated_chunks"))
    if not chunks:
        return '<p class="muted">no chunk evaluated</p>'
    parts = []
    for c in chunks:
        cid = c.get("context_index")
        relevant, included = bool(c.get("is_relevant")), bool(c.get("is_included"))
        state = "not relevant" if not relevant else ("included in the answer" if included else "relevant, left out of the answer")
        css = "muted" if not relevant else ("ok" if included else "bad")
        text = contexts[cid] if contexts is not None and isinstance(cid, int) and 0 <= cid < len(contexts) else None
        body = ""
        if text is not None:
            missing = {(s.get("start"), s.get("end")) for s in _dicts(c.get("missing_sentences"))}
            spans = [
                (s.get("start"), s.get("end"), "bad" if (s.get("start"), s.get("end")) in missing else "ok",
                 "relevant, missing from the answer" if (s.get("start"), s.get("end")) in missing else "relevant")
                for s in _dicts(c.get("relevant_sentences"))
            ]
            body = f'<div class="ctx">{highlight(text, spans)}</div>'
        info = f'<p class="bad"><b>missing information:</b> {esc(c["missing_info"])}</p>' if c.get("missing_info") else ""
        parts.append(f'<div class="chunk {css}"><p><b>chunk {esc(cid)}</b>: {state} '
                     f'(relevance {fmt(c.get("relevance"))})</p>{info}{body}</div>')
    return "".join(parts)


@renders("context_relevance")
def _relevance(details: dict[str, Any], contexts: list[str] | None) -> str:
    sentences = _dicts(details.get("sentences"))
    chunks = _dicts(details.get("chunks"))
    thr = fmt(details.get("threshold"))
    if sentences and contexts is not None:
        by_ctx: dict[int, list[tuple[int, int, str, str]]] = {}
        for s in sentences:
            i = s.get("context_index")
            if isinstance(i, int):
                by_ctx.setdefault(i, []).append(
                    (s.get("start"), s.get("end"), "ok" if s.get("relevant") else "bad",
                     f"{'relevant' if s.get('relevant') else 'irrelevant'} (p={fmt(s.get('probability'))})"))
        n_rel = sum(1 for s in sentences if s.get("relevant"))
        body = "".join(
            f'<div class="ctx"><span class="muted">context {i}:</span> {highlight(text, by_ctx.get(i, []))}</div>'
            for i, text in enumerate(contexts) if text.strip()
        )
        return (f"<p><b>{_of(n_rel, len(sentences), 'sentence')} relevant</b> to the question (threshold {thr}); "
                f'<mark class="ok">relevant</mark> <mark class="bad">irrelevant</mark>, hover for the probability.</p>' + body)
    if sentences:
        return "<ul>" + "".join(
            f'<li class="{"ok" if s.get("relevant") else "bad"}">{fmt(s.get("probability"))} {esc(s.get("text", ""))}</li>'
            for s in sentences) + "</ul>"
    if chunks:
        return _context_verdicts(chunks, "relevant", ("relevant", "irrelevant"))
    return '<p class="muted">no sentence judged</p>'


@renders("trace_utilization", "trace_completeness")
def _trace(details: dict[str, Any], contexts: list[str] | None) -> str:
    """The contexts with the sentences the response used marked; for completeness, the
    relevant ones it used (green) and left out (red), used but irrelevant ones in blue."""
    sentences = _dicts(details.get("sentences"))
    if not sentences:
        return '<p class="muted">no context sentence</p>'
    completeness = any(isinstance(s.get("relevant"), bool) for s in sentences)
    used = sum(1 for s in sentences if s.get("utilized"))

    def verdict(s: dict[str, Any]) -> tuple[str, str] | None:
        tip = f"p(entailment)={fmt(s.get('probability'))}"
        if completeness and s.get("relevant"):
            return ("ok", f"relevant, used ({tip})") if s.get("utilized") else ("bad", "relevant, not used")
        return ("used", f"used ({tip})") if s.get("utilized") else None

    if completeness:
        relevant = [s for s in sentences if s.get("relevant")]
        head = (f"<p><b>{_of(sum(1 for s in relevant if s.get('utilized')), len(relevant), 'relevant sentence')} used</b> "
                f"by the response ({_of(used, len(sentences), 'sentence')} used); "
                '<mark class="ok">relevant, used</mark> <mark class="bad">relevant, not used</mark> '
                '<mark class="used">used, not relevant</mark>.</p>')
    else:
        head = (f"<p><b>{_of(used, len(sentences), 'context sentence')} used</b> by the response "
                f'(threshold {fmt(details.get("threshold"))}); <mark class="used">used</mark>, hover for the probability.</p>')
    if contexts is not None:
        by_ctx: dict[int, list[tuple[int, int, str, str]]] = {}
        for s in sentences:
            v = verdict(s)
            if v is not None and isinstance(s.get("context_index"), int):
                by_ctx.setdefault(s["context_index"], []).append((s.get("start"), s.get("end"), *v))
        body = "".join(
            f'<div class="ctx"><span class="muted">context {i}:</span> {highlight(text, by_ctx.get(i, []))}</div>'
            for i, text in enumerate(contexts) if text.strip())
    else:
        body = "<ul>" + "".join(
            f'<li class="{v[0]}">{esc(v[1])}: {esc(s.get("text", ""))}</li>'
            for s in sentences if (v := verdict(s)) is not None) + "</ul>"
    claims = _dicts(details.get("claims"))
    return head + body + (_claim_table(claims, "used", "not supported") if claims else "")


@renders("context_entity_recall")
def _entities(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    ents = _dicts(details.get("entities"))
    if not ents:
        return '<p class="muted">no entity</p>'
    missing = [e for e in ents if not e.get("found")]
    items = "".join(
        f'<li class="{"ok" if e.get("found") else "bad"}">{"found" if e.get("found") else "not found"}: '
        f'{esc(e.get("text", ""))} <span class="muted">({esc(e.get("label", ""))}'
        + (f', {esc(e["match"].get("how", ""))} match' if isinstance(e.get("match"), dict) else "") + ")</span></li>"
        for e in missing + [e for e in ents if e.get("found")])
    return f"<p><b>{_of(len(missing), len(ents), 'reference entity', 'reference entities')} not found</b> in the contexts.</p><ul>{items}</ul>"


def _context_verdicts(chunks: list[dict[str, Any]], flag: str, words: tuple[str, str]) -> str:
    """One line per chunk (context relevance at chunk level, context precision): its position,
    its verdict (``chunk[flag]``), the probability, and the claim it supports when there is one."""
    items = "".join(
        f'<li class="{"ok" if c.get(flag) else "bad"}">chunk {esc(c.get("context_index", "?"))}: '
        f'{words[0] if c.get(flag) else words[1]} ({fmt(c.get("probability"))})'
        + (f' <span class="muted">supports:</span> {esc(c["supported_claim"])}' if c.get("supported_claim") else "") + "</li>"
        for c in chunks)
    return f"<ul>{items}</ul>" if items else '<p class="muted">no chunk judged</p>'


@renders("context_precision")
def _precision(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    return _context_verdicts(_dicts(details.get("chunks")), "useful", ("useful", "not useful"))


@renders("question_recall")
def _questions(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    subs = _dicts(details.get("sub_questions"))
    items = "".join(
        f'<li class="{"ok" if q.get("answerable") else "bad"}">{"answered" if q.get("answerable") else "not answered"} '
        f'({fmt(q.get("probability"))}): {esc(q.get("text", ""))}</li>' for q in subs)
    return f"<ul>{items}</ul>" if items else '<p class="muted">no sub-question</p>'


@renders("precision_recall")
def _statements(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    missing = [m for m in _list(details.get("missing_statements")) if isinstance(m, str)]
    head = (f'<p>precision {fmt(details.get("precision"))}, recall {fmt(details.get("recall"))}; '
            f"<b>{len(missing)} reference statements missing</b></p>")
    return head + ("<ul>" + "".join(f'<li class="bad">{esc(m)}</li>' for m in missing) + "</ul>" if missing else "")


@renders("retrieval")
def _retrieval(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    missing = _list(details.get("missing_ids"))
    return (f'<p>recall {fmt(details.get("recall"))}, precision {fmt(details.get("precision"))}, '
            f'MRR {fmt(details.get("mrr"))}, hit rate {fmt(details.get("hit_rate"))}</p>'
            + (f'<p class="bad"><b>relevant IDs not retrieved:</b> {esc(", ".join(map(str, missing)))}</p>' if missing else ""))


def _raw(details: Any) -> str:
    text = json.dumps(details, ensure_ascii=False, indent=1, default=str)
    if len(text) > _MAX_JSON:
        text = text[:_MAX_JSON] + "\n... (cut)"
    return f"<pre>{esc(text)}</pre>"


def generic(details: dict[str, Any], contexts: list[str] | None = None) -> str:
    """Any metric's details: its figures (top-level numbers) in a table, then the details as JSON."""
    figures = [(k, v) for k, v in details.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    table = ('<table class="claims"><tr><th>figure</th><th>value</th></tr>' + "".join(
        f"<tr><td>{esc(k.replace('_', ' '))}</td><td class=num>{fmt(v)}</td></tr>" for k, v in figures)
        + "</table>") if figures else ""
    return table + _raw(details)


def _metric_class(metric: str) -> Any:
    """The registered metric class an output column is named after (its name or an alias)."""
    from localeval.metrics.registry import resolve_name

    try:
        return resolve_name(metric)[0]
    except ValueError:
        return None


def renderer_for(metric: str) -> Renderer:
    """The renderer of ``metric``'s details (an output column name: a metric or a RAGAS alias)."""
    cls = _metric_class(metric)
    return RENDERERS.get(cls.name if cls is not None else metric, generic)


def current_details(metric: str, details: dict[str, Any]) -> dict[str, Any]:
    """``details`` with today's field names: read through the metric's result model (whose
    aliases accept the older names). Details that do not fit it (another version, a custom
    metric under a registered name) are returned as they are."""
    cls = _metric_class(metric)
    if cls is None:
        return details
    try:
        return cls.result_type.model_validate({**details, "metric": cls.name, "score": None, "reason": None}).details()
    except (ValidationError, TypeError, ValueError):
        return details


def explain(metric: str, record: dict[str, Any]) -> str:
    """Why this row got its score for ``metric``, as an HTML fragment."""
    details = record.get(f"{metric}_details")
    score = record.get(metric)
    reason = record.get(f"{metric}_reason")
    head = f'<p class="score">{esc(metric)}: <b>{fmt(score)}</b>'
    head += f' <span class="muted">({esc(reason)})</span></p>' if reason else "</p>"
    if not isinstance(details, dict):
        return head + (_raw(details) if details not in (None, "", {}) else "")
    return head + renderer_for(metric)(current_details(metric, details), contexts_of(record))
