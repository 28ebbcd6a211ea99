"""TRE of one encoder's sentence embeddings (at one length setting) over their SST trees, and of
the two baselines (Gaussian vectors; the embeddings shuffled across sentences); each sentence's
tokens and whether the setting's limit cut it (natcomp.tre.lengths)."""

from natcomp import hf
from natcomp.rulelog import logged
from natcomp.tre.experiment import fit_scores, load_embeddings, load_trees
from natcomp.tre.lengths import length_columns, length_label
from natcomp.tre.reconstruction import TreSettings
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    hf.set_threads(snakemake.threads)  # torch takes every core otherwise; jobs run side by side
    trees = load_trees(snakemake.input.trees, snakemake.params.splits, max_sentences=snakemake.params.max_sentences)
    embeddings = load_embeddings(snakemake.input.embeddings, len(trees))
    settings = TreSettings(**snakemake.params.fit)
    table = fit_scores(trees, embeddings, settings, baseline=True, log=log)
    tokenizer = hf.load_tokenizer(snakemake.params.model, snakemake.params.key)
    table = table.assign(**length_columns(tokenizer, table["sentence"].tolist(), snakemake.params.max_length))
    log.info(
        "max_length %s cut %d of %d sentences",
        length_label(snakemake.params.max_length),
        table["cut"].sum(),
        len(table),
    )
    write_tsv(snakemake.output[0], table, float_format="%.6g")
