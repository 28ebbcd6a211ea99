# Shared by every family: the config check, the family switches and the input function of
# the download rule. Each family's own helpers live in workflow/rules/<family>/common.smk.
import sys
import urllib.parse
from pathlib import Path

from snakemake.utils import validate

# The workflow and its scripts import natcomp: take the repository's copy where it is not
# installed (per-rule conda envs). Scripts see this path through Snakemake's search path.
_SRC = str(Path(workflow.basedir) / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")

# The top-level schema knows the families; each section has a schema of its own (a $ref
# would not fill in the section's defaults).
validate(config, schema="../../config/schema.yaml", set_default=True)
for _family in FAMILIES:
    if _family in config:
        validate(config[_family], schema=f"../../config/schema/{_family}.yaml")


#: family -> function giving its final outputs; each enabled family's common.smk adds itself
FINAL_OUTPUTS = {}


def family_enabled(family):
    """A family runs when its config section is present and not switched off."""
    return family in config and config[family].get("enabled", True)


def local_url_path(url):
    """The local path of a file: URL (relative when written file:PATH), else None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "file":
        return None
    return urllib.parse.unquote(parts.netloc + parts.path)


def download_source(wildcards):
    """A file: URL's file is an input of the download, so the demo builds it first."""
    entry = config[wildcards.family]["downloads"][wildcards.download]
    path = local_url_path(entry["url"])
    return [path] if path else []
