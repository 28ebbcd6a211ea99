from pathlib import Path

import natcomp_on_path  # noqa: F401
from natcomp.files import atomic_open
from natcomp.lexicon import load_idioms, load_synonyms
from natcomp.rulelog import logged
from natcomp.scoring import read_items, read_translations, score_items, unique_sources, write_labels

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    synonyms, idioms = load_synonyms(inputs.synonyms), load_idioms(inputs.idioms)
    for item_file, translations, output in zip(inputs.item_files, inputs.translations, snakemake.output):
        test = Path(item_file).parent.name
        items = read_items(item_file, test)
        labels = score_items(
            items,
            read_translations(translations, unique_sources(items, test)),
            test,
            synonyms=synonyms,
            idioms=idioms,
            substring_keywords=params.keyword_matching == "substring",
            paraphrase_references_only=params.paraphrase_only,
        )
        with atomic_open(output) as out:
            write_labels(labels, out)
        log.info("scored %d items of %s", len(labels), item_file)
