"""Few-shot prompt templates of the LLM decomposer, editable by users.

A template is a plain string with one placeholder, ``{text}``: the reference/response whose
claims are wanted, or the question to decompose. Pass your own with
``LLMDecomposer(claims_prompt=..., questions_prompt=...)``; other braces must be doubled
(``{{`` ``}}``), as in `str.format`. The model is asked for one item per line; the parser
strips list markers ("-", "1.") and stops at a line that starts a new example. The prompt is
part of the decomposer's identity, so a cached decomposition is never reused under another
prompt.
"""

from __future__ import annotations

__all__ = ["CLAIMS_PROMPT", "QUESTIONS_PROMPT", "check_template", "render"]

CLAIMS_PROMPT = """\
Split the text into short, self-contained factual claims, one per line. Use only facts stated \
in the text. Replace pronouns by the names they refer to.

Text: Marie Curie was born in Warsaw. She won the Nobel Prize in Physics in 1903 and the Nobel \
Prize in Chemistry in 1911.
Claims:
- Marie Curie was born in Warsaw.
- Marie Curie won the Nobel Prize in Physics in 1903.
- Marie Curie won the Nobel Prize in Chemistry in 1911.

Text: {text}
Claims:
"""

QUESTIONS_PROMPT = """\
Split the question into the simple questions it asks, one per line. Each line is a question \
that ends with "?" and uses words of the original question. A simple question stays as it is.

Question: Where is the Eiffel Tower and when was it built?
Questions:
- Where is the Eiffel Tower?
- When was the Eiffel Tower built?

Question: {text}
Questions:
"""

# Lines that begin a new example: the model continuing the few-shot pattern, not answering.
EXAMPLE_STARTS = ("text:", "question:", "claims:", "questions:")


def check_template(template: str, what: str) -> str:
    """``template`` if it renders with exactly the ``{text}`` placeholder, else ValueError."""
    if not isinstance(template, str) or "{text}" not in template:
        raise ValueError(f"the {what} prompt must contain the placeholder {{text}}")
    try:
        template.format(text="")
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"the {what} prompt has a placeholder other than {{text}} ({exc}); double other braces") from exc
    return template


def render(template: str, text: str) -> str:
    return template.format(text=" ".join(text.split()))
