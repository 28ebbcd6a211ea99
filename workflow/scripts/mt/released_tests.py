"""The original study's test files out of its repository archive, each checked against resources/mt/released_tests.tsv."""

from natcomp.mt.released_items import read_manifest
from natcomp.mt.releases import extract_checked_files
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    files = read_manifest(snakemake.input.manifest)
    count = extract_checked_files(snakemake.input.archive, files, snakemake.output[0])
    log.info("%d release files extracted, each with the size and sha256 of %s", count, snakemake.input.manifest)
