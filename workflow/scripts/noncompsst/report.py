"""Table 2 (models x variants), the top phrases and Figure 3a."""

from natcomp.noncompsst.pipeline import run_report
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    run_report(
        evaluations=snakemake.input.evaluations,
        ratings_path=snakemake.input.ratings,
        stimuli_path=snakemake.input.stimuli,
        top_k=snakemake.params.top_k,
        models_out=snakemake.output.models,
        top_out=snakemake.output.top,
        figure_out=snakemake.output.figure,
        sentiment_path=snakemake.input.get("sentiment"),
        study1_means=snakemake.input.get("study1_means"),
        sst=snakemake.input.sst,
        predictions=snakemake.input.predictions,
        top_n=snakemake.params.top_n,
        sentiment_model=snakemake.params.sentiment_model,
        length_figure_out=snakemake.output.by_length,
        category_figure_out=snakemake.output.by_category,
        candidates_path=snakemake.input.candidates,
        item_outcomes=snakemake.input.item_outcomes,
        item_outcomes_out=snakemake.output.item_outcomes,
    )
