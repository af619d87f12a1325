# The two commands of README.md, `make run` and `make test`, `make bench`, `make docs` and
# `make clients`. Each sets itself up.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench docs clients lint format clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

## Run the whole service: web on 127.0.0.1:8000, Celery worker and beat (embedded broker by default).
## The embedded set-up on one machine runs with DEBUG on (unless DEBUG is set), for itself only, and
## EMBEDDED=true says that SQLite and the embedded broker are meant (docs/operations/configuration.md);
## manage.py's staff commands in another shell need DEBUG=true too (docs/operations/staff.md).
run: export DEBUG ?= true
run: export EMBEDDED ?= true
run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demomerchant
	$(BIN)/python manage.py runservice

## Run the test suite (SQLite by default; PostgreSQL/Redis when DATABASE_URL/REDIS_URL are set) on
## PYTEST_WORKERS processes (pytest-xdist; 0 runs it in this one), each with its own test database,
## Redis database (TEST_REDIS_DBS, or REDIS_URL's and the next ones) and VAR_DIR (tests/env.py).
PYTEST_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

## The service as deployed (nginx, gunicorn, the Celery workers) beside the code of
## BENCH_OLD_COMMIT, in one run (docs/performance.md): the HTTP rows, the webhook drain and
## payments end to end; PostgreSQL and Redis on 127.0.0.1 (started if needed), Debian's wrk
## and nginx; about 7 minutes on a quiet 2-core machine.
bench: $(STAMP)
	$(BIN)/python bench/run.py

## The documentation site (mkdocs.yml, docs/): built into var/site, or `make docs DOCS=serve` to
## serve it on 127.0.0.1:8001 while editing. Installs the docs extra into .venv.
DOCS ?= build
DOCS_STAMP := $(VENV)/.installed-docs

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
ifeq ($(DOCS),serve)
	$(BIN)/mkdocs serve --strict --dev-addr 127.0.0.1:8001
else
	$(BIN)/mkdocs build --strict -d var/site
endif

## The client libraries' generated code (clients/), from the service's OpenAPI document:
## clients/openapi.json and each library's generated files (CI checks them with --check).
clients: $(STAMP)
	$(BIN)/python clients/generate.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) var .pytest_cache
