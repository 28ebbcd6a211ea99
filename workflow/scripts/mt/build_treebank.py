from natcomp.files import write_lines
from natcomp.mt.semi_natural.parse import parse_sentences, sample_sentences, sample_trees
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    params, inputs = snakemake.params, snakemake.input
    if params.source == "generator":
        trees = sample_trees(inputs.trees, params.sentences, params.seed)
    else:
        sentences = sample_sentences(inputs.sentences, params.sentences, params.seed)
        trees = parse_sentences(sentences, inputs.models)
    write_lines(snakemake.output[0], trees)
    log.info("treebank of %d trees (%s)", len(trees), params.source)
