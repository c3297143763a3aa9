#!/bin/sh
# build-web.sh builds the web app (web/app: Preact, urql with Graphcache, typed by
# graphql-codegen from web/contract/schema.graphql) into web/dist, which is committed and
# embedded by the Go package web. The toolchain is the one pinned in web/app/package-lock.json,
# installed with `npm ci` (no install scripts run); it is idempotent like install-codegen.sh.
# The output is reproducible: CI runs this and fails when web/dist differs from the commit.
#
#   scripts/build-web.sh      (.ci/run runs it, then git diff --exit-code web/dist)
set -eu

. "$(dirname "$0")/npm-ci-once.sh"
cd "$(dirname "$0")/../web/app"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "build-web: node and npm are needed (Node.js 20.19 or newer)" >&2
	exit 1
fi

npm_ci_once
npx --no-install graphql-codegen --config codegen.yml --silent
npx --no-install tsc -p tsconfig.json
npx --no-install vite build --logLevel warn
echo "build-web: built web/dist ($(find ../dist -type f | wc -l) files)"
