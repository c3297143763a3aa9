#!/bin/sh
# install-chromium.sh installs Debian's chromium for the headless browser tests of the OAuth
# pages (oauth/browser_test.go). It is idempotent: when a chromium binary is already there it
# only says so and exits at once, without touching the package lists.
#
#   sudo scripts/install-chromium.sh      (or as root, as CI runs it)
set -eu

for b in chromium chromium-browser; do
	if command -v "$b" >/dev/null 2>&1; then
		echo "install-chromium: $(command -v "$b") is already installed"
		exit 0
	fi
done

if [ "$(id -u)" -ne 0 ]; then
	echo "install-chromium: run as root (apt-get needs it)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "install-chromium: installed $(command -v chromium)"
