#!/usr/bin/env bash
# Tools the packaging tests and checks run, from Debian: Lua 5.1, the language of Argo CD's health checks (gopher-lua
# implements 5.1), to run docs/gitops's snippets against status fixtures; shellcheck, to lint scripts/e2e.sh; wabt's
# wat2wasm, to assemble the WebAssembly kernels and check the committed modules (`make wasm`, `make verify`).
set -euo pipefail
exec bash "$(dirname "$0")/apt-install.sh" "packaging test tools" lua5.1 shellcheck wabt
