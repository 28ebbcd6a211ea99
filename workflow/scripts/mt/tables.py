from natcomp.mt import tables as mt
from natcomp.mt.paper_results import read_paper_results, with_paper
from natcomp.published import read_published
from natcomp.report_table import write_html_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    inputs, out = snakemake.input, snakemake.output
    # Trained models: corpus sizes in config order; then the pretrained systems in config order.
    order = {"sizes": snakemake.params.sizes, "systems": snakemake.params.systems}
    systematicity = mt.systematicity_table(mt.read_scores(inputs.systematicity), **order)
    substitutivity = mt.substitutivity_table(mt.read_scores(inputs.substitutivity), **order)
    target_lang = snakemake.params.target_lang
    if inputs.overgeneralisation:
        overgeneralisation = mt.overgeneralisation_table(mt.read_scores(inputs.overgeneralisation), **order)
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
