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


def kept_epochs(wildcards):
    return EPOCHS[wildcards.size]


def bleu_scores():
    return expand(
        "results/mt/bleu/{size}/seed{seed}/{split}.tsv",
        size=SIZES,
        seed=SEEDS,
        split=MT["bleu"]["splits"],
    )
