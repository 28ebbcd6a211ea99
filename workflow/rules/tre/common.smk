# TRE family: config shortcuts, input functions and the family's final outputs.
TRE = config["tre"]
TRE_ENCODERS = list(TRE["encoders"])
TRE_TREES = "results/downloads/tre/sst_ptb"


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


def tre_normalize(wildcards):
    return tre_encoder(wildcards).get("normalize", False)


def tre_tiny(wildcards):
    return tre_encoder(wildcards).get("tiny")


def tre_embeddings(wildcards):
    pooling = tre_encoder(wildcards)["pooling"]
    return f"results/tre/embeddings/{wildcards.encoder}/{pooling}/sst.npy"


def tre_final_outputs():
    if not TRE["enabled"]:
        return []
    return ["results/tables/tre/table2.tsv", "results/figures/tre/tre_vs_wns.png"]


FINAL_OUTPUTS["tre"] = tre_final_outputs
