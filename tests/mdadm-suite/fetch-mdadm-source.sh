#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the Debian source of the installed mdadm (with its test suite,
# tests/ and the `test` driver) into build/mdadm-src/, once:
#
#   tests/mdadm-suite/fetch-mdadm-source.sh        prints the source tree path
#
# Never committed: fetched at test time, cached under build/.  Uses
# `apt-get source mdadm=<installed version>`; when apt has no deb-src entry,
# one is added (/etc/apt/sources.list.d/raid5j-debsrc.sources) copied from
# the first `Types: deb` entry of /etc/apt/sources.list.d/*.sources that
# names the Debian main archive, same mirror, suites and key.

set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${MDADM_SRC_CACHE:-$root/build/mdadm-src}

log() { echo "fetch-mdadm-source: $*" >&2; }
die() { log "error: $*"; exit 1; }

ver=$(dpkg-query -W -f='${Version}' mdadm 2>/dev/null) ||
	die "mdadm is not installed (make deps)"
[ -n "$ver" ] || die "mdadm is not installed (make deps)"
upstream=${ver#*:}
upstream=${upstream%-*}
dir=$cache/$ver/mdadm-$upstream

if [ -x "$dir/test" ] && [ -d "$dir/tests" ] && [ -f "$dir/.fetched" ]; then
	echo "$dir"
	exit 0
fi

command -v dpkg-source >/dev/null || {
	log "installing dpkg-dev (for apt-get source)"
	DEBIAN_FRONTEND=noninteractive apt-get -y -q install --no-install-recommends dpkg-dev >&2 ||
		die "cannot install dpkg-dev"
}

# Is there a deb-src entry for the main archive?
have_src() {
	grep -rqsE '^[[:space:]]*Types:.*deb-src' /etc/apt/sources.list.d/ ||
		grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list \
			/etc/apt/sources.list.d/*.list
}

# Copy the first deb822 "Types: deb" stanza naming the main Debian archive
# (not -security, not a third-party repository) as Types: deb-src.
add_src() {
	local f out=/etc/apt/sources.list.d/raid5j-debsrc.sources stanza=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		stanza=$(awk -v RS= '/(^|\n)Types:[^\n]*deb/ && /URIs:[^\n]*\/debian\/?([ \n]|$)/ &&
			!/Suites:[^\n]*-security/ { print; exit }' "$f")
		[ -n "$stanza" ] && break
	done
	if [ -z "$stanza" ] && [ -f /etc/apt/sources.list ]; then
		# one-line format: deb URI SUITE COMPONENTS
		local line
		line=$(grep -m1 -E '^deb[[:space:]].*/debian/?[[:space:]]' /etc/apt/sources.list || true)
		[ -n "$line" ] || die "no Debian deb source entry to copy as deb-src"
		echo "deb-src${line#deb}" > /etc/apt/sources.list.d/raid5j-debsrc.list
		log "added deb-src entry: deb-src${line#deb}"
		return 0
	fi
	[ -n "$stanza" ] || die "no 'Types: deb' entry for the Debian archive in /etc/apt/sources.list.d/"
	printf '%s\n' "$stanza" | sed -E 's/^Types:.*/Types: deb-src/' > "$out"
	log "added $out:"
	sed 's/^/    /' "$out" >&2
}

[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get update/source)"
updated=
if ! have_src; then
	add_src
	apt-get -q update >&2 || die "apt-get update failed"
	updated=1
fi

rm -rf "$cache/$ver.tmp"
mkdir -p "$cache/$ver.tmp"
fetch() {
	(cd "$cache/$ver.tmp" && apt-get -q source --download-only "mdadm=$ver" >&2 &&
		dpkg-source --no-check -x ./*.dsc "mdadm-$upstream" >&2)
}
if ! fetch; then
	[ -n "$updated" ] && die "apt-get source mdadm=$ver failed"
	log "apt-get source failed; apt-get update and retry"
	apt-get -q update >&2 || die "apt-get update failed"
	rm -rf "$cache/$ver.tmp"/*
	fetch || die "apt-get source mdadm=$ver failed"
fi
[ -x "$cache/$ver.tmp/mdadm-$upstream/test" ] ||
	die "no test driver in the mdadm source"
rm -rf "$cache/$ver"
mv "$cache/$ver.tmp" "$cache/$ver"
touch "$dir/.fetched"
log "mdadm $ver source in $dir"
echo "$dir"
