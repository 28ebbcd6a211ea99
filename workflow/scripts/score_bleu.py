import natcomp_on_path  # noqa: F401
from natcomp.bleu import write_bleu
from natcomp.rulelog import logged
from natcomp.files import read_lines
from natcomp.scoring import read_translations

with logged(snakemake.log[0]) as log:
    w, inputs = snakemake.wildcards, snakemake.input
    keys = {"size": w.size, "seed": w.seed, "split": w.split}
    translations = read_translations(inputs.translations, read_lines(inputs.sources))
    output = snakemake.output[0]
    target = snakemake.params.target
    score = write_bleu(translations, inputs.sources, inputs.references, target, keys, output)
    log.info("BLEU %.2f", score)
