"""The base of every metric that asks the NLI judge, and the verdict it gives on a claim.

`JudgedMetric` holds the judge options every judged metric shares (one frozen `RunOptions`),
the order in which a decision's threshold is chosen, and `judge_claims`, which asks the judge
about claims against premises (`localeval.evidence.attribution.attribute`) and answers with a
`ClaimAttribution` per claim.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from localeval.judge import NLIJudge, get_judge
from localeval.judge.batching import judge_by_key
from localeval.evidence.attribution import DEFAULT_LOCATE, DEFAULT_MAX_UNITS, Evidence, attribute
from localeval.evidence.candidates import DEFAULT_SELECTOR, Selector, get_selector
from localeval.metrics.base import Metric
from localeval.metrics.decomposed import ClaimUnit
from localeval.metrics.pieced import ClaimPart, parts_credit
from localeval.metrics.thresholds import ThresholdChoice, choose_threshold, with_verdict
from localeval.catalog import SCORING_OPTIONS
from localeval.options import RunOptions
from localeval.judge.session import JudgeSession

__all__ = ["METRIC_KEYWORDS", "SCORING_OPTIONS", "ClaimAttribution", "JudgedMetric", "RelevanceThresholdArgument"]


METRIC_KEYWORDS = frozenset({"batch_size", "thresholds", *SCORING_OPTIONS})
"""The `RunOptions` fields a judged metric also takes as keywords."""


def _option_view(name: str) -> property:
    """A read-only attribute that is one field of a metric's frozen `RunOptions`."""
    return property(lambda self: getattr(self._options, name), doc=f"``RunOptions.{name}`` of the metric's options.")


class ClaimAttribution(BaseModel):
    """One claim and the judge's verdict on it."""

    text: str
    start: int | None
    end: int | None
    """Character span of the claim in the text it was split from; ``None`` for a claim a
    model wrote that does not appear verbatim in the text."""
    attributed: bool
    probability: float
    evidence: Evidence | None = None
    """Best-supporting sentence of the contexts (given even when below the threshold)."""
    contrast: str | None = None
    """Why the unit the judge liked best did not decide: a contrast rule found that it states
    the opposite of the claim ("number: the claim's 18 is not in the evidence, which states
    8"); ``None`` when no rule overruled the judge."""
    judge_probability: float | None = None
    """With a learned verdict stored with the judge (`NLIJudge.verdict`): the judge's own
    P(entailment) of the best unit, while ``probability`` is the verdict's P(supported)."""
    deciding: list[str] | None = None
    """With a learned verdict: the signals that moved it most, strongest first
    (``"coverage_all +0.82"``: it pushed towards supported)."""
    parts: list[ClaimPart] | None = None
    """When no single unit supported the whole claim: its atomic parts, each judged against
    every unit of every context with its own verdict and evidence (`localeval.metrics.pieced`);
    ``None`` when the claim was supported whole or has nothing to split."""
    pieced: bool = False
    """Supported by its parts, each by some unit, though no single unit supported it whole."""

    @property
    def credit(self) -> float:
        """What the claim counts for where parts are counted: 1.0 when supported, else the
        share of its atomic parts that are supported (`parts_credit`: 0.0 without parts or
        when a part is contradicted)."""
        return 1.0 if self.attributed else parts_credit(self.parts)

    @property
    def failed_parts(self) -> list[str]:
        """The parts no unit supports (of a claim that was judged by parts)."""
        return [p.text for p in self.parts or [] if not p.attributed]


