"""Embeddings of the sentence sets (train, test, pairs) by one encoder and pooling: the cache
heads and metrics read (one file per set; one job per encoder loads the model once)."""

import numpy as np

from natcomp import hf
from natcomp.files import atomic_open
from natcomp.pss.experiment import set_sentences
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    settings, key, model = snakemake.params.embed, snakemake.params.key, snakemake.params.model
    hf.check_model_available(model, key)
    encoder, tokenizer = hf.load_encoder(model, key), hf.load_tokenizer(model, key)
    for name, path, output in zip(snakemake.params.sets, snakemake.input.sentences, snakemake.output):
        sentences = set_sentences(path, name)
        embeddings = hf.encode(
            encoder,
            tokenizer,
            sentences,
            pooling=snakemake.wildcards.pooling,
            normalize=snakemake.params.normalize,
            batch_size=settings["batch_size"],
            max_length=settings["max_length"],
            device=hf.device(settings["device"]),
        )
        with atomic_open(output, "wb") as out:
            np.save(out, embeddings)
        log.info("%s, %s: %d sentences -> %s", model, name, len(sentences), list(embeddings.shape))
