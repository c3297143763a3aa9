#!/bin/sh
# install-lighthouse.sh installs Lighthouse at the version pinned in
# web/lighthouse/package-lock.json (12.8.2 and its puppeteer-core; 13.x needs Node.js 22),
# from the npm registry with `npm ci` (no install scripts run: puppeteer downloads no browser,
# the tests use the installed Chromium). web/lighthouse_test.go runs it against the web app.
# It is idempotent like build-web.sh: when node_modules holds exactly that lock file it only
# says so.
#
#   scripts/install-lighthouse.sh      (.ci/run runs it before the tests)
set -eu

. "$(dirname "$0")/npm-ci-once.sh"
cd "$(dirname "$0")/../web/lighthouse"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "install-lighthouse: node and npm are needed (Node.js 18.20 or newer)" >&2
	exit 1
fi

npm_ci_once
if [ "$npm_installed" = no ]; then
	echo "install-lighthouse: web/lighthouse/node_modules is up to date (node $(node --version))"
	exit 0
fi
echo "install-lighthouse: installed lighthouse $(node -p 'require("lighthouse/package.json").version') (node $(node --version))"
