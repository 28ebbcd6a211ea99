from natcomp.mt.semi_natural.fragments import find_matches, read_choice_table, write_matches
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    matches = find_matches(read_choice_table(snakemake.input.chosen), snakemake.input.treebank)
    write_matches(matches, snakemake.output[0])
    for fragment_id, phrases in matches.items():
        log.info("%s: %d matching phrases", fragment_id, len(phrases))
