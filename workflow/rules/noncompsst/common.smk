# NonCompSST (Dankers & Lucas 2023): shared helpers of the family's rule files.
# Stages: demo.smk (the generated SST release), materials.smk (candidates, controls),
# studies.smk (the two annotation studies), models.smk (SST-7, fine-tuning, evaluation),
# report.smk (ratings table, Table 2, top phrases, Figure 3a, the demo's summary).

from pathlib import Path

from natcomp.runs import workflow_built

NONCOMPSST = config.get("noncompsst", {})
NONCOMPSST_SOURCE = NONCOMPSST.get("studies", {}).get("source", "simulate")
NONCOMPSST_STUDIES = ("study1", "study2")
NONCOMPSST_DOWNLOADS = "results/downloads/noncompsst"


def noncompsst_download(name):
    return f"{NONCOMPSST_DOWNLOADS}/{name}"


def noncompsst_models():
    return NONCOMPSST.get("models", {})


def noncompsst_sentiment_model():
    """The model named in Tables 1 and 3 (tables.sentiment_model; null: the first model)."""
    from natcomp.noncompsst.pipeline import sentiment_model_key

    if not NONCOMPSST.get("enabled", False):
        return ""
    return stop_on_config_error(sentiment_model_key, NONCOMPSST)


def noncompsst_stanza_input(wildcards):
    """stanza's models where this run fetches them into the folder the stimulus tokeniser
    reads (the MT family's mt_stanza_models at paper scale): training then waits for them,
    so which tokeniser runs (stanza or Penn Treebank) does not hang on the order of jobs.
    """
    folder = NONCOMPSST.get("candidates", {}).get("stanza_dir")
    mt = config.get("mt", {})
    semi_natural = mt.get("semi_natural", {})
    fetched = mt.get("enabled", False) and semi_natural.get("treebank") == "stanza"
    if (
        folder
        and fetched
        and Path(semi_natural.get("stanza_model_dir", "")) == Path(folder)
    ):
        return [folder]
    return []


def noncompsst_seeds():
    return NONCOMPSST.get("training", {}).get("seeds", [1])


def noncompsst_candidate_inputs(wildcards):
    """The SST archives; in the demo also the generator's phrase types and names (no stanza)."""
    inputs = {
        "ptb": noncompsst_download("ptb"),
        "sst": noncompsst_download("sst"),
        "raw": noncompsst_download("sst_raw"),
    }
    if NONCOMPSST.get("candidates", {}).get("demo_tables", False):
        inputs["phrase_types"] = "results/noncompsst/demo/releases/phrase_types.tsv"
        inputs["entities"] = "results/noncompsst/demo/releases/entities.txt"
    return inputs


def noncompsst_study2_stimuli(wildcards=None):
    """The stimuli the ratings are of: the released ones, or those kept after Study 1."""
    if NONCOMPSST_SOURCE == "released":
        return noncompsst_download("stimuli")
    return "results/noncompsst/study2/stimuli.tsv"


def noncompsst_sst7_inputs(wildcards):
    """The SST archives and stimuli; with sst7.evaluation_splits released also the
    released validation and test files (downloads sst7_validation, sst7_test)."""
    inputs = {
        "ptb": noncompsst_download("ptb"),
        "sst": noncompsst_download("sst"),
        "stimuli": noncompsst_study2_stimuli(),
    }
    if NONCOMPSST.get("sst7", {}).get("evaluation_splits", "rebuilt") == "released":
        for split in ("validation", "test"):
            inputs[f"released_{split}"] = noncompsst_download(f"sst7_{split}")
    return inputs


def noncompsst_study_stimuli(wildcards):
    if wildcards.study == "study1":
        return "results/noncompsst/study1/stimuli.tsv"
    return "results/noncompsst/study2/stimuli.tsv"


def noncompsst_responses(wildcards):
    """Simulated responses in the demo, the configured survey export otherwise."""
    if NONCOMPSST_SOURCE == "simulate":
        return f"results/noncompsst/{wildcards.study}/responses.csv"
    return NONCOMPSST["studies"]["responses"][wildcards.study]


def noncompsst_model_inputs(wildcards):
    """A model built by this workflow (a path under results/) is an input of its training."""
    location = noncompsst_models()[wildcards.model]
    return [location] if workflow_built(location) else []


