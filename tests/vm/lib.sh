# SPDX-License-Identifier: GPL-2.0
#
# Host-side API of the VM test harness.  A test is a host script
# tests/vm/t-<name>.sh that sources this file, makes disk images and boots
# the VM one or more times with a guest script:
#
#	. "$(dirname "$0")/lib.sh"
#	vm_disks 64M d0 d1 d2 d3
#	vm_boot - d0 d1 d2 d3 <<'EOF'
#	. /test/guest-lib.sh
#	load_personality
#	...
#	EOF
#
# The script's exit status is the verdict (0 pass, 77 skip, else fail);
# run.sh runs the scripts and sums up.  Each boot appends its console to
# build/vm-logs/<test>.log; the guest's result lines (see guest-lib.sh) land
# in build/vm-logs/<test>.boot<N>.results, written by qemu as they come, so
# they survive a killed VM.
#
# Functions:
#   vm_disk NAME [SIZE]          (re)create a sparse raw image (default 64M)
#   vm_disks SIZE NAME...        several at once
#   vm_boot [opts] GUEST|- [DISK...]
#	GUEST is a guest script file, or - for stdin (a here-document).
#	DISK is NAME or NAME,<extra -drive options> (e.g. throttling.iops-total=200);
#	the guest sees it as /dev/disk/by-id/virtio-NAME.  Options:
#	--timeout S        kill the VM and fail after S s (default VM_TIMEOUT=120)
#	--kill-after S     SIGKILL qemu S s (fractions allowed) after start, or
#	                   after the mark below: a power cut.  The images keep
#	                   whatever qemu had written; boot again to look.
#	--kill-mark WORD   start the --kill-after clock at guest "mark WORD"
#	--env VAR=VALUE    export into the guest script's environment
#	--drive-opts OPTS  extra -drive options for every disk of this boot
#	--cache MODE       qemu cache mode (default VM_CACHE=unsafe)
#	--mem MB / --smp N
#	--show             print the guest's "say" lines and PASS/FAIL live
#	Returns 0 when the guest said DONE 0 with no FAIL and no kernel bug
#	(or, with --kill-after, when it was killed with no FAIL so far);
#	sets VM_RESULTS (result file), VM_KILLED (0/1), VM_BOOT_SECS.
#   vm_val KEY                   last "VAL KEY ..." the guest reported
#   vm_result PATTERN            grep -E PATTERN in the last boot's results
#   vm_fail MSG                  print "FAIL <test>: MSG" and exit 1
#   vm_stamp                     build tests/tools/stamp.c as $STAMP, into the guest
#
# Environment: PERSONALITY (raid5j|raid456, default raid5j), KVER (the
# kernel to boot: a release, or 6.1 / 6.12 for the newest of a series;
# default the newest 6.1; R5J_KO must be built for it), R5J_KO,
# R5J_MODPARAMS (raid5j.ko's parameters at every boot, e.g.
# writeback_recoverable_by=raid5j), R5J_DEBUGFS (raid5j's test hooks at
# every boot, KEY=VALUE words: guest-lib.sh r5j_debugfs_set),
# VM_FILES (host files copied into the guest's /test/),
# VM_TIMEOUT, VM_MEM, VM_SMP, VM_TCG_THREAD (multi, or single: all vCPUs
# in one host thread), VM_CACHE, VM_DRIVE_OPTS (every disk of every
# boot, e.g. for benchmarks), VM_APPEND (kernel command line), V=1 (console
# on the terminal too).
# VM_NBD_CACHE=1: a volatile disk cache under every disk of every boot.
# Each disk is served by its own nbdkit (cache filter, cache=writeback:
# writes reach the image only on a flush or FUA from the guest) and qemu
# uses cache=writeback so the guest's flushes get there.  A power cut
# (--kill-after) or a timeout SIGKILLs nbdkit with qemu, so whatever was
# not flushed is lost; after a clean exit (qemu flushes its drives on
# close) nbdkit is stopped.  Needs nbdkit (make deps).
# Another kernel than Debian's (the debug lane, scripts/debug-kernel-check.sh):
# VM_KERNEL (image to boot), VM_MODROOT (its modules are in
# VM_MODROOT/lib/modules/KVER, read by mkinitramfs.sh), VM_TIMEOUT_SCALE
# (multiplies every boot's timeout), R5J_BUILD (instead of build/: logs,
# disks, initramfs).

