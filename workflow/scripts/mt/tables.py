from itertools import combinations

from natcomp.mt import tables as mt
from natcomp.mt.paper_results import read_paper_results, with_paper
from natcomp.mt.comparison import SYSTEMS_TITLE, TITLE, group_comparison, item_outcomes
from natcomp.published import read_published
from natcomp.report_table import write_html_table
from natcomp.rulelog import logged
from natcomp.tsv import write_tsv

with logged(snakemake.log[0]) as log:
    inputs, out = snakemake.input, snakemake.output
    # Trained models: corpus sizes in config order; then the pretrained systems in config order.
    order = {"sizes": snakemake.params.sizes, "systems": snakemake.params.systems}
    scores = {name: mt.read_scores(inputs[name]) for name in ("systematicity", "substitutivity")}
    systematicity = mt.systematicity_table(scores["systematicity"], **order)
    substitutivity = mt.substitutivity_table(scores["substitutivity"], **order)
    target_lang = snakemake.params.target_lang
    if inputs.overgeneralisation:
        scores["overgeneralisation"] = mt.read_scores(inputs.overgeneralisation)
        overgeneralisation = mt.overgeneralisation_table(scores["overgeneralisation"], **order)
        peaks = mt.overgeneralisation_peaks(overgeneralisation, **order)
        # whose keyword lists were matched: the paper's Dutch ones, or lists natcomp drafted
        overgeneralisation, peaks = (mt.with_keyword_lists(t, target_lang) for t in (overgeneralisation, peaks))
    else:  # a target language without idiom keywords: the tables say why the test is missing
        overgeneralisation = peaks = mt.no_keywords_table(target_lang)
    tables = {
        "systematicity": systematicity,
        "substitutivity": substitutivity,
        "overgeneralisation": overgeneralisation,
        "systematicity_summary": mt.systematicity_summary(systematicity, **order),
        "substitutivity_summary": mt.substitutivity_summary(substitutivity, **order),
        "overgeneralisation_peaks": peaks,
    }
    # The paper beside every table, in a Dutch run only: its printed Tables 4a and 6a
    # (paper_<size>), and its own per-seed results (mean and sd of each cell, within or
    # outside their spread).
    papers = read_published(inputs.published), read_paper_results(inputs.paper_results)
    tables = with_paper(tables, *papers, target_lang=target_lang)
    for name, table in tables.items():
        mt.write_table(table, out[name])
        # The report shows the HTML rendering; the TSV stays the data file.
        write_html_table(out[name], out[f"{name}_html"], mt.TITLES[name], snakemake.params.run_settings)
        log.info("%s: %d rows", name, len(table))
    # every model's item labels, and the paired comparisons of the sizes and systems on them
    outcomes = item_outcomes(scores)
    mt.write_table(outcomes, out.item_outcomes)
    groups = mt.model_groups(systematicity, **order)
    pairs = list(combinations(groups, 2))
    sizes = [pair for pair in pairs if set(pair) <= set(snakemake.params.sizes)]  # the paper's question
    systems = [pair for pair in pairs if pair not in sizes]
    for name, title, chosen in (("size_comparison", TITLE, sizes), ("system_comparison", SYSTEMS_TITLE, systems)):
        comparison = group_comparison(outcomes, groups, pairs=chosen)
        # %.4g: a p-value of 3e-07 stays one (4 decimals would print 0.0000)
        write_tsv(out[name], comparison, float_format="%.4g")
        write_html_table(out[name], out[f"{name}_html"], title, snakemake.params.run_settings)
        log.info("%s: %d comparisons", name, len(comparison))
    log.info("item_outcomes: %d rows", len(outcomes))
