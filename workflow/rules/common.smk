# Config validation, wildcard constraints and input functions shared by all rule files.
import urllib.parse
from pathlib import Path

from snakemake.utils import validate

validate(config, schema="../../config/schema.yaml", set_default=True)

MT = config["mt"]
SRC, TRG = MT["source_lang"], MT["target_lang"]
LANGS = [SRC, TRG]
SIZES = list(MT["sizes"])
SEEDS = MT["seeds"]
CHUNKS = range(MT["preprocess"]["chunks"])
EPOCHS = MT["train"]["epoch_checkpoints"]

_missing_sizes = sorted(set(SIZES) - set(EPOCHS))
if _missing_sizes:
    raise ValueError(
        f"config mt.train.epoch_checkpoints has no entry for corpus size(s) {_missing_sizes}; "
        f"expected one list of epochs for each of mt.sizes ({', '.join(SIZES)})"
    )


wildcard_constraints:
    size="|".join(SIZES),
    seed=r"\d+",
    chunk=r"\d+",
    epoch=r"\d+",
    lang="|".join(LANGS),
    split="dev|devtest",
    download="tatoeba|flores",
    test="np_vp|s_conj|substitutivity|overgeneralisation",
    data_type="synthetic|semi_natural|natural|random_words",
    checkpoint=r"best|epoch\d+",


def local_url_path(url):
    """The local path of a file: URL (relative when written file:PATH), else None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "file":
        return None
    return urllib.parse.unquote(parts.netloc + parts.path)


def download_source(wildcards):
    """A file: URL's file is an input of the download, so the demo builds it first."""
    path = local_url_path(MT["downloads"][wildcards.download]["url"])
    return [path] if path else []


def size_limit(wildcards):
    value = MT["sizes"][wildcards.size]
    return None if value == "all" else value


def fairseq_options(wildcards):
    """fairseq-train options in a fixed order, so reordering the config retrains nothing."""
    return dict(sorted(MT["train"]["fairseq"].items()))


def kept_epochs(wildcards):
    return EPOCHS[wildcards.size]


def bleu_scores():
    return expand(
        "results/mt/bleu/{size}/seed{seed}/{split}.tsv",
        size=SIZES,
        seed=SEEDS,
        split=MT["bleu"]["splits"],
    )


# MT compositionality tests: which item sets each checkpoint translates.
TESTS = MT["tests"]
TEST_DATA_TYPES = TESTS["data_types"]
BEST_CHECKPOINT_TESTS = ["np_vp", "s_conj", "substitutivity"]
EPOCH_CHECKPOINT_TESTS = ["overgeneralisation"]
SYSTEMATICITY_TESTS = ["np_vp", "s_conj"]


def item_sets(tests):
    """Translation set name -> items file, for every test and its data types."""
    return {
        f"{test}.{data_type}": f"results/mt/items/{test}/{data_type}.tsv"
        for test in tests
        for data_type in TEST_DATA_TYPES[test]
    }


BEST_SETS = {
    **{
        f"flores_{split}": f"results/mt/corpus/raw/flores_{split}.{SRC}"
        for split in MT["bleu"]["splits"]
    },
    **item_sets(BEST_CHECKPOINT_TESTS),
}
EPOCH_SETS = item_sets(EPOCH_CHECKPOINT_TESTS)


SEMI_NATURAL = MT["semi_natural"]
SEMI_NATURAL_PHRASES = "results/mt/semi_natural/phrases.tsv"


def items_inputs(wildcards):
    """Natural items come from the raw training corpus, semi-natural ones from the
    phrases matching the chosen fragments (natural second conjuncts need both)."""
    inputs = {"corpus": [], "phrases": []}
    if wildcards.data_type == "natural":
        inputs["corpus"] = [f"results/mt/corpus/raw/train.{lang}" for lang in LANGS]
    if wildcards.data_type == "semi_natural" or (
        wildcards.data_type == "natural"
        and wildcards.test == "s_conj"
        and TESTS["natural_conjunct_reference"] == "semi_natural"
    ):
        inputs["phrases"] = [SEMI_NATURAL_PHRASES]
    return inputs


def treebank_inputs(wildcards):
    """The demo's generator trees, or sampled training sentences and the stanza models."""
    if SEMI_NATURAL["treebank"] == "generator":
        return {"trees": "results/demo/treebank.mrg"}
    return {
        "sentences": f"results/mt/corpus/raw/train.{SRC}",
        "models": SEMI_NATURAL["stanza_model_dir"],
    }


def chosen_fragment_overrides(wildcards):
    return {
        label: list(SEMI_NATURAL["chosen"][label])
        for label in sorted(SEMI_NATURAL["chosen"])
    }


def score_files(tests, checkpoints_of):
    return [
        f"results/mt/scores/{size}/seed{seed}/{checkpoint}/{test}.{data_type}.tsv"
        for size in SIZES
        for seed in SEEDS
        for test in tests
        for data_type in TEST_DATA_TYPES[test]
        for checkpoint in checkpoints_of(size)
    ]


def best_checkpoint(size):
    return ["best"]


def epoch_checkpoints(size):
    return [f"epoch{epoch}" for epoch in EPOCHS[size]]


def annotated_sheets(wildcards):
    """Filled-in sheets from config, else the generated (pre-annotated) ones."""
    return MT["manual_analysis"]["annotated_sheets"] or [
        f"results/mt/manual_analysis/{family}_sheet.tsv"
        for family in ("systematicity", "substitutivity")
    ]
