"""Edits of the dependency parse, part 1: verb forms and the active <-> passive change."""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

from ..examples import NLI2, NLI3
from .edits import ENT, NOT_ENTAILED, Edit, _finalise

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

# Irregular verbs: lemma -> (past, past participle). Regular verbs are derived by rule.
_IRREGULAR = {
    "be": ("was", "been"), "beat": ("beat", "beaten"), "become": ("became", "become"),
    "begin": ("began", "begun"), "bite": ("bit", "bitten"), "break": ("broke", "broken"),
    "bring": ("brought", "brought"), "build": ("built", "built"), "buy": ("bought", "bought"),
    "catch": ("caught", "caught"), "choose": ("chose", "chosen"), "draw": ("drew", "drawn"),
    "drive": ("drove", "driven"), "eat": ("ate", "eaten"), "find": ("found", "found"),
    "forget": ("forgot", "forgotten"), "freeze": ("froze", "frozen"), "give": ("gave", "given"),
    "hold": ("held", "held"), "hide": ("hid", "hidden"), "keep": ("kept", "kept"),
    "know": ("knew", "known"), "lead": ("led", "led"), "leave": ("left", "left"),
    "lose": ("lost", "lost"), "make": ("made", "made"), "pay": ("paid", "paid"),
    "read": ("read", "read"), "ride": ("rode", "ridden"), "run": ("ran", "run"),
    "see": ("saw", "seen"), "sell": ("sold", "sold"), "send": ("sent", "sent"),
    "set": ("set", "set"), "shoot": ("shot", "shot"), "show": ("showed", "shown"),
    "sing": ("sang", "sung"), "speak": ("spoke", "spoken"), "spend": ("spent", "spent"),
    "steal": ("stole", "stolen"), "strike": ("struck", "struck"), "take": ("took", "taken"),
    "teach": ("taught", "taught"), "tell": ("told", "told"), "think": ("thought", "thought"),
    "throw": ("threw", "thrown"), "win": ("won", "won"), "write": ("wrote", "written"),
    "wear": ("wore", "worn"), "hit": ("hit", "hit"), "put": ("put", "put"), "cut": ("cut", "cut"),
    "split": ("split", "split"), "shut": ("shut", "shut"), "feed": ("fed", "fed"),
    "found": ("founded", "founded"), "hear": ("heard", "heard"), "meet": ("met", "met"),
    "fight": ("fought", "fought"), "seek": ("sought", "sought"), "sink": ("sank", "sunk"),
    "swear": ("swore", "sworn"), "tear": ("tore", "torn"), "weave": ("wove", "woven"),
    "wind": ("wound", "wound"), "withdraw": ("withdrew", "withdrawn"),
    "overtake": ("overtook", "overtaken"), "undertake": ("undertook", "undertaken"),
    "override": ("overrode", "overridden"), "rebuild": ("rebuilt", "rebuilt"),
    "rewrite": ("rewrote", "rewritten"), "overthrow": ("overthrew", "overthrown"),
    "mislead": ("misled", "misled"), "grind": ("ground", "ground"), "bind": ("bound", "bound"),
    "forbid": ("forbade", "forbidden"), "forgive": ("forgave", "forgiven"),
    "shake": ("shook", "shaken"), "spin": ("spun", "spun"), "sweep": ("swept", "swept"),
    "lend": ("lent", "lent"), "bend": ("bent", "bent"), "hang": ("hung", "hung"),
    "light": ("lit", "lit"), "stick": ("stuck", "stuck"), "strike out": ("struck", "struck"),
}
# Verbs whose subject and object can trade places without changing the fact, or that do not
# passivise: a swap or voice change of these teaches nothing true.
_NO_VOICE = {
    "be", "have", "become", "include", "contain", "comprise", "consist", "lack", "cost",
    "weigh", "equal", "resemble", "meet", "marry", "face", "play", "join", "border", "mean",
    "seem", "total", "number", "fit", "suit", "get", "take", "make", "do", "reach", "date",
    "divorce", "fight", "battle", "accompany", "partner", "share", "enter", "leave", "hold",
    "need", "want", "like", "feature", "involve", "represent", "require", "use", "follow",
}
_VOWELS = set("aeiou")


def _regular_past(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ied"
    if (
        len(lemma) in (3, 4)
        and lemma[-1] not in _VOWELS | set("wxy")
        and lemma[-2] in _VOWELS
        and lemma[-3] not in _VOWELS
    ):
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def past(lemma: str) -> str:
    return _IRREGULAR[lemma][0] if lemma in _IRREGULAR else _regular_past(lemma)


def participle(lemma: str) -> str:
    return _IRREGULAR[lemma][1] if lemma in _IRREGULAR else _regular_past(lemma)


def third_person(lemma: str) -> str:
    if lemma == "have":
        return "has"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lemma):
        return lemma + "es"
    if len(lemma) > 1 and lemma.endswith("y") and lemma[-2] not in _VOWELS:
        return lemma[:-1] + "ies"
    return lemma + "s"


def _span(tok: Token) -> Span:
    return tok.doc[tok.left_edge.i : tok.right_edge.i + 1]


def _plural(tok: Token) -> bool:
    return tok.tag_ in ("NNS", "NNPS") or any(c.dep_ == "conj" for c in tok.children)


