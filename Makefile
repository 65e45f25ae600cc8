# The two set-up commands: `make run` and `make test` (each creates .venv if missing and installs).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CASE ?= cases/plate.yaml

.PHONY: run test view lint-imports lint install install-docs bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# uv installs the packages: the same versions as pip resolves, in a fraction of its time (each .venv of CI is new:
# about 40 s with pip, DESIGN.md, the test suite's time); their bytecode compiled as pip does, so that no process
# compiles what it imports
$(BIN)/uv: $(BIN)/python
	$(BIN)/python -m pip install -q uv
UV_INSTALL := $(BIN)/uv pip install -q --python $(BIN)/python --compile-bytecode

$(STAMP): $(BIN)/uv pyproject.toml setup.py
	$(UV_INSTALL) -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/sciml run $(CASE)

# import-linter reads the package from its folder, but equations/ and solvers/ install as sciml.equations and
# sciml.solvers (setup.py maps them): it checks a view of the installed tree, sciml/ with both linked inside.
VIEW := $(VENV)/import-view
view: $(STAMP)
	rm -rf $(VIEW) && mkdir -p $(VIEW)/sciml
	ln -s $(CURDIR)/sciml/* $(CURDIR)/equations $(CURDIR)/solvers $(VIEW)/sciml/
	ln -s $(CURDIR)/pyproject.toml $(VIEW)/

# the contracts of pyproject.toml, then no import cycle among the same view's modules (tests/import_cycles.py)
lint-imports: view
	cd $(VIEW) && $(CURDIR)/$(BIN)/lint-imports --no-cache
	$(BIN)/python tests/import_cycles.py $(VIEW)

# ruff over the source folders; the solver core's rules (tests/core_rules.py); mypy over the same view as import-linter (sciml.equations and sciml.solvers
# resolve as installed). Settings in pyproject.toml.
lint: lint-imports
	$(BIN)/ruff check sciml equations solvers
	$(BIN)/python tests/core_rules.py
	cd $(VIEW) && $(CURDIR)/$(BIN)/mypy --cache-dir $(CURDIR)/$(VENV)/mypy-cache sciml

# two pytest workers (pytest-xdist), a test file each at a time (each notebook's run a unit of its own:
# tests/conftest.py): most tests compile more than they compute, and compiling takes one core. `make lint` runs
# beside them (one process, about 20 CPU seconds, mostly mypy: it costs the two workers less than running first,
# DESIGN.md, the test suite's time); its output and seconds follow pytest's, and either failing fails the target
TEST_WORKERS ?= 2
test: $(STAMP)
	@start=$$(date +%s); { $(MAKE) --no-print-directory lint > $(VENV)/lint.log 2>&1; echo $$? > $(VENV)/lint.rc; \
	  echo "$$(( $$(date +%s) - start ))" > $(VENV)/lint.s; } & \
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25; tests=$$?; wait; \
	echo "--- make lint (beside the tests, $$(cat $(VENV)/lint.s) s)"; cat $(VENV)/lint.log; \
	[ "$$(cat $(VENV)/lint.rc)" = 0 ] || { echo "make lint failed (above)"; exit 1; }; exit $$tests

# the documentation site (mkdocs.yml), strict: a broken link, a missing reference or a docstring that does not
# render fails it. mkdocstrings reads the API from the same view as lint; the site goes to site/ (not committed).
DOCS_STAMP := $(VENV)/.installed-docs
$(DOCS_STAMP): $(STAMP)
	$(UV_INSTALL) -e ".[dev,docs]"
	touch $(DOCS_STAMP)

install-docs: $(DOCS_STAMP)

docs: $(DOCS_STAMP) view
	MPLBACKEND=Agg $(BIN)/mkdocs build --strict --clean

bench: $(STAMP)
	$(BIN)/sciml bench smoke --check cases/suites/baselines/cpu/smoke.json --jobs 2

clean:
	rm -rf $(VENV) build site *.egg-info
