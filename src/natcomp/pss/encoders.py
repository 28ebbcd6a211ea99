"""Per-encoder settings of the PSS experiment and the paper's figures each encoder row stands beside.

Light on purpose (no torch): the workflow's rule files import it while the DAG is built.

Learning rates (section 3.1): "static hyperparameter configurations (learning rate=2e-5 for
BERT and 3e-3 for others)", for both modes; :func:`learning_rate_for`.

Layer and length per mode (:func:`layer_and_length_for`): FB reads an encoder's ``layer`` and
``max_length`` (for BERT, bert-as-service's defaults: the second-to-last layer, 25 tokens, as
the paper embedded it); FT reads the encoder's ``fine_tune`` overrides, else the model's last
layer and a length that cuts no sentence (bert-as-service cannot fine-tune, and the paper names
no FT setting; docs/pss_tre.md); ``ft_fb`` is FT reading its sentences as FB does (FB's layer
and length), so that FB -> ``ft_fb`` changes only the training, as the paper describes FT.

Table 1 of Bhathena, Willis & Dass (2020), typed from the paper into resources/pss/published.tsv:
:func:`paper_table1`, keyed by (paper encoder, head, mode); :func:`paper_figures` gives the row
an encoder stands in for.
"""

from __future__ import annotations

from functools import lru_cache

from collections.abc import Mapping

__all__ = [
    "FINE_TUNED_MODES",
    "FINE_TUNE_LAYER",
    "MODES",
    "PAPER_ENCODERS",
    "PAPER_MODE",
    "layer_and_length_for",
    "learning_rate_for",
    "paper_figures",
    "paper_table1",
]


@lru_cache(maxsize=1)
def paper_table1() -> dict[tuple[str, str, str], tuple[float, float, float]]:
    """(test accuracy, PSS, relative PSS) in percent, by (paper encoder, head, mode): the
    paper's Table 1 as typed in resources/pss/published.tsv (rows ``BERT Linear FB`` ...)."""
    from natcomp.published import paper_values, published_path, read_published

    values = paper_values(read_published(published_path("pss")))
    table = {}
    for (_, label, _), _ in values.items():
        encoder, head, mode = label.rsplit(" ", 2)
        table[(encoder, head.lower(), mode.lower())] = tuple(
            values[("Table 1", label, column)] for column in ("Test Accuracy", "PSS", "Relative")
        )
    return table


#: The paper's four encoders, the values of an encoder's ``stands_in_for``.
PAPER_ENCODERS = ("BERT", "ELMo", "USE DAN", "USE Transformer")
#: The modes of a row: FB (frozen encoder), FT (fine-tuned, its own layer and length) and
#: ft_fb (fine-tuned, reading its sentences with FB's layer and length).
MODES = ("fb", "ft", "ft_fb")
#: the modes that fine-tune the encoder
FINE_TUNED_MODES = ("ft", "ft_fb")
#: the paper's Table 1 mode a row stands beside: both fine-tuned rows are the paper's FT
PAPER_MODE = {"fb": "fb", "ft": "ft", "ft_fb": "ft"}


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")


def learning_rate_for(encoder: Mapping[str, object], mode: str, shared: float) -> float:
    """The learning rate of one encoder's heads in ``mode`` (``fb`` or ``ft``).

    An encoder's ``learning_rate`` applies to both modes (the paper's rate is per encoder);
    ``fine_tune_learning_rate`` overrides it for FT only; without either, the mode's shared
    rate ``shared`` (``frozen.learning_rate`` or ``fine_tune.learning_rate``).
    """
    _check_mode(mode)
    own = encoder.get("fine_tune_learning_rate") if mode in FINE_TUNED_MODES else None
    if own is None:
        own = encoder.get("learning_rate")
    return float(shared if own is None else own)


#: The layer FT pools where an encoder's ``fine_tune.layer`` does not say: the model's last,
#: the layer its pre-training (and fine-tuning) shapes.
FINE_TUNE_LAYER = -1


def layer_and_length_for(
    encoder: Mapping[str, object], mode: str, shared_max_length: int | None
) -> tuple[int, int | None]:
    """``(layer, max_length)`` one encoder's sentences are read with in ``mode`` (:data:`MODES`).

    FB and ``ft_fb``: the encoder's ``layer`` (default -1) and ``max_length``, else
    ``shared_max_length`` (``embed.max_length``). FT does not inherit them: the encoder's
    ``fine_tune.layer``, else :data:`FINE_TUNE_LAYER` (-1), and its ``fine_tune.max_length``,
    else ``shared_max_length`` (``fine_tune.max_length``); a ``max_length`` of None means "the
    longest sentence, capped at the model's positions", found where the job runs
    (:func:`natcomp.pss.lengths.sentence_lengths`).
    """
    _check_mode(mode)
    if mode in ("fb", "ft_fb"):
        layer, own = encoder.get("layer"), encoder.get("max_length")
        default_layer = -1
    else:
        settings = encoder.get("fine_tune") or {}
        layer, own = settings.get("layer"), settings.get("max_length")
        default_layer = FINE_TUNE_LAYER
    return (
        int(default_layer if layer is None else layer),
        shared_max_length if own is None else int(own),
    )


def paper_figures(stands_in_for: str | None, head: str, mode: str) -> dict[str, object]:
    """``paper_encoder``, ``paper_accuracy``, ``paper_pss``, ``paper_relative_pss`` of the Table 1
    row an encoder stands in for (empty figures where the paper has no such row, or for none);
    both fine-tuned modes stand beside the paper's FT (:data:`PAPER_MODE`)."""
    figures = paper_table1().get((stands_in_for, head, PAPER_MODE[mode])) if stands_in_for else None
    accuracy, pss, relative = figures if figures else (None, None, None)
    return {
        "paper_encoder": stands_in_for or "",
        "paper_accuracy": accuracy,
        "paper_pss": pss,
        "paper_relative_pss": relative,
    }
