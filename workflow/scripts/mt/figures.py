from natcomp.mt import figures
from natcomp.mt.tables import read_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    sizes = snakemake.params.sizes
    substitutivity = read_table(inputs.substitutivity)
    figures.systematicity_figure(read_table(inputs.systematicity), sizes, out.systematicity)
    figures.substitutivity_figure(substitutivity, sizes, out.substitutivity)
    figures.synonym_figure(substitutivity, out.synonyms)
    figures.overgeneralisation_figure(read_table(inputs.overgeneralisation), sizes, out.overgeneralisation)
