"""Which language a text is in, offline, and what follows from it.

Scripts decide first: a text whose letters are mostly Chinese characters is Chinese, with
kana Japanese, with Hangul Korean (statistical detectors confuse Mandarin with Wu or
Cantonese, and a script is not a guess). Other texts go to py3langid (a naive Bayes model over
byte n-grams, shipped inside the package: nothing is downloaded), restricted to widely used
languages so that a short English sentence is not called Frisian or Afrikaans. A language is
reported only when the detector is sure (probability >= 0.9 on a text of at least 20
letters); otherwise the answer is ``None``, and nothing is changed or warned about: a wrong
"this is not English" would be worse than none.

What the language changes: sentence splitting uses the matching Punkt parameters where the
``punkt`` package has them (`punkt_language`), and rows in a language the judge was not
trained on are marked with a warning (`language_warnings`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from localeval.text.memo import remembered

__all__ = ["LANGUAGE_NAMES", "checked_texts", "detect_language", "language_warnings", "punkt_language"]

# ISO 639-1 -> English name (the languages the detector may answer, and Punkt's file names).
LANGUAGE_NAMES: dict[str, str] = {
    "en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian", "pt": "portuguese",
    "nl": "dutch", "sv": "swedish", "da": "danish", "no": "norwegian", "fi": "finnish", "pl": "polish",
    "cs": "czech", "sk": "slovak", "hu": "hungarian", "ro": "romanian", "ru": "russian", "uk": "ukrainian",
    "bg": "bulgarian", "el": "greek", "tr": "turkish", "ar": "arabic", "he": "hebrew", "fa": "persian",
    "hi": "hindi", "bn": "bengali", "ur": "urdu", "id": "indonesian", "ms": "malay", "vi": "vietnamese",
    "th": "thai", "zh": "chinese", "ja": "japanese", "ko": "korean", "ca": "catalan", "hr": "croatian",
    "sr": "serbian", "sl": "slovene", "et": "estonian", "lv": "latvian", "lt": "lithuanian", "ml": "malayalam",
}
MIN_PROBABILITY = 0.9
MIN_LETTERS = 20
_CJK_SHARE = 0.3

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _identifier() -> Any:
    # Loaded on first use (~1.5 s: the model is xz-compressed inside the package).
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages([code for code in LANGUAGE_NAMES if code not in ("zh", "ja", "ko")])
    return identifier


_SAMPLE_CHARS = 2000  # enough to tell a language; a 50k-token context is not read whole


def _script_language(text: str) -> tuple[str | None, int]:
    """``("zh" | "ja" | "ko" | None, letters)`` from the characters' scripts."""
    if text.isascii():
        return None, sum(map(str.isalpha, text))
    letters = han = kana = hangul = 0
    for ch in text:
        if not ch.isalpha():
            continue
        letters += 1
        code = ord(ch)
        if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x2FA1F:
            han += 1
        elif 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF:
            kana += 1
        elif 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
            hangul += 1
    cjk = han + kana + hangul
    if letters and cjk / letters >= _CJK_SHARE:
        if hangul >= max(han, kana):
            return "ko", letters
        return ("ja" if kana else "zh"), letters
    return None, letters


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of ``text``'s language, or ``None`` when unsure (see the module)."""
    return _detect(text[:_SAMPLE_CHARS])


@remembered
def _detect(text: str) -> str | None:
    by_script, letters = _script_language(text)
    if by_script is not None:
        return by_script
    if letters < MIN_LETTERS:
        return None
    with _lock:  # the identifier keeps per-call state in numpy buffers
        code, probability = _identifier().classify(text)
    return code if probability >= MIN_PROBABILITY else None


def punkt_language(text: str, available: Iterable[str]) -> str:
    """The Punkt parameters for ``text``: its language's where ``available``, else English."""
    name = LANGUAGE_NAMES.get(detect_language(text) or "en", "english")
    return name if name in set(available) else "english"


_FIELDS = ("user_input", "response", "reference")


def checked_texts(sample: Any) -> list[tuple[str, str]]:
    """``(field, text)`` whose language `language_warnings` checks: each non-empty text field,
    and the contexts joined as one text."""
    texts = [(field, getattr(sample, field, None)) for field in _FIELDS]
    contexts = getattr(sample, "retrieved_contexts", None)
    if contexts:
        texts.append(("retrieved_contexts", "\n".join(c for c in contexts if isinstance(c, str))))
    return [(field, text) for field, text in texts if isinstance(text, str) and text.strip()]


def language_warnings(sample: Any, supported: Iterable[str] | None,
                      detect: Callable[[str], str | None] | None = None) -> list[str]:
    """Warnings for the row's texts in a language outside ``supported`` (``None``: any).

    Each text field is checked, and the contexts as one text (many short chunks are more
    reliably detected together); one warning per language, naming the fields. ``detect``
    (default `detect_language`) lets a run answer from its stored analyses."""
    detect = detect or detect_language
    if sample is None or supported is None:
        return []
    allowed = set(supported)
    found: dict[str, list[str]] = {}
    for field, text in checked_texts(sample):
        code = detect(text)
        if code is not None and code not in allowed:
            found.setdefault(code, []).append(field)
    judge_langs = ", ".join(LANGUAGE_NAMES.get(c, c).capitalize() for c in sorted(allowed))
    return [
        f"language {LANGUAGE_NAMES.get(code, code).capitalize()} ({code}): {', '.join(fields)}; "
        f"the metrics were built for {judge_langs}, scores may be wrong"
        for code, fields in sorted(found.items())
    ]
