# PLANE (Bertolini, Weeds & Weir 2022): shared helpers of the family's rule files.
# Stages: resource.smk (demo corpus, AN phrases, WordNet hypernyms, items), splits.smk
# (GOoD / One-IT / in-distribution splits, checks of the released splits), evaluate.smk
# (two-shot prompting, NLI transfer, fine-tuning), report.smk (tables and Figure 1).

from natcomp.served import usage_path

PLANE = config.get("plane", {})
PLANE_DOWNLOADS = "results/downloads/plane"


def plane_download(name):
    return f"{PLANE_DOWNLOADS}/{name}"


def plane_phrase_inputs(wildcards):
    """The files AN phrases are read from: downloads named in plane.phrases.downloads."""
    return [plane_download(name) for name in PLANE["phrases"]["downloads"]]


def plane_split_kinds():
    kinds = ["good", "one_it"]
    if PLANE["splits"]["in_distribution"]["enabled"]:
        kinds.append("in_distribution")
    return kinds


PLANE_LAYOUTS = {"good": "ood", "one_it": "one_it"}


def plane_released_test(kind, seed):
    """The released test file of our split kind and seed (GOoD -> OoD, One-IT -> One-IT), to
    score a model trained on our split: only with plane.finetune.own_on_released (the job
    checks the two disjoint first)."""
    if not (PLANE["released"]["enabled"] and PLANE["finetune"]["own_on_released"]):
        return {}
    if kind not in PLANE_LAYOUTS or int(seed) not in PLANE["released"]["splits"]:
        return {}
    return {"released": plane_download(f"{PLANE_LAYOUTS[kind]}_test_{seed}.pkl")}


def plane_own_on_released_test(wildcards):
    return plane_released_test(wildcards.kind, wildcards.seed)


def plane_released_pair(wildcards):
    """A released train split and its paired test split (paper Table 6)."""
    layout = PLANE_LAYOUTS[wildcards.kind]
    return {
        side: plane_download(f"{layout}_{side}_{wildcards.seed}.pkl")
        for side in ("train", "test")
    }


def plane_model_input(section):
    """A model built by this workflow (a path under results/) is an input of its evaluation."""

    def inputs(wildcards):
        location = PLANE[section]["models"][wildcards.model]
        return (
            [location]
            if isinstance(location, str) and location.startswith("results/")
            else []
        )

    return inputs


def plane_model_location(section):
    """A model's id or path (a served model's id on its server: what its jobs are sized by)."""

    def location(wildcards):
        entry = PLANE[section]["models"][wildcards.model]
        return entry["model"] if isinstance(entry, dict) else entry

    return location


def plane_model_entry(section):
    """A model's entry: its id or path, or a served model's {model, api_base, api_key_env}."""

    def entry(wildcards):
        return PLANE[section]["models"][wildcards.model]

    return entry


def plane_served(section):
    """Whether a model is behind an API (natcomp.plane.served_prompting)."""

    def served(wildcards):
        return isinstance(PLANE[section]["models"][wildcards.model], dict)

    return served


def plane_prompting_usage(wildcards):
    """Where a served model's two-shot prompting job writes the requests it used."""
    return str(usage_path("plane", "prompting", wildcards.model))


def plane_zero_shot_usage(wildcards):
    """Where a served model's zero-shot job writes the requests it used."""
    return str(usage_path("plane", "zero_shot", wildcards.model))


def plane_finetune_location(wildcards=None):
    return PLANE["finetune"]["model"]


def plane_finetune_training(wildcards=None):
    """finetune.training, its fine_tuning method decided for the model's size."""
    from natcomp.model_description import job_setting

    setting = stop_on_config_error(
        job_setting, config, "plane", plane_finetune_location()
    )
    return {**PLANE["finetune"]["training"], "fine_tuning": setting}


def plane_finetune_model(wildcards=None):
    location = PLANE["finetune"]["model"]
    return [location] if str(location).startswith("results/") else []


def plane_prompting_predictions(wildcards=None):
    return expand(
        "results/plane/prompting/{model}.tsv", model=list(PLANE["prompting"]["models"])
    )


def plane_zero_shot_predictions(wildcards=None):
    return expand(
        "results/plane/zero_shot/{model}.tsv", model=list(PLANE["prompting"]["models"])
    )


