# PLANE's final tables and figure: Table 4 (prompting), Table 5 and Figure 1 (NLI
# transfer), Table 6 (fine-tuning), with captions in workflow/report/plane/.


rule plane_prompting_table:
    input:
        plane_prompting_predictions,
    output:
        table4=report_table(
            "results/tables/plane/table4_prompting.tsv",
            title="Prompting (paper Table 4)",
            caption="../../report/plane/table4_prompting.rst",
            category="PLANE",
            subcategory="prompting",
            summary=True,
        ),
        cells="results/tables/plane/prompting_f1.tsv",
        # the predictions behind Table 4 per prompt cell and item (natcomp compare pairs them)
        item_outcomes="results/tables/plane/table4_items.tsv",
    log:
        "results/logs/plane/plane_prompting_table/table4.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/prompting_table.py"


rule plane_zero_shot_table:
    input:
        plane_zero_shot_predictions,
    output:
        table8=report_table(
            "results/tables/plane/table8_zero_shot.tsv",
            title="Zero-shot prompting (paper Table 8)",
            caption="../../report/plane/table8_zero_shot.rst",
            category="PLANE",
            subcategory="prompting",
            summary=True,
        ),
        item_outcomes="results/tables/plane/table8_items.tsv",
    log:
        "results/logs/plane/plane_zero_shot_table/table8.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/zero_shot_table.py"


rule plane_nli_table:
    input:
        plane_nli_predictions,
    output:
        table5=report_table(
            "results/tables/plane/table5_nli.tsv",
            title="NLI transfer (paper Table 5)",
            caption="../../report/plane/table5_nli.rst",
            category="PLANE",
            subcategory="NLI transfer",
            summary=True,
        ),
        figure_data="results/tables/plane/figure1_nli_f1.tsv",
        figure=report(
            in_summary(
                "results/figures/plane/figure1_nli_f1.png",
                "NLI transfer F1 (paper Figure 1)",
            ),
            caption="../../report/plane/figure1_nli_f1.rst",
            category="PLANE",
            subcategory="NLI transfer",
        ),
        item_outcomes="results/tables/plane/table5_items.tsv",
    log:
        "results/logs/plane/plane_nli_table/table5.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/nli_table.py"


rule plane_finetune_table:
    input:
        accuracies=plane_finetune_accuracies,
        predictions=plane_finetune_predictions,
    output:
        table6=report_table(
            "results/tables/plane/table6_finetune.tsv",
            title="Fine-tuning (paper Table 6)",
            caption="../../report/plane/table6_finetune.rst",
            category="PLANE",
            subcategory="fine-tuning",
            summary=True,
        ),
        accuracy=report_table(
            "results/tables/plane/finetune_accuracy.tsv",
            caption="../../report/plane/finetune_accuracy.rst",
            category="PLANE",
            subcategory="fine-tuning",
        ),
        # whether each test item of each split was right (natcomp compare pairs them)
        item_outcomes="results/tables/plane/table6_items.tsv",
    log:
        "results/logs/plane/plane_finetune_table/table6.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/finetune_table.py"


rule plane_length_figure:
    input:
        plane_length_accuracies,
    output:
        table="results/tables/plane/figure8_length.tsv",
        figure=report(
            "results/figures/plane/figure8_length.png",
            caption="../../report/plane/figure8_length.rst",
            category="PLANE",
            subcategory="fine-tuning",
        ),
    log:
        "results/logs/plane/plane_length_figure/figure8.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    script:
        "../../scripts/plane/length_figure.py"


rule plane_subword_figure:
    input:
        plane_finetune_predictions,
    output:
        table="results/tables/plane/figure2_3_subwords.tsv",
        figure=report(
            "results/figures/plane/figure2_3_subwords.png",
            caption="../../report/plane/figure2_3_subwords.rst",
            category="PLANE",
            subcategory="fine-tuning",
        ),
    log:
        "results/logs/plane/plane_subword_figure/figure2_3.log",
    localrule: True
    conda:
        "../../../envs/plane.yaml"
    params:
        model=lookup(dpath="plane/finetune/model", within=config),
    script:
        "../../scripts/plane/subword_figure.py"
