"""BLEU of the translations of a test set, two ways, and the BLEU table.

* ``bleu_sacrebleu``: sacrebleu's corpus BLEU of the detokenised translations against the
  raw references, with its default 13a tokenisation (paper section 3.1 names SacreBLEU);
  ``sacrebleu_signature`` records its exact settings.
* ``bleu_tokenised``: the BLEU the paper's Table 9 reports (appendix E.1: the data
  "tokenised with the Moses tokenisation script", scores from ``fairseq-generate``).
  fairseq-generate (``--remove-bpe``, default ``--scoring bleu``) scores the BPE-removed,
  still Moses-tokenised hypothesis against the Moses-tokenised reference, split on white
  space, as plain corpus BLEU-4 (brevity penalty, no smoothing, case-sensitive). Here
  hypotheses and references are Moses-tokenised with the tokeniser that made the training
  corpus (:func:`natcomp.mt.preprocess.tokenise`) and scored by sacrebleu with
  ``tokenize="none"`` and ``smooth_method="none"``, which is that computation;
  ``tokenised_signature`` records it. The hypothesis is the detokenised translation
  tokenised again, so a pretrained system (whose output is never Moses-tokenised) is
  scored the same way as a trained model.

The two differ because the 13a tokeniser and Moses split text differently (Moses splits
``'s`` and hyphens in numbers, escapes ``&``, ...), so only ``bleu_tokenised`` is
comparable with Table 9.

The BLEU table (:func:`gather_bleu`) has a row per model (``kind`` ``model``) and split,
and per corpus size of the trained models and split a ``size_mean`` row: each score's
mean over the size's seeds and, in ``<score>_sd``, their sample standard deviation (n - 1,
as natcomp's other seed sds; empty for a single seed), its seed empty and ``seeds`` the
number of seeds. Section 3.1 reports such a mean and sd per size ("20.6±.4" for small, on
devtest), which stand beside the mean row as ``paper_bleu_sacrebleu`` and
``paper_bleu_sacrebleu_sd``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from sacrebleu.metrics import BLEU

from natcomp.errors import InputError
from natcomp.files import read_lines
from natcomp.mt.preprocess import moses_language, tokenise
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.tables import nullable_integers, order_rows
from natcomp.published import add_paper_columns
from natcomp.tsv import read_tsv, write_tsv

#: the columns of a BLEU file and of the BLEU table: the model (``system``; a trained
#: model's corpus size and seed, empty for a pretrained system), the FLORES split, the
#: sacrebleu score and its signature, the tokenised (Table 9) score and its signature, and
#: how the model decoded
BLEU_COLUMNS = [
    "system",
    "size",
    "seed",
    "split",
    "bleu_sacrebleu",
    "sacrebleu_signature",
    "bleu_tokenised",
    "tokenised_signature",
    "decode_signature",
]
#: the score columns of :data:`BLEU_COLUMNS`
SCORE_COLUMNS = ["bleu_sacrebleu", "bleu_tokenised"]
#: the signature columns of :data:`BLEU_COLUMNS`
SIGNATURE_COLUMNS = ["sacrebleu_signature", "tokenised_signature", "decode_signature"]
#: a score's standard deviation over seeds is the column ``<score><SD_SUFFIX>``
SD_SUFFIX = "_sd"
#: the ``kind`` of a BLEU table row: one model's scores (a trained model's, of one size and
#: seed, or a pretrained system's), or the mean and sd over the seeds of one corpus size
MODEL_ROW = "model"
SIZE_MEAN_ROW = "size_mean"
#: the columns of the BLEU table (:func:`gather_bleu`): :data:`BLEU_COLUMNS` with the row's
#: ``kind``, the number of ``seeds`` a ``size_mean`` row is over (empty on a model row)
#: and each score's sd over those seeds (empty on a model row, and for a single seed)
BLEU_TABLE_COLUMNS = [
    "system",
    "size",
    "seed",
    "split",
    "kind",
    "seeds",
    "bleu_sacrebleu",
    "bleu_sacrebleu" + SD_SUFFIX,
    "sacrebleu_signature",
    "bleu_tokenised",
    "bleu_tokenised" + SD_SUFFIX,
    "tokenised_signature",
    "decode_signature",
]
#: the columns that name a row of the BLEU table (the ``our_row`` of resources/mt/published.tsv)
BLEU_KEYS = ["system", "size", "seed", "split"]


def sacrebleu_tokenize(target_lang: str) -> str | None:
    """sacrebleu's tokeniser for a target language: the ``sacrebleu_tokenize`` field of
    ``resources/mt/languages/<code>.yaml`` (``13a`` for the shipped languages); None
    (sacrebleu's own default for ``trg_lang``) for a code without a resource file."""
    from natcomp.errors import ConfigError
    from natcomp.mt.languages import load_language

    try:
        return load_language(target_lang).sacrebleu_tokenize
    except ConfigError:
        return None


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str], target_lang: str) -> tuple[float, str]:
    """sacrebleu's corpus BLEU with the target language's tokeniser (:func:`sacrebleu_tokenize`,
    13a for the shipped languages) and its signature, which names the tokeniser (``tok:13a``)."""
    metric = BLEU(trg_lang=target_lang, tokenize=sacrebleu_tokenize(target_lang))
    score = metric.corpus_score(list(hypotheses), [list(references)])
    return score.score, str(metric.get_signature())


