from natcomp.mt.manual_analysis import sample_sheet
from natcomp.mt.tables import read_scores
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    params = snakemake.params
    for measurement in ("systematicity", "substitutivity"):
        scores = read_scores(snakemake.input[measurement])
        sheet = sample_sheet(scores, measurement, params.pairs, params.seed, sizes=params.sizes, systems=params.systems)
        write_tsv(snakemake.output[measurement], sheet)
        log.info("%s: %d inconsistent pairs sampled", measurement, len(sheet))
