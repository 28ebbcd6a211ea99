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
    translations: Mapping[str, str],
    sources_path: str | Path,
    references_path: str | Path,
    target_lang: str,
    keys: Mapping[str, object],
    output: str | Path,
) -> float:
    """Score the translations of a test set's sources against its references.

    ``translations`` maps each source sentence to its translation; the result is a
    one-row TSV with ``keys``, the BLEU score and sacrebleu's signature.
    """
    sources = read_lines(sources_path)
    references = read_lines(references_path)
    if len(sources) != len(references):
        raise InputError(sources_path, f"has {len(sources)} lines but the references {references_path} have {len(references)}")
    missing = [s for s in sources if s not in translations]
    if missing:
        raise InputError(sources_path, f"{len(missing)} source sentences have no translation, e.g. {missing[0]!r}")
    bleu, signature = corpus_bleu([translations[s] for s in sources], references, target_lang)
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
