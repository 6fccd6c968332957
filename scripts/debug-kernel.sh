#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) and locate the debug test kernel: Debian's linux-source-6.1
# with a small configuration for the test VM plus KASAN, lockdep, kmemleak,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST and fault injection
# (tests/debug-kernel/config.fragment, merged onto allnoconfig).
#
#   scripts/debug-kernel.sh build    build unless cached; print where it is
#   scripts/debug-kernel.sh env      print shell assignments for the harness
#                                    (builds first when needed)
#   scripts/debug-kernel.sh dir      print the cache dir (no build)
#
# The kernel lives outside the work tree, in
#   $R5J_DEBUG_CACHE/<linux-source-6.1 version>-<digest>/
# (default R5J_DEBUG_CACHE=/var/cache/raid5j-debug-kernel), where <digest>
# covers the fragment's settings (not its comments), the recipe below and
# the compiler, so a
# second run never rebuilds and an edit of the fragment never reuses a
# stale kernel.  The directory holds:
#   bzImage         what the VM boots (qemu's PVH entry into vmlinux dies
#                   before the first console line with KASAN)
#   vmlinux         the ELF kernel with symbols, to decode reports
#   modroot/        INSTALL_MOD_PATH: modroot/lib/modules/<release>/
#   obj/            the kbuild output tree (object files pruned): KDIR for
#                   building raid5j.ko
#   md-headers/     md.h, md-cluster.h, md-bitmap.h, raid5.h of that same
#                   source (added to a cached build that lacks one)
#   release         the kernel release string (e.g. 6.1.192-r5jdebug)
#   build-seconds   how long the build took
# The source itself is extracted once per package version to
# $R5J_DEBUG_CACHE/src/<version>/linux-source-6.1.
#
# Environment: R5J_DEBUG_CACHE, JOBS (make -j, default nproc).

set -euo pipefail

die() { echo "debug-kernel: error: $*" >&2; exit 1; }
log() { echo "debug-kernel: $*" >&2; }

root=$(cd "$(dirname "$0")/.." && pwd)
fragment=$root/tests/debug-kernel/config.fragment
cache=${R5J_DEBUG_CACHE:-/var/cache/raid5j-debug-kernel}
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${JOBS:-$(nproc)}
# Bump when the way the kernel is built changes (not the fragment: that is
# hashed as it is).
RECIPE=1

cmd=${1:-build}
case $cmd in build | env | dir) ;; *) die "usage: $0 build|env|dir" ;; esac

# ---- build dependencies --------------------------------------------------

PKGS=(linux-source-6.1 gcc make bc flex bison libelf-dev libssl-dev dwarves
      xz-utils cpio kmod)
is_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}
deps() {
	local missing=() p
	for p in "${PKGS[@]}"; do
		is_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && [ -f "$tarball" ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root)"
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q update >&2
	apt-get -y -q --no-install-recommends install "${missing[@]}" >&2
	[ -f "$tarball" ] || die "$tarball missing after installing linux-source-6.1"
}

# ---- cache key -----------------------------------------------------------

srcver() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null
}

cache_dir() {
	local ver digest
	ver=$(srcver) || die "linux-source-6.1 is not installed"
	[ -n "$ver" ] || die "linux-source-6.1 is not installed"
	digest=$( {
		echo "recipe $RECIPE"
		grep -E '^(CONFIG_|# CONFIG_.* is not set)' "$fragment"
		gcc --version | head -n 1
	} | sha256sum | cut -c1-12)
	echo "$cache/$ver-$digest"
}

[ -f "$fragment" ] || die "$fragment missing"

if [ "$cmd" = dir ]; then
	cache_dir
	exit 0
fi

print_env() {
	local d=$1 rel
	rel=$(cat "$d/release")
	printf 'R5J_DEBUG_DIR=%q\n' "$d"
	printf 'KVER=%q\n' "$rel"
	printf 'KDIR=%q\n' "$d/obj"
	printf 'R5J_MDHDR=%q\n' "$d/md-headers"
	printf 'VM_KERNEL=%q\n' "$d/bzImage"
	printf 'VM_MODROOT=%q\n' "$d/modroot"
}

done_msg() {
	local d=$1
	if [ "$cmd" = env ]; then
		print_env "$d"
	else
		echo "$d"
	fi
}

# md core's private headers the module builds against, from the source of
# the kernel in $1 (the extracted tree, else the tarball): added where one
# is missing, so a cached kernel serves a module that needs one more.
MD_HEADERS=(md.h md-cluster.h md-bitmap.h raid5.h)
md_headers() {
	local d=$1 src=$cache/src/$(srcver)/linux-source-6.1 h missing=()

	mkdir -p "$d/md-headers"
	for h in "${MD_HEADERS[@]}"; do
		[ -f "$d/md-headers/$h" ] || missing+=("$h")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ -f "$src/.extracted" ]; then
		for h in "${missing[@]}"; do
			cp "$src/drivers/md/$h" "$d/md-headers/" || return 1
		done
	else
		tar -xJf "$tarball" -C "$d/md-headers" --strip-components=3 \
			"${missing[@]/#/linux-source-6.1/drivers/md/}" || return 1
	fi
}

