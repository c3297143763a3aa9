# npm-ci-once.sh is sourced by the scripts that install a pinned Node.js toolchain
# (build-web.sh, install-codegen.sh, install-lighthouse.sh, install-node-tools.sh); it is not
# run on its own.
#
# npm_ci_once installs, in the current directory, exactly what package-lock.json pins, with
# `npm ci` from the npm registry and no install scripts, unless node_modules already holds
# that lock file (a stamp of its hash, written only after a whole install). It sets
# npm_installed to yes or no, and ends the script when npm ci fails.
npm_ci_once() {
	npm_stamp=node_modules/.herdbook-lock.sha256
	npm_want=$(sha256sum package-lock.json | cut -d' ' -f1)
	if [ -f "$npm_stamp" ] && [ "$(cat "$npm_stamp")" = "$npm_want" ]; then
		npm_installed=no
		return 0
	fi
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error || exit 1
	echo "$npm_want" > "$npm_stamp"
	npm_installed=yes
}
