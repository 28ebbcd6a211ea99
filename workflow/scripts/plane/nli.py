"""NLI-transfer predictions of one NLI model."""

from natcomp.hf import set_threads
from natcomp.plane.nli import NliSettings
from natcomp.plane.pipeline import run_nli
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    options = {k: v for k, v in dict(snakemake.params.nli).items() if k not in ("enabled", "models")}
    run_nli(
        snakemake.params.location,
        snakemake.input.item_table,
        snakemake.output[0],
        NliSettings(**options, dtype=snakemake.params.dtype),
        log_to=log,
        name=snakemake.wildcards.model,
    )
