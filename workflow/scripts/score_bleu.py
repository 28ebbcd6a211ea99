import natcomp_on_path  # noqa: F401
from natcomp.bleu import write_bleu
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w = snakemake.wildcards
    inputs = snakemake.input
    keys = {"size": w.size, "seed": w.seed, "split": w.split}
    score = write_bleu(inputs.hypotheses, inputs.references, snakemake.params.target, keys, snakemake.output[0])
    log.info("BLEU %.2f", score)
