"""Embeddings of text sets by one encoder (PSS and TRE): one .npy per input TSV, the model loaded once.

params: ``encoder`` (model, pooling, normalize, layer), ``columns`` (per input, the columns
embedded in turn), ``embed`` (batch_size, max_length, device), ``key`` (the config key named
in errors about the model).
"""

from natcomp import hf
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    hf.set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    spec = hf.EncoderSpec(**snakemake.params.encoder)
    inputs = list(zip(snakemake.input.texts, snakemake.params.columns))
    shapes = hf.embed_text_files(
        spec, inputs, list(snakemake.output), settings=snakemake.params.embed, key=snakemake.params.key
    )
    for (path, _), output, shape in zip(inputs, snakemake.output, shapes):
        log.info("%s: %s -> %s %s", spec, path, output, list(shape))
