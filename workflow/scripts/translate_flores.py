import natcomp_on_path  # noqa: F401
from natcomp.files import read_lines, write_lines
from natcomp.nmt import Translator
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    translator = Translator(
        inputs.checkpoint,
        inputs.databin,
        inputs.codes,
        params.source,
        params.target,
        beam=params.beam,
        max_tokens=params.max_tokens,
        threads=snakemake.threads,
    )
    for source_path, output_path in zip(inputs.sources, snakemake.output):
        sources = read_lines(source_path)
        write_lines(output_path, translator.translate(sources))
        log.info("translated %d sentences of %s", len(sources), source_path)
