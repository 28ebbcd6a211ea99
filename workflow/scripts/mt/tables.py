from natcomp.mt import tables as mt
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    sizes = snakemake.params.sizes
    systematicity = mt.systematicity_table(mt.read_scores(inputs.systematicity), sizes)
    substitutivity = mt.substitutivity_table(mt.read_scores(inputs.substitutivity), sizes)
    overgeneralisation = mt.overgeneralisation_table(mt.read_scores(inputs.overgeneralisation), sizes)
    mt.write_table(systematicity, out.systematicity)
    mt.write_table(substitutivity, out.substitutivity)
    mt.write_table(overgeneralisation, out.overgeneralisation)
    mt.write_table(mt.systematicity_summary(systematicity, sizes), out.systematicity_summary)
    mt.write_table(mt.substitutivity_summary(substitutivity, sizes), out.substitutivity_summary)
    mt.write_table(mt.overgeneralisation_peaks(overgeneralisation, sizes), out.overgeneralisation_peaks)
