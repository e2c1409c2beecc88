# Quick start: `make demo` and `make test`. Both run `make setup` first; it is idempotent.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# uv installs the package and its pins into the venv: from the same index as pip, in a tenth of pip's time.
UV_VERSION := 0.13.9
NODE_DIR := .tools/node
NPM_SERVERS := typescript-language-server@5.3.0 typescript@5.9.3 bash-language-server@5.8.1
# gopls, built by `go install` on the machine's Go (this version needs Go >= 1.26).
GO_DIR := .tools/go
GOPLS_VERSION := v0.23.0
# Agent host CLIs the end-to-end tests drive (tests/hosts): pinned, in the project's tool folder.
HOSTS_DIR := .tools/hosts
NPM_HOSTS := @anthropic-ai/claude-code@2.1.197 @github/copilot@1.0.102 @google/gemini-cli@0.61.0 @openai/codex@0.169.0 opencode-ai@1.18.33
# OpenCode installs its plugin API into every configuration folder without one, from the registry,
# on each run: installed here once, at OpenCode's version, and linked in by tests/hosts.
OPENCODE_PLUGIN_DIR := .tools/opencode-plugin
OPENCODE_PLUGIN := @opencode-ai/plugin@1.18.33
# Serena, the peer in benchmarks/serena_peer.py: a virtualenv of its own, since its pins clash with ours.
SERENA_DIR := .tools/serena
SERENA_VERSION := 2.1.0
export PATH := $(CURDIR)/$(VENV)/bin:$(CURDIR)/$(NODE_DIR)/node_modules/.bin:$(CURDIR)/$(GO_DIR)/bin:$(PATH)

.PHONY: setup python-env servers oracles hosts corpus demo lint test test-fast bench bench-quick bench-langtable bench-serena serena bench-polyglot bench-real bench-mistakes clean

# Its parts are independent (pip, npm, Go and Maven, each with its own folder), so they run side by
# side: on a fresh clone most of the time is waiting on the registries.
setup:
	@$(MAKE) --no-print-directory -j4 --output-sync=target python-env servers hosts

python-env: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check 'uv==$(UV_VERSION)'
	$(VENV)/bin/uv pip install -q --python $(PY) -e '.[dev,servers,bench]'
	touch $@

servers: $(NODE_DIR)/.installed go-server ruby oracles

hosts: $(HOSTS_DIR)/.installed $(OPENCODE_PLUGIN_DIR)/.installed

$(OPENCODE_PLUGIN_DIR)/.installed: Makefile
	mkdir -p $(OPENCODE_PLUGIN_DIR)
	npm install --silent --prefix $(OPENCODE_PLUGIN_DIR) --no-fund --no-audit --save-exact $(OPENCODE_PLUGIN)
	touch $@

$(HOSTS_DIR)/.installed: Makefile
	mkdir -p $(HOSTS_DIR)
	npm install --silent --prefix $(HOSTS_DIR) --no-fund --no-audit $(NPM_HOSTS)
	@command -v bwrap >/dev/null 2>&1 && command -v socat >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap socat >/dev/null; } || echo "bwrap or socat not found: sudo apt-get install bubblewrap socat (Claude Code's and Codex CLI's sandboxes need them)"
	touch $@

$(NODE_DIR)/.installed: Makefile
	mkdir -p $(NODE_DIR)
	npm install --silent --prefix $(NODE_DIR) --no-fund --no-audit $(NPM_SERVERS)
	touch $@

# Ruby itself: the encoding tests check the gateway's reading of magic comments against it.
.PHONY: ruby
ruby:
	@if command -v ruby >/dev/null 2>&1; then \
		true; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ruby >/dev/null; \
	else \
		echo "ruby not found: install it with 'sudo apt-get install ruby' (tests/test_encodings.py checks against it)"; \
	fi

# gopls from the Go module proxy, built by the machine's own Go (Debian's gopls is built for an
# older Go and cannot load modules that need a newer one). Without Go >= 1.26, Go files use
# tree-sitter. GOTOOLCHAIN=local: no toolchain download.
.PHONY: go-server
go-server:
	@if [ -f $(GO_DIR)/.gopls-$(GOPLS_VERSION) ] && [ -x $(GO_DIR)/bin/gopls ]; then \
		true; \
	elif ! command -v go >/dev/null 2>&1; then \
		echo "go not found: skipping gopls $(GOPLS_VERSION) (Go operations use tree-sitter); install Go >= 1.26 and rerun make setup"; \
	else \
		mkdir -p $(GO_DIR)/bin && \
		if GOTOOLCHAIN=local GOBIN=$(CURDIR)/$(GO_DIR)/bin go install golang.org/x/tools/gopls@$(GOPLS_VERSION); then \
			rm -f $(GO_DIR)/.gopls-* && touch $(GO_DIR)/.gopls-$(GOPLS_VERSION); \
		else \
			echo "gopls $(GOPLS_VERSION) did not build with $$(go version) (it needs Go >= 1.26): skipping it (Go operations use tree-sitter)"; \
		fi; \
	fi

