import tempfile
from pathlib import Path

from natcomp.mt.preprocess import concatenate, shuffle_parallel
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    out = snakemake.output
    with tempfile.TemporaryDirectory(dir=Path(out.source).parent) as tmp:
        joined = [Path(tmp) / "source", Path(tmp) / "target"]
        concatenate(snakemake.input.source, joined[0])
        concatenate(snakemake.input.target, joined[1])
        n = shuffle_parallel(joined, [out.source, out.target], seed=snakemake.params.seed)
    log.info("shuffled %d pairs with seed %d", n, snakemake.params.seed)
