#!/bin/sh
# check-openapi.sh checks rest/openapi.json with the pinned tools of tools/node (install them
# with scripts/install-node-tools.sh):
#   1. redocly lint with the recommended rules and no warning left (.redocly.lint-ignore.yaml
#      names the one reasoned exception);
#   2. openapi-typescript generates the TypeScript types of the API, and
#      tools/node/client-check.ts, a small client written against them, compiles under
#      tsc --strict.
set -eu
cd "$(dirname "$0")/.."
bin=tools/node/node_modules/.bin
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1

out=$("$bin/redocly" lint --format=stylish rest/openapi.json 2>&1) || { echo "$out"; exit 1; }
if echo "$out" | grep -qiE '[0-9]+ warnings?|[0-9]+ errors?'; then
	echo "$out"
	echo "check-openapi: redocly lint reported warnings; the document must lint clean" >&2
	exit 1
fi
echo "check-openapi: redocly lint: no errors, no warnings"

"$bin/openapi-typescript" rest/openapi.json --output tools/node/generated/openapi.d.ts --silent
"$bin/tsc" -p tools/node/tsconfig.json
echo "check-openapi: the generated TypeScript client compiles under tsc --strict"