def noncompsst_model_location(wildcards):
    return noncompsst_models()[wildcards.model]


def noncompsst_model_training(wildcards):
    """The model's training settings, its fine_tuning method decided for its size."""
    from natcomp.model_description import job_setting
    from natcomp.noncompsst.pipeline import model_training

    location = noncompsst_model_location(wildcards)
    return {
        **model_training(NONCOMPSST, location),
        "fine_tuning": stop_on_config_error(
            job_setting, config, "noncompsst", location
        ),
    }


def noncompsst_evaluation_inputs(wildcards):
    seeds = noncompsst_seeds()
    inputs = {
        "predictions": expand(
            "results/noncompsst/models/{model}/seed{seed}/predictions.tsv",
            model=wildcards.model,
            seed=seeds,
        ),
        "metrics": expand(
            "results/noncompsst/models/{model}/seed{seed}/metrics.json",
            model=wildcards.model,
            seed=seeds,
        ),
        "stimuli": noncompsst_study2_stimuli(),
        "human": "results/tables/noncompsst/ratings.tsv",
    }
    if NONCOMPSST_SOURCE != "released":
        inputs["sentiment"] = "results/noncompsst/study2/sentiment.tsv"
        inputs["ungrammatical"] = "results/noncompsst/study2/ungrammatical.tsv"
    else:
        # the human sentiment of the F1 columns: the released maxabs_ranking.tsv
        inputs["sentiment"] = noncompsst_download("ratings")
    return inputs


def noncompsst_report_inputs(wildcards):
    models = list(noncompsst_models())
    inputs = {
        "evaluations": expand(
            "results/noncompsst/evaluation/{model}.tsv", model=models
        ),
        "item_outcomes": expand(
            "results/noncompsst/evaluation_items/{model}.tsv", model=models
        ),
        "predictions": expand(
            "results/noncompsst/models/{model}/seed{seed}/predictions.tsv",
            model=[noncompsst_sentiment_model()],
            seed=noncompsst_seeds(),
        ),
        "ratings": "results/tables/noncompsst/ratings.tsv",
        "stimuli": noncompsst_study2_stimuli(),
        "sst": noncompsst_download("sst"),
        "candidates": "results/noncompsst/candidates.tsv",
    }
    if NONCOMPSST_SOURCE != "released":
        inputs["sentiment"] = "results/noncompsst/study2/sentiment.tsv"
        inputs["study1_means"] = "results/noncompsst/study1/means.tsv"
    else:
        inputs["sentiment"] = noncompsst_download("ratings")
    return inputs


def noncompsst_final_outputs():
    if not NONCOMPSST.get("enabled", False):
        return []
    outputs = [
        "results/tables/noncompsst/ratings.tsv",
        "results/tables/noncompsst/models.tsv",
        "results/tables/noncompsst/top_phrases.tsv",
        "results/figures/noncompsst/maxabs_by_composition.png",
        "results/noncompsst/candidates.tsv",
        "results/noncompsst/controls_sheet.tsv",
    ]
    outputs += [
        "results/figures/noncompsst/ratings_by_length.png",
        "results/figures/noncompsst/ratings_by_category.png",
    ]
    if NONCOMPSST_SOURCE != "released":
        outputs += expand(
            "results/tables/noncompsst/agreement_{study}.tsv",
            study=NONCOMPSST_STUDIES,
        )
        outputs.append("results/figures/noncompsst/stimulus_ratings.png")
    if NONCOMPSST.get("demo", {}).get("enabled", False):
        outputs.append("results/tables/noncompsst/demo_summary.tsv")
    return outputs


# A model that is neither local nor on the hub stops its training job as it starts, with
# the name and how to fetch it (natcomp.hf checks before loading): not at parse time, so
# that the paper's dry run works on a machine without hub access.
# Every model's jobs sized before the DAG: one line for a model too large (natcomp.jobsize).
check_model_jobs(
    "noncompsst_train",
    noncompsst_model_location,
    fine_tuning_of("noncompsst"),
    model=noncompsst_models(),
)


FINAL_OUTPUTS["noncompsst"] = noncompsst_final_outputs
