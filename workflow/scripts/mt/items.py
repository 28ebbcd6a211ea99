from pathlib import Path

from natcomp.mt.item_sets import ItemResources, TestSettings, build_items
from natcomp.mt.items import write_items
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs = snakemake.wildcards, snakemake.input
    corpus = tuple(map(Path, inputs.corpus)) or None
    phrases = Path(inputs.phrases[0]) if inputs.phrases else None
    settings = TestSettings.from_config(dict(snakemake.params.items()))
    resources = ItemResources(Path(inputs.lexicon), Path(inputs.synonyms), Path(inputs.idioms))
    rows = build_items(w.test, w.data_type, settings, resources, corpus, phrases)
    n = write_items(rows, snakemake.output[0])
    log.info("%d %s items on %s data", n, w.test, w.data_type)
