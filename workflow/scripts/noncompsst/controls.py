"""Control subphrases: the sheet and the automatic (or hand-edited) choice."""

from natcomp.noncompsst.pipeline import candidate_draws, run_controls
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    c = snakemake.params.controls
    run_controls(
        snakemake.input.candidates,
        snakemake.input.sst,
        snakemake.output.sheet,
        snakemake.output.stimuli,
        **candidate_draws(c),
        per_side=c["per_side"],
        max_phrases=c["max_phrases"],
        seed=snakemake.params.seed,
        edited_sheet=c["sheet"],
    )
