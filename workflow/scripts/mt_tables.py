import natcomp_on_path  # noqa: F401
from natcomp import mt_tables as mt
from natcomp.lexicon import load_idioms, load_synonyms
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    sizes = list(snakemake.config["mt"]["sizes"])
    pair_names = [f"{p.british}/{p.american}" for p in load_synonyms(inputs.synonyms)]
    idiom_names = [idiom.idiom for idiom in load_idioms(inputs.idioms)]

    systematicity = mt.systematicity_table(mt.read_scores(inputs.systematicity), sizes)
    substitutivity = mt.substitutivity_table(mt.read_scores(inputs.substitutivity), sizes, pair_names)
    overgeneralisation = mt.overgeneralisation_table(mt.read_scores(inputs.overgeneralisation), sizes, idiom_names)
    mt.write_table(systematicity, out.systematicity)
    mt.write_table(substitutivity, out.substitutivity)
    mt.write_table(overgeneralisation, out.overgeneralisation)
    mt.write_table(mt.systematicity_summary(systematicity, sizes), out.systematicity_summary)
    mt.write_table(mt.substitutivity_summary(substitutivity, sizes), out.substitutivity_summary)
    mt.write_table(mt.overgeneralisation_peaks(overgeneralisation, sizes), out.overgeneralisation_peaks)
