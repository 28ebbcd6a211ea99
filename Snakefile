# natcomp: compositionality tests for NLP models on natural language.
# The default config is the offline demo; config/paper.yaml is the paper scale.
# ARCHITECTURE.md draws the house: one folder of rule files per test family.
from snakemake.utils import min_version

min_version("9.20")


# A run uses exactly the config it names: config/config.yaml (the demo) only when no
# --configfile is given, so a named config is not merged into the demo's settings (it
# is found from any working directory: --directory runs/NAME).
if not workflow.overwrite_configfiles:

    configfile: f"{workflow.basedir}/config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/download.smk"
include: "workflow/rules/run.smk"


if family_enabled("mt"):

    include: "workflow/rules/mt/common.smk"
    include: "workflow/rules/mt/demo.smk"
    include: "workflow/rules/mt/corpus.smk"
    include: "workflow/rules/mt/nmt.smk"
    include: "workflow/rules/mt/semi_natural.smk"
    include: "workflow/rules/mt/tests.smk"
    include: "workflow/rules/mt/synonyms.smk"
    include: "workflow/rules/mt/systems.smk"


if family_enabled("noncompsst"):

    include: "workflow/rules/noncompsst/common.smk"
    include: "workflow/rules/noncompsst/demo.smk"
    include: "workflow/rules/noncompsst/materials.smk"
    include: "workflow/rules/noncompsst/studies.smk"
    include: "workflow/rules/noncompsst/models.smk"
    include: "workflow/rules/noncompsst/report.smk"


if family_enabled("plane"):

    include: "workflow/rules/plane/common.smk"
    include: "workflow/rules/plane/resource.smk"
    include: "workflow/rules/plane/splits.smk"
    include: "workflow/rules/plane/evaluate.smk"
    include: "workflow/rules/plane/report.smk"


if family_enabled("pss"):

    include: "workflow/rules/pss/common.smk"
    include: "workflow/rules/pss/demo.smk"
    include: "workflow/rules/pss/pss.smk"


if family_enabled("tre"):

    include: "workflow/rules/tre/common.smk"
    include: "workflow/rules/tre/demo.smk"
    include: "workflow/rules/tre/tre.smk"


include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        [
            path
            for outputs in FINAL_OUTPUTS.values()
            for path in with_report_tables(outputs())
        ],
