"""One test's items on one data type, read from the original study's release (natcomp.mt.released_items)."""

from natcomp.mt.items import write_items
from natcomp.mt.released_items import released_items
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    w, inputs = snakemake.wildcards, snakemake.input
    rows = released_items(w.test, w.data_type, inputs.release, inputs.synonyms, inputs.idioms)
    n = write_items(rows, snakemake.output[0])
    log.info("%d %s items on %s data, as released", n, w.test, w.data_type)
