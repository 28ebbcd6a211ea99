# Shared by every family: the config check, the family switches and the input function of
# the download rule. Each family's own helpers live in workflow/rules/<family>/common.smk.
import os
import re
import sys
import urllib.parse
from pathlib import Path

from snakemake.utils import validate

# The workflow and its scripts import natcomp: take the repository's copy where it is not
# installed (per-rule conda envs). Scripts see this path through Snakemake's search path.
_SRC = str(Path(workflow.basedir) / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

from natcomp import snakemake_scheduler
from natcomp.configcheck import check_sections
from natcomp.download import download_entry
from natcomp.errors import ConfigError
from natcomp.finetuning import family_training
from natcomp.jobsize import JobSettings, RuleResources
from natcomp.summary import run_scale, run_settings
from natcomp.runs import check_run_folder, claim_run_folder, link_shared_resources

# One timer for the scheduler's re-evaluation instead of one more per finished job
# (natcomp.snakemake_scheduler: Snakemake 9 otherwise re-selects jobs n times a second after
# n jobs, a minute of CPU in the demo).
snakemake_scheduler.install()

FAMILIES = ("mt", "noncompsst", "plane", "pss", "tre")
CONFIG_DIR = Path(workflow.basedir) / "config"


def stop_on_config_error(check, *args, **kwargs):
    """Run a config check; a problem ends the run with one line naming the key."""
    try:
        return check(*args, **kwargs)
    except ConfigError as error:
        sys.exit(f"natcomp: {error}")


# One-line errors first (natcomp.configcheck), then Snakemake's validate, which fills in
# the defaults. The top-level schema knows the families; each section has a schema of its
# own (a $ref would not fill in the section's defaults). Nested --config values arrive as
# text (--config plane='{enabled: false}'): read_typed_strings gives them the schema's type.
stop_on_config_error(check_sections, config, CONFIG_DIR, FAMILIES)
validate(config, schema="../../config/schema.yaml", set_default=True)
for _family in FAMILIES:
    if _family in config:
        validate(config[_family], schema=f"../../config/schema/{_family}.yaml")

# The GPUs, host memory and time of every job that runs a model, from the model's config,
# the run's dtype and gpus settings (natcomp.jobsize); each family checks its models with
# check_model_jobs before the DAG is built.
MODEL_JOBS = RuleResources(JobSettings.from_config(config), stop=stop_on_config_error)

#: how requests to a model behind an API are sent (natcomp.served; docs/llm.md)
SERVED = config["served"]
#: a served model's job loads no model: no GPU, the memory of a Python process
SERVED_JOB_MEM_MB = 2000


def unless_served(sized, is_served, value):
    """A resource of a job that runs a model: ``value`` where the model is behind an API
    (``is_served(wildcards)``), else ``sized`` (MODEL_JOBS) by the model's size."""
    return lambda wildcards: value if is_served(wildcards) else sized(wildcards)


def served_requests(is_served):
    """The job's Snakemake resource served_requests: the requests it has in flight to a
    served model (the served section's concurrency), so that jobs share one server's
    limit (--resources served_requests=N, which natcomp evaluate sets); 0 for the others.
    """
    return lambda wildcards: SERVED["concurrency"] if is_served(wildcards) else 0


def check_model_jobs(rule, model_of, fine_tuning_of=None, **values):
    """Size the jobs of a rule that runs a model for each value of its wildcards the config
    names (values: wildcard -> its values): a model too large for gpus.max_per_job ends the
    run in one line before any job (inside the DAG Snakemake would wrap the line)."""
    stop_on_config_error(MODEL_JOBS.check, rule, model_of, values, fine_tuning_of)


def fine_tuning_of(family):
    """A fine-tuning rule's fine_tuning_of for MODEL_JOBS: its family's setting, batch size
    and length (natcomp.finetuning.family_training; auto is decided per model when the job
    is sized).
    """
    training = stop_on_config_error(family_training, config, family)
    return lambda wildcards: training


# One run per folder (natcomp.runs): results/ of this working directory must belong to
# this run; a run folder elsewhere sees the repository's resources/ under the same name.
stop_on_config_error(
    check_run_folder, Path.cwd(), config["run_name"], workflow.overwrite_configfiles
)
link_shared_resources(Path.cwd(), workflow.basedir)


#: checks a real run (not a dry run) makes before its first job, given the jobs it will
#: run; families add theirs
START_CHECKS = []


onstart:
    planned = list(workflow.dag.needrun_jobs())
    for check in START_CHECKS:
        check(planned)
    claim_run_folder(Path.cwd(), config["run_name"])


#: family -> function giving its final outputs; each enabled family's common.smk adds itself
FINAL_OUTPUTS = {}


#: final TSV tables shown in the report as HTML tables: TSV path -> how to show it
#: (report_table below; the rules of workflow/rules/report.smk render them)
REPORT_TABLES = {}


#: what results/summary.html shows: dicts of family, kind (table or figure), path, title
#: (in_summary below; rule summary in workflow/rules/report.smk)
SUMMARY_ITEMS = []


def in_summary(path, title):
    """Put a final table (.tsv) or figure (.png) on the run's summary page; returns the
    path, so it wraps an output: report(in_summary("results/figures/x.png", "..."), ...).
    """
    SUMMARY_ITEMS.append(
        {
            "family": Path(path).parts[2],
            "kind": "table" if path.endswith(".tsv") else "figure",
            "path": path,
            "title": title,
        }
    )
    return path


def report_table(tsv, caption, category, subcategory=None, title=None, summary=False):
    """Mark a final TSV table for the report, like Snakemake's report() marks a file.

    The report then shows it as an HTML table with the TSV as a download (a .tsv item
    would only be a download button): rule report_table_<name> renders it through
    natcomp.report_table, and rule all asks for the rendering of every final table.
    ``caption`` is relative to the calling rule file, as report() takes it; ``title`` is
    the table's heading (default: the file name); ``summary`` puts the table on the run's
    summary page too (a family's headline tables)."""
    stem = tsv.removeprefix("results/").removesuffix(".tsv")
    REPORT_TABLES[tsv] = {
        "rule": "_".join(
            ["report", *re.findall(r"[A-Za-z0-9]+", stem.removeprefix("tables/"))]
        ),
        "log": f"results/logs/report/{stem}.log",
        "html": f"{tsv.removesuffix('.tsv')}.html",
        "caption": os.path.normpath(
            os.path.join(
                workflow.current_basedir.get_path_or_uri(secret_free=True), caption
            )
        ),
        "category": category,
        "subcategory": subcategory,
        "title": title or Path(tsv).stem.replace("_", " "),
        "family": Path(tsv).parts[2],
    }
    if summary:
        in_summary(tsv, REPORT_TABLES[tsv]["title"])
    return tsv


def report_html(path):
    """The HTML rendering of a final table marked with report_table(), else None (a
    marked path may hold wildcards: agreement_{study}.tsv)."""
    for tsv, table in REPORT_TABLES.items():
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(tsv))
        match = re.fullmatch(pattern, path)
        if match:
            return table["html"].format(**match.groupdict())
    return None


