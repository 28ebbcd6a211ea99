from natcomp.mt.semi_natural.fragments import choose_fragments, read_fragments, select_fragments, write_choice_table
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    params = snakemake.params
    selected = select_fragments(
        read_fragments(snakemake.input[0]), top=params.top, min_nonterminals=params.min_nonterminals
    )
    chosen = choose_fragments(
        selected,
        n_vp=params.n_vp,
        n_np=params.n_np,
        overrides=params.chosen or None,
        min_distance=params.min_distance,
    )
    write_choice_table(chosen, snakemake.output[0])
    for fragment in chosen:
        log.info("%s (%d occurrences): %s", fragment.id, fragment.count, fragment.fragment)
