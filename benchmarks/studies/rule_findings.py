"""How often does each contrast rule fire on real retrieved text, on claims of faithful and of
unfaithful responses? And which claims does a code change quiet or newly flag?

    python benchmarks/studies/rule_findings.py [--families ragbench,frank] [--rules polarity,negated,order,confirmation]
        [--data-dir DIR] [--before FILE [--flagged]] [--output FILE] [--both-match REGEX] [--claim-match REGEX]

A contrast rule (`localeval.text.contrast_rules`) overrules the judge when it finds a
contradiction the judge missed. On RAGBench (real RAG responses over manuals, medical and
encyclopaedic passages) most claims of a response the annotators call faithful are supported,
so a rule that fires about as often there as on unfaithful responses is mostly firing falsely.
Each item's response is cut into the claims the claim metrics judge (`benchmarks.verdict.claims_of`);
each claim is read by each rule alone against every short unit of every context (each run of
two consecutive sentences, as a metric cuts them; its context as the source), and a claim
counts as flagged when some unit makes the rule fire. This is wider than a metric run, which
reads only the units the word overlap and the judge rank best, so counts here are an
upper bound on what a rule can overrule; it needs no judge, and so it can be run on two commits
(a git worktree of the older one) and compared: ``--before`` names the older run's JSON and the
report lists, per rule and label, the claims that went quiet and those newly flagged.
``--both-match`` reads only the (claim, unit) pairs where both match a regular expression
(case-insensitive): a change that can only act where both sides hold, say, a unit word is
measured on every pair it can reach in a fraction of the time (the parsing rules read
several hundred thousand pairs otherwise, close to an hour on 2 cores). ``--claim-match`` reads
only the claims that match one (a change that acts only on claims that date something to a
decade, say), each against every unit of its contexts. ``--flagged`` re-reads only the claims
the ``--before`` run flagged (by any of the rules read): exact, in a minute or two, for a change
that can only quiet a rule (one that excuses something), since no other claim can be newly
flagged by it; the counts then assume so.

Results: ``benchmarks/results/rule_findings.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.lib.cli import add_data_dir  # noqa: E402
from benchmarks.lib.files import command_line, portable_path, publish  # noqa: E402
from benchmarks.lib.machine import describe_machine  # noqa: E402

LABELS = {1: "faithful", 0: "unfaithful"}


CONFIRMATION = "confirmation"
"""Not a contrast rule: `localeval.text.contrast_rules.confirmation`, which raises a claim its
premise's dates or numbers bear out above the threshold. Read here as the rules are; on
RAGBench a confirmed claim of an unfaithful response is the likely error."""


def findings(items: list[dict], claims: list[list[str]], rules: tuple[str, ...],
             both: re.Pattern | None = None, claimed: re.Pattern | None = None,
             only: set[tuple[int, str]] | None = None) -> tuple[dict[str, list[dict]], int]:
    """Per rule, each flagged claim: ``{"item", "claim", "label", "reason"}`` (the first
    sentence's); and how many (claim, unit) pairs were read (with ``both``, only those where
    claim and unit both match it; with ``claimed``, only the claims that match it, against
    every unit)."""
    from localeval.text.contrast_rules import confirmation, contrast

    def read(rule: str, text: str, unit: str, context: str) -> str | None:
        return confirmation(text, unit) if rule == CONFIRMATION else contrast(text, unit, context, (rule,))

    out: dict[str, list[dict]] = {rule: [] for rule in rules}
    pairs = 0
    for index, (item, texts) in enumerate(zip(items, claims)):
        units = [(unit, context) for context in item["contexts"] for unit in short_units(context)
                 if both is None or both.search(unit)]
        for text in texts:
            if any(p is not None and not p.search(text) for p in (both, claimed)) or (
                    only is not None and (index, text) not in only):
                continue
            pairs += len(units)
            for rule in rules:
                reason = next((r for unit, context in units if (r := read(rule, text, unit, context))), None)
                if reason:
                    out[rule].append({"item": index, "claim": text, "label": item["label"], "reason": reason})
    return out, pairs


def short_units(context: str) -> list[str]:
    """Every run of `DEFAULT_UNIT_SENTENCES` consecutive sentences: the short units a metric's
    contrast rules read (`localeval.evidence.attribution`; its windows are not read here)."""
    from localeval.evidence.attribution import DEFAULT_UNIT_SENTENCES as k
    from localeval.text.sentences import split_sentences

    sentences = split_sentences(context)
    return [context[sentences[i].start:sentences[min(i + k, len(sentences)) - 1].end]
            for i in range(max(1, len(sentences) - k + 1))] if sentences else []


def tally(found: dict[str, list[dict]], claims_by_label: Counter) -> list[dict]:
    """Flagged claims per rule and label, and per hundred claims of that label."""
    rows = []
    for rule, hits in found.items():
        counts = Counter(h["label"] for h in hits)
        for label, name in LABELS.items():
            total = claims_by_label[label]
            rows.append({"rule": rule, "label": name, "claims": total, "flagged": counts[label],
                         "per_hundred": round(100 * counts[label] / total, 2) if total else None})
    return rows


def changes(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> dict[str, dict]:
    """Per rule: the claims flagged before and not after ("quiet") and the other way ("new");
    a rule the older run did not read is left out (everything would look new)."""
    out = {}
    for rule in (r for r in after if r in before):
        old = {(h["item"], h["claim"]): h for h in before.get(rule, [])}
        new = {(h["item"], h["claim"]): h for h in after[rule]}
        out[rule] = {"quiet": [old[k] for k in old if k not in new], "new": [new[k] for k in new if k not in old]}
    return out


def run(items_by_family: dict[str, list[dict]], rules: tuple[str, ...], both: re.Pattern | None = None,
        claimed: re.Pattern | None = None, only: dict[str, set[tuple[int, str]]] | None = None) -> dict:
    from benchmarks.verdict import claims_of

    result = {}
    for family, items in items_by_family.items():
        start = time.perf_counter()
        claims = claims_of([it["text"] for it in items])
        by_label = Counter(it["label"] for it, texts in zip(items, claims) for _ in texts)
        found, pairs = findings(items, claims, rules, both, claimed, None if only is None else only.get(family, set()))
        result[family] = {"items": len(items), "claims": {LABELS[k]: v for k, v in sorted(by_label.items())},
                          "pairs_read": pairs, "table": tally(found, by_label), "findings": found,
                          "seconds": round(time.perf_counter() - start, 1)}
    return result


# ------------------------------------------------------------------ report

def markdown(result: dict) -> str:
    lines = ["# Contrast-rule findings on real retrieved text", "",
             f"Measured {result['machine']['date_utc']} on {result['machine']['cpu']}. Command: `{result['command']}`.", "",
             "Each claim read by each rule alone against every short unit of its contexts (two consecutive "
             "sentences; an upper bound on what "
             "a metric run can overrule; no judge). RAGBench labels are the response's adherence: most "
             "claims of a faithful response are supported, so a rule flagging them as often as claims of "
             "unfaithful ones is mostly wrong there. `confirmation` (if listed) is the other way round: it "
             "raises a claim, so confirming claims of unfaithful responses is its likely error.", ""]
    if result.get("both_match"):
        lines += [f"Only the (claim, unit) pairs where both match `{result['both_match']}` (case-insensitive) "
                  "were read: the counts are of claims flagged among those.", ""]
    if result.get("flagged_only"):
        lines += [f"Only the claims `{result['before']}` flagged were re-read (`--flagged`): exact for a change that "
                  "can only quiet a rule; the counts assume it newly flags nothing.", ""]
    if result.get("claim_match"):
        lines += [f"Only the claims that match `{result['claim_match']}` (case-insensitive) were read, each "
                  "against every unit: the counts are of claims flagged among those.", ""]
    for family, res in result["families"].items():
        lines += [f"## {family} ({res['items']} items; claims: " +
                  ", ".join(f"{k} {v}" for k, v in res["claims"].items()) +
                  (f"; (claim, unit) pairs read: {res['pairs_read']}" if "pairs_read" in res else "") + ")", "",
                  "| rule | label | claims | flagged | per hundred claims |", "|---|---|---|---|---|"]
        lines += [f"| {r['rule']} | {r['label']} | {r['claims']} | {r['flagged']} | {r['per_hundred']} |"
                  for r in res["table"]]
        moved = result.get("changes", {}).get(family)
        if moved:
            lines += ["", f"Against `{result['before']}`:", "",
                      "| rule | label | went quiet | newly flagged |", "|---|---|---|---|"]
            for rule, ch in moved.items():
                for label in LABELS.values():
                    quiet = sum(LABELS[h["label"]] == label for h in ch["quiet"])
                    new = sum(LABELS[h["label"]] == label for h in ch["new"])
                    lines.append(f"| {rule} | {label} | {quiet} | {new} |")
            for rule, ch in moved.items():
                for kind in ("quiet", "new"):
                    if ch[kind]:
                        lines += ["", f"{rule}, {'went quiet' if kind == 'quiet' else 'newly flagged'}:", ""]
                        lines += [f"- ({LABELS[h['label']]}) {h['claim'][:160]} -- {h['reason'][:120]}" for h in ch[kind]]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--families", default="ragbench,frank", help="comma-separated families of benchmarks/verdict.py")
    p.add_argument("--rules", default="polarity,negated,order",
                   help=f"comma-separated contrast rules, or {CONFIRMATION!r} (what raises a claim)")
    add_data_dir(p, sub="meta-eval")
    p.add_argument("--before", type=Path, default=None, help="an older run's JSON to compare against")
    p.add_argument("--flagged", action="store_true",
                   help="re-read only the claims the --before run flagged (for a change that can only quiet a rule)")
    p.add_argument("--output", type=Path, default=REPO_ROOT / "benchmarks/results/rule_findings.json")
    p.add_argument("--both-match", default=None, metavar="REGEX",
                   help="read only the (claim, unit) pairs where both match this regular expression (case-insensitive)")
    p.add_argument("--claim-match", default=None, metavar="REGEX",
                   help="read only the claims that match this regular expression (case-insensitive), against every unit")
    args = p.parse_args(argv)
    both, claimed = (_pattern(flag, value) for flag, value in (("--both-match", args.both_match),
                                                                  ("--claim-match", args.claim_match)))
    before = json.loads(args.before.read_text(encoding="utf-8")) if args.before else None
    if args.flagged and before is None:
        raise SystemExit("--flagged re-reads the claims a --before run flagged: name that run")
    for key, flag in (("both_match", "--both-match"), ("claim_match", "--claim-match")):
        if before is not None and before.get(key) != getattr(args, key):
            # (a narrower run against a wider one would list every claim outside it as gone quiet)
            raise SystemExit(f"{args.before} read the pairs of {flag} {before.get(key)!r}, "
                             f"this run {getattr(args, key)!r}: compare runs that read the same pairs")

    from benchmarks.verdict import FAMILIES, load_items
    from localeval.text.contrast_rules import CONTRAST_RULES

    families = tuple(f for f in args.families.split(",") if f)
    rules = tuple(r for r in args.rules.split(",") if r)
    unknown = [r for r in rules if r not in (*CONTRAST_RULES, CONFIRMATION)]
    if unknown:
        raise SystemExit(f"unknown rule(s) {unknown}; the contrast rules are {list(CONTRAST_RULES)}, "
                         f"and {CONFIRMATION!r}")
    missing = [f for f in families if f not in FAMILIES]
    if missing:
        raise SystemExit(f"unknown family(ies) {missing}; benchmarks/verdict.py has {list(FAMILIES)}")
    items = load_items(args.data_dir, None, families)
    only = {f: {(h["item"], h["claim"]) for rule in rules for h in before["families"].get(f, {}).get("findings", {}).get(rule, [])}
            for f in families} if args.flagged else None
    result = {"command": command_line("python benchmarks/studies/rule_findings.py", argv),
              "machine": describe_machine(), "rules": list(rules), "both_match": args.both_match,
              "claim_match": args.claim_match, "flagged_only": args.flagged,
              "families": run({f: items[f] for f in families}, rules, both, claimed, only)}
    if before is not None:
        result["before"] = portable_path(args.before)
        result["changes"] = {f: changes(before["families"][f]["findings"], res["findings"])
                             for f, res in result["families"].items() if f in before["families"]}
    publish(args.output, result, markdown(result))
    return 0


def _pattern(flag: str, value: str | None) -> re.Pattern | None:
    try:
        return re.compile(value, re.IGNORECASE) if value else None
    except re.error as e:
        raise SystemExit(f"{flag} is no regular expression: {e}")


if __name__ == "__main__":
    raise SystemExit(main())
