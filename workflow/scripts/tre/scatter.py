"""TRE against WNS, one panel per encoder."""

from natcomp.rulelog import logged
from natcomp.tre.correlation import scatter_figure
from natcomp.tre.experiment import SCORE_COLUMNS
from natcomp.tsv import read_tsv

with logged(snakemake.log[0]) as log:
    frames = {
        encoder: read_tsv(path, SCORE_COLUMNS) for encoder, path in zip(snakemake.params.encoders, snakemake.input)
    }
    scatter_figure(frames, snakemake.output[0], score="wns")
    log.info("scatter of %s -> %s", ", ".join(frames), snakemake.output[0])
