"""Write the demo sentiment treebank's PTB release (natcomp.sst_demo), for TRE."""

import shutil
import tempfile

from natcomp.files import atomic_path
from natcomp.rulelog import logged
from natcomp.sst_demo import generate_treebank, write_release

with logged(snakemake.log[0]) as log:
    demo = snakemake.params.demo
    treebank = generate_treebank(demo["sentences"], seed=demo["seed"], planted_occurrences=demo["planted_occurrences"])
    with tempfile.TemporaryDirectory() as scratch, atomic_path(snakemake.output[0]) as tmp:
        written = write_release(treebank, scratch)
        shutil.copyfile(written["ptb"], tmp)
    log.info("demo treebank: %d sentences -> %s", len(treebank.sentences), snakemake.output[0])
