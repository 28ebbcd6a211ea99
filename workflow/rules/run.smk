# The run itself: the configuration it used, written next to its results (params hold
# the config, so any change of it writes the file again).


rule run_config:
    output:
        "results/config.yaml",
    log:
        "results/logs/run_config.log",
    localrule: True
    conda:
        "../../envs/natcomp.yaml"
    params:
        config=config,
        configfiles=workflow.overwrite_configfiles or workflow.configfiles,
    script:
        "../scripts/run_config.py"


FINAL_OUTPUTS["run"] = lambda: ["results/config.yaml"]
