from natcomp.mt.semi_natural.fragments import discodop_available, discodop_fragments, extract_fragments, write_fragments
from natcomp.rulelog import logged
from natcomp.trees import read_trees

with logged(snakemake.log[0]) as log:
    backend = snakemake.params.backend
    if backend == "auto":
        backend = "discodop" if discodop_available() else "builtin"
    if backend == "discodop":
        discodop_fragments(snakemake.input[0], snakemake.output[0], threads=snakemake.threads)
    else:
        n = write_fragments(extract_fragments(read_trees(snakemake.input[0])), snakemake.output[0])
        log.info("%d fragments", n)
    log.info("fragments extracted with the %s backend", backend)