def with_report_tables(paths):
    """Final outputs and, for each marked report table among them, its HTML rendering."""
    paths = list(paths)
    return paths + [html for html in map(report_html, paths) if html is not None]


def summary_sections():
    """The summary page's sections: per enabled family (in FAMILIES order), its marked
    tables and figures that this run makes (final outputs), and the scale it runs at."""
    finals = {path for outputs in FINAL_OUTPUTS.values() for path in outputs()}
    sections = []
    for family in FAMILIES:
        items = [item for item in SUMMARY_ITEMS if item["family"] == family]
        items = [item for item in items if item["path"] in finals]
        if family_enabled(family) and items:
            sections.append(
                {
                    "family": family,
                    "scale": run_scale(config[family]),
                    "settings": run_settings(family, config[family]),
                    "tables": [
                        (i["title"], i["path"]) for i in items if i["kind"] == "table"
                    ],
                    "figures": [
                        (i["title"], i["path"]) for i in items if i["kind"] == "figure"
                    ],
                }
            )
    return sections


def family_enabled(family):
    """A family runs when its config section is present and not switched off."""
    return family in config and config[family].get("enabled", True)


def local_url_path(url):
    """The local path of a file: URL (relative when written file:PATH), else None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "file":
        return None
    return urllib.parse.unquote(parts.netloc + parts.path)


#: family -> the fields its download URLs may name ({pair}: MT's Tatoeba pair), set by
#: the family's common.smk
DOWNLOAD_FIELDS = {}


def download_url(wildcards):
    """A download's URL, its fields ({pair}) filled in from the family's run."""
    entry = config[wildcards.family]["downloads"][wildcards.download]
    return download_entry(entry, DOWNLOAD_FIELDS.get(wildcards.family, {}))[0]


def download_sha256(wildcards):
    """A download's checksum: one, none, or the one of the run's pair (pair -> sha256)."""
    entry = config[wildcards.family]["downloads"][wildcards.download]
    return download_entry(entry, DOWNLOAD_FIELDS.get(wildcards.family, {}))[1]


def download_source(wildcards):
    """A file: URL's file is an input of the download, so the demo builds it first."""
    path = local_url_path(download_url(wildcards))
    return [path] if path else []
