# PSS family: config shortcuts, input functions and the family's final outputs.
PSS = config["pss"]
PSS_ENCODERS = list(PSS["encoders"])
PSS_HEADS = list(PSS["heads"])
PSS_SETS = ("train", "test", "pairs")
PSS_YELP = {
    "sentiment.train.0": "sentiment_train_0",
    "sentiment.train.1": "sentiment_train_1",
    "sentiment.dev.0": "sentiment_dev_0",
    "sentiment.dev.1": "sentiment_dev_1",
    "sentiment.test.0": "sentiment_test_0",
    "sentiment.test.1": "sentiment_test_1",
    "reference.0": "reference_0",
    "reference.1": "reference_1",
}


def pss_download(file_name):
    """The downloaded copy of one file of the Yelp layout."""
    return f"results/downloads/pss/{PSS_YELP[file_name]}"


def pss_reference_download(wildcards):
    return pss_download(f"reference.{wildcards.label}")


def pss_model_key(wildcards):
    """The config key named in errors about an encoder's model."""
    return f"pss.encoders.{wildcards.encoder}.model"


def pss_encoder(wildcards):
    return PSS["encoders"][wildcards.encoder]


def pss_model_input(wildcards):
    """A tiny encoder built from a config is an input (its rule builds it); a named model is not."""
    if pss_encoder(wildcards).get("tiny"):
        return [f"results/pss/models/{wildcards.encoder}"]
    return []


def pss_model(wildcards):
    """What Hugging Face loads: the built tiny model's folder, else the configured name or path."""
    if pss_encoder(wildcards).get("tiny"):
        return f"results/pss/models/{wildcards.encoder}"
    return pss_encoder(wildcards)["model"]


def pss_pooling(wildcards):
    return pss_encoder(wildcards)["pooling"]


def pss_normalize(wildcards):
    return pss_encoder(wildcards).get("normalize", False)


def pss_tiny(wildcards):
    return pss_encoder(wildcards).get("tiny")


def pss_frozen_embeddings(wildcards):
    pooling = pss_pooling(wildcards)
    return {
        name: f"results/pss/embeddings/{wildcards.encoder}/{pooling}/{name}.npy"
        for name in PSS_SETS
    }


def pss_fine_tune_settings(wildcards):
    """hf.FineTuneSettings fields; an encoder's own learning rate overrides the shared one."""
    settings = dict(PSS["fine_tune"])
    own = pss_encoder(wildcards).get("fine_tune_learning_rate")
    if own is not None:
        settings["learning_rate"] = own
    return settings


def pss_score_files():
    return [
        f"results/pss/scores/{encoder}/{head}.{mode}.tsv"
        for encoder in PSS_ENCODERS
        for head in PSS_HEADS
        for mode in PSS["encoders"][encoder].get("modes", ["fb", "ft"])
    ]


def pss_final_outputs():
    if not PSS["enabled"]:
        return []
    return ["results/tables/pss/table1.tsv", "results/tables/pss/cleaning.tsv"]


FINAL_OUTPUTS["pss"] = pss_final_outputs
