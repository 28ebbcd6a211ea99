"""Write the demo's Yelp-layout files (natcomp.pss.demo)."""

from pathlib import Path

from natcomp.pss.demo import generate_demo_yelp, write_demo_yelp
from natcomp.rulelog import logged

with logged(snakemake.log[0]) as log:
    demo = snakemake.params.demo
    data = generate_demo_yelp(
        train_per_label=demo["train_per_label"],
        dev_per_label=demo["dev_per_label"],
        test_per_label=demo["test_per_label"],
        copy_rate=demo["copy_rate"],
        deletion_rate=demo["deletion_rate"],
        seed=demo["seed"],
    )
    written = write_demo_yelp(data, Path(snakemake.output[0]).parent)
    log.info("wrote %s", ", ".join(str(path) for path in written.values()))
