"""BLEU of detokenised translations with sacrebleu, and the BLEU table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from sacrebleu.metrics import BLEU

from natcomp.errors import InputError
from natcomp.files import read_lines
from natcomp.mt.tables import nullable_integers, order_rows
from natcomp.tsv import read_tsv, write_tsv

#: the columns of a BLEU file and of the BLEU table: the model (``system``; a trained
#: model's corpus size and seed, empty for a pretrained system), the FLORES split, the
#: score, sacrebleu's signature and how the model decoded
BLEU_COLUMNS = ["system", "size", "seed", "split", "bleu", "signature", "decode_signature"]


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
    one-row TSV with ``keys`` (the model and, as ``decode_signature``, how it decoded), the
    BLEU score and sacrebleu's signature.
    """
    sources = read_lines(sources_path)
    references = read_lines(references_path)
    if len(sources) != len(references):
        raise InputError(
            sources_path, f"has {len(sources)} lines but the references {references_path} have {len(references)}"
        )
    missing = [s for s in sources if s not in translations]
    if missing:
        raise InputError(sources_path, f"{len(missing)} source sentences have no translation, e.g. {missing[0]!r}")
    bleu, signature = corpus_bleu([translations[s] for s in sources], references, target_lang)
    write_tsv(output, [{**keys, "bleu": round(bleu, 2), "signature": signature}])
    return bleu


def gather_bleu(
    paths: Sequence[str | Path], output: str | Path, *, sizes: Sequence[str] = (), systems: Sequence[str] = ()
) -> pd.DataFrame:
    """Concatenate one-row BLEU files into the BLEU table, rows ordered like the other MT
    tables (:func:`natcomp.mt.tables.order_rows`): the trained models (``sizes`` in config
    order, seeds), then the pretrained ``systems`` in config order, each by split. A
    pretrained system's size and seed stay empty."""
    table = pd.concat([read_tsv(p, BLEU_COLUMNS) for p in paths], ignore_index=True)
    table = table.astype({"bleu": float}).assign(seed=nullable_integers(table["seed"]))
    table = order_rows(table, ["system", "size", "seed", "split"], sizes, systems)[BLEU_COLUMNS]
    write_tsv(output, table)
    return table
