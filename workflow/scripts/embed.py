"""Embeddings of text sets by one encoder (PSS and TRE): one .npy per input TSV, the model loaded once.

params: ``encoder`` (model, pooling, normalize, layer), ``columns`` (per input, the columns
embedded in turn), ``embed`` (batch_size, max_length, device), ``key`` and ``pooling_key``
(the config keys named in errors about the model and its pooling).
"""

from natcomp import hf
from natcomp.rulelog import logged


def check_pooling(spec, key, pooling_key):
    """Pooling 'cls' of a decoder-only model is a config error, found from the model's config
    before its weights load."""
    if spec.pooling == "cls":
        hf.check_pooling(hf.load_config(spec.model, key), spec.pooling, spec.model, pooling_key)


with logged(snakemake.log[0]) as log:
    hf.set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    spec = hf.EncoderSpec(**snakemake.params.encoder)
    check_pooling(spec, snakemake.params.key, snakemake.params.pooling_key)
    inputs = list(zip(snakemake.input.texts, snakemake.params.columns))
    shapes = hf.embed_text_files(
        spec, inputs, list(snakemake.output), settings=snakemake.params.embed, key=snakemake.params.key
    )
    for (path, _), output, shape in zip(inputs, snakemake.output, shapes):
        log.info("%s: %s -> %s %s", spec, path, output, list(shape))
