"""Count the decodes the MT tests need per model, without running a model.

For every translation set (test x data type, plus FLORES) it prints the lines of source
sentences and the unique sentences, per checkpoint kind, for a config (default: the paper
scale). Synthetic and random-word items are built exactly as the workflow builds them;
natural items need the training corpus (``--corpus PREFIX`` reads PREFIX.en / PREFIX.nl)
and semi-natural ones the fragment matches (``--phrases``, e.g. a demo run's
results/mt/semi_natural/phrases.tsv), so without them they are listed as not counted.

Usage: .venv/bin/python benchmarks/decode_counts.py [--config config/paper.yaml] [--corpus results/mt/corpus/raw/train]
"""

import argparse
from pathlib import Path

import yaml

from natcomp.mt.item_sets import ItemResources, TestSettings, build_items
from natcomp.mt.registry import tests_of
from natcomp.mt.translation_cache import SOURCE_COLUMNS

REPO = Path(__file__).resolve().parents[1]
RESOURCES = ItemResources(
    REPO / "resources" / "lexicon", REPO / "resources" / "synonyms.tsv", REPO / "resources" / "idioms.tsv"
)
FLORES_LINES = {"dev": 997, "devtest": 1012}
EPOCH_TESTS = set(tests_of(checkpoints="epochs"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "config" / "paper.yaml"))
    parser.add_argument("--corpus", help="prefix of the raw training corpus (PREFIX.en, PREFIX.nl)")
    parser.add_argument("--phrases", help="fragment matches for the semi-natural templates")
    args = parser.parse_args()
    mt = yaml.safe_load(Path(args.config).read_text())["mt"]
    settings = TestSettings.from_config(
        {**mt["tests"], "semi_natural_per_template": mt["semi_natural"]["sentences_per_template"]}
    )
    phrases = Path(args.phrases) if args.phrases else None
    corpus = (Path(args.corpus + ".en"), Path(args.corpus + ".nl")) if args.corpus else None
    checkpoints = {size: len(epochs) for size, epochs in mt["train"]["epoch_checkpoints"].items()}

    print(f"{'set':34} {'lines':>9} {'unique':>9} {'unique %':>9}  checkpoints")
    per_model = {"best": [0, 0], "epoch": [0, 0]}
    for split in mt["bleu"]["splits"]:
        print(f"{'flores_' + split:34} {FLORES_LINES[split]:9d} {FLORES_LINES[split]:9d} {'100.0':>9}  best")
        per_model["best"][0] += FLORES_LINES[split]
        per_model["best"][1] += FLORES_LINES[split]
    for test, data_types in mt["tests"]["data_types"].items():
        for data_type in data_types:
            name = f"{test}.{data_type}"
            missing = None
            if data_type == "natural" and corpus is None:
                missing = "--corpus"
            elif phrases is None and (data_type == "semi_natural" or (test, data_type) == ("s_conj", "natural")):
                missing = "--phrases"
            if missing:
                print(f"{name:34} {f'(needs {missing})':>29}")
                continue
            rows = build_items(test, data_type, settings, RESOURCES, corpus, phrases)
            sources = [row[c] for row in rows for c in SOURCE_COLUMNS if c in row]
            lines, unique = len(sources), len(set(sources))
            kind = "epoch" if test in EPOCH_TESTS else "best"
            per_model[kind][0] += lines
            per_model[kind][1] += unique
            print(f"{name:34} {lines:9d} {unique:9d} {100 * unique / lines:9.1f}  {kind}")
    best_lines, best_unique = per_model["best"]
    epoch_lines, epoch_unique = per_model["epoch"]
    print()
    for size, n_epochs in checkpoints.items():
        total_lines = best_lines + n_epochs * epoch_lines
        total_unique = best_unique + n_epochs * epoch_unique
        print(
            f"per model of size {size}: {total_unique} decodes for {total_lines} source lines "
            f"(best checkpoint + {n_epochs} epoch checkpoints)"
        )
    n_models = len(mt["seeds"])
    grand = sum(n_models * (best_unique + n * epoch_unique) for n in checkpoints.values())
    print(f"all {n_models * len(checkpoints)} models: {grand} decodes")


if __name__ == "__main__":
    main()
