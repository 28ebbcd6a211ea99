"""Label agreement, block structure and train/test disjointness of the released splits."""

from natcomp.plane.pipeline import check_released
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    check_released(list(snakemake.input), snakemake.params.seeds, snakemake.output[0])