# The language matrix's oracles: Go's (benchmarks/gooracle: go/parser and go/types, standard
# library only), built offline with the machine's Go (the benchmark builds it again into a
# temporary folder when it runs, quick from Go's build cache, as verify_real.py builds
# gotypecheck); Kotlin's compiler for its PSI (benchmarks/kotlinpsi), resolved from Maven Central.
.PHONY: oracles
oracles:
	@if command -v go >/dev/null 2>&1; then \
		cd benchmarks/gooracle && GOFLAGS=-mod=mod GOTOOLCHAIN=local GOPROXY=off GO111MODULE=off go build -o /dev/null . ; \
	else \
		echo "go not found: the language matrix judges Go with gopls's documentSymbol instead of benchmarks/gooracle"; \
	fi
	@if command -v mvn >/dev/null 2>&1; then \
		mvn -q -B -f benchmarks/kotlinpsi/pom.xml dependency:resolve >/dev/null || echo "mvn could not resolve kotlin-compiler-embeddable: the language matrix judges Kotlin with jdtls's documentSymbol"; \
	else \
		echo "mvn not found: the language matrix judges Kotlin with jdtls's documentSymbol instead of the Kotlin compiler's PSI"; \
	fi

demo: setup
	$(PY) -m gateway.demo

# Four workers on 2 cores: the tests that wait (a stopped daemon, a hook bound) leave a core to the
# others. The suite's JVMs (jdtls, javac, the Kotlin compiler) each live seconds: compiled by C1
# only they take about half the CPU (tests/test_oracles.py and the jdtls tests: 77 s to 37 s).
test: setup
	JAVA_TOOL_OPTIONS="$$JAVA_TOOL_OPTIONS -XX:TieredStopAtLevel=1" $(PY) -m pytest -q -n 4

# ruff (pyflakes and pycodestyle's error classes) and pyright (basic) over the package.
lint: python-env
	$(VENV)/bin/ruff check gateway tests benchmarks scripts
	$(VENV)/bin/pyright

# In-process tests only: nothing that starts a language server, a host or any process (tests/starts.py
# checks it: such a test asks for the fixture that marks it). Under a minute.
test-fast: python-env
	$(PY) -m pytest -q -n 2 -m "not servers and not hosts and not processes"

# Third-party source for the language matrix beyond what setup brings (Debian packages, and
# the Kotlin standard library's sources from Maven Central).
KOTLIN_SOURCES := $(HOME)/.m2/repository/org/jetbrains/kotlin/kotlin-stdlib/2.1.0/kotlin-stdlib-2.1.0-sources.jar
corpus:
	@if [ -d /usr/lib/ruby/3.1.0 ] && [ -f /usr/lib/jvm/openjdk-17/lib/src.zip ] && [ -d /usr/share/cargo/registry ]; then \
		true; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ruby openjdk-17-source librust-serde-dev >/dev/null; \
	else \
		echo "for Ruby, Java and Rust corpora: sudo apt-get install ruby openjdk-17-source librust-serde-dev"; \
	fi
	@if [ -f $(KOTLIN_SOURCES) ]; then \
		true; \
	elif command -v mvn >/dev/null 2>&1; then \
		mvn -q dependency:get -Dartifact=org.jetbrains.kotlin:kotlin-stdlib:2.1.0:jar:sources || echo "no Kotlin corpus: mvn could not fetch kotlin-stdlib's sources"; \
	else \
		echo "no Kotlin corpus: mvn not found (it fetches kotlin-stdlib's sources from Maven Central)"; \
	fi

# `make bench` records its results (RESULTS.md, benchmarks/results/); any benchmark run by hand
# without --record writes to benchmarks/results/local/, which git ignores.
bench: setup corpus serena
	$(PY) benchmarks/replay.py --record
	$(PY) benchmarks/matrix.py --record
	$(PY) benchmarks/language_table.py --matrix benchmarks/results/matrix.json --record
	$(PY) benchmarks/round_trips.py --record
	$(PY) benchmarks/classify_latency.py --record
	$(PY) benchmarks/symbol_latency.py --record
	$(PY) benchmarks/verify_cost.py --record
	$(PY) benchmarks/typed_latency.py --record
	$(PY) benchmarks/shell_snapshot.py --record
	$(PY) benchmarks/shell_report.py --record
	$(PY) benchmarks/daemon_latency.py --record
	$(PY) benchmarks/daemon_memory.py --record
	$(PY) benchmarks/host_latency.py --record
	$(PY) benchmarks/verify_hook_latency.py --record
	$(PY) benchmarks/scale.py --record
	$(PY) benchmarks/speed_targets.py --record
	$(PY) benchmarks/serena_peer.py --record
	$(PY) benchmarks/python_servers.py --checkout . --record

