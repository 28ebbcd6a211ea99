from natcomp.mt.nmt import train
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    params = snakemake.params
    train(
        databin=snakemake.input[0],
        workdir=params.workdir,
        best_out=snakemake.output.best,
        manifest_out=snakemake.output.manifest,
        keep_epochs=params.epochs,
        options=params.fairseq,
        seed=int(snakemake.wildcards.seed),
        source_lang=params.source,
        target_lang=params.target,
        threads=snakemake.threads,
        tokens_per_update=params.tokens_per_update,
        max_tokens=params.max_tokens,
        precision=params.precision,
        allow_tf32=params.allow_tf32,
        gpus=params.gpus,
        loading_workers=params.loading_workers,
    )