class JudgedMetric(Metric):
    """A metric that asks the NLI judge; holds the judge options every such metric shares.

    Args:
        model: judge name, local model directory, or a loaded `NLIJudge`; ``None`` = the
            default judge shipped in ``models/``.
        threshold: probability at which the judge's verdict counts as yes; ``None`` uses the
            threshold stored with the judge (tuned on development data).
        device: ``"cpu"``, ``"cuda"``, or ``None`` for automatic.
        batch_size: pairs per judge forward pass.
        max_units: claims are judged against at most this many units (sentence runs and
            windows) of the contexts, those sharing most of the claim's words; ``None``: every
            unit (slower on long contexts; see `localeval.evidence.attribution`).
        exhaustive: judge every chosen unit of a claim even when its closest unit already
            passes the threshold. Verdicts and scores are the same either way; with the
            default (``False``) an attributed claim reports the probability of the unit that
            accepted it (at least the threshold) rather than its highest one, for far fewer
            judge calls. Set it when you need each claim's highest probability, e.g. to
            re-threshold results afterwards.
        thresholds: the run's threshold table (``{"entailment": 0.7, "faithfulness": 0.6}``,
            `localeval.options.RunOptions.thresholds`): a key here beats the one stored with
            the judge (`localeval.metrics.thresholds`); ``threshold=`` beats both.
        candidates: how the ``max_units`` units of a claim are chosen (a selector of
            `localeval.evidence.candidates`).
        locate: how a claim's evidence is narrowed to one sentence: ``"words"`` (most of the
            claim's words, no judge call) or ``"judge"`` (each sentence judged).
        contrasts: let rules overrule the judge on a unit that states another number or unit,
            the opposite direction or state, or negates what the claim affirms
            (`localeval.text.contrast_rules`); ``False``: the judge alone.
        screen: context relevance decides sentences sharing no content word with the
            question without the judge; ``False``: every sentence judged.
        options: the run's `RunOptions` in place of the option keywords above (what
            `localeval.runner.run.resolve_metrics` passes); its ``model``, ``device`` and
            ``precision`` load the judge when ``model`` is not given.

    The option keywords are `RunOptions` fields: they make the metric's one frozen options
    object, which it hands whole to `attribute` (no option is copied onto the metric). A
    metric reads the options named in `options_used` (and every judged metric the judge's
    ``batch_size`` and the run's ``thresholds``); giving it another one is an error, not
    silently ignored.
    """

    threshold_kind: ClassVar[str] = "entailment"
    threshold_kinds: ClassVar[tuple[str, ...]] = ()
    """Every kind of decision the metric makes, when it makes more than ``threshold_kind``."""
    reads_verdict: ClassVar[bool] = False
    """Its entailment decisions are claims of `judge_claims`, which a learned verdict stored
    with the judge decides (`NLIJudge.verdict`)."""
    options_used: ClassVar[tuple[str, ...]] = ()
    """The `RunOptions` fields among `SCORING_OPTIONS` that change this metric's scores or
    evidence: its identity (stored results, run records) holds exactly these, and
    tests/test_metric_options.py checks that each one changes what the metric does."""

    def __init__(
        self,
        model: str | os.PathLike[str] | NLIJudge | None = None,
        *,
        threshold: float | None = None,
        device: str | None = None,
        batch_size: int | None = None,
        max_units: int | None = DEFAULT_MAX_UNITS,
        exhaustive: bool = False,
        thresholds: Mapping[str, float] | None = None,
        candidates: str | Selector = DEFAULT_SELECTOR,
        locate: str = DEFAULT_LOCATE,
        contrasts: bool = True,
        screen: bool = True,
        options: RunOptions | None = None,
    ) -> None:
        if max_units is not None and max_units < 1:
            raise ValueError(f"max_units must be >= 1 or None, got {max_units}")
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        if locate not in ("words", "judge"):
            raise ValueError(f"locate must be 'words' or 'judge', got {locate!r}")
        keywords = {key: value for key, value in locals().items() if key in METRIC_KEYWORDS}
        keywords["candidates"] = get_selector(candidates).name  # fails early on an unknown name
        self._options = self._run_options(options, keywords)
        self._model = model if model is not None else self._options.model
        self._device = device if device is not None else self._options.device
        self._judge: NLIJudge | None = model if isinstance(model, NLIJudge) else None
        self.threshold = threshold

    @classmethod
    def _run_options(cls, options: RunOptions | None, keywords: dict[str, Any]) -> RunOptions:
        """The metric's options: ``options``, or those the keywords make. A keyword changed
        from its default beside ``options=``, or one the metric does not use, is refused."""
        given = [key for key, value in keywords.items() if value != RunOptions.model_fields[key].get_default(
            call_default_factory=True) and not (key == "thresholds" and not value)]
        if options is not None:
            if given:
                raise TypeError(f"{', '.join(given)} given beside options=: put them in the RunOptions")
            return options
        unused = [key for key in given if key in SCORING_OPTIONS and key not in cls.options_used]
        if unused:
            raise TypeError(f"{cls.__name__} does not use {', '.join(unused)} (it reads: "
                            f"{', '.join(cls.options_used) or 'none of the attribution options'})")
        return RunOptions(**{key: value for key, value in keywords.items() if value is not None or key != "thresholds"})

    @property
    def options(self) -> RunOptions:
        """The frozen options the metric scores with."""
        return self._options

    def with_options(self, **changes: Any) -> JudgedMetric:
        """A copy of the metric that scores with ``changes`` to its options (``batch_size=3``);
        this one is left as it is (its options are frozen: no layer changes what another sees)."""
        unknown = sorted(set(changes) - METRIC_KEYWORDS)
        if unknown:
            raise TypeError(f"with_options takes {', '.join(sorted(METRIC_KEYWORDS))}, not {', '.join(unknown)}")
        self._run_options(None, changes)  # refuses an option this metric does not read
        changed = copy.copy(self)
        changed._options = RunOptions.model_validate({**dict(self._options), **changes})
        return changed

    # Read-only views of the options (metrics and benchmarks read ``metric.max_units``).
    batch_size = _option_view("batch_size")
    max_units = _option_view("max_units")
    exhaustive = _option_view("exhaustive")
    candidates = _option_view("candidates")
    locate = _option_view("locate")
    contrasts = _option_view("contrasts")
    screen = _option_view("screen")

    @property
    def given_thresholds(self) -> dict[str, float]:
        """The run's threshold table (`RunOptions.thresholds`), as a plain dict."""
        return dict(self._options.thresholds)

    def judge_options(self) -> dict[str, object]:
        """The judge options of this metric, for a metric it builds from parts (precision_recall,
        ragchecker, answer_correctness), so the parts judge exactly as it was asked to."""
        return {"threshold": self.threshold, "options": self._options}

    def settings(self) -> dict[str, Any]:
        """Also the judge's batch size, the run's thresholds and the options in `options_used`
        (not the others: results are not keyed on a setting that does not apply)."""
        return {**super().settings(), "batch_size": self.batch_size, "given_thresholds": self.given_thresholds,
                **{key: getattr(self._options, key) for key in self.options_used}}

    def identity(self) -> dict[str, Any]:
        """Also the judge's identity and the thresholds in force (stored with the judge or
        given)."""
        return {**super().identity(), "judge": self.judge.identity,
                "thresholds": [[kind, key, choice.value] for kind, key, choice in self.thresholds_in_force()]}

    def accept_at(self, threshold: float) -> float | None:
        """What `attribute` gets as ``accept_at`` for decisions at ``threshold``."""
        return None if self.exhaustive else threshold

    @property
    def judge(self) -> NLIJudge:
        """The judge, loaded on first use (and shared with other metrics)."""
        if self._judge is None:
            self._judge = get_judge(self._model, device=self._device, precision=self._options.dtype)
        return self._judge

    @classmethod
    def threshold_key(cls, kind: str | None = None) -> str:
        """The judge's threshold key for this metric's decision of ``kind``: the metric's
        name for its own kind (``"faithfulness"``), ``"<name>_<kind>"`` for another one
        (``"chunk_recall_relevance"``)."""
        kind = kind or cls.threshold_kind
        return cls.name if kind == cls.threshold_kind else f"{cls.name}_{kind}"

    @classmethod
    def threshold_uses(cls) -> list[tuple[str, str]]:
        """``(kind, per-metric key)`` of every decision the metric makes."""
        return [(kind, cls.threshold_key(kind)) for kind in cls.threshold_kinds or (cls.threshold_kind,)]

    def threshold_choice(self, kind: str | None = None, *, key: str | None = None) -> ThresholdChoice:
        """The threshold of a decision of ``kind`` and where it comes from: ``threshold=`` if
        given, else the order of `localeval.metrics.thresholds` (a user-given key beats a
        stored one; the per-metric ``key``, by default `threshold_key`, beats the generic one)."""
        kind = kind or self.threshold_kind
        if self.threshold is not None:
            return ThresholdChoice(self.threshold, "threshold=", "argument")
        return self._judge_threshold(kind, key)

    def _judge_threshold(self, kind: str, key: str | None = None) -> ThresholdChoice:
        """The judge's side of the order: given, then stored (see `threshold_choice`). Claims
        decided by a learned verdict (`judge_claims`) fall back to the verdict's own threshold,
        not to the generic one of raw P(entailment)."""
        verdict = self.judge.verdict if self.reads_verdict else None
        stored = with_verdict(self.judge.thresholds, None if verdict is None else verdict.threshold)
        return choose_threshold(stored, self.given_thresholds, key or self.threshold_key(kind), kind)

    def thresholds_in_force(self) -> list[tuple[str, str, ThresholdChoice]]:
        """``(kind, per-metric key, choice)`` of each decision (what a run's metadata records)."""
        return [(kind, key, self.threshold_choice(kind, key=key)) for kind, key in self.threshold_uses()]

    def resolved_threshold(self, kind: str | None = None) -> float:
        """The value of `threshold_choice`."""
        return self.threshold_choice(kind).value


    def judge_claims(
        self,
        groups: Sequence[tuple[Sequence[ClaimUnit], Sequence[str]]],
        threshold: float,
        *,
        session: JudgeSession | None = None,
        show_progress_bar: bool = False,
        unit_sentences: int | None = None,
    ) -> list[list[ClaimAttribution]]:
        """Per ``(claims, premises)`` group: each claim with the verdict of the premises on it
        (`attribute`: best unit of any premise, evidence sentence). All groups go to the judge
        in one call; a group without claims gives ``[]``. ``unit_sentences``: sentences per
        short unit (`attribute`'s; ``None``: its default)."""
        by_group = judge_by_key(
            lambda batch: attribute(
                self.judge, batch, session=session, options=self._options, show_progress_bar=show_progress_bar,
                accept_at=self.accept_at(threshold), verdict=self.judge.verdict if self.reads_verdict else None,
                **({} if unit_sentences is None else {"unit_sentences": unit_sentences}),
            ),
            {i: ([c.text for c in claims], list(premises)) for i, (claims, premises) in enumerate(groups) if claims},
        )
        return [
            [
                ClaimAttribution(
                    text=claim.text,
                    start=claim.start,
                    end=claim.end,
                    attributed=support.evidence is not None and support.probability >= threshold,
                    probability=round(support.probability, 6),
                    evidence=support.evidence,
                    contrast=support.contrast,
                    judge_probability=None if support.judge_probability is None else round(support.judge_probability, 6),
                    deciding=support.deciding,
                )
                for claim, support in zip(claims, by_group.get(i, []))
            ]
            for i, (claims, _) in enumerate(groups)
        ]


class RelevanceThresholdArgument:
    """For a judged metric whose own decision is entailment and that also decides relevance
    (chunk recall, TRACe completeness): ``threshold`` sets the entailment threshold only, and
    a ``relevance_threshold`` argument, when given, the relevance one; otherwise the judge's
    order (`JudgedMetric._judge_threshold`). Listed before the metric's base class."""

    relevance_threshold: float | None = None

    def threshold_choice(self, kind: str | None = None, *, key: str | None = None) -> ThresholdChoice:
        if kind == "relevance":
            if self.relevance_threshold is not None:
                return ThresholdChoice(self.relevance_threshold, "relevance_threshold=", "argument")
            return self._judge_threshold(kind, key)  # type: ignore[attr-defined]
        return super().threshold_choice(kind, key=key)  # type: ignore[misc]
