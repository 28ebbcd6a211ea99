"""One train/test split of one kind and seed, checked before it is written."""

from pathlib import Path

from natcomp.plane import splits
from natcomp.plane.pipeline import write_split
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    kind = snakemake.wildcards.kind
    options = {k: v for k, v in dict(snakemake.params.settings).items() if k != "enabled"}
    write_split(
        Path(snakemake.input.item_table).parent,
        kind,
        int(snakemake.wildcards.seed),
        splits.split_settings(kind, options),
        snakemake.output.train,
        snakemake.output.test,
    )
