# PLANE (Bertolini, Weeds & Weir 2022): shared helpers of the family's rule files.
# Stages: resource.smk (demo corpus, AN phrases, WordNet hypernyms, items), splits.smk
# (GOoD / One-IT / in-distribution splits, checks of the released splits), evaluate.smk
# (two-shot prompting, NLI transfer, fine-tuning), report.smk (tables and Figure 1).

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


def plane_released_test(kind, seed):
    """The released test file matching one of our splits (GOoD -> OoD, One-IT -> One-IT)."""
    prefix = {"good": "ood", "one_it": "one_it"}.get(kind)
    if not PLANE["released"]["enabled"] or prefix is None:
        return {}
    if int(seed) not in PLANE["released"]["splits"]:
        return {}
    return {f"released_{seed}": plane_download(f"{prefix}_test_{seed}.pkl")}


def plane_finetune_released(wildcards):
    return plane_released_test(wildcards.kind, wildcards.seed)


def plane_model_input(section):
    """A model built by this workflow (a path under results/) is an input of its evaluation."""

    def inputs(wildcards):
        location = PLANE[section]["models"][wildcards.model]
        return [location] if str(location).startswith("results/") else []

    return inputs


def plane_model_location(section):
    def location(wildcards):
        return PLANE[section]["models"][wildcards.model]

    return location


def plane_finetune_model(wildcards=None):
    location = PLANE["finetune"]["model"]
    return [location] if str(location).startswith("results/") else []


def plane_prompting_predictions(wildcards=None):
    return expand(
        "results/plane/prompting/{model}.tsv", model=list(PLANE["prompting"]["models"])
    )


def plane_nli_predictions(wildcards=None):
    return expand("results/plane/nli/{model}.tsv", model=list(PLANE["nli"]["models"]))


def plane_finetune_accuracies(wildcards=None):
    return expand(
        "results/plane/finetune/{kind}/{seed}/accuracy.tsv",
        kind=PLANE["finetune"]["splits"],
        seed=PLANE["splits"]["seeds"],
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
    if PLANE["nli"]["enabled"]:
        outputs += [
            "results/tables/plane/table5_nli.tsv",
            "results/figures/plane/figure1_nli_f1.png",
        ]
    if PLANE["finetune"]["enabled"]:
        outputs += [
            "results/tables/plane/table6_finetune.tsv",
            "results/tables/plane/finetune_accuracy.tsv",
        ]
    if PLANE["released"]["enabled"]:
        outputs.append("results/tables/plane/released_checks.tsv")
    return outputs


FINAL_OUTPUTS["plane"] = plane_final_outputs
