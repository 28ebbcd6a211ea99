import tempfile

from natcomp import hf
from natcomp.files import read_lines
from natcomp.mt.prompting import PromptFormat
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, params = snakemake.input, snakemake.params
    settings = params.settings
    sources, targets = read_lines(inputs.source), read_lines(inputs.target)
    pairs = list(zip(sources, targets))[: settings["train_pairs"] or None]
    # the default prompt: the demo's causal system prompts with it, zero-shot, no chat template
    prompt = PromptFormat(source_lang=params.source, target_lang=params.target)
    prompts, completions = zip(*(prompt.training_pair(source, target) for source, target in pairs))
    with tempfile.TemporaryDirectory() as untrained:
        hf.build_tiny_causal_lm(
            untrained,
            [p + c for p, c in zip(prompts, completions)],
            kind=settings["kind"],
            vocab_size=settings["vocab_size"],
            d_model=settings["d_model"],
            layers=settings["layers"],
            seed=settings["seed"],
        )
        figures = hf.train_causal_lm(
            untrained,
            prompts,
            completions,
            hf.CausalTrainingSettings(
                epochs=settings["epochs"],
                batch_size=settings["batch_size"],
                learning_rate=settings["learning_rate"],
                seed=settings["seed"],
                threads=snakemake.threads,
            ),
            snakemake.output[0],
        )
    log.info("trained a tiny %s causal LM on %d prompted pairs: %s", settings["kind"], len(pairs), figures)
