"""BLEU of detokenised translations with sacrebleu, and the BLEU table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from sacrebleu.metrics import BLEU

from natcomp.errors import InputError
from natcomp.files import atomic_open, read_lines

BLEU_COLUMNS = ["size", "seed", "split", "bleu", "signature"]


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str], target_lang: str) -> tuple[float, str]:
    """sacrebleu's corpus BLEU (default 13a tokenisation) and its signature."""
    metric = BLEU(trg_lang=target_lang)
    score = metric.corpus_score(list(hypotheses), [list(references)])
    return score.score, str(metric.get_signature())


def write_bleu(
    hypotheses_path: str | Path,
    references_path: str | Path,
    target_lang: str,
    keys: Mapping[str, object],
    output: str | Path,
) -> float:
    """Score one translation file against its references; write a one-row TSV."""
    hypotheses = read_lines(hypotheses_path, allow_empty=True)
    references = read_lines(references_path)
    if len(hypotheses) != len(references):
        raise InputError(
            hypotheses_path,
            f"has {len(hypotheses)} lines but the references {references_path} have {len(references)}",
        )
    bleu, signature = corpus_bleu(hypotheses, references, target_lang)
    row = {**keys, "bleu": round(bleu, 2), "signature": signature}
    with atomic_open(output) as out:
        pd.DataFrame([row]).to_csv(out, sep="\t", index=False)
    return bleu


def gather_bleu(paths: Sequence[str | Path], output: str | Path) -> pd.DataFrame:
    """Concatenate one-row BLEU files into the BLEU table, sorted by size, seed, split."""
    table = pd.concat([pd.read_csv(p, sep="\t") for p in paths], ignore_index=True)
    missing = [c for c in BLEU_COLUMNS if c not in table.columns]
    if missing:
        raise InputError(paths[0], f"missing BLEU columns {missing}")
    table = table.sort_values(["size", "seed", "split"], kind="stable")[BLEU_COLUMNS]
    with atomic_open(output) as out:
        table.to_csv(out, sep="\t", index=False)
    return table
