import natcomp_on_path  # noqa: F401
from natcomp.manual_analysis import sample_sheet, write_tsv
from natcomp.mt_tables import read_scores
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    params = snakemake.params
    for family in ("systematicity", "substitutivity"):
        scores = read_scores(snakemake.input[family])
        sheet = sample_sheet(scores, family, params.pairs, params.seed)
        write_tsv(sheet, snakemake.output[family])
        log.info("%s: %d inconsistent pairs sampled", family, len(sheet))