R5J_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_DIR=$R5J_ROOT/tests/vm
BUILD=${R5J_BUILD:-$R5J_ROOT/build}

PERSONALITY=${PERSONALITY:-raid5j}
R5J_KO=${R5J_KO:-$R5J_ROOT/raid5j.ko}
R5J_DMRAID_KO=${R5J_DMRAID_KO:-$(dirname "$R5J_KO")/raid5j_dmraid.ko}
VM_TEST=${VM_TEST:-$(basename "$0" .sh)}
VM_LOG=${VM_LOG:-$BUILD/vm-logs/$VM_TEST.log}
VM_DISK_DIR=$BUILD/vm-disks/$VM_TEST
VM_TIMEOUT=${VM_TIMEOUT:-120}
VM_MEM=${VM_MEM:-2048}
VM_SMP=${VM_SMP:-2}
VM_TCG_THREAD=${VM_TCG_THREAD:-multi}
VM_CACHE=${VM_CACHE:-unsafe}
VM_DRIVE_OPTS=${VM_DRIVE_OPTS:-}
VM_APPEND=${VM_APPEND:-}
VM_QEMU=${VM_QEMU:-qemu-system-x86_64}
VM_NBD_CACHE=${VM_NBD_CACHE:-0}
VM_BOOTS=0
VM_RESULTS=
VM_KILLED=0
VM_BOOT_SECS=0
_vm_qemu_pid=
_vm_nbd_pids=()
_vm_nbd_dir=
_vm_nbd_sock=

# Kernel-bug lines in the console (same list as the guest's scan_dmesg).
VM_BAD_CONSOLE='BUG:|WARNING:|Oops|INFO: task .* blocked|general protection fault|kernel BUG|Kernel panic|UBSAN:|stack-protector|list_(add|del) corruption|refcount_t:|INFO: trying to register non-static key'

# guest N: $GUEST_DIR/prelude.sh (the scenario's shared guest code) plus
# stdin, as the guest script of boot N; prints its path.
guest() {
	{ cat "$GUEST_DIR/prelude.sh"; cat; } > "$GUEST_DIR/boot$1.sh"
	echo "$GUEST_DIR/boot$1.sh"
}

vm_fail() {
	echo "FAIL $VM_TEST: $*"
	exit 1
}

vm_log() {
	echo "[$VM_TEST] $*"
}

_vm_cleanup() {
	if [ -n "$_vm_qemu_pid" ]; then
		kill -9 "$_vm_qemu_pid" 2>/dev/null
		wait "$_vm_qemu_pid" 2>/dev/null
		_vm_qemu_pid=
	fi
	_vm_nbd_stop KILL
	[ -n "$_vm_nbd_dir" ] && rm -rf "$_vm_nbd_dir"
}
trap _vm_cleanup EXIT
trap '_vm_cleanup; exit 130' INT TERM

_vm_now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

