"""AN phrases -> the PLANE resource (phrases, hypernyms, chains) and its items."""

from pathlib import Path

from natcomp.plane.items import ResourceSettings
from natcomp.plane.pipeline import build_resource
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    out_dir = Path(snakemake.output.item_table).parent
    build_resource(
        out_dir,
        snakemake.input.adjectives,
        snakemake.params.source,
        list(snakemake.input.phrases),
        ResourceSettings(**snakemake.params.resource),
        stanza_dir=snakemake.params.stanza_dir,
    )
