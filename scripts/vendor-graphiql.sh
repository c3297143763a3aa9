#!/bin/sh
# vendor-graphiql.sh rebuilds graph/explorer/, the GraphiQL explorer that GET /graphql serves
# from the binary, so that it works without internet. It takes the packages' published UMD
# builds from the npm registry (npm pack, no install scripts run) at pinned versions, checks
# each file against the SHA-256 that gqlgen's CDN playground pins for the same version (so the
# bytes are exactly what every gqlgen server loads from jsDelivr), and copies them with their
# licences. The output is committed; CI only checks the embedded files' hashes
# (graph/explorer_test.go), so this runs only when the pins change.
#
#   sh scripts/vendor-graphiql.sh
set -eu

GRAPHIQL=4.1.2
REACT=18.2.0

cd "$(dirname "$0")/.."
out=graph/explorer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "graphiql@$GRAPHIQL" "react@$REACT" "react-dom@$REACT" >/dev/null)
for p in "graphiql-$GRAPHIQL" "react-$REACT" "react-dom-$REACT"; do
	mkdir -p "$tmp/$p"
	tar -xzf "$tmp/$p.tgz" -C "$tmp/$p"
done

# copy SRC DEST SHA256-BASE64: the file, refused unless its hash is the pinned one.
copy() {
	got=$(openssl dgst -sha256 -binary "$tmp/$1" | base64)
	if [ "$got" != "$3" ]; then
		echo "vendor-graphiql: $1 has sha256-$got, want sha256-$3" >&2
		exit 1
	fi
	cp "$tmp/$1" "$out/$2"
}

copy "graphiql-$GRAPHIQL/package/graphiql.min.js" "graphiql-$GRAPHIQL.min.js" "hnImuor1znlJkD/FOTL3jayfS/xsyNoP04abi8bFJWs="
copy "graphiql-$GRAPHIQL/package/graphiql.min.css" "graphiql-$GRAPHIQL.min.css" "MEh+B2NdMSpj9kexQNN3QKc8UzMrCXW/Sx/phcpuyIU="
copy "react-$REACT/package/umd/react.production.min.js" "react-$REACT.production.min.js" "S0lp+k7zWUMk2ixteM6HZvu8L9Eh//OVrt+ZfbCpmgY="
copy "react-dom-$REACT/package/umd/react-dom.production.min.js" "react-dom-$REACT.production.min.js" "IXWO0ITNDjfnNXIu5POVfqlgYoop36bDzhodR6LW5Pc="
cp "$tmp/graphiql-$GRAPHIQL/package/LICENSE" "$out/LICENSE.graphiql"
cp "$tmp/react-$REACT/package/LICENSE" "$out/LICENSE.react"
echo "vendor-graphiql: graph/explorer has graphiql $GRAPHIQL and react $REACT"