_vm_secs_to_ms() {	# "2.5" -> 2500
	local i=${1%%.*} f=${1#*.}
	[ "$f" = "$1" ] && f=
	f=${f}000
	echo $((10#${i:-0} * 1000 + 10#${f:0:3}))
}

_vm_fmt_ms() {		# 12345 -> 12.3
	echo "$(($1 / 1000)).$((($1 % 1000) / 100))"
}

# ---- setup, once per test process --------------------------------------

# The VM boots Debian's /boot/vmlinuz-KVER.  Unless VM_PVH=0, it boots the
# ELF kernel inside it, decompressed once on the host (cached in
# build/kernel/KVER/), through its PVH entry point: under TCG, the kernel's
# own xz decompression costs about 5 s per boot.
_vm_kernel() {
	local vmlinuz=/boot/vmlinuz-$KVER out=$BUILD/kernel/$KVER/vmlinux
	local key magic cmd off
	VM_KERNEL=$vmlinuz
	[ "${VM_PVH:-1}" = 0 ] && return 0
	[ -r "$vmlinuz" ] || return 0
	key=$(stat -c '%s %Y' "$vmlinuz")
	if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		VM_KERNEL=$out
		return 0
	fi
	mkdir -p "$(dirname "$out")"
	for magic in xz:$'\xfd7zXZ' zstd:$'\x28\xb5\x2f\xfd' gzip:$'\x1f\x8b\x08'; do
		cmd=${magic%%:*}
		magic=${magic#*:}
		command -v "$cmd" >/dev/null || continue
		for off in $(LC_ALL=C grep -abo "$magic" "$vmlinuz" | cut -d: -f1 | head -n 5); do
			tail -c +$((off + 1)) "$vmlinuz" | "$cmd" -dc > "$out.tmp.$$" 2>/dev/null
			if [ "$(head -c 4 "$out.tmp.$$")" = $'\x7fELF' ]; then
				mv -f "$out.tmp.$$" "$out"
				echo "$key" > "$out.key"
				VM_KERNEL=$out
				return 0
			fi
		done
	done
	rm -f "$out.tmp.$$"
	echo "note: no ELF kernel found in $vmlinuz; booting it as is (slower)"
}

_vm_setup_done=
_vm_setup() {
	[ -n "$_vm_setup_done" ] && return 0
	case ${KVER:-} in
	'') KVER=$("$R5J_ROOT/scripts/kver.sh" --image) ||
		vm_fail "no Debian 6.1 kernel image installed (make deps)" ;;
	6.1 | 6.12)	# a series: its newest kernel
		KVER=$("$R5J_ROOT/scripts/kver.sh" --image "$KVER") ||
			vm_fail "no Debian $KVER kernel image installed (make deps)" ;;
	esac
	[ -n "${VM_KERNEL:-}" ] || _vm_kernel
	[ -r "$VM_KERNEL" ] || vm_fail "$VM_KERNEL not readable"
	command -v "$VM_QEMU" >/dev/null || vm_fail "$VM_QEMU not installed (make deps)"
	case $PERSONALITY in
	raid5j)
		[ -f "$R5J_KO" ] || vm_fail "$R5J_KO not built (make module)"
		local vm
		vm=$(modinfo -F vermagic "$R5J_KO" | cut -d' ' -f1)
		[ "$vm" = "$KVER" ] ||
			vm_fail "$R5J_KO is built for '$vm', the VM runs $KVER"
		;;
	raid456) ;;
	*) vm_fail "PERSONALITY must be raid5j or raid456, not '$PERSONALITY'" ;;
	esac
	VM_BASE=$BUILD/initramfs/$KVER/base.cpio
	"$VM_DIR/mkinitramfs.sh" "$KVER" "$VM_BASE" ||
		vm_fail "building the initramfs failed"
	mkdir -p "$(dirname "$VM_LOG")" "$VM_DISK_DIR"
	_vm_setup_done=1
}

# ---- disks -------------------------------------------------------------

vm_disk() {
	local name=$1 size=${2:-64M}
	mkdir -p "$VM_DISK_DIR"
	rm -f "$VM_DISK_DIR/$name.img"
	truncate -s "$size" "$VM_DISK_DIR/$name.img"
}

vm_disks() {
	local size=$1 n
	shift
	for n in "$@"; do
		vm_disk "$n" "$size"
	done
}

# vm_disk_path NAME: the image file, e.g. to inspect it from the host.
vm_disk_path() {
	echo "$VM_DISK_DIR/$1.img"
}

# vm_host_cc OUT GCC-ARGS...: build a host tool as OUT, atomically.  make
# check runs two scenarios at once and each builds its tools at its start:
# gcc writing OUT in place while the other scenario runs OUT (its stamp
# check after a power cut) made that run fail ("Permission denied", "No
# such file"), which the scenario reported as lost data.  The new file is
# renamed over OUT, so a run sees the old binary or the new one, whole.
vm_host_cc() {
	local out=$1 tmp
	shift
	mkdir -p "$(dirname "$out")"
	tmp=$(mktemp "$out.XXXXXX") || return 1
	if gcc "$@" -o "$tmp" && chmod 755 "$tmp" && mv -f "$tmp" "$out"; then
		return 0
	fi
	rm -f "$tmp"
	return 1
}

