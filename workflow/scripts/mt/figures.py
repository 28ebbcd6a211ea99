from natcomp.mt import figures
from natcomp.mt.tables import read_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    # Colours: corpus sizes in config order, then the pretrained systems in config order.
    sizes, systems = snakemake.params.sizes, snakemake.params.systems
    substitutivity = read_table(inputs.substitutivity)
    figures.systematicity_figure(read_table(inputs.systematicity), sizes, out.systematicity, systems=systems)
    figures.substitutivity_figure(substitutivity, sizes, out.substitutivity, systems=systems)
    figures.synonym_figure(substitutivity, out.synonyms)
    figures.overgeneralisation_figure(
        read_table(inputs.overgeneralisation), sizes, out.overgeneralisation, systems=systems
    )
