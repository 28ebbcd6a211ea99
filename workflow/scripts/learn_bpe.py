import natcomp_on_path  # noqa: F401
from natcomp.preprocess import learn_joint_bpe
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs = snakemake.input
    merges = snakemake.params.merges
    learn_joint_bpe([inputs.source, inputs.target], snakemake.output[0], merges, workers=snakemake.threads)
    log.info("learned %d joint BPE merges", merges)