# The head-to-head with Serena (issue 24): both MCP servers side by side on the same files.
bench-serena: setup serena
	$(PY) benchmarks/serena_peer.py --record

serena: $(SERENA_DIR)/.installed

$(SERENA_DIR)/.installed: Makefile
	test -x $(SERENA_DIR)/bin/python || $(PYTHON) -m venv $(SERENA_DIR)
	$(SERENA_DIR)/bin/pip install -q --disable-pip-version-check serena-agent==$(SERENA_VERSION)
	touch $@

# Every benchmark's checks against deliberately wrong operations (issue 37): fails (exit 1) when a
# check passes one of them. In process, on tree-sitter alone, on a fixed sample of six languages;
# tests/test_selfcheck.py runs it in `make test`. docs/benchmarks.md lists what catches what.
# `make bench-selfcheck [POLYGLOT=path/to/polyglot-benchmark]`: the polyglot checks on its exercises.
.PHONY: bench-selfcheck
bench-selfcheck: python-env
	$(PY) benchmarks/selfcheck.py $(if $(POLYGLOT),--polyglot $(POLYGLOT))

bench-quick: setup corpus
	$(PY) benchmarks/matrix.py --quick

# The language table (issue 25): the matrix's quick profile checks each symbol operation per
# language, then one row per language with the polyglot figures of results/polyglot.json.
bench-langtable: setup corpus
	$(PY) benchmarks/matrix.py --quick --fresh --record
	$(PY) benchmarks/language_table.py --record

# Aider's polyglot benchmark (issue 25), on a clone of github.com/Aider-AI/polyglot-benchmark that
# is never copied here: `make bench-polyglot POLYGLOT=path [LANGUAGES=go,rust] [LIMIT=5] [RECORD=1]`.
# It records (RESULTS.md, results/polyglot.json) only with RECORD=1, and refuses to record with LIMIT.
bench-polyglot: setup polyglot-deps
	@test -d "$(POLYGLOT)" || { echo "usage: make bench-polyglot POLYGLOT=path/to/polyglot-benchmark [LANGUAGES=a,b] [LIMIT=N] [RECORD=1]"; exit 2; }
	$(PY) benchmarks/polyglot.py $(POLYGLOT) $(if $(RECORD),--record) $(if $(LANGUAGES),--languages $(LANGUAGES)) $(if $(LIMIT),--limit $(LIMIT))

# The language server's delta on real repositories (issue 35), on checkouts never copied here
# (their directory names say which cases run: requests, cobra, ky, gson, cJSON); 4-6 minutes:
# `make bench-real REAL="path/to/requests path/to/cobra ..." [BUDGET_MS=15000]`.
bench-real: setup
	@test -n "$(REAL)" || { echo "usage: make bench-real REAL=\"path/to/requests path/to/cobra ...\" [BUDGET_MS=N]"; exit 2; }
	$(PY) benchmarks/verify_real.py --record $(if $(BUDGET_MS),--budget-ms $(BUDGET_MS)) $(REAL)

# The mistakes agents make with old_string/new_string, plain and through the gateway (issue 37), on
# checkouts never copied here (their directory names say the language: requests, cobra, ky, gson,
# cxxopts, semver): `make bench-mistakes REAL="path/to/requests ..." [LANGUAGES=python,go] [LIMIT=N]`;
# only a run without LIMIT or LANGUAGES records (RESULTS.md), any other writes under results/local/.
bench-mistakes: setup
	@test -n "$(REAL)" || { echo "usage: make bench-mistakes REAL=\"path/to/requests path/to/cobra ...\" [LANGUAGES=a,b] [LIMIT=N] [RECORD=1]"; exit 2; }
	$(PY) benchmarks/mistakes.py $(if $(RECORD),--record) $(if $(LANGUAGES),--languages $(LANGUAGES)) $(if $(LIMIT),--limit $(LIMIT)) $(REAL)

# The C++ exercises gigasecond and meetup build their tests against Boost.Date_Time (Debian's).
.PHONY: polyglot-deps
polyglot-deps:
	@if [ -f /usr/include/boost/date_time.hpp ]; then \
		true; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libboost-date-time-dev >/dev/null; \
	else \
		echo "for the C++ exercises gigasecond and meetup: sudo apt-get install libboost-date-time-dev"; \
	fi

clean:
	rm -rf $(VENV) .tools
