"""What a list item or an instruction answers: the lead-in it is judged with for relevance.

A relevance judge reads "- Fill the tank with 0.5 l of water." alone and finds nothing about
"How do I descale the machine?"; its list's lead-in ("To descale the machine:") is what ties it
to the question. Two cases get a lead:

- ``list_leads``: a context sentence that is a list item or a numbered step (a line that starts
  with "-", "*", "•", "1.", "2)", "Step 3:") is read with its list's lead-in, the last line
  before the list that is not an item itself;
- ``instruction_lead``: for a "how do I / how can I / how to ..." question, an answer statement
  that is an instruction (it starts with a verb in its base form, after any step marker or
  "First,"/"Then,") is read with "To <what the question asks to do>:".

The metrics judge ``lead + " " + text`` in place of the text; the details still show the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

__all__ = ["LEAD_MAX_WORDS", "fit_lead", "instruction_lead", "is_list_item", "list_leads", "task_of"]

LEAD_MAX_WORDS = 30
"""A lead-in longer than this is cut to its last words: the judge's input is short, and the
words next to the list say what it lists."""

_ITEM = re.compile(r"^\s*(?:[-*•·–]|\(?\d{1,2}[.)]|\(?[a-z][.)]|step\s+\d+\s*[:.)-]?)\s+", re.IGNORECASE)
_HOW = re.compile(r"^\s*how\s+(?:do|can|could|should|would|must|may)\s+(?:i|you|we|one|they)\s+(.+?)\s*\??\s*$"
                  r"|^\s*how\s+to\s+(.+?)\s*\??\s*$", re.IGNORECASE)
_SEQUENCE = re.compile(r"^(?:first(?:ly)?|second(?:ly)?|then|next|after that|afterwards|finally|lastly|now|also)\b[,]?\s*",
                       re.IGNORECASE)


def is_list_item(line: str) -> bool:
    return bool(_ITEM.match(line))


def _cut(lead: str) -> str:
    words = lead.split()
    return " ".join(words[-LEAD_MAX_WORDS:])


def fit_lead(lead: str, budget: int, count: Callable[[str], int]) -> tuple[str, int]:
    """``lead`` as it is read before a text in a premise of ``budget`` tokens, and the tokens
    left for the text. The text is windowed to what is left, so lead and text together always
    fit the judge's input (a lead-in glued on after the text was sized is what the judge
    truncated). A lead-in that would take more than half the budget keeps its last words
    (those next to the list say what it lists); one token is kept for the joining space,
    which a byte-pair vocabulary may count."""
    if not lead:
        return "", budget
    words = lead.split()
    while words and count(" ".join(words)) > budget // 2:
        words = words[1:]
    lead = " ".join(words)
    return lead, budget - (count(lead) + 1 if lead else 0)


def list_leads(context: str, starts: Sequence[int]) -> list[str]:
    """Per sentence of ``context`` (given by its start offset): its list's lead-in when the
    sentence begins a list-item line, else ``""``."""
    lines = []  # (start offset, text) of each line
    at = 0
    for line in context.splitlines(keepends=True):
        lines.append((at, line.strip()))
        at += len(line)
    out = []
    for start in starts:
        index = max((k for k, (s, _) in enumerate(lines) if s <= start), default=None)
        if index is None or not is_list_item(lines[index][1]) or not _starts_line(context, lines[index][0], start):
            out.append("")
            continue
        lead = next((text for _, text in reversed(lines[:index]) if text and not is_list_item(text)), "")
        out.append(_cut(lead))
    return out


def _starts_line(context: str, line_start: int, start: int) -> bool:
    """Is the sentence at ``start`` the first one of its line (its marker included)?"""
    return not context[line_start:start].strip() or is_list_item(context[line_start:start] + "x")


def task_of(question: str) -> str | None:
    """What a "how do I ..." question asks to do ("descale the machine"), or None."""
    match = _HOW.match(question)
    if not match:
        return None
    task = (match.group(1) or match.group(2) or "").strip()
    return task or None


def instruction_lead(question: str, statements: Sequence[str]) -> list[str]:
    """Per statement: "To <task>:" when the question asks how to do something and the
    statement is an instruction (its first word, after a step marker or "First,", is a verb in
    its base form by spaCy's tagger), else ``""``."""
    task = task_of(question)
    if task is None or not statements:
        return ["" for _ in statements]
    from localeval.text.entities import load_nlp

    bare = [_SEQUENCE.sub("", _ITEM.sub("", s.strip())) for s in statements]
    docs = load_nlp().pipe(bare, disable=["ner"])
    lead = _cut(f"To {task}:")
    return [lead if _imperative(doc) else "" for doc in docs]


def _imperative(doc) -> bool:
    words = [t for t in doc if not (t.is_punct or t.is_space)]
    if not words:
        return False
    first = words[0]
    # "Pour", "Do not use", "Always wear": a base-form verb first, or right after "do not" / an adverb.
    if first.tag_ == "VB":
        return not any(t.dep_ in ("nsubj", "nsubjpass") and t.head.i == first.i for t in doc)
    if first.pos_ in ("ADV", "PART", "AUX") and len(words) > 1:
        following = next((t for t in words[1:] if t.pos_ not in ("ADV", "PART")), None)
        return following is not None and following.tag_ == "VB" and not any(
            t.dep_ in ("nsubj", "nsubjpass") for t in following.children)
    return False
