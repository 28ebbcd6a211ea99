from natcomp.mt import figures
from natcomp.mt.tables import read_table
from natcomp.published import read_published
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    # Colours: corpus sizes in config order, then the pretrained systems in config order.
    sizes, systems = snakemake.params.sizes, snakemake.params.systems
    substitutivity = read_table(inputs.substitutivity)
    # The paper's Tables 4a and 6a (the numbers behind its Figures 1 and 3a) as black bars.
    published = read_published(inputs.published)
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
    figures.overgeneralisation_figure(
        read_table(inputs.overgeneralisation), sizes, out.overgeneralisation, systems=systems
    )
