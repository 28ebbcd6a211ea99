# TRE family: config shortcuts, input functions and the family's final outputs.

TRE = config["tre"]
TRE_ENCODERS = list(TRE["encoders"])
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


def tre_embed_settings(wildcards):
    """The embed section, with the encoder's own max_length where it has one, and the
    run's inference dtype."""
    return {
        **with_encoder_max_length(TRE["embed"], tre_encoder(wildcards)),
        "dtype": config["dtype"],
    }


def tre_embedding(wildcards, name):
    pooling = tre_encoder(wildcards)["pooling"]
    return f"results/tre/embeddings/{wildcards.encoder}/{pooling}/{name}.npy"


def tre_embeddings(wildcards):
    return tre_embedding(wildcards, "sst")


def tre_held_out_embeddings(wildcards):
    return {
        "phrases": tre_embedding(wildcards, "phrases"),
        "held_out": tre_embedding(wildcards, "held_out"),
    }


def tre_score_files(wildcards=None):
    files = {"paper": expand("results/tre/scores/{encoder}.tsv", encoder=TRE_ENCODERS)}
    if TRE_HELD_OUT:
        files["held_out"] = expand(
            "results/tre/held_out/scores/{encoder}.tsv", encoder=TRE_ENCODERS
        )
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
