import natcomp_on_path  # noqa: F401
from natcomp.demo_corpus import build_demo_data
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    settings = snakemake.params.settings
    inputs, out = snakemake.input, snakemake.output
    build_demo_data(
        inputs.lexicon,
        inputs.synonyms,
        inputs.idioms,
        n_train=settings["train_pairs"],
        n_dev=settings["dev_pairs"],
        n_test=settings["test_pairs"],
        n_flores_dev=settings["flores_dev_pairs"],
        n_flores_devtest=settings["flores_devtest_pairs"],
        seed=settings["seed"],
        tatoeba_tar=out.tatoeba,
        flores_tar=out.flores,
        treebank_path=out.treebank,
    )
