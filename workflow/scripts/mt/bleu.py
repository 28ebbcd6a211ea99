from natcomp.files import read_lines
from natcomp.mt.bleu import write_bleu
from natcomp.mt.scoring import read_translations
from natcomp.mt.translation_cache import translation_signature
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, model = snakemake.input, snakemake.params.model
    keys = {
        "system": model["system"],
        "size": model["size"],
        "seed": model["seed"],
        "split": snakemake.wildcards.split,
        "decode_signature": translation_signature(inputs.translations),
    }
    translations = read_translations(inputs.translations, read_lines(inputs.sources))
    scores = write_bleu(
        translations, inputs.sources, inputs.references, snakemake.params.target, keys, snakemake.output[0]
    )
    log.info(
        "BLEU %.2f (sacrebleu), %.2f (Moses-tokenised, Table 9)", scores["bleu_sacrebleu"], scores["bleu_tokenised"]
    )
