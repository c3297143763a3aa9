#!/bin/sh
# install-codegen.sh installs what the web contract check needs (graph/contract_test.go):
# @graphql-codegen/cli with its plugins, graphql and TypeScript at the versions pinned in
# web/contract/package-lock.json, from the npm registry with `npm ci` (no install scripts run).
# It is idempotent: when node_modules already holds exactly that lock file it only says so.
# Node.js itself comes from Debian's packages when it is missing (that needs root).
#
#   scripts/install-codegen.sh      (CI runs it before the tests)
set -eu

. "$(dirname "$0")/npm-ci-once.sh"
cd "$(dirname "$0")/../web/contract"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-codegen: node and npm are missing; run as root to install Debian's" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

npm_ci_once
if [ "$npm_installed" = no ]; then
	echo "install-codegen: web/contract/node_modules is up to date (node $(node --version))"
	exit 0
fi
echo "install-codegen: installed web/contract's pinned tools (node $(node --version))"
