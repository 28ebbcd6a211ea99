from natcomp.mt.demo_corpus import build_demo_data
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    params, inputs, out = snakemake.params, snakemake.input, snakemake.output
    build_demo_data(
        inputs.lexicon,
        inputs.synonyms,
        inputs.idioms,
        n_train=params.train_pairs,
        n_dev=params.dev_pairs,
        n_test=params.test_pairs,
        n_flores_dev=params.flores_dev_pairs,
        n_flores_devtest=params.flores_devtest_pairs,
        seed=params.seed,
        tatoeba_tar=out.tatoeba,
        flores_tar=out.flores,
        treebank_path=out.treebank,
    )
