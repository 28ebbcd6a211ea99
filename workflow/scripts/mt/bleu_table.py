from natcomp.mt.bleu import gather_bleu
from natcomp.mt.comparison import BLEU_TITLE, bleu_comparison
from natcomp.tsv import write_tsv
from natcomp.mt.systems import gather_generation_counts
from natcomp.mt.tables import published_for
from natcomp.published import read_published
from natcomp.report_table import write_html_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    params = snakemake.params
    gather_bleu(
        snakemake.input.scores,
        snakemake.output.table,
        sizes=params.sizes,
        systems=params.systems,
        # the paper's Table 9 in a Dutch run only
        published=published_for(read_published(snakemake.input.published), params.target_lang),
    )
    gather_generation_counts(snakemake.input.generation, snakemake.output.generation)
    write_html_table(
        snakemake.output.table,
        snakemake.output.html,
        "BLEU on FLORES-101 per model (trained and pretrained systems)",
        params.run_settings,
    )
    # every pair of sizes and systems, by sacrebleu's paired bootstrap
    comparison = bleu_comparison(params.translations, params.flores, params.target_lang)
    write_tsv(snakemake.output.comparison, comparison, float_format="%.4g")
    write_html_table(snakemake.output.comparison, snakemake.output.comparison_html, BLEU_TITLE, params.run_settings)
