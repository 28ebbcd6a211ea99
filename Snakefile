# natcomp: compositionality tests for NLP models on natural language.
# The default config is the offline demo; config/paper.yaml is the paper scale.
from snakemake.utils import min_version

min_version("9.20")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/demo.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/corpus.smk"
include: "workflow/rules/nmt.smk"
include: "workflow/rules/semi_natural.smk"
include: "workflow/rules/mt_tests.smk"


rule all:
    default_target: True
    input:
        "results/tables/bleu.tsv",
        "results/tables/systematicity.tsv",
        "results/figures/systematicity.png",
        "results/tables/manual_analysis.tsv",
