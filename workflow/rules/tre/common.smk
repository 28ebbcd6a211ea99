# TRE family: config shortcuts, input functions and the family's final outputs.
from natcomp.tre.lengths import length_settings, parse_length

TRE = config["tre"]
TRE_ENCODERS = list(TRE["encoders"])
# Each encoder's length settings, the {max_length} wildcard (natcomp.tre.lengths, issue 42):
# the limit it is configured with (its own max_length, else embed.max_length), as the paper's
# tool ran, then "none" (the model's own maximum); "none" alone where no limit is configured.
# The first is the configured one, which the paper's figure stands beside in Table 2.
TRE_LENGTHS = {
    name: length_settings(encoder.get("max_length") or TRE["embed"].get("max_length"))
    for name, encoder in TRE["encoders"].items()
}
TRE_RUNS = [
    (encoder, length) for encoder, lengths in TRE_LENGTHS.items() for length in lengths
]
# Per encoder and length setting: the embeddings of each set, the paper setting's scores and
# the held-out setting's.
TRE_EMBEDDINGS = (
    "results/tre/embeddings/{encoder}/{pooling}/max_length_{max_length}/{name}.npy"
)
TRE_SCORES = "results/tre/scores/{encoder}/max_length_{max_length}.tsv"
TRE_HELD_OUT_SCORES = (
    "results/tre/held_out/scores/{encoder}/max_length_{max_length}.tsv"
)
TRE_TREES = "results/downloads/tre/sst_ptb"
TRE_HELD_OUT = TRE["held_out"]["enabled"]
# The sets each encoder embeds: the measured sentences (the paper's setting) and, for the
# held-out setting, the distinct training phrases and the evaluated sentences.
TRE_SETS = {"sst": "results/tre/sentences.tsv"}
if TRE_HELD_OUT:
    TRE_SETS["phrases"] = "results/tre/held_out/phrases.tsv"
    TRE_SETS["held_out"] = "results/tre/held_out/sentences.tsv"


def tre_encoder(wildcards):
    return TRE["encoders"][wildcards.encoder]


def tre_model_input(wildcards):
    """A tiny encoder built from a config is an input (its rule builds it); a named model is not."""
    if tre_encoder(wildcards).get("tiny"):
        return [f"results/tre/models/{wildcards.encoder}"]
    return []


def tre_model(wildcards):
    if tre_encoder(wildcards).get("tiny"):
        return f"results/tre/models/{wildcards.encoder}"
    return tre_encoder(wildcards)["model"]


def tre_model_key(wildcards):
    """The config key named in errors about an encoder's model."""
    return f"tre.encoders.{wildcards.encoder}.model"


def tre_pooling_key(wildcards):
    """The config key named in errors about an encoder's pooling."""
    return f"tre.encoders.{wildcards.encoder}.pooling"


def tre_normalize(wildcards):
    return tre_encoder(wildcards).get("normalize", False)


def tre_tiny(wildcards):
    return tre_encoder(wildcards).get("tiny")


def tre_encoder_spec(wildcards):
    """natcomp.hf.EncoderSpec fields of an encoder, pooled as the path's {pooling} says."""
    return {
        "model": tre_model(wildcards),
        "pooling": wildcards.pooling,
        "normalize": tre_normalize(wildcards),
        "layer": tre_encoder(wildcards).get("layer", -1),
    }


def tre_max_length(wildcards):
    """The tokens the path's length setting keeps per sentence (None: no limit)."""
    return parse_length(wildcards.max_length)


def tre_embed_settings(wildcards):
    """The embed section at the path's length setting, and the run's inference dtype."""
    return {
        **TRE["embed"],
        "max_length": tre_max_length(wildcards),
        "dtype": config["dtype"],
    }


def tre_embedding(wildcards, name):
    return TRE_EMBEDDINGS.format(
        encoder=wildcards.encoder,
        pooling=tre_encoder(wildcards)["pooling"],
        max_length=wildcards.max_length,
        name=name,
    )


def tre_embeddings(wildcards):
    return tre_embedding(wildcards, "sst")


def tre_held_out_embeddings(wildcards):
    return {
        "phrases": tre_embedding(wildcards, "phrases"),
        "held_out": tre_embedding(wildcards, "held_out"),
    }


def tre_run_files(pattern):
    """A per-run path for every (encoder, length setting) of TRE_RUNS, in its order."""
    return [
        pattern.format(encoder=encoder, max_length=length)
        for encoder, length in TRE_RUNS
    ]


def tre_score_files(wildcards=None):
    files = {"paper": tre_run_files(TRE_SCORES)}
    if TRE_HELD_OUT:
        files["held_out"] = tre_run_files(TRE_HELD_OUT_SCORES)
    return files


def tre_final_outputs():
    if not TRE["enabled"]:
        return []
    return [
        "results/tables/tre/table2.tsv",
        "results/tables/tre/table2.html",
        "results/figures/tre/tre_vs_wns.png",
    ]


# Every model's jobs sized before the DAG: one line for a model too large (natcomp.jobsize).
check_model_jobs("tre_embed", tre_model, encoder=TRE_ENCODERS)


FINAL_OUTPUTS["tre"] = tre_final_outputs