# vm_stamp: build the power-cut tests' verifying writer (tests/tools/stamp.c,
# static) as $STAMP on the host and ship it to the guest as /test/stamp.
vm_stamp() {
	STAMP=$BUILD/stamp
	vm_host_cc "$STAMP" -O2 -Wall -static -pthread \
		"$R5J_ROOT/tests/tools/stamp.c" ||
		vm_fail "cannot build tests/tools/stamp.c"
	export VM_FILES="${VM_FILES:+$VM_FILES }$STAMP"
}

# vm_stamp_check IMAGE BLOCKS ACKLOG: "$STAMP check"; 0 every acknowledged
# block intact, 1 lost or garbage.  A checker that could not run (any
# other exit: not built, killed) fails the scenario as that, never as
# lost data; the line goes to the log even when the caller redirects.
vm_stamp_check() {
	local rc=0

	"$STAMP" check "$@" || rc=$?
	case $rc in
	0 | 1) return $rc ;;
	esac
	echo "FAIL $VM_TEST: the stamp checker did not run to its end (exit $rc): $STAMP check $*" |
		tee -a "${VM_LOG:-/dev/null}" >&2
	exit 1
}

# ---- volatile disk cache (VM_NBD_CACHE=1) -------------------------------

# _vm_nbd_start NAME IMG: serve IMG on a unix socket through nbdkit's
# cache filter; sets _vm_nbd_sock.  nbdkit runs in the foreground as our
# child (its pid is $!, never a guess); it writes the pid file once it
# listens.
_vm_nbd_start() {
	local name=$1 img=$2 sock pidf pid i
	if [ -z "$_vm_nbd_dir" ]; then
		# short path: a unix socket name is limited to 107 bytes
		_vm_nbd_dir=$(mktemp -d /tmp/r5jnbd.XXXXXX) || return 1
	fi
	sock=$_vm_nbd_dir/$name.sock
	pidf=$_vm_nbd_dir/$name.pid
	rm -f "$sock" "$pidf"
	nbdkit -f -U "$sock" -P "$pidf" --filter=cache file "$img" \
		cache=writeback cache-min-block-size=4096 >> "$VM_LOG" 2>&1 &
	pid=$!
	_vm_nbd_pids+=("$pid")
	for ((i = 0; i < 600; i++)); do
		[ -s "$pidf" ] && break
		[ -e "/proc/$pid" ] || return 1
		sleep 0.05
	done
	[ -s "$pidf" ] || return 1
	_vm_nbd_sock=$sock
}