def tokenised_corpus_bleu(hypotheses: Sequence[str], references: Sequence[str], target_lang: str) -> tuple[float, str]:
    """Corpus BLEU of the Moses-tokenised hypotheses and references, scored on their
    white-space tokens as fairseq-generate scores (no further tokenisation, no smoothing),
    and its signature: ``moses:<lang>|`` and sacrebleu's."""
    metric = BLEU(tokenize="none", smooth_method="none")
    tokenised_hypotheses = [tokenise(h, target_lang) for h in hypotheses]
    tokenised_references = [tokenise(r, target_lang) for r in references]
    score = metric.corpus_score(tokenised_hypotheses, [tokenised_references])
    return score.score, f"moses:{moses_language(target_lang)}|{metric.get_signature()}"


def write_bleu(
    translations: Mapping[str, str],
    sources_path: str | Path,
    references_path: str | Path,
    target_lang: str,
    keys: Mapping[str, object],
    output: str | Path,
) -> dict[str, object]:
    """Score the translations of a test set's sources against its references.

    ``translations`` maps each source sentence to its translation; the result is a
    one-row TSV with ``keys`` (the model and, as ``decode_signature``, how it decoded) and
    both BLEU scores with their signatures (:data:`BLEU_COLUMNS`); returns the scores and
    signatures written.
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
    hypotheses = [translations[s] for s in sources]
    bleu, signature = corpus_bleu(hypotheses, references, target_lang)
    tokenised, tokenised_signature = tokenised_corpus_bleu(hypotheses, references, target_lang)
    scores = {
        "bleu_sacrebleu": round(bleu, 2),
        "sacrebleu_signature": signature,
        "bleu_tokenised": round(tokenised, 2),
        "tokenised_signature": tokenised_signature,
    }
    write_tsv(output, [{**keys, **scores}])
    return scores


def size_means(models: pd.DataFrame) -> pd.DataFrame:
    """The ``size_mean`` rows of the BLEU table's model rows ``models``: per corpus size of
    the trained models and split (in first-seen order), each score's mean over the seeds
    and its sample standard deviation (n - 1; missing for a single seed), ``seeds`` the
    number of seeds and the seed missing. A signature column keeps the value every seed
    shares and is empty where they differ (``decode_signature``: one checkpoint each)."""
    trained = models[models["system"] == TRAINED_SYSTEM]
    rows = []
    for (size, split), group in trained.groupby(["size", "split"], sort=False):
        row: dict[str, object] = {
            "system": TRAINED_SYSTEM,
            "size": size,
            "seed": pd.NA,
            "split": split,
            "kind": SIZE_MEAN_ROW,
            "seeds": len(group),
        }
        for column in SCORE_COLUMNS:
            row[column] = float(group[column].mean())
            row[column + SD_SUFFIX] = float(group[column].std(ddof=1)) if len(group) > 1 else float("nan")
        for column in SIGNATURE_COLUMNS:
            values = group[column].unique()
            row[column] = values[0] if len(values) == 1 else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=BLEU_TABLE_COLUMNS)


def gather_bleu(
    paths: Sequence[str | Path],
    output: str | Path,
    *,
    sizes: Sequence[str] = (),
    systems: Sequence[str] = (),
    published: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Concatenate one-row BLEU files into the BLEU table (:data:`BLEU_TABLE_COLUMNS`),
    rows ordered like the other MT tables (:func:`natcomp.mt.tables.order_rows`): the
    trained models (``sizes`` in config order, seeds), then the pretrained ``systems`` in
    config order, each by split. A pretrained system's size and seed stay empty. Each
    corpus size ends with its ``size_mean`` rows (:func:`size_means`), one per split; a
    reader that wants the models takes the rows of ``kind`` :data:`MODEL_ROW`.

    With ``published`` (resources/mt/published.tsv), the paper's Table 9 score of the same
    size, seed and split stands beside ``bleu_tokenised`` as ``paper_bleu_tokenised``, and
    section 3.1's devtest mean and sd of a size beside that size's devtest mean row as
    ``paper_bleu_sacrebleu`` and ``paper_bleu_sacrebleu_sd`` (no such column when no row
    is in the paper). No files (``mt.bleu.splits: []``, a run without references) give
    the table's header alone."""
    if not paths:
        table = pd.DataFrame(columns=BLEU_TABLE_COLUMNS)
        write_tsv(output, table)
        return table
    models = pd.concat([read_tsv(p, BLEU_COLUMNS) for p in paths], ignore_index=True)
    models = models.astype(dict.fromkeys(SCORE_COLUMNS, float)).assign(
        seed=nullable_integers(models["seed"]),
        kind=MODEL_ROW,
        seeds=pd.NA,
        **{column + SD_SUFFIX: float("nan") for column in SCORE_COLUMNS},
    )
    table = pd.concat([models[BLEU_TABLE_COLUMNS], size_means(models)], ignore_index=True)
    scores = [*SCORE_COLUMNS, *(column + SD_SUFFIX for column in SCORE_COLUMNS)]
    table = table.astype({"seed": "Int64", "seeds": "Int64", **dict.fromkeys(scores, float)})
    # a size's mean rows (seed missing) sort after its seeds
    table = order_rows(table, BLEU_KEYS, sizes, systems)[BLEU_TABLE_COLUMNS]
    if published is not None:
        table = add_paper_columns(table, published, "bleu", BLEU_KEYS)
    write_tsv(output, table)
    return table
