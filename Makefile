# Two entry points (see README): `make demo` and `make test`.
# Both work from a fresh clone on a machine with cargo and python3.11 (+ pip):
# the Python tools come from requirements-dev.lock into .venv.

PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check
DEMO ?= examples/dumbbell_udp.toml
DEMO_STUDY ?= patel-red-sfq-rem
# The stamp is newer than the lock file once the locked versions are installed.
DEPS_STAMP := $(VENV)/.deps-installed

.PHONY: demo test studies validate venv ext rust-test clippy fmt-check lint pytest fmt clean clean-venv

# One scenario run (its summary table), then a built-in study's quick variant
# end to end: its runs, tables, claims and report.html.
demo: ext
	$(BIN)/ccsim run $(DEMO)
	$(BIN)/ccsim reproduce $(DEMO_STUDY) --quick --quiet --overwrite --out results/$(DEMO_STUDY)-quick
	@echo "The study's report: results/$(DEMO_STUDY)-quick/report.html (tables: summary.md; figures: figures/)"

# The full run of every built-in study (docs/studies/): results in results/NAME/
# (kept: --resume runs only what is missing), the report, figures, tables and
# claims copied into docs/studies/NAME/ where the documentation shows them.
# After a study's scenario changed, `make studies STUDY_FLAGS=--overwrite` starts afresh.
STUDIES := patel-red-sfq-rem bisoy-aqm vyshnavi-tcp ramachendra-modred mehta-slowcc
STUDY_FLAGS ?= --resume

studies: $(addprefix study-,$(STUDIES))

study-%: ext
	$(BIN)/ccsim reproduce $* --out results/$* $(STUDY_FLAGS) --quiet
	rm -rf docs/studies/$* && mkdir -p docs/studies/$*/figures
	cp results/$*/report.html results/$*/*.md results/$*/*.csv docs/studies/$*/
	cp results/$*/figures/*.png docs/studies/$*/figures/

# The differential validation suite (validation/README.md): installs the peers
# (ns-2 with apt-get when `ns` is missing; ns-3 through
# validation/peers/install_ns3.sh when it exists), runs every twin on ccsim and
# on the peers on the machine's cores, stores the peers' results in
# validation/peer_results/ and writes docs/validation.md and its figures.
# VALIDATE_FLAGS: e.g. --refresh-peers, --twins NAME,..., --peers ns2.
VALIDATE_JOBS ?= $(shell nproc)
VALIDATE_FLAGS ?=

validate: ext
	@command -v ns >/dev/null || { echo "installing ns-2 (Debian's ns2)"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y ns2; \
		else sudo apt-get update -qq && sudo apt-get install -y ns2; fi; }
	@if [ -x validation/peers/install_ns3.sh ]; then validation/peers/install_ns3.sh; fi
	nice $(BIN)/python validation/run.py --jobs $(VALIDATE_JOBS) $(VALIDATE_FLAGS)

test: rust-test clippy fmt-check ext lint pytest

venv: $(DEPS_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(DEPS_STAMP): requirements-dev.lock | $(BIN)/python
	$(PIP) install --quiet -r requirements-dev.lock
	touch $@

# Build the Rust extension (release: LTO, codegen-units=1) into the venv as an
# editable install; cargo makes this a few seconds when nothing changed.
# (PIP_QUIET: maturin re-checks the dependencies with pip every time.)
ext: $(DEPS_STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PIP_QUIET=1 $(BIN)/maturin develop --release --quiet

rust-test:
	cargo test --workspace

clippy:
	cargo clippy --workspace --all-targets -- -D warnings

fmt-check:
	cargo fmt --all -- --check

lint: $(DEPS_STAMP)
	$(BIN)/ruff check python tests validation
	$(BIN)/ruff format --check python tests validation

pytest: ext
	$(BIN)/python -m pytest tests/python

# Apply formatting (not part of `make test`, which only checks).
fmt: $(DEPS_STAMP)
	cargo fmt --all
	$(BIN)/ruff format python tests validation
	$(BIN)/ruff check --fix python tests validation

clean:
	rm -rf results build python/ccsim/*.so

clean-venv:
	rm -rf $(VENV)
