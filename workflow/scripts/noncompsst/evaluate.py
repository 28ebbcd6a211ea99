"""Score one model's predictions (mean over seeds) against the human ratings; its per-phrase outcomes."""

from natcomp.noncompsst.pipeline import run_evaluation
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    run_evaluation(
        snakemake.wildcards.model,
        snakemake.input.predictions,
        snakemake.input.metrics,
        snakemake.input.stimuli,
        snakemake.input.human,
        snakemake.output[0],
        sentiment_path=snakemake.input.get("sentiment"),
        ungrammatical_path=snakemake.input.get("ungrammatical"),
        top_k=snakemake.params.top_k,
        f1_seeds=snakemake.params.f1_seeds,
        items_out=snakemake.output.item_outcomes,
    )
