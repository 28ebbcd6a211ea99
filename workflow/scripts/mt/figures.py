from natcomp.mt import figures
from natcomp.mt.tables import published_for, read_table, word_for_word_idioms
from natcomp.published import read_published
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    # Colours: corpus sizes in config order, then the pretrained systems in config order.
    sizes, systems = snakemake.params.sizes, snakemake.params.systems
    substitutivity = read_table(inputs.substitutivity)
    # The paper's Tables 4a and 6a (the numbers behind its Figures 1 and 3a) as black bars, in a Dutch run.
    published = published_for(read_published(inputs.published), snakemake.params.target_lang)
    figures.systematicity_figure(
        read_table(inputs.systematicity),
        sizes,
        out.systematicity,
        systems=systems,
        paper=figures.paper_values(published, "systematicity_summary"),
    )
    figures.substitutivity_figure(
        substitutivity,
        sizes,
        out.substitutivity,
        systems=systems,
        paper=figures.paper_values(published, "substitutivity_summary"),
    )
    figures.synonym_figure(substitutivity, out.synonyms)
    # idioms the target language says word for word: their lines stay, the means leave them out
    figures.overgeneralisation_figure(
        read_table(inputs.overgeneralisation),
        sizes,
        out.overgeneralisation,
        systems=systems,
        word_for_word=word_for_word_idioms(snakemake.params.target_lang),
    )