# Fast path without locking or apt: a complete cached build.
if is_installed linux-source-6.1; then
	dir=$(cache_dir)
	if [ -f "$dir/.complete" ]; then
		md_headers "$dir" || die "cannot add md headers to $dir"
		log "cached: $dir ($(cat "$dir/release"), built in $(cat "$dir/build-seconds") s)"
		done_msg "$dir"
		exit 0
	fi
fi

deps
dir=$(cache_dir)
ver=$(srcver)
mkdir -p "$cache"

# One builder at a time (other runs wait, then find the result).
exec 9> "$cache/.lock"
if ! flock -n 9; then
	log "another build holds $cache/.lock; waiting"
	flock 9
fi
if [ -f "$dir/.complete" ]; then
	md_headers "$dir" || die "cannot add md headers to $dir"
	done_msg "$dir"
	exit 0
fi

start=$(date +%s)

# ---- source --------------------------------------------------------------

src=$cache/src/$ver/linux-source-6.1
if [ ! -f "$src/.extracted" ]; then
	log "extracting $tarball (linux-source-6.1 $ver)"
	rm -rf "$cache/src/$ver"
	mkdir -p "$cache/src/$ver.tmp"
	tar -xJf "$tarball" -C "$cache/src/$ver.tmp"
	mv "$cache/src/$ver.tmp" "$cache/src/$ver"
	touch "$src/.extracted"
fi
# Old versions of the source are of no more use.
for d in "$cache"/src/*; do
	[ "$d" = "$cache/src/$ver" ] || rm -rf "$d"
done

# ---- configure -----------------------------------------------------------

rm -rf "$dir"
obj=$dir/obj
mkdir -p "$obj"
log "configuring $dir"
mk=(make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs")
(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$obj" \
	"$fragment") > "$dir/merge_config.log" 2>&1 ||
	{ cat "$dir/merge_config.log" >&2; die "merge_config.sh failed"; }

# Every line of the fragment must be in the final .config as written.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) sym=${line%%=*} ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
	*) continue ;;
	esac
	got=$(grep -E "^($sym=|# $sym is not set)" "$obj/.config" || true)
	if [ "$line" != "$got" ] && ! { [ -z "$got" ] && [ "${line#\# }" != "$line" ]; }; then
		log "config: wanted '$line', got '${got:-<absent>}'"
		bad=1
	fi
done < "$fragment"
[ $bad = 0 ] || die "Kconfig did not take the fragment as written (see above)"

# ---- build ---------------------------------------------------------------

log "building with -j$jobs (log: $dir/build.log)"
# (user+sys CPU seconds in build-cpu: the wall time depends on the load)
TIMEFORMAT='%U %S'
if ! { time "${mk[@]}" bzImage modules > "$dir/build.log" 2>&1; } 2> "$dir/build-cpu"; then
	tail -n 40 "$dir/build.log" >&2
	die "kernel build failed (log: $dir/build.log)"
fi
rel=$("${mk[@]}" -s kernelrelease)
"${mk[@]}" INSTALL_MOD_PATH="$dir/modroot" modules_install >> "$dir/build.log" 2>&1 ||
	die "modules_install failed (log: $dir/build.log)"
# modules_install links build/source to the object tree: drop the links.
rm -f "$dir/modroot/lib/modules/$rel/build" "$dir/modroot/lib/modules/$rel/source"
cp "$obj/vmlinux" "$dir/vmlinux"
cp "$obj/arch/x86/boot/bzImage" "$dir/bzImage"
cp "$obj/.config" "$dir/config"
md_headers "$dir" || die "cannot copy md headers to $dir"

# Keep what building an external module needs (scripts, objtool, generated
# headers, Module.symvers, .config); the object files are 90% of the space.
find "$obj" -name '*.o' ! -path "$obj/scripts/*" ! -path "$obj/tools/*" -delete
rm -f "$obj"/.tmp_vmlinux* "$obj/vmlinux"

echo "$rel" > "$dir/release"
echo $(($(date +%s) - start)) > "$dir/build-seconds"
awk '{ printf "%d\n", $1 + $2 }' "$dir/build-cpu" > "$dir/build-cpu.tmp" &&
	mv "$dir/build-cpu.tmp" "$dir/build-cpu"
touch "$dir/.complete"
log "built $rel in $(cat "$dir/build-seconds") s ($(cat "$dir/build-cpu") s CPU): $dir ($(du -sh "$dir" | cut -f1))"
done_msg "$dir"
