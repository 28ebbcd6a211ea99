# PSS family: config shortcuts, input functions and the family's final outputs.
from natcomp.pss.encoders import (
    FINE_TUNED_MODES,
    layer_and_length_for,
    learning_rate_for,
)

PSS = config["pss"]
PSS_ENCODERS = list(PSS["encoders"])
PSS_HEADS = list(PSS["heads"])
PSS_SETS = ("train", "test", "pairs")
# the columns of each set's TSV that are embedded, in turn (pairs: originals, then rewrites)
PSS_SET_COLUMNS = {
    "train": ["sentence"],
    "test": ["sentence"],
    "pairs": ["original", "rewrite"],
}
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


def pss_pooling_key(wildcards):
    """The config key named in errors about an encoder's pooling."""
    return f"pss.encoders.{wildcards.encoder}.pooling"


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


def pss_layer(wildcards):
    """The layer FB pools: the encoder's layer (bert_base: -2, bert-as-service's)."""
    return pss_fb_layer_and_length(wildcards)[0]


def pss_max_length(wildcards):
    """The tokens FB keeps per sentence: the encoder's max_length, else embed.max_length."""
    return pss_fb_layer_and_length(wildcards)[1]


def pss_fb_layer_and_length(wildcards):
    return layer_and_length_for(
        pss_encoder(wildcards), "fb", PSS["embed"]["max_length"]
    )


def pss_ft_layer_and_length(wildcards):
    """A fine-tuned mode's layer and length: ft's own (the encoder's fine_tune overrides, else
    the last layer and fine_tune.max_length, null: the longest sentence), or ft_fb's, FB's
    (natcomp.pss.encoders)."""
    if wildcards.mode == "ft_fb":
        shared = PSS["embed"]["max_length"]
    else:
        shared = PSS["fine_tune"].get("max_length")
    return layer_and_length_for(pss_encoder(wildcards), wildcards.mode, shared)


def pss_fine_tune_layer(wildcards):
    return pss_ft_layer_and_length(wildcards)[0]


def pss_encoder_spec(wildcards):
    """natcomp.hf.EncoderSpec fields of an encoder, pooled as the path's {pooling} says."""
    return {
        "model": pss_model(wildcards),
        "pooling": wildcards.pooling,
        "normalize": pss_normalize(wildcards),
        "layer": pss_layer(wildcards),
    }


def pss_embed_settings(wildcards):
    """The embed section, with FB's max_length (the encoder's own where it has one), and
    the run's inference dtype."""
    return {
        **PSS["embed"],
        "max_length": pss_max_length(wildcards),
        "dtype": config["dtype"],
    }


def pss_frozen_embeddings(wildcards):
    pooling = pss_pooling(wildcards)
    return {
        name: f"results/pss/embeddings/{wildcards.encoder}/{pooling}/{name}.npy"
        for name in PSS_SETS
    }


def pss_frozen_settings(wildcards):
    """HeadSettings fields; the encoder's learning rate (the paper's, per encoder) if it has one."""
    settings = dict(PSS["frozen"])
    settings["learning_rate"] = learning_rate_for(
        pss_encoder(wildcards), "fb", PSS["frozen"]["learning_rate"]
    )
    return settings


def pss_fine_tune_settings(wildcards):
    """hf.FineTuneSettings fields; the encoder's own learning rate and its mode's max_length
    override the shared ones. ft does not inherit FB's max_length (bert-as-service's 25 for
    bert_base): max_length null is the longest sentence, found by the job; ft_fb keeps FB's.
    fine_tuning is decided for the model's size."""
    from natcomp.model_description import job_setting

    settings = dict(PSS["fine_tune"])
    settings["max_length"] = pss_ft_layer_and_length(wildcards)[1]
    settings["learning_rate"] = learning_rate_for(
        pss_encoder(wildcards), wildcards.mode, PSS["fine_tune"]["learning_rate"]
    )
    settings["fine_tuning"] = stop_on_config_error(
        job_setting, config, "pss", pss_model(wildcards)
    )
    return settings


def pss_score_files(folder="scores"):
    """Every encoder x head x mode's scores (or, ``folder="items"``, its item outcomes)."""
    return [
        f"results/pss/{folder}/{encoder}/{head}.{mode}.tsv"
        for encoder in PSS_ENCODERS
        for head in PSS_HEADS
        for mode in PSS["encoders"][encoder].get("modes", ["fb", "ft"])
    ]


def pss_final_outputs():
    if not PSS["enabled"]:
        return []
    return [
        "results/tables/pss/table1.tsv",
        "results/tables/pss/table1_pos_to_neg.tsv",
        "results/tables/pss/table1.html",
        "results/tables/pss/table1_pos_to_neg.html",
        "results/tables/pss/cleaning.tsv",
    ]


# Every model's jobs sized before the DAG: one line for a model too large (natcomp.jobsize).
check_model_jobs("pss_embed", pss_model, encoder=PSS_ENCODERS)
check_model_jobs(
    "pss_fine_tune",
    pss_model,
    fine_tuning_of("pss"),
    encoder=[
        e
        for e in PSS_ENCODERS
        if set(FINE_TUNED_MODES) & set(PSS["encoders"][e].get("modes", ["ft"]))
    ],
)


FINAL_OUTPUTS["pss"] = pss_final_outputs
