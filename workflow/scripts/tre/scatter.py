"""TRE against WNS, one panel per encoder and length setting (the setting named where an encoder
has two)."""

from collections import Counter

from natcomp.rulelog import logged
from natcomp.tre.correlation import scatter_figure
from natcomp.tre.experiment import SCORE_COLUMNS
from natcomp.tsv import read_tsv

with logged(snakemake.log[0]) as log:
    settings = Counter(encoder for encoder, _ in snakemake.params.runs)
    frames = {
        (f"{encoder}, max_length {length}" if settings[encoder] > 1 else encoder): read_tsv(path, SCORE_COLUMNS)
        for (encoder, length), path in zip(snakemake.params.runs, snakemake.input)
    }
    scatter_figure(frames, snakemake.output[0], score="wns")
    log.info("scatter of %s -> %s", "; ".join(frames), snakemake.output[0])