# _vm_nbd_stop TERM|KILL: stop this boot's nbdkits and wait for them.
# KILL is the power cut: their caches' unflushed writes are lost.
_vm_nbd_stop() {
	local p i st
	[ ${#_vm_nbd_pids[@]} -gt 0 ] || return 0
	for p in "${_vm_nbd_pids[@]}"; do
		kill -"$1" "$p" 2>/dev/null
	done
	for p in "${_vm_nbd_pids[@]}"; do
		for ((i = 0; i < 600; i++)); do
			st=
			read -r _ _ st _ 2>/dev/null < "/proc/$p/stat"
			[ -z "$st" ] || [ "$st" = Z ] && break
			sleep 0.05
		done
		# still there after 30 s (stuck in shutdown): power-cut it
		[ "$i" -lt 600 ] || kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	_vm_nbd_pids=()
}

# ---- boot --------------------------------------------------------------

vm_boot() {
	local timeout=$VM_TIMEOUT kill_after='' kill_mark='' cache=$VM_CACHE
	local mem=$VM_MEM smp=$VM_SMP drive_opts=$VM_DRIVE_OPTS
	local envs=() guest disks=() d show=

	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) timeout=$2; shift 2 ;;
		--kill-after) kill_after=$2; shift 2 ;;
		--kill-mark) kill_mark=$2; shift 2 ;;
		--env) envs+=("$2"); shift 2 ;;
		--drive-opts) drive_opts=${drive_opts:+$drive_opts,}$2; shift 2 ;;
		--cache) cache=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		--show) show=1; shift ;;
		--) shift; break ;;
		-) break ;;
		-*) vm_fail "vm_boot: unknown option $1" ;;
		*) break ;;
		esac
	done
	[ $# -ge 1 ] || vm_fail "vm_boot: no guest script"
	guest=$1
	shift
	disks=("$@")
	[ -n "$kill_mark" ] && [ -z "$kill_after" ] && kill_after=0

	_vm_setup
	VM_BOOTS=$((VM_BOOTS + 1))
	local n=$VM_BOOTS
	local bdir=$BUILD/boot/$VM_TEST.$n
	rm -rf "$bdir"
	mkdir -p "$bdir/root/test"

	# Per-boot cpio: init, guest script and library, env, module.
	if [ "$guest" = - ]; then
		cat > "$bdir/root/test/guest.sh"
	else
		cp "$guest" "$bdir/root/test/guest.sh"
	fi
	cp "$VM_DIR/init" "$bdir/root/init"
	chmod 0755 "$bdir/root/init"
	cp "$VM_DIR/guest-lib.sh" "$bdir/root/test/guest-lib.sh"
	# extra host files the guest needs (test programs), in /test/
	for f in ${VM_FILES:-}; do
		cp "$f" "$bdir/root/test/" || vm_fail "vm_boot: cannot copy $f"
	done
	if [ "$PERSONALITY" = raid5j ] && [ -f "$R5J_KO" ]; then
		cp "$R5J_KO" "$bdir/root/test/raid5j.ko"
		# raid456's exports for dm-raid (make install-boot installs it)
		[ ! -f "$R5J_DMRAID_KO" ] ||
			cp "$R5J_DMRAID_KO" "$bdir/root/test/raid5j_dmraid.ko"
	fi
	{
		printf 'export R5J_TEST=%q\n' "$VM_TEST"
		printf 'export R5J_BOOT=%q\n' "$n"
		printf 'export PERSONALITY=%q\n' "$PERSONALITY"
		printf 'export R5J_NDISKS=%q\n' "${#disks[@]}"
		printf 'export R5J_KO=/test/raid5j.ko\n'
		printf 'export R5J_MODPARAMS=%q\n' "${R5J_MODPARAMS:-}"
		printf 'export R5J_DEBUGFS=%q\n' "${R5J_DEBUGFS:-}"
		for d in "${envs[@]}"; do
			printf 'export %s=%q\n' "${d%%=*}" "${d#*=}"
		done
	} > "$bdir/root/test/env"
	(cd "$bdir/root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0) > "$bdir/overlay.cpio" ||
		vm_fail "making the per-boot cpio failed"
	# The kernel unpacks concatenated archives in order.
	cat "$VM_BASE" "$bdir/overlay.cpio" > "$bdir/initrd.img"

	# no_timer_check: on a loaded host the emulated 8254 can miss the
	# kernel's IO-APIC timer check ("IO-APIC + timer doesn't work!"),
	# a panic at boot that has nothing to do with the test.

	local args=(-accel "tcg,thread=$VM_TCG_THREAD" -cpu max -m "$mem" -smp "$smp"
		-nographic -no-reboot -nic none
		-kernel "$VM_KERNEL" -initrd "$bdir/initrd.img"
		-append "console=ttyS0 loglevel=5 panic=-1 no_timer_check rdinit=/init $VM_APPEND"
		-device virtio-serial-pci,id=vser0
		-chardev "file,id=results,path=$BUILD/vm-logs/$VM_TEST.boot$n.results"
		-device virtserialport,bus=vser0.0,chardev=results,name=results)
	local spec name opts img
	for spec in "${disks[@]}"; do
		name=${spec%%,*}
		opts=${spec#"$name"}
		img=$VM_DISK_DIR/$name.img
		[ -f "$img" ] || vm_disk "$name"
		if [ "$VM_NBD_CACHE" = 1 ]; then
			_vm_nbd_start "$name" "$img" ||
				{ _vm_nbd_stop KILL; vm_fail "vm_boot: nbdkit for $name failed (see $VM_LOG)"; }
			# cache=writeback: qemu passes the guest's flushes on
			img="nbd+unix:///?socket=$_vm_nbd_sock"
			d=writeback
		else
			d=$cache
		fi
		# (qemu 7.2 has no -drive serial=: the device carries it)
		args+=(-drive "file=$img,if=none,id=drv-$name,format=raw,cache=$d${drive_opts:+,$drive_opts}$opts"
		       -device "virtio-blk-pci,drive=drv-$name,serial=$name")
	done

	local attempt=1 outcome qrc start now deadline kill_at st log_off follow
	local boot_deadline booted
	while :; do
		VM_RESULTS=$BUILD/vm-logs/$VM_TEST.boot$n.results
		: > "$VM_RESULTS"
		log_off=$(stat -c %s "$VM_LOG" 2>/dev/null || echo 0)
		{
			echo "==== $VM_TEST boot $n: $PERSONALITY, disks: ${disks[*]:-none}${kill_after:+, kill after ${kill_after}s${kill_mark:+ from mark $kill_mark}}"
			echo "==== $VM_QEMU ${args[*]}"
		} >> "$VM_LOG"

		kill_at=
		start=$(_vm_now_ms)
		deadline=$((start + $(_vm_secs_to_ms "$timeout") * ${VM_TIMEOUT_SCALE:-1}))
		# A boot that has not reached init by then is stuck (seen: one
		# in a CI run sat until its 360 s deadline, then booted again
		# in 14 s; another hung after ACPI's PCI probe): give up
		# on it early, the retry below boots again.  Init starts 5-6 s
		# into a boot (debug kernel 10-13 s): 45 s, times the scale.
		boot_deadline=$((start + $(_vm_secs_to_ms "${VM_BOOT_LIMIT:-45}") * ${VM_TIMEOUT_SCALE:-1}))
		booted=
		"$VM_QEMU" "${args[@]}" < /dev/null >> "$VM_LOG" 2>&1 &
		_vm_qemu_pid=$!
		follow=
		if [ -n "${V:-}" ] && [ "${V:-0}" != 0 ]; then
			tail -c +$((log_off + 1)) -f --pid="$_vm_qemu_pid" "$VM_LOG" &
			follow=$!
		elif [ -n "$show" ]; then
			tail -n +1 -f --pid="$_vm_qemu_pid" "$VM_RESULTS" |
				sed -un 's/^SAY //p; /^\(PASS\|FAIL\) /p' &
			follow=$!
		fi
		if [ -n "$kill_after" ] && [ -z "$kill_mark" ]; then
			kill_at=$((start + $(_vm_secs_to_ms "$kill_after")))
		fi

		outcome=exited
		while :; do
			st=
			read -r _ _ st _ 2>/dev/null < "/proc/$_vm_qemu_pid/stat"
			[ -z "$st" ] || [ "$st" = Z ] && break
			now=$(_vm_now_ms)
			if [ -n "$kill_mark" ] && [ -z "$kill_at" ] &&
			   grep -qx "MARK $kill_mark" "$VM_RESULTS"; then
				kill_at=$((now + $(_vm_secs_to_ms "$kill_after")))
				echo "==== mark $kill_mark seen at $(_vm_fmt_ms $((now - start)))s" >> "$VM_LOG"
			fi
			if [ -n "$kill_at" ] && [ "$now" -ge "$kill_at" ]; then
				kill -9 "$_vm_qemu_pid" 2>/dev/null
				# bash's "Killed" notices of qemu and nbdkit
				# here are the cut itself, not news
				_vm_nbd_stop KILL 2>/dev/null
				outcome=killed
				break
			fi
			if [ -z "$booted" ] && [ "$now" -ge "$boot_deadline" ]; then
				if grep -q '^BOOT ' "$VM_RESULTS"; then
					booted=1
				else
					kill -9 "$_vm_qemu_pid" 2>/dev/null
					_vm_nbd_stop KILL
					outcome=timeout
					break
				fi
			fi
			if [ "$now" -ge "$deadline" ]; then
				kill -9 "$_vm_qemu_pid" 2>/dev/null
				_vm_nbd_stop KILL
				outcome=timeout
				break
			fi
			sleep 0.05
		done
		wait "$_vm_qemu_pid" 2>/dev/null
		qrc=$?
		_vm_qemu_pid=
		_vm_nbd_stop TERM
		now=$(_vm_now_ms)
		VM_BOOT_SECS=$(_vm_fmt_ms $((now - start)))
		VM_KILLED=0
		[ $outcome = killed ] && VM_KILLED=1
		echo "" >> "$VM_LOG"
		echo "==== boot $n $outcome after ${VM_BOOT_SECS}s (qemu rc $qrc)" >> "$VM_LOG"
		# A VM that died before init opened the result port ran no test
		# code (raid5j not loaded, disks untouched): qemu crashing under
		# TCG (seen once in ~200 boots on a loaded host, SIGSEGV 4 s in)
		# is not a test result.  Boot once more, and say so.
		if [ $outcome != killed ] && [ "$attempt" = 1 ] &&
		   [ "$VM_NBD_CACHE" != 1 ] &&
		   ! grep -q '^BOOT ' "$VM_RESULTS"; then
			attempt=2
			vm_log "boot $n: $outcome before init reached the test (qemu rc $qrc): booting again"
			echo "==== boot $n: $outcome before init reached the test: booting again" >> "$VM_LOG"
			continue
		fi
		break
	done
	rm -f "$bdir/initrd.img"

	[ -n "$follow" ] && wait "$follow" 2>/dev/null
	[ -n "$show" ] || sed 's/^/  guest: /' "$VM_RESULTS"
	vm_log "boot $n: $outcome after ${VM_BOOT_SECS}s"

	local bad=0 kbug
	if grep -q '^FAIL' "$VM_RESULTS"; then
		bad=1
	fi
	kbug=$(tail -c +$((log_off + 1)) "$VM_LOG" | grep -aE "$VM_BAD_CONSOLE" | head -n 1)
	if [ -n "$kbug" ]; then
		echo "FAIL $VM_TEST: boot $n: kernel: $kbug"
		bad=1
	fi
	case $outcome in
	timeout)
		if [ -z "$booted" ] && ! grep -q '^BOOT ' "$VM_RESULTS"; then
			echo "FAIL $VM_TEST: boot $n never reached init (last try: ${VM_BOOT_SECS}s)"
		else
			echo "FAIL $VM_TEST: boot $n timed out after ${timeout}s"
		fi
		return 1
		;;
	killed)
		return $bad
		;;
	esac
	if [ -n "$kill_after" ]; then
		vm_log "note: boot $n ended before the planned kill"
	fi
	if ! grep -q '^DONE ' "$VM_RESULTS"; then
		echo "FAIL $VM_TEST: boot $n: VM stopped without DONE (panic? see $VM_LOG)"
		return 1
	fi
	if ! grep -qx 'DONE 0' "$VM_RESULTS"; then
		[ $bad = 1 ] || echo "FAIL $VM_TEST: boot $n: guest script $(grep '^DONE' "$VM_RESULTS")"
		return 1
	fi
	return $bad
}

