# BlastShield: `make run` starts the dashboard, `make test` runs the whole suite.
# Both create .venv (Python 3.12+) and install requirements.txt on first use.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
PORT ?= 8501
# The dashboard listens on loopback only (.streamlit/config.toml). `make run ADDRESS=0.0.0.0` serves it
# on every interface, which needs sign-in configured (README, "Sharing the dashboard").
ADDRESS ?=

.PHONY: setup browser run test test-fast lint bench clean

$(STAMP): requirements.txt
	@test -x $(PY) || "$$(scripts/find-python)" -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

# Bytecode for the package, as an install would write it: with PYTHONDONTWRITEBYTECODE set (as on
# some machines) every command would otherwise compile its modules again (about 60 ms of each).
setup: $(STAMP)
	@$(PY) -m compileall -q blastshield_core >/dev/null

# On loopback without sign-in the dashboard is served under a token only this user can read: a fresh
# one is written on each start, its URL printed here, and every page served under it (base/dashboard_token.py).
run: setup
	$(PY) -m blastshield_core.interfaces.dashboard_start --port $(PORT)
	$(PY) -m blastshield_core.interfaces.dashboard_run --server.headless true --server.port $(PORT) $(if $(ADDRESS),--server.address $(ADDRESS),)

# The type checker runs over blastshield_core/ (pyproject.toml, [tool.mypy], with pydantic's plugin).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# The browser test drives Debian's Chromium through Playwright (Playwright's own
# browser download needs the internet); install it once if it is missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "error: the browser test needs Chromium: sudo apt-get install -y chromium" >&2; exit 1; fi; }

# The whole suite runs in parallel (pytest-xdist, WORKERS processes; `make test WORKERS=0` runs it in
# one). Each worker takes whole test files (--dist loadfile), so a module's shared set-up is made once,
# and has its own servers, ports and directories (tests/conftest.py). The slowest tests are listed at the end.
WORKERS ?= 3

test: lint browser
	$(PY) -m pytest -n $(WORKERS) --dist loadfile --durations=25

# The fast loop while working: the unit tests only (tests/unit/, marker `unit`), a few seconds; only
# that folder is collected.
test-fast: setup
	$(PY) -m pytest tests/unit -m unit -q

bench: setup
	$(PY) -m bench.run $(if $(SIZES),--sizes $(SIZES),)
	$(PY) -m bench.aws_collect

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
