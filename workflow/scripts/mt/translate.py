import dataclasses
from pathlib import Path

from natcomp.mt.nmt import epoch_checkpoint, this_device_decode_precision, translate_checkpoints, translate_probes
from natcomp.mt.scoring import TRAINED_SYSTEM
from natcomp.mt.translation_cache import DecodeSettings
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, params, w = snakemake.input, snakemake.params, snakemake.wildcards
    # One checkpoint (the best) to one file, or every kept epoch checkpoint of the model,
    # listed in its training manifest, to epoch{N}.tsv in the output folder.
    if "manifest" in inputs.keys():
        checkpoints = {f"epoch{epoch}": epoch_checkpoint(inputs.manifest, epoch) for epoch in params.epochs}
        Path(snakemake.output[0]).mkdir(parents=True, exist_ok=True)
        outputs = {name: Path(snakemake.output[0]) / f"{name}.tsv" for name in checkpoints}
    else:
        checkpoints, outputs = {"best": inputs.checkpoint}, {"best": snakemake.output.translations}
    settings = DecodeSettings(
        beam=params.beam,
        max_len_a=params.max_len_a,
        max_len_b=params.max_len_b,
        precision=this_device_decode_precision(params.precision),
    )
    decoding = dict(
        databin=inputs.databin,
        bpe_codes=inputs.codes,
        source_lang=params.source,
        target_lang=params.target,
        cache_dir=params.cache_dir,
        max_tokens=params.max_tokens,
        threads=snakemake.threads,
    )
    translate_checkpoints(
        checkpoints, {name: inputs[name] for name in params.sets}, outputs, settings=settings, **decoding
    )
    # the best checkpoint also decodes the synonym probe sentences with its n best hypotheses
    if "synonyms" in inputs.keys():
        translate_probes(
            inputs.checkpoint,
            inputs.synonyms,
            params.templates,
            snakemake.output.probes,
            model={"system": TRAINED_SYSTEM, "size": w.size, "seed": w.seed},
            settings=dataclasses.replace(settings, nbest=params.nbest),
            **decoding,
        )
