"""natcomp: compositionality tests for NLP models on natural language.

The package holds all logic of the Snakemake workflow in ``workflow/``; the workflow's
scripts are thin wrappers around the functions here, and the same functions serve the
``natcomp`` command line.
"""

__version__ = "0.1.0"
