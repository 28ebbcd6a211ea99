import pandas as pd

import natcomp_on_path  # noqa: F401
from natcomp import mt_figures as figures
from natcomp.rulelog import logged

with logged(snakemake.log[0]):
    inputs, out = snakemake.input, snakemake.output
    sizes = list(snakemake.config["mt"]["sizes"])
    systematicity = pd.read_csv(inputs.systematicity, sep="\t")
    substitutivity = pd.read_csv(inputs.substitutivity, sep="\t")
    overgeneralisation = pd.read_csv(inputs.overgeneralisation, sep="\t")
    figures.systematicity_figure(systematicity, sizes, out.systematicity)
    figures.substitutivity_figure(substitutivity, sizes, out.substitutivity)
    figures.synonym_figure(substitutivity, out.synonyms)
    figures.overgeneralisation_figure(overgeneralisation, sizes, out.overgeneralisation)
