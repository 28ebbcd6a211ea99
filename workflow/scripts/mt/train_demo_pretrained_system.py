import tempfile

from natcomp import hf
from natcomp.files import read_lines
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params, w = snakemake.input, snakemake.params, snakemake.wildcards
    settings = params.settings
    sources, targets = read_lines(inputs.source), read_lines(inputs.target)
    with tempfile.TemporaryDirectory() as untrained:
        hf.build_tiny_translation_model(
            untrained,
            sources,
            targets,
            family=w.family,
            source_code=params.source,
            target_code=params.target,
            vocab_size=settings["vocab_size"],
            d_model=settings["d_model"],
            layers=settings["layers"],
            seed=settings["seed"],
        )
        figures = hf.train_translation_model(
            untrained,
            sources,
            targets,
            hf.Seq2SeqTrainingSettings(
                epochs=settings["epochs"],
                batch_size=settings["batch_size"],
                learning_rate=settings["learning_rate"],
                seed=settings["seed"],
                threads=snakemake.threads,
            ),
            snakemake.output[0],
        )
    log.info("trained a tiny %s on %d sentence pairs: %s", w.family, len(sources), figures)
