"""The sentence sets every encoder embeds: train, test (dev + test) and the cleaned pairs."""

from natcomp.pss.experiment import write_sets
from natcomp.pss.pairs import read_pairs
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    data = snakemake.params.data
    train = list(zip(snakemake.input.train, (0, 1)))
    test = list(zip(snakemake.input.test, (0, 1, 0, 1)))
    pairs = [(read_pairs(path), label) for path, label in zip(snakemake.input.pairs, (0, 1))]
    sizes = write_sets(
        train,
        test,
        pairs,
        dict(snakemake.output.items()),
        train_per_label=data["train_per_label"],
        seed=data["seed"],
    )
    log.info("sentence sets: %s", sizes)
