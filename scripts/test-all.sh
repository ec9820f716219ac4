#!/usr/bin/env bash
# The whole test run on a fresh Debian machine, set-up included (what CI runs, through .ci/run):
# a clean install of the library and of the pinned real CLIs (e2e/), the Debian packages the suites
# need, then the README's test command (unit suite, then the real-CLI suite), then the specs of the
# model, decoders and history readers again with code generation from strings banned (where eval is
# not allowed, the parser runs on closures: jest.eval-free.config.ts).
#
# Debian packages are installed with apt-get as root, else with `sudo -n` when that works without a
# password; otherwise the script stops and names the exact command to run.
#
# TEST_ALL_SETUP_ONLY=1 stops after the set-up (installs and packages), before any test runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# From Debian, when missing (first: a machine that cannot get them stops before the long npm installs):
# Redis for the scale-out tests (they start their own redis-server on 127.0.0.1), Chromium for the
# runs page's browser tests (e2e/test/runs-page.spec.ts), and bubblewrap, which Codex's own sandbox
# uses where it is installed (the real-CLI suite checks that Codex sessions still run their commands
# then).
missing=()
command -v redis-server > /dev/null || missing+=(redis-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v bwrap > /dev/null || missing+=(bubblewrap)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update && apt-get install -y "${missing[@]}"
  elif command -v sudo > /dev/null && sudo -n true 2> /dev/null; then
    sudo -n apt-get update && sudo -n apt-get install -y "${missing[@]}"
  else
    echo "test-all: the tests need ${missing[*]} from Debian, and this user cannot install them (not root, no password-less sudo). Run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

npm ci --no-audit --no-fund
# `npm install`, not `npm ci`, for the pinned CLIs: the registry reachable here lacks some of their
# other platforms' optional builds (opencode-darwin-*, Qwen Code's @teddyzhu/clipboard-darwin-*…), so
# the lockfile cannot list them and `npm ci` refuses it as out of sync; `npm install` installs the
# locked versions and skips optional builds it cannot reach (none of this machine's).
npm install --prefix e2e --no-audit --no-fund

if [ "${TEST_ALL_SETUP_ONLY:-}" = 1 ]; then
  echo "test-all: set-up done (TEST_ALL_SETUP_ONLY=1: no tests run)"
  exit 0
fi

# The linters first: no import cycle, no layer crossed (eslint.config.mjs), and Prettier's layout (.prettierrc.json); seconds to run.
npm run lint
npm test
npm run test:eval-free