def plane_nli_predictions(wildcards=None):
    return expand("results/plane/nli/{model}.tsv", model=list(PLANE["nli"]["models"]))


def plane_finetune_accuracies(wildcards=None):
    """Table 6's inputs: our splits (train_sets own) and the released pairs (released)."""
    train_sets = PLANE["finetune"]["train_sets"]
    outputs = []
    if "own" in train_sets:
        outputs += expand(
            "results/plane/finetune/{kind}/{seed}/accuracy.tsv",
            kind=PLANE["finetune"]["splits"],
            seed=PLANE["splits"]["seeds"],
        )
    if "released" in train_sets and PLANE["released"]["enabled"]:
        outputs += expand(
            "results/plane/finetune/released/{kind}/{seed}/accuracy.tsv",
            kind=[k for k in PLANE["finetune"]["splits"] if k in PLANE_LAYOUTS],
            seed=PLANE["released"]["splits"],
        )
    return outputs


def plane_finetune_predictions(wildcards=None):
    return [
        path.replace("accuracy.tsv", "predictions.tsv")
        for path in plane_finetune_accuracies()
    ]


def plane_length_point_of_finetune():
    """Wildcard patterns (kind, length) of the length sweep's point that the main fine-tuning
    already is: the sweep's kind fine-tuned on our split (finetune.splits, train_sets own) at
    the training's own max_length, with the same data, settings and seed. A pattern that
    matches nothing where there is no such point."""
    finetune, never = PLANE["finetune"], "(?!)"
    kind, length = finetune["length_sweep"]["kind"], finetune["training"]["max_length"]
    if (
        "own" not in finetune["train_sets"]
        or kind not in finetune["splits"]
        or length not in finetune["length_sweep"]["lengths"]
    ):
        return never, never
    return kind, str(length)


def plane_length_accuracies(wildcards=None):
    sweep = PLANE["finetune"]["length_sweep"]
    return expand(
        "results/plane/finetune_length/{kind}/{seed}/{length}.tsv",
        kind=sweep["kind"],
        seed=PLANE["splits"]["seeds"],
        length=sweep["lengths"],
    )


def plane_final_outputs():
    """Every final table and figure of the family ([] when the family is switched off)."""
    if not PLANE.get("enabled", False):
        return []
    outputs = ["results/tables/plane/items_per_class_it.tsv"]
    outputs += expand(
        "results/plane/splits/{kind}/{seed}/test.tsv",
        kind=plane_split_kinds(),
        seed=PLANE["splits"]["seeds"],
    )
    if PLANE["prompting"]["enabled"]:
        outputs.append("results/tables/plane/table4_prompting.tsv")
    if PLANE["zero_shot"]["enabled"]:
        outputs.append("results/tables/plane/table8_zero_shot.tsv")
    if PLANE["nli"]["enabled"]:
        outputs += [
            "results/tables/plane/table5_nli.tsv",
            "results/figures/plane/figure1_nli_f1.png",
        ]
    if PLANE["finetune"]["enabled"]:
        outputs += [
            "results/tables/plane/table6_finetune.tsv",
            "results/tables/plane/finetune_accuracy.tsv",
            "results/figures/plane/figure2_3_subwords.png",
        ]
    if PLANE["finetune"]["enabled"] and PLANE["finetune"]["length_sweep"]["enabled"]:
        outputs.append("results/figures/plane/figure8_length.png")
    if PLANE["released"]["enabled"]:
        outputs.append("results/tables/plane/released_checks.tsv")
    return outputs


# Every model's jobs sized before the DAG: one line for a model too large (natcomp.jobsize).
if PLANE.get("enabled", False):
    if PLANE["prompting"]["enabled"] or PLANE["zero_shot"]["enabled"]:
        check_model_jobs(
            "plane_prompting",
            plane_model_location("prompting"),
            model=PLANE["prompting"]["models"],
        )
    if PLANE["nli"]["enabled"]:
        check_model_jobs(
            "plane_nli", plane_model_location("nli"), model=PLANE["nli"]["models"]
        )
    if PLANE["finetune"]["enabled"]:
        check_model_jobs(
            "plane_finetune", plane_finetune_location, fine_tuning_of("plane")
        )


FINAL_OUTPUTS["plane"] = plane_final_outputs
