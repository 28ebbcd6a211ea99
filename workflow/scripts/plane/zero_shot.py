"""Zero-shot prompting predictions of one masked or causal LM (appendix B.1)."""

from natcomp.hf import set_threads
from natcomp.plane.pipeline import run_zero_shot
from natcomp.plane.prompting import PromptSettings
from natcomp.plane.served_prompting import ServedJob
from natcomp.rulelog import logged
from natcomp.served import RequestSettings

with logged(snakemake.log[0]) as log:
    set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    prompting = dict(snakemake.params.prompting)
    settings = PromptSettings(
        **{k: prompting[k] for k in ("templates", "batch_size", "max_length", "device", "chat_template")},
        dtype=snakemake.params.dtype,
    )
    run_zero_shot(
        snakemake.params.location,
        snakemake.input.triplets,
        snakemake.output[0],
        settings,
        snakemake.params.verbalisers,
        log_to=log,
        name=snakemake.wildcards.model,
        served=ServedJob(
            snakemake.params.cache_dir,
            RequestSettings.from_config(snakemake.params.served),
            snakemake.resources.get("served_requests"),
            snakemake.params.usage,
        ),
    )
