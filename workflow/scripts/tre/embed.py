"""Embeddings of the SST sentences by one encoder and pooling (the cache TRE reads)."""

import numpy as np

from natcomp import hf
from natcomp.files import atomic_open
from natcomp.rulelog import logged
from natcomp.tsv import read_tsv

with logged(snakemake.log[0]) as log:
    settings, key = snakemake.params.embed, snakemake.params.key
    sentences = read_tsv(snakemake.input.sentences, ("sentence",))["sentence"].tolist()
    hf.check_model_available(snakemake.params.model, key)
    embeddings = hf.encode(
        hf.load_encoder(snakemake.params.model, key),
        hf.load_tokenizer(snakemake.params.model, key),
        sentences,
        pooling=snakemake.wildcards.pooling,
        normalize=snakemake.params.normalize,
        batch_size=settings["batch_size"],
        max_length=settings["max_length"],
        device=hf.device(settings["device"]),
    )
    with atomic_open(snakemake.output[0], "wb") as out:
        np.save(out, embeddings)
    log.info("%s: %d sentences -> %s", snakemake.params.model, len(sentences), list(embeddings.shape))
