# Amber: `make run` serves memory on 127.0.0.1; `make test` runs the whole suite. Both set themselves up.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export LITELLM_LOCAL_MODEL_COST_MAP := True
export OMP_WAIT_POLICY := PASSIVE
# glibc's per-thread malloc caches off: freed blocks are then scrubbed before reuse, so Chroma's
# index files never carry stray bytes of an opened record (core/store/sealing.py, thread_caches_off);
# a fixed mmap threshold: the vector indexes Chroma evicts go back to the kernel (core/store/index_pool.py)
export GLIBC_TUNABLES ?= glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=131072

.PHONY: run serve test test-fast bench clean browser redis claude-code mcp-inspector

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

# The main job: the LiteLLM proxy with Amber's hook, on 127.0.0.1:4000 (see config.yaml).
run: $(STAMP)
	@test -n "$$LITELLM_MASTER_KEY" || { export LITELLM_MASTER_KEY=sk-amber-local-$$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n'); \
	  echo "LITELLM_MASTER_KEY not set; using $$LITELLM_MASTER_KEY for this run"; }; \
	$(BIN)/litellm --config config.yaml --host 127.0.0.1 --port $${PORT:-4000}

# The memory server on its own (REST + MCP + jobs), for people without LiteLLM.
serve: $(STAMP)
	$(BIN)/amber serve

test: $(STAMP) browser redis claude-code mcp-inspector
	$(BIN)/python -m pytest -q

# The admin page's tests drive Debian's chromium through Playwright (Playwright's own browser download cannot work here).
browser:
	@test -x /usr/bin/chromium || { echo "installing chromium with apt-get (for the admin page's browser tests)"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

# The several-hosts tests start Debian's redis-server themselves, like chroma and the proxies.
redis:
	@command -v redis-server >/dev/null || { echo "installing redis-server with apt-get (for the several-hosts tests)"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server; }

# The Claude Code plugin's tests run the real CLI, pinned, installed into an ignored cache (never globally).
CLAUDE_CODE_VERSION := 2.1.328
CLAUDE_CODE_DIR := .cache/claude-code
claude-code: $(CLAUDE_CODE_DIR)/.installed-$(CLAUDE_CODE_VERSION)

$(CLAUDE_CODE_DIR)/.installed-$(CLAUDE_CODE_VERSION):
	mkdir -p $(CLAUDE_CODE_DIR)
	npm install --prefix $(CLAUDE_CODE_DIR) --no-audit --no-fund --loglevel=error @anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)
	touch $@

# The MCP tests also drive Amber with clients nobody here wrote: the MCP Inspector CLI, and mcp-remote
# under it (what stdio-only apps use), pinned, installed into an ignored cache (never globally).
MCP_INSPECTOR_VERSION := 2.12.0
MCP_REMOTE_VERSION := 0.15.1
MCP_INSPECTOR_DIR := .cache/mcp-inspector
mcp-inspector: $(MCP_INSPECTOR_DIR)/.installed-$(MCP_INSPECTOR_VERSION)-$(MCP_REMOTE_VERSION)

$(MCP_INSPECTOR_DIR)/.installed-$(MCP_INSPECTOR_VERSION)-$(MCP_REMOTE_VERSION):
	mkdir -p $(MCP_INSPECTOR_DIR)
	npm install --prefix $(MCP_INSPECTOR_DIR) --no-audit --no-fund --loglevel=error \
	  @modelcontextprotocol/inspector@$(MCP_INSPECTOR_VERSION) mcp-remote@$(MCP_REMOTE_VERSION)
	touch $@

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not e2e"

clean:
	rm -rf $(VENV) data .pytest_cache
