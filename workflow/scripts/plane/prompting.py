"""Two-shot prompting predictions of one masked or causal LM."""

from natcomp.hf import set_threads
from natcomp.plane.pipeline import run_prompting
from natcomp.plane.prompting import PromptSettings
from natcomp.plane.served_prompting import ServedJob
from natcomp.rulelog import logged
from natcomp.served import RequestSettings

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    options = {k: v for k, v in dict(snakemake.params.prompting).items() if k not in ("enabled", "models")}
    run_prompting(
        snakemake.params.location,
        snakemake.input.triplets,
        snakemake.output[0],
        PromptSettings(**options, dtype=snakemake.params.dtype),
        log_to=log,
        name=snakemake.wildcards.model,
        served=ServedJob(
            snakemake.params.cache_dir,
            RequestSettings.from_config(snakemake.params.served),
            snakemake.resources.get("served_requests"),
            snakemake.params.usage,
        ),
    )