def _np_text(span: Span) -> str:
    """Noun phrase text for a new position: a sentence-initial common word is lower-cased
    (``_finalise`` capitalises whatever ends up first)."""
    text = span.text
    first = span[0]
    if (
        first.i == first.sent.start
        and (first.pos_ in ("DET", "PRON") or (first.pos_ in ("NOUN", "ADJ", "NUM") and not first.ent_type_))
        and first.text != "I"
        and not first.text.isupper()
    ):
        text = text[:1].lower() + text[1:]
    return text


def _simple_np(tok: Token, limit: int = 8) -> bool:
    span = _span(tok)
    return (
        tok.pos_ in ("NOUN", "PROPN")
        and len(span) <= limit
        and not any(t.pos_ in ("VERB", "AUX", "PRON") or t.dep_ in ("relcl", "acl") for t in span)
        and span[-1].pos_ != "PUNCT"
    )


def _clause(prefix: str, subject: str, verb: str, obj: str, rest: str) -> str:
    parts = [prefix.strip(), subject, verb, obj, rest.strip()]
    return _finalise(" ".join(p for p in parts if p))


def voice_edits(sent: Span, rng: random.Random) -> list[Edit]:
    """Active -> passive or passive -> active on the main verb (entailed), and the
    agent/patient swap (not entailed), in the changed voice 2 times out of 3."""
    root = sent.root
    if root.lemma_.lower() in _NO_VOICE or any(
        c.dep_ in ("neg", "prt", "dative", "aux", "ccomp", "xcomp") for c in root.children
    ):
        return []
    # A second verb sharing the subject ("X wrote A and directed B") would keep the old voice.
    if any(
        c.dep_ == "conj"
        and c.pos_ in ("VERB", "AUX")
        and not any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children)
        for c in root.children
    ):
        return []
    doc = sent.doc
    kids = {c.dep_: c for c in root.children}
    lemma = root.lemma_.lower()

    def prefix_of(tok: Token) -> str:
        return doc[sent.start : tok.left_edge.i].text

    if root.tag_ in ("VBD", "VBZ", "VBP") and "nsubj" in kids and "dobj" in kids:
        subj, obj = kids["nsubj"], kids["dobj"]
        if not (_simple_np(subj) and _simple_np(obj)):
            return []
        if subj.right_edge.i + 1 != root.i or obj.left_edge.i != root.i + 1:
            return []
        if root.tag_ == "VBD" and not root.text.lower().endswith("ed") and lemma not in _IRREGULAR:
            return []  # an irregular past we cannot turn into a participle
        prefix = prefix_of(subj)
        rest = doc[obj.right_edge.i + 1 : sent.end].text
        s_txt, o_txt = _np_text(_span(subj)), _np_text(_span(obj))
        past_tense = root.tag_ == "VBD"

        def be(tok: Token) -> str:
            if past_tense:
                return "were" if _plural(tok) else "was"
            return "are" if _plural(tok) else "is"

        part = participle(lemma)
        faithful = _clause(prefix, o_txt, f"{be(obj)} {part} by", s_txt, rest)
        if rng.random() < 2 / 3:
            swapped = _clause(prefix, s_txt, f"{be(subj)} {part} by", o_txt, rest)
        else:
            verb = root.text if past_tense else (lemma if _plural(obj) else third_person(lemma))
            swapped = _clause(prefix, o_txt, verb, s_txt, rest)
        return [Edit(faithful, ENT, NLI3, "voice"), Edit(swapped, NOT_ENTAILED, NLI2, "voice")]
    if root.tag_ == "VBN" and "nsubjpass" in kids and "auxpass" in kids and "agent" in kids:
        subj, aux, agent = kids["nsubjpass"], kids["auxpass"], kids["agent"]
        pobj = next((c for c in agent.children if c.dep_ == "pobj"), None)
        if pobj is None or not (_simple_np(subj) and _simple_np(pobj)):
            return []
        if subj.right_edge.i + 1 != aux.i or aux.i + 1 != root.i or agent.i < root.i:
            return []
        if pobj.right_edge.i != agent.right_edge.i or aux.lower_ not in ("was", "were", "is", "are"):
            return []
        prefix = prefix_of(subj)
        middle = doc[root.i + 1 : agent.i].text
        rest = f"{middle} {doc[agent.right_edge.i + 1 : sent.end].text}"
        s_txt, a_txt = _np_text(_span(subj)), _np_text(_span(pobj))

        def active(tok: Token) -> str:
            if aux.lower_ in ("was", "were"):
                return past(lemma)
            return lemma if _plural(tok) else third_person(lemma)

        faithful = _clause(prefix, a_txt, active(pobj), s_txt, rest)
        if rng.random() < 2 / 3:
            swapped = _clause(prefix, s_txt, active(subj), a_txt, rest)
        else:
            be = aux.lower_ if _plural(pobj) == _plural(subj) else (
                {"was": "were", "were": "was", "is": "are", "are": "is"}[aux.lower_])
            swapped = _clause(prefix, a_txt, f"{be} {root.text} by", s_txt, rest)
        return [Edit(faithful, ENT, NLI3, "voice"), Edit(swapped, NOT_ENTAILED, NLI2, "voice")]
    return []
