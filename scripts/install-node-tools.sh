#!/bin/sh
# install-node-tools.sh installs the pinned Node.js tools that check the OpenAPI document
# (tools/node/package.json and its package-lock.json: @redocly/cli, openapi-typescript,
# typescript) into tools/node/node_modules. It is idempotent: when the installed tools
# match the lock file it only says so. It needs Node.js 20.19 or newer and npm.
#
#   scripts/install-node-tools.sh
set -eu
. "$(dirname "$0")/npm-ci-once.sh"
cd "$(dirname "$0")/../tools/node"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "install-node-tools: node and npm are needed (Node.js 20.19 or newer)" >&2
	exit 1
fi
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
	echo "install-node-tools: Node.js $(node --version) is too old; @redocly/cli needs 20.19 or newer" >&2
	exit 1
fi

npm_ci_once
if [ "$npm_installed" = no ]; then
	echo "install-node-tools: tools/node/node_modules matches package-lock.json"
	exit 0
fi
echo "install-node-tools: installed $(node_modules/.bin/redocly --version 2>/dev/null | tail -1) redocly, $(node_modules/.bin/tsc --version)"
