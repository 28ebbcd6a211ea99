# Two commands on a fresh machine: `make demo` and `make test`. Both create .venv on first
# use with every dependency pinned (requirements.txt, constrained by requirements.lock).
SHELL := /bin/bash
VENV := $(CURDIR)/.venv
PYTHON ?= python3
INSTALLED := $(VENV)/.installed
export PATH := $(VENV)/bin:$(PATH)
# The cores `make demo` runs jobs on and the workers `make test` runs tests on.
CORES ?= 2

.PHONY: demo test lint install report dag clean

install: $(INSTALLED)

$(INSTALLED): requirements.txt requirements.lock pyproject.toml tools/install_wordnet.sh tools/install_fairseq.sh
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade setuptools wheel
	$(VENV)/bin/python -m pip install --quiet -r requirements.txt -c requirements.lock
	# fairseq's build needs torch: built against the pinned torch already installed, without its
	# torchaudio requirement (a torchaudio for another torch breaks transformers; see the script).
	bash tools/install_fairseq.sh $(VENV)
	$(VENV)/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
	# WordNet 3.0 for PLANE, offline, into the venv where NLTK looks without any setting.
	bash tools/install_wordnet.sh $(VENV)
	$(VENV)/bin/python -m pip check
	touch $@

# The report's stylesheet puts the landing page's text at the top (workflow/report/style.css).
REPORT := --report results/report.html --report-stylesheet workflow/report/style.css

demo: $(INSTALLED)
	$(VENV)/bin/snakemake --cores $(CORES)
	$(VENV)/bin/snakemake --cores $(CORES) $(REPORT)

report: $(INSTALLED)
	$(VENV)/bin/snakemake --cores $(CORES) $(REPORT)

# The tests include the lint checks (ruff check, ruff format --check, snakemake --lint,
# snakefmt: tests/test_workflow.py); `make lint` runs the same checks alone, in seconds.
# They run on CORES workers (pytest-xdist): a test module stays on one worker, and the tests
# that share the demo run, the SLURM cluster or a model server run on one (tests/conftest.py).
test: $(INSTALLED)
	$(VENV)/bin/python -m pytest -n $(CORES) --dist loadgroup

lint: $(INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/snakefmt --check Snakefile workflow/rules
	$(VENV)/bin/snakemake --lint

dag: $(INSTALLED)
	mkdir -p results
	$(VENV)/bin/snakemake --rulegraph mermaid-js > results/rulegraph.mmd

clean:
	rm -rf results .snakemake