# ---- reading results ---------------------------------------------------

vm_val() {
	sed -n "s/^VAL $1 //p" "$VM_RESULTS" | tail -n 1
}

vm_result() {
	grep -E "$1" "$VM_RESULTS"
}

# ---- crafted-input scenarios -------------------------------------------

# vm_build_jcorrupt: tests/tools/jcorrupt (the host's journal and
# superblock crafting tool) built as $JC from the shared sources.
vm_build_jcorrupt() {
	JC=$BUILD/jcorrupt
	vm_host_cc "$JC" -std=gnu11 -O2 -Wall -Wextra -Werror -I"$R5J_ROOT/include" \
		"$R5J_ROOT/tests/tools/jcorrupt.c" "$R5J_ROOT/tools/mdsb.c" \
		"$R5J_ROOT"/drivers/shared/*.c "$R5J_ROOT"/tools/lib/*_user.c ||
		vm_fail "cannot build tests/tools/jcorrupt.c"
}

# vm_crafted_setup: the host set-up shared by t-journal-crafted and
# t-reshape-crafted, whose cases are image copies crafted on the host,
# hashed region by region before and after the boot that assembles them.
# Builds tests/tools/jcorrupt as $JC, empties $OUT (build/vm-logs/<test>/,
# the per-case files) and the test's disks, and defines these helpers
# (only once called, so that other tests keep the names for their own):
#   bad CASE MSG            print the case's FAIL line, go on (FAILS)
#   img NAME                vm_disk_path NAME
#   field LINE NAME         the word after NAME in LINE
#   regions_diff IMG REG..  " IMG:REG" for each REG whose word differs
#                           between $OUT/IMG.before and $OUT/IMG.after
#   crafted_verdict         exit 1 if a case failed, else print PASS
vm_crafted_setup() {
	vm_build_jcorrupt
	OUT=$BUILD/vm-logs/$VM_TEST
	mkdir -p "$OUT"
	rm -f "$OUT"/*
	rm -rf "$VM_DISK_DIR"
	FAILS=()

	bad() {
		echo "FAIL $VM_TEST: $1: $2"
		FAILS+=("$1: $2")
	}
	img() {
		vm_disk_path "$1"
	}
	field() {
		set -- $1 "$2"
		local want=${!#} prev= w
		for w in "$@"; do
			[ "$prev" = "$want" ] && { echo "$w"; return; }
			prev=$w
		done
	}
	regions_diff() {
		local n=$1 b a r
		shift
		b=$(cat "$OUT/$n.before") a=$(cat "$OUT/$n.after")
		for r in "$@"; do
			[ "$(field "$b" "$r")" = "$(field "$a" "$r")" ] ||
				printf ' %s:%s' "$n" "$r"
		done
	}
	crafted_verdict() {
		if [ ${#FAILS[@]} -gt 0 ]; then
			echo "FAIL $VM_TEST: ${#FAILS[@]} failed: ${FAILS[*]}"
			exit 1
		fi
		echo "PASS $VM_TEST ($PERSONALITY)"
	}
}

# vm_fail_flush_lost MEMBERS: after a power cut with the journal dead
# (t-journal-fail-flush, t-journal-wb-fail-flush): the last boot's "A
# BLOCK" acknowledgements (vm_val acks of them) are checked against the
# members assembled alone (--force), copied to disk dump.  Sets acked and
# lost (acknowledged 4 KiB blocks not holding the writer's pattern).
vm_fail_flush_lost() {
	local acks=$BUILD/vm-logs/$VM_TEST.acks
	acked=$(vm_val acks)
	grep '^A ' "$VM_RESULTS" > "$acks"
	[ "$(wc -l < "$acks")" = "$acked" ] || vm_fail "acknowledgements lost on the way"
	vm_log "$acked writes acknowledged before the fsync"
	[ -s "$acks" ] || vm_fail "no write was acknowledged"
	# shellcheck disable=SC2086 # member names are words
	vm_boot --timeout 180 - $1 dump <<'EOF' || vm_fail "boot 3"
. /test/guest-lib.sh
load_personality
# the journal device is dead: the members alone, read-only
run mdadm --assemble --force --run /dev/md0 $(disks d0 d1 d2 d3)
dd if=/dev/md0 of=$(disk dump) bs=1M iflag=direct oflag=direct conv=fsync 2>/dev/null ||
	fail "copying the array failed"
run mdadm --stop /dev/md0
pass dump
EOF
	# every acknowledged block holds the pattern
	lost=$(python3 - "$(vm_disk_path dump)" "$acks" <<'PY'
import sys
img = open(sys.argv[1], 'rb')
pat = bytes.fromhex('72356a21') * 1024
acked = {int(float(l.split()[1])) for l in open(sys.argv[2])}
lost = 0
for b in sorted(acked):
	img.seek(b * 4096)
	if img.read(4096) != pat:
		lost += 1
print(lost)
PY
)
}
