#!/usr/bin/env bash
# Builds ./caddy with this repository's modules, using the xcaddy pinned in
# go.mod as a tool (go tool xcaddy), so no global install is needed.
#
#   ./xcaddy.sh          build ./caddy
#   ./xcaddy.sh run      build if needed, create the demo keys, run Caddyfile.example
#   ./xcaddy.sh build    rebuild ./caddy even if it is up to date
set -euo pipefail
cd "$(dirname "$0")"

CADDY_VERSION="${CADDY_VERSION:-v2.11.9}"
MODULE="$(go list -m)"

build() {
	echo "building ./caddy (Caddy $CADDY_VERSION + $MODULE)..." >&2
	# @v0.0.0 makes xcaddy replace the module with this directory instead of
	# asking the module proxy for a path it cannot know.
	go tool xcaddy build "$CADDY_VERSION" --output ./caddy --with "$MODULE@v0.0.0=."
}

# stale reports whether ./caddy is missing or older than any Go source.
stale() {
	[ ! -x ./caddy ] && return 0
	[ -n "$(find . -name '*.go' -newer ./caddy -not -path './bench/*' -print -quit)" ] && return 0
	[ go.mod -nt ./caddy ] && return 0
	return 1
}

demo_keys() {
	# osdm-keygen --demo keeps the keys there are and adds those missing:
	# a demo set made before the hermes key gains it.
	if [ ! -f demo-keys/hermes.pem ] || [ ! -f demo-keys/.complete ]; then
		mkdir -p demo-keys
		./caddy osdm-keygen --demo demo-keys >&2
		touch demo-keys/.complete
	fi
}

case "${1:-build}" in
build)
	build
	;;
run)
	stale && build
	demo_keys
	exec ./caddy run --config Caddyfile.example --adapter caddyfile
	;;
keys)
	stale && build
	demo_keys
	;;
*)
	echo "usage: $0 [build|run|keys]" >&2
	exit 2
	;;
esac
