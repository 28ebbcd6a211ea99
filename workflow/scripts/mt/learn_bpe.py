from natcomp.mt.preprocess import learn_joint_bpe
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    learn_joint_bpe(
        [inputs.source, inputs.target],
        snakemake.output[0],
        params.merges,
        workers=snakemake.threads,
        min_frequency=params.min_frequency,
    )
    log.info("learned %d joint BPE merges (min frequency %d)", params.merges, params.min_frequency)
