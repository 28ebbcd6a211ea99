"""Sentence embeddings of text files by an encoder named in config: the one helper PSS and TRE share.

An encoder is a config entry (:class:`EncoderSpec`): a model (Hub name, local folder or a
shipped model), its pooling (``cls`` or ``mean``), ``normalize`` and ``layer`` (the hidden
states pooled: -1 the last layer, -2 the second-to-last, as bert-as-service pools by
default). :func:`embed_text_files` reads the texts of TSV files (one or more columns, each
column in turn) and writes one ``.npy`` array per file, loading the model once;
:func:`build_tiny_encoder` builds a tiny random BERT whose vocabulary covers such files.
The workflow scripts ``workflow/scripts/embed.py`` and ``workflow/scripts/tiny_encoder.py``
call these for both families.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "EncoderSpec",
    "build_tiny_encoder",
    "embed_text_files",
    "embed_text_sets",
    "embed_texts",
    "read_text_columns",
]


@dataclass(frozen=True)
class EncoderSpec:
    """What to load and how to pool it into one vector per text."""

    model: str
    pooling: str = "mean"
    normalize: bool = False
    layer: int = -1


def read_text_columns(path: str | os.PathLike, columns: Sequence[str]) -> list[str]:
    """The texts of a TSV file with a header: all of the first column, then all of the next ..."""
    from natcomp.tsv import read_tsv

    frame = read_tsv(path, tuple(columns))
    return [text for column in columns for text in frame[column].tolist()]


def embed_texts(
    spec: EncoderSpec,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    device: str = "auto",
    dtype: str = "auto",
    key: str = "model",
) -> np.ndarray:
    """Embeddings ``[len(texts), hidden]`` (float32) of ``texts`` by the encoder of ``spec``."""
    return embed_text_sets(
        spec, [texts], batch_size=batch_size, max_length=max_length, device=device, dtype=dtype, key=key
    )[0]


def embed_text_sets(
    spec: EncoderSpec,
    sets: Sequence[Sequence[str]],
    *,
    batch_size: int = 64,
    max_length: int = 128,
    device: str = "auto",
    dtype: str = "auto",
    key: str = "model",
) -> list[np.ndarray]:
    """One embedding array per list of texts, the model loaded once in the inference dtype
    of ``dtype`` on ``device`` (:func:`natcomp.hf.precision.inference_dtype`; the arrays are
    float32 whatever it is); ``key`` names the model in errors."""
    from natcomp import hf

    hf.check_model_available(spec.model, key)
    run_device = hf.device(device)
    used = hf.run_dtype(spec.model, dtype, run_device, key)
    encoder, tokenizer = hf.load_encoder(spec.model, key, dtype=used), hf.load_tokenizer(spec.model, key)
    return [
        hf.encode(
            encoder,
            tokenizer,
            list(texts),
            pooling=spec.pooling,
            normalize=spec.normalize,
            layer=spec.layer,
            batch_size=batch_size,
            max_length=max_length,
            device=run_device,
        )
        for texts in sets
    ]


def embed_text_files(
    spec: EncoderSpec,
    inputs: Sequence[tuple[str | os.PathLike, Sequence[str]]],
    outputs: Sequence[str | os.PathLike],
    *,
    settings: Mapping[str, object] | None = None,
    key: str = "model",
) -> list[tuple[int, int]]:
    """Embed the texts of each ``(tsv, columns)`` of ``inputs`` into the ``.npy`` of ``outputs``.

    ``settings``: ``batch_size``, ``max_length``, ``device`` (a family's ``embed`` section)
    and ``dtype`` (the run's).
    Arrays are written atomically; returns their shapes.
    """
    from natcomp.files import atomic_open

    if len(inputs) != len(outputs):
        raise ValueError(f"{len(inputs)} inputs for {len(outputs)} outputs; expected one output per input")
    options = {
        name: value
        for name, value in (settings or {}).items()
        if name in ("batch_size", "max_length", "device", "dtype")
    }
    texts = [read_text_columns(path, columns) for path, columns in inputs]
    arrays = embed_text_sets(spec, texts, key=key, **options)
    for array, output in zip(arrays, outputs):
        with atomic_open(output, "wb") as out:
            np.save(out, array)
    return [tuple(array.shape) for array in arrays]


def build_tiny_encoder(
    directory: str | os.PathLike,
    inputs: Sequence[tuple[str | os.PathLike, Sequence[str]]],
    tiny: Mapping[str, int],
) -> Path:
    """A tiny random BERT (``tiny``: hidden_size, layers, heads, seed) whose vocabulary covers
    every word of the texts of ``inputs`` (``(tsv, columns)`` as for :func:`embed_text_files`)."""
    from natcomp import hf

    texts = [text for path, columns in inputs for text in read_text_columns(path, columns)]
    return hf.build_tiny_model(
        directory,
        hf.words_for_vocabulary(texts),
        hidden_size=tiny["hidden_size"],
        layers=tiny["layers"],
        heads=tiny["heads"],
        seed=tiny["seed"],
    )
