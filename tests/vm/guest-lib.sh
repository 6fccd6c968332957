# SPDX-License-Identifier: GPL-2.0
#
# Helpers for guest scripts (bash, run by the VM's init; source this first).
#
# Results go to the result port, one line each, which the host reads:
#   PASS <name>             a named step succeeded          (pass)
#   FAIL <name>: <reason>   the test failed; script exits   (fail, check, run)
#   MARK <word>             a moment the host may wait for  (mark)
#   VAL <key> <value>       a value for the host script     (report)
#   SAY <text>              for a human watching            (say, say_cmd)
# init adds "BOOT <n>" first and "DONE <rc>" last.
#
# Variables set by init/host: R5J_TEST (test name), R5J_BOOT (boot number),
# PERSONALITY (raid5j or raid456), R5J_RESULT_PORT, R5J_KO (module path),
# R5J_MODPARAMS (raid5j.ko parameters, from the host's environment),
# R5J_DEBUGFS (raid5j's test hooks, KEY=VALUE words: r5j_debugfs_set).

R5J_TEST=${R5J_TEST:-unknown}
PERSONALITY=${PERSONALITY:-raid5j}
R5J_KO=${R5J_KO:-/test/raid5j.ko}
MD_SYNC_TIMEOUT=${MD_SYNC_TIMEOUT:-300}	# seconds wait_sync waits at most

# ---- reporting ---------------------------------------------------------

result() {
	echo "$*" > "${R5J_RESULT_PORT:-/dev/null}"
	echo "result: $*"
}

log() {
	echo "[$(cut -d' ' -f1 /proc/uptime)] $*"
}

pass() {
	result "PASS ${1:-$R5J_TEST}"
}

# fail REASON...: report, show the md state, end the guest script.
fail() {
	result "FAIL $R5J_TEST: $*"
	echo "---- /proc/mdstat at failure ----"
	cat /proc/mdstat 2>/dev/null
	exit 1
}

mark() {
	result "MARK $1"
}

report() {
	result "VAL $1 ${*:2}"
}

# say TEXT: a line for a human watching (vm_boot --show prints them).
say() {
	result "SAY $*"
}

# say_cmd CMD...: run CMD, say its output line by line, indented.
say_cmd() {
	local line
	say "\$ $*"
	"$@" 2>&1 | while IFS= read -r line; do
		say "    $line"
	done
}

# ---- running commands --------------------------------------------------

# run CMD...: run, echo its output, fail the test if it fails.
run() {
	local out rc
	log "+ $*"
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	[ $rc -eq 0 ] || fail "'$*' exited with $rc: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
	return 0
}

# must_fail CMD...: the command is expected to fail.
must_fail() {
	log "+ (expect failure) $*"
	if "$@" >/tmp/must_fail.out 2>&1; then
		cat /tmp/must_fail.out
		fail "'$*' succeeded but should have failed"
	fi
	cat /tmp/must_fail.out
}

expect_eq() {	# expect_eq ACTUAL EXPECTED WHAT
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}

# ---- disks and modules -------------------------------------------------

# disk NAME: device path of the host drive given with serial NAME.
disk() {
	local d=/dev/disk/by-id/virtio-$1
	[ -e "$d" ] || fail "no disk with serial $1"
	readlink -f "$d"
}

# disks_but SKIP NAME...: device paths of the NAMEs other than SKIP.
disks_but() {
	local skip=$1 n out=
	shift
	for n in "$@"; do
		[ "$n" = "$skip" ] || out="$out $(disk "$n")"
	done
	echo "${out# }"
}

# disks NAME...: their device paths, space separated.
disks() {
	local n out=
	for n in "$@"; do
		out="$out $(disk "$n")"
	done
	echo "${out# }"
}

# load_personality [raid5j|raid456]: load md and the RAID4/5/6 personality.
# raid5j: md-mod and everything raid456 would need (xor, raid6_pq, async_*,
# crc32c/libcrc32c), then insmod raid5j.ko.  raid456 is never loaded with
# it: md core takes the first personality registered for a level.
# faulty_members DISK...: md's "faulty" personality over each disk, as
# /dev/md10, /dev/md11, ... in that order (fault injection under array
# members: mdadm --grow -l faulty -p LAYOUT arms a fault); F lists them.
faulty_members() {
	local d k=0
	modprobe faulty || fail "modprobe faulty"
	F=
	for d in "$@"; do
		run mdadm --build /dev/md1$k --level=faulty --raid-devices=1 $(disk $d)
		F="$F /dev/md1$k"
		k=$((k + 1))
	done
	F=${F# }
}

# data_offset DEV: where a member's data starts, in sectors (mdadm --examine)
data_offset() {
	local off
	off=$(mdadm --examine "$1" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p')
	[ -n "$off" ] || fail "no data offset on $1"
	echo "$off"
}

load_personality() {
	local p=${1:-$PERSONALITY} m
	for m in crc32c_generic crc32c-intel libcrc32c md-mod xor raid6_pq \
		 async_tx async_memcpy async_xor async_pq async_raid6_recov; do
		case $m in
		crc32c-intel) modprobe -q "$m" 2>/dev/null ;;	# CPU may lack SSE4.2
		*) modprobe "$m" || fail "modprobe $m failed" ;;
		esac
	done
	case $p in
	raid5j)
		grep -qw '^raid456' /proc/modules && fail "raid456 already loaded"
		# md core asks for "md-level-5" when no personality has the
		# level: never let that pull in raid456 behind our back.
		mkdir -p /etc/modprobe.d
		echo "install raid456 /bin/false" > /etc/modprobe.d/no-raid456.conf
		r5j_insmod
		;;
	raid456)
		grep -qw '^raid5j' /proc/modules && fail "raid5j already loaded"
		modprobe raid456 || fail "modprobe raid456 failed"
		;;
	*)
		fail "unknown personality '$p'"
		;;
	esac
	log "personality $p loaded: $(grep Personalities /proc/mdstat)"
}

# r5j_insmod [PARAM=VALUE...]: load raid5j.ko with R5J_MODPARAMS and
# PARAMs (a later one wins), then set R5J_DEBUGFS's test hooks.
r5j_insmod() {
	[ -f "$R5J_KO" ] || fail "no raid5j.ko in the VM (make module)"
	# shellcheck disable=SC2086 # parameters are words
	insmod "$R5J_KO" ${R5J_MODPARAMS:-} "$@" ||
		fail "insmod raid5j.ko ${R5J_MODPARAMS:-} $* failed"
	grep -qw '^raid5j' /proc/modules || fail "raid5j not in /proc/modules"
	# shellcheck disable=SC2086 # KEY=VALUE words
	r5j_debugfs_set ${R5J_DEBUGFS:-}
}

# r5j_reload [PARAM=VALUE...]: raid5j.ko unloaded (no array may run) and
# loaded again as r5j_insmod does: parameters read only at load (0444)
# changed between two assemblies.
r5j_reload() {
	run rmmod raid5j
	r5j_insmod "$@"
}

# ---- md state ----------------------------------------------------------

# md_name DEV: md0 from /dev/md0 or md0.
md_name() {
	basename "$1"
}

md_sysfs() {	# md_sysfs DEV ATTR
	cat "/sys/block/$(md_name "$1")/md/$2" 2>/dev/null
}

# wait_sync [DEV]: wait until no resync/recovery/reshape/check is running
# (on DEV, or on any array), at most MD_SYNC_TIMEOUT seconds.
wait_sync() {
	local dev=${1:-} t=0 a
	while :; do
		if [ -n "$dev" ]; then
			a=$(md_sysfs "$dev" sync_action)
			{ [ -z "$a" ] || [ "$a" = idle ] || [ "$a" = frozen ]; } &&
				! grep -A3 "^$(md_name "$dev") " /proc/mdstat |
					grep -Eq 'resync|recovery|reshape|check|repair|DELAYED|PENDING' &&
				break
		else
			grep -Eq 'resync|recovery|reshape|check|repair|DELAYED|PENDING' \
				/proc/mdstat || break
		fi
		[ $t -ge $((MD_SYNC_TIMEOUT * 10)) ] &&
			fail "sync not finished after ${MD_SYNC_TIMEOUT}s: $(tr '\n' ' ' < /proc/mdstat)"
		sleep 0.1
		t=$((t + 1))
	done
	log "sync done after $((t / 10)).$((t % 10))s"
}

# fast_sync: let resync/recovery go as fast as it can.
fast_sync() {
	echo 2000000 > /proc/sys/dev/raid/speed_limit_max
	echo 1000000 > /proc/sys/dev/raid/speed_limit_min
}

# check WHAT [ARG], after mdadm's tests/func.sh; fails the test if untrue.
#   check raid4|raid5|raid6 [DEV]  an array (DEV) of that level is active,
#                                  run by $PERSONALITY (check personality)
#   check personality              $PERSONALITY's module is in use
#   check state '[UUUU]' [DEV]     member state string in /proc/mdstat
#   check degraded N DEV           md/degraded is N
#   check spares N [DEV]           N spares ("(S)") in /proc/mdstat
#   check resync|recovery|nosync   a resync/recovery is running, or nothing is
#   check wait [DEV]               same as wait_sync
#   check clean DEV                mdadm --detail: State : clean
#   check mismatch DEV             run a check, mismatch_cnt must be 0
#   check readonly|readwrite DEV
#   check dmesg                    no kernel bug/warning so far
check() {
	local what=$1 dev line
	case $what in
	raid4 | raid5 | raid6)
		dev=${2:-}
		if [ -n "$dev" ]; then
			line=$(grep "^$(md_name "$dev") " /proc/mdstat)
			echo "$line" | grep -q " active $what " ||
				fail "check $what: $(md_name "$dev") is '$line'"
			expect_eq "$(md_sysfs "$dev" level)" "$what" "$dev md/level"
		else
			grep -q " active $what " /proc/mdstat ||
				fail "check $what: no active $what array in /proc/mdstat"
		fi
		check personality
		;;
	state)
		dev=${3:-}
		if [ -n "$dev" ]; then
			grep -A1 "^$(md_name "$dev") " /proc/mdstat | grep -qF "$2" ||
				fail "check state $2: $(md_name "$dev") is $(grep -A1 "^$(md_name "$dev") " /proc/mdstat | tail -n 1)"
		else
			grep -qF "$2" /proc/mdstat ||
				fail "check state $2: $(tr '\n' ' ' < /proc/mdstat)"
		fi
		;;
	degraded)
		expect_eq "$(md_sysfs "$3" degraded)" "$2" "$3 md/degraded"
		;;
	spares)
		dev=${3:-}
		local n
		if [ -n "$dev" ]; then
			n=$(grep "^$(md_name "$dev") " /proc/mdstat | tr ' ' '\n' | grep -c '(S)')
		else
			n=$(tr ' ' '\n' < /proc/mdstat | grep -c '(S)')
		fi
		expect_eq "$n" "$2" "number of spares"
		;;
	resync | recovery | reshape)
		grep -q "$what" /proc/mdstat ||
			fail "check $what: none running: $(tr '\n' ' ' < /proc/mdstat)"
		;;
	nosync)
		grep -Eq 'resync|recovery|reshape' /proc/mdstat &&
			fail "check nosync: $(tr '\n' ' ' < /proc/mdstat)"
		;;
	wait)
		wait_sync "${2:-}"
		;;
	clean)
		dev=$2
		local st
		st=$(mdadm --detail "$dev" | sed -n 's/^ *State : //p' | sed 's/ *$//')
		echo "$st" | grep -Eq '^(clean|active)$' ||
			fail "check clean: $dev State is '$st'"
		;;
	mismatch)
		dev=$2
		wait_sync "$dev"
		echo check > "/sys/block/$(md_name "$dev")/md/sync_action" ||
			fail "cannot start check on $dev"
		sleep 0.5
		wait_sync "$dev"
		expect_eq "$(md_sysfs "$dev" mismatch_cnt)" 0 "$dev mismatch_cnt after check"
		;;
	readonly)
		expect_eq "$(md_sysfs "$2" array_state)" readonly "$2 array_state"
		;;
	readwrite)
		case $(md_sysfs "$2" array_state) in
		clean | active | active-idle | write-pending) ;;
		*) fail "check readwrite: $2 array_state $(md_sysfs "$2" array_state)" ;;
		esac
		;;
	personality)
		# the array is driven by the module under test (md core holds
		# a reference on the personality's module while it runs)
		local mod=$PERSONALITY refs
		refs=$(cat "/sys/module/$mod/refcnt" 2>/dev/null)
		[ "${refs:-0}" -ge 1 ] ||
			fail "check personality: $mod is not in use (refcnt '${refs}')"
		;;
	dmesg)
		scan_dmesg || fail "kernel reported a bug (see console log)"
		;;
	*)
		fail "check: unknown check '$what'"
		;;
	esac
	return 0
}

# ---- data --------------------------------------------------------------

# fio_run WHAT FIO-ARGS...: run fio, fail the test on any error or
# verification failure.  Options common to all our jobs come first, so a
# job file or later arguments can override them.
fio_run() {
	local what=$1 out rc
	shift
	log "+ fio $what: $*"
	out=$(fio --direct=1 --ioengine=libaio --verify=crc32c --verify_fatal=1 \
		--verify_dump=0 --output-format=normal "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^[a-zA-Z0-9_.-]+: \(groupid|err=|WRITE:|READ:|verify|bad' |
		head -n 40
	if [ $rc -ne 0 ] || printf '%s' "$out" | grep -qiE 'verify:? bad|verify failed|err= *[1-9]'; then
		printf '%s\n' "$out" | tail -n 30
		fail "fio $what: rc=$rc $(printf '%s' "$out" | grep -iE 'bad|error|fail' | head -n 2 | tr '\n' ' ')"
	fi
	return 0
}

# linear_members DISK...: a dm-linear device "linDISK" over each disk (so a
# test can suspend a member's writes); M lists them.
linear_members() {
	local d
	M=
	for d in "$@"; do
		run dmsetup create "lin$d" --table \
			"0 $(blockdev --getsz "$(disk $d)") linear $(disk $d) 0"
		M="$M /dev/mapper/lin$d"
	done
	M=${M# }
}

# journal_mode MODE [DEV]: switch DEV's (default /dev/md0) journal to MODE
# and fail unless
# md/journal_mode then shows it selected, so a refused switch cannot pass.
journal_mode() {
	local jm=/sys/block/$(basename "${2:-/dev/md0}")/md/journal_mode
	echo "$1" > "$jm" || fail "journal_mode $1 refused"
	grep -q "\[$1\]" "$jm" || fail "journal_mode $1: shows $(cat "$jm")"
}

# journaled_raid5 [JOURNAL [MDADM-OPTION...]]: mdadm --create /dev/md0, a
# RAID5 of d0 d1 d2 d3 with a 16 KiB chunk, --assume-clean, with JOURNAL
# (default disk j) as its write journal and the extra options; sets M to
# the members' device paths.
journaled_raid5() {
	local j=${1:-$(disk j)}
	[ $# -gt 0 ] && shift
	M=$(disks d0 d1 d2 d3)
	run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
		--assume-clean "$@" --write-journal="$j" $M
}

# journal_dm: /dev/mapper/jdm, dm-linear over the whole disk j, for a test
# to put a journal behind that it can fail or reshape by loading another
# table; sets J (the disk's path) and jsz (its size in sectors).
journal_dm() {
	modprobe dm-mod || fail "no dm-mod"
	J=$(disk j)
	jsz=$(blockdev --getsz "$J")
	echo "0 $jsz linear $J 0" | dmsetup create jdm || fail "dmsetup create jdm"
}

# stamp_check DEV BLOCKS ACKLOG: "/test/stamp check" of DEV as it reads now
# against ACKLOG (the host's "A ..." lines of the writing boots, shipped in
# VM_FILES); says the checker's summary, fails on any acknowledged block
# lost or garbage.
stamp_check() {
	local out
	out=$(/test/stamp check "$@" 2>&1) ||
		fail "stamp check of $1: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
	say "   ${out##*$'\n'}"
}

# fio_verify NAME DEV [fio options...]: one job that writes, then reads
# back and checks with crc32c; add --verify_only to re-check the data a
# previous run with the same options wrote.
fio_verify() {
	local name=$1 dev=$2
	shift 2
	fio_run "$name on $dev" --name="$name" --filename="$dev" "$@"
}

# fio_jobs DEV JOBFILE: run a fio job file against DEV (as $DEV in it).
fio_jobs() {
	DEV=$1 fio_run "$(basename "$2") on $1" "$2"
}

# ---- write-back journal cache ------------------------------------------

# jstat KEY [DEV]: a journal_stats value of DEV (default /dev/md0), 0 when
# there is no such line (raid456 has no journal_stats; a raid5j without
# the counter).
jstat() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' \
		"/sys/block/$(md_name "${2:-/dev/md0}")/md/journal_stats" 2>/dev/null ||
		echo 0
}

# r5j_stat KEY [DEV]: a raid5j_stats value of DEV (default /dev/md0), 0
# when there is no such line (raid456 has no raid5j_stats).
r5j_stat() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' \
		"/sys/block/$(md_name "${2:-/dev/md0}")/md/raid5j_stats" 2>/dev/null ||
		echo 0
}

# raid5j_only WHAT: 0 when raid5j runs (WHAT, assertions on its
# journal_stats or its test hooks, apply); otherwise says that WHAT is
# skipped (a SAY line: visible in the log and the results) and returns 1.
raid5j_only() {
	[ "$PERSONALITY" = raid5j ] && return 0
	say "SKIP $1: $PERSONALITY is not raid5j"
	return 1
}

# expect_recoverable_by WHO [DEV]: raid5j's writeback_recoverable_by
# reads WHO (raid456 or raid5j) and DEV's (default /dev/md0) journal_stats
# shows the log kept as it gives: raid456_room 1 and fixed_reserve 0 for
# raid456, the reverse for raid5j.  Nothing under raid456 (a SAY line).
expect_recoverable_by() {
	local want
	raid5j_only "writeback_recoverable_by $1" || return 0
	expect_eq "$(cat /sys/module/raid5j/parameters/writeback_recoverable_by 2>/dev/null)" \
		"$1" "writeback_recoverable_by"
	case $1 in
	raid456) want="1 0" ;;
	raid5j) want="0 1" ;;
	*) fail "expect_recoverable_by $1: raid456 or raid5j" ;;
	esac
	expect_eq "$(jstat raid456_room "${2:-}") $(jstat fixed_reserve "${2:-}")" \
		"$want" "journal_stats raid456_room, fixed_reserve (writeback_recoverable_by=$1)"
}

# r5j_debugfs_set KEY=VALUE...: set raid5j's test hooks,
# /sys/kernel/debug/raid5j/KEY (read when an array is assembled):
#   raid456_stripes=N         raid456's stripe limit (default 32768),
#                             which the log keeps below with
#                             writeback_recoverable_by=raid456
#   recovery_unit_by_unit=1   recovery destages unit by unit
# load_personality applies R5J_DEBUGFS (from the host's environment) with
# it after the module is loaded, at every boot.  raid456 has no such
# hooks: a SAY line, nothing set.
r5j_debugfs_set() {
	local kv f
	[ $# -gt 0 ] || return 0
	raid5j_only "raid5j test hooks $*" || return 0
	for kv in "$@"; do
		f=/sys/kernel/debug/raid5j/${kv%%=*}
		[ -e "$f" ] || fail "no $f (debugfs not mounted, or no such hook)"
		echo "${kv#*=}" > "$f" || fail "cannot set $f to ${kv#*=}"
	done
	log "raid5j test hooks: $*"
}

# jstat_watch_start KEY...: sample md0's journal_stats every 0.2 s in the
# background and keep the largest value of each KEY (gauges such as
# evicted_stripes rise and fall between two reads) until jstat_watch_stop.
# KEY "fill" is used_sectors + wb_reserved_sectors of one sample (the log
# room taken, the parity reserve of the dirty stripes included); "r456" is
# used_sectors + raid456_recovery_sectors (the log and what raid456's
# recovery of it would write: within the ring).
jstat_watch_start() {
	rm -f /tmp/jwatch.stop /tmp/jwatch.max
	(
		declare -A max
		for k in "$@"; do max[$k]=0; done
		while :; do
			fill=0 r456=0
			while read -r k v; do
				case $k in
				used_sectors | wb_reserved_sectors) fill=$((fill + v)) ;;
				esac
				case $k in
				used_sectors | raid456_recovery_sectors) r456=$((r456 + v)) ;;
				esac
				[ -n "${max[$k]+x}" ] && [ "$v" -gt "${max[$k]}" ] 2>/dev/null &&
					max[$k]=$v
			done < /sys/block/md0/md/journal_stats
			[ -n "${max[fill]+x}" ] && [ $fill -gt "${max[fill]}" ] && max[fill]=$fill
			[ -n "${max[r456]+x}" ] && [ $r456 -gt "${max[r456]}" ] && max[r456]=$r456
			[ -e /tmp/jwatch.stop ] && break
			sleep 0.2
		done
		for k in "${!max[@]}"; do echo "$k ${max[$k]}"; done > /tmp/jwatch.max
	) &
	JWATCH_PID=$!
}

# jstat_watch_stop: end the sampling (one last sample is taken).
jstat_watch_stop() {
	: > /tmp/jwatch.stop
	wait "$JWATCH_PID"
}

# jstat_max KEY: the largest value of KEY the last sampling saw.
jstat_max() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' /tmp/jwatch.max 2>/dev/null
}

# ---- kernel log --------------------------------------------------------

# Lines of the kernel log that mean a kernel bug, whoever caused it.
R5J_DMESG_BAD='BUG:|WARNING:|Oops|INFO: task .* blocked|general protection fault|kernel BUG|Kernel panic|UBSAN:|stack-protector|list_(add|del) corruption|refcount_t:|INFO: trying to register non-static key'

# scan_dmesg: report each bad line once; return 1 if there was any.
scan_dmesg() {
	local bad
	bad=$(dmesg | grep -E "$R5J_DMESG_BAD" | grep -v 'module verification failed')
	[ -z "$bad" ] && return 0
	if [ "$bad" != "$(cat /run/r5j-dmesg-reported 2>/dev/null)" ]; then
		result "FAIL $R5J_TEST: kernel: $(printf '%s\n' "$bad" | head -n 1)"
		printf '%s\n' "$bad" > /run/r5j-dmesg-reported
	fi
	return 1
}

# ---- kmemleak (debug kernels only: tests/debug-kernel) -----------------

R5J_KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_start: no background scans; remember when the test began (a
# scan costs tens of seconds there: objects older than that, leaked while
# booting, are told apart by their age instead).  init calls it first.
kmemleak_start() {
	[ -w "$R5J_KMEMLEAK" ] || return 0
	echo scan=off > "$R5J_KMEMLEAK"
	cut -d' ' -f1 /proc/uptime > /run/r5j-kmemleak-start
}

# kmemleak_check: init calls it after stopping the arrays.  One scan with
# the personality still loaded (backtraces with symbols); any unreferenced
# object allocated since kmemleak_start fails the boot, printed on the
# console.  Then the personality must unload.
kmemleak_check() {
	[ -w "$R5J_KMEMLEAK" ] || return 0
	local m n since
	sleep 5		# kmemleak leaves objects younger than 5 s alone
	if ! echo scan > "$R5J_KMEMLEAK"; then
		result "FAIL $R5J_TEST: kmemleak is disabled: $(dmesg | grep -m1 kmemleak)"
		return 1
	fi
	since=$(awk -v s="$(cat /run/r5j-kmemleak-start 2>/dev/null || echo 0)" \
		'{ print $1 - s + 1 }' /proc/uptime)
	# objects whose age is below the test's run time
	awk -v max="$since" '
		/^unreferenced object/ { if (blk != "" && keep) printf "%s", blk; blk = ""; keep = 0 }
		{ blk = blk $0 "\n" }
		/\(age [0-9.]+s\)/ { a = $0; sub(/.*\(age /, "", a); sub(/s\).*/, "", a); keep = (a + 0 < max) }
		END { if (blk != "" && keep) printf "%s", blk }' "$R5J_KMEMLEAK" > /tmp/kmemleak.loaded
	for m in raid5j raid456; do
		grep -qw "^$m" /proc/modules || continue
		if ! rmmod "$m" 2>/tmp/rmmod.err && ! grep -q '^md' /proc/mdstat; then
			result "FAIL $R5J_TEST: rmmod $m with no array left: $(cat /tmp/rmmod.err)"
		fi
	done
	n=$(grep -c '^unreferenced object' /tmp/kmemleak.loaded)
	[ "$n" -gt 0 ] || return 0
	echo "---- kmemleak: $n unreferenced object(s) allocated during the test ----"
	cat /tmp/kmemleak.loaded
	echo "---- end of kmemleak ----"
	result "FAIL $R5J_TEST: kmemleak: $n unreferenced object(s), first allocated at: $(kmemleak_where)"
	return 1
}

# kmemleak_where: the first callers (past the allocator) of the first leak.
kmemleak_where() {
	sed -n '/^  backtrace:/,/^unreferenced/s/^ *\[<[0-9a-f]*>\] //p' /tmp/kmemleak.loaded |
		grep -vE '^(0x|kmem_cache_alloc|kmalloc|__kmalloc|__kmem_cache_alloc|kmalloc_trace|slab_post_alloc|kmemleak_alloc|__alloc_pages|alloc_pages|kmalloc_order|mempool_alloc)' |
		head -n 3 | tr '\n' ' '
}

# ---- LVM RAID (dm-raid) -------------------------------------------------

# install_boot_rule: what `make install` and `make install-boot` leave on
# a system: raid5j.ko and raid5j_dmraid.ko in extra/, depmod,
# tools/boot/raid5j.conf and raid5j-dmraid.conf (the test ships them in
# /test/) in /etc/modprobe.d.  Only kmod's /sbin/modprobe runs their rules
# (not busybox's applet).
install_boot_rule() {
	local kv
	kv=$(uname -r)
	run mkdir -p "/lib/modules/$kv/extra" /etc/modprobe.d
	run cp "$R5J_KO" "/lib/modules/$kv/extra/raid5j.ko"
	run cp /test/raid5j_dmraid.ko "/lib/modules/$kv/extra/raid5j_dmraid.ko"
	run cp /test/raid5j.conf /test/raid5j-dmraid.conf /etc/modprobe.d/
	run depmod -a
}

# lvm_setup: lvm2 without udev (the initramfs has /etc/lvm/lvm.conf)
lvm_setup() {
	export DM_DISABLE_UDEV=1
	mkdir -p /run/lvm /run/lock/lvm
}

# lv_field LV FIELD: one lvs field of vg/LV, no padding
lv_field() {
	lvs --noheadings -o "$2" "vg/$1" 2>/dev/null | tr -d ' '
}

# lv_wait_idle LV: wait until vg/LV's sync or check has ended
# (sync_percent 100, raid_sync_action idle), at most 2 * MD_SYNC_TIMEOUT
# half seconds.
lv_wait_idle() {
	local t=0 p a
	while :; do
		p=$(lv_field "$1" sync_percent)
		a=$(lv_field "$1" raid_sync_action)
		[ "$p" = 100.00 ] && [ "$a" = idle ] && return 0
		[ $t -lt $((MD_SYNC_TIMEOUT * 2)) ] ||
			fail "vg/$1: not idle: sync_percent '$p', action '$a'"
		sleep 0.5
		t=$((t + 1))
	done
}

# lv_check LV: lvchange --syncaction check, wait, mismatch count 0
lv_check() {
	run lvchange -y --syncaction check "vg/$1"
	sleep 1
	lv_wait_idle "$1"
	log "$(lvs -o name,raid_sync_action,raid_mismatch_count,sync_percent "vg/$1")"
	expect_eq "$(lv_field "$1" raid_mismatch_count)" 0 "vg/$1 mismatch count after check"
}

# ---- superblock updates (t-journal-sb-*) -------------------------------

# slow_members MS NAME...: put each disk behind dm-delay (writes and
# flushes held MS ms, reads not) as /dev/mapper/slowNAME; prints the paths.
slow_members() {
	local ms=$1 d dev out=
	shift
	for d in "$@"; do
		dev=$(disk "$d")
		run dmsetup create "slow$d" --table \
			"0 $(blockdev --getsz "$dev") delay $dev 0 0 $dev 0 $ms" >&2
		run dmsetup mknodes "slow$d" >&2
		out="$out /dev/mapper/slow$d"
	done
	echo "${out# }"
}

# journal_sb_sum NAME: checksum of disk NAME's v1.2 superblock (the 4 KiB
# block at 4 KiB) as on the device now (O_DIRECT).
journal_sb_sum() {
	dd if="$(disk "$1")" bs=4096 skip=1 count=1 iflag=direct 2>/dev/null |
		md5sum
}

# share_result_port: the result port takes one opener; route our results
# and a writer's (given $R5J_RESULT_PORT as its ack file) through a FIFO.
# An ack still in the FIFO at a power cut is lost: never a false failure,
# only a weaker check.
share_result_port() {
	mkfifo /tmp/results
	cat /tmp/results > "$R5J_RESULT_PORT" &
	exec 9> /tmp/results
	R5J_RESULT_PORT=/tmp/results
}

# wait_bitmap_dirty DEV: wait (30 s at most) until the write-intent bitmap
# on member DEV shows dirty bits on disk, i.e. writes are under way.
wait_bitmap_dirty() {
	local t=0 dirty
	while :; do
		blockdev --flushbufs "$1"
		dirty=$(mdadm -X "$1" | sed -n 's/^ *Bitmap : .* bits (chunks), \([0-9]*\) dirty.*/\1/p')
		[ "${dirty:-0}" -gt 0 ] && return 0
		[ $t -ge 300 ] && fail "no dirty bits 30 s into the random writes"
		sleep 0.1
		t=$((t + 1))
	done
}

# ---- reshape (t-reshape-*) ---------------------------------------------

# mdstat_reshape DEV: DEV's progress line in /proc/mdstat while it
# reshapes ("[=>...]  reshape = 12.5% (4096/32768) finish=... speed=..."),
# empty otherwise.
mdstat_reshape() {
	awk -v md="$(md_name "$1")" '
		$1 == md { on = 1; next }
		on && /^$/ { exit }
		on && /reshape = / { sub(/^ +/, ""); print; exit }' /proc/mdstat
}

# reshaping DEV: true while DEV has a reshape under way (md/reshape_position
# is set, or mdstat shows one).
reshaping() {
	local pos
	pos=$(md_sysfs "$1" reshape_position)
	[ -n "$pos" ] && [ "$pos" != none ] && return 0
	[ -n "$(mdstat_reshape "$1")" ]
}

# wait_reshape_line DEV: wait (60 s at most) until /proc/mdstat shows DEV's
# reshape progress line in raid456's format; prints it.
wait_reshape_line() {
	local t=0 line
	while :; do
		line=$(mdstat_reshape "$1")
		[ -n "$line" ] && break
		[ $t -ge 600 ] && fail "no reshape line for $1 in /proc/mdstat after 60 s: $(tr '\n' ' ' < /proc/mdstat)"
		sleep 0.1
		t=$((t + 1))
	done
	echo "$line" | grep -Eq '^\[[=>.]+\] +reshape = +[0-9]+\.[0-9]% \([0-9]+/[0-9]+\) finish=[0-9.]+min speed=[0-9]+K/sec$' ||
		fail "$1: mdstat reshape line not in raid456's format: '$line'"
	echo "$line"
}

# wait_reshape_held DEV HOLD: wait (120 s at most) until DEV's reshape sits
# still at sync_max HOLD (sync_completed unchanged for 2 s, past half of
# HOLD: raid456 checkpoints a step or a few below it); sets c to where it
# stopped.
wait_reshape_held() {
	local t=0 still=0 prev=
	while :; do
		c=$(md_sysfs "$1" sync_completed)
		c=${c%% *}
		if [ "$c" = "$prev" ] && [ "${c:-0}" -ge $(($2 / 2)) ] 2>/dev/null; then
			still=$((still + 1))
			[ $still -ge 4 ] && return 0
		else
			still=0
		fi
		prev=$c
		[ $t -ge 240 ] && fail "$1: reshape not held at sync_max $2: sync_completed '$c'"
		sleep 0.5
		t=$((t + 1))
	done
}

# grow_held DEV N HOLD WHAT: start a grow of DEV to N members held at
# md/sync_max HOLD (sync speeds slowed, so it is mid-way for sure), wait
# until it sits there; fails with mdadm's and the kernel's words if mdadm
# refuses.  Sets pos to DEV's reshape_position (inside the array) and c to
# sync_completed.
grow_held() {
	local dev=$1 n=$2 hold=$3 what=$4 size
	size=$(blockdev --getsize64 "$dev")
	echo 6000 > "/sys/block/$(md_name "$dev")/md/sync_speed_max"
	echo 3000 > "/sys/block/$(md_name "$dev")/md/sync_speed_min"
	echo "$hold" > "/sys/block/$(md_name "$dev")/md/sync_max" ||
		fail "$what: sync_max $hold refused"
	if ! mdadm --grow "$dev" --raid-devices="$n" > /tmp/grow.out 2>&1; then
		cat /tmp/grow.out
		fail "$what: mdadm --grow failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
	say "$what: $(wait_reshape_line "$dev")"
	wait_reshape_held "$dev" "$hold"
	pos=$(md_sysfs "$dev" reshape_position)
	say "$what: held at sync_completed $c (sync_max $hold), reshape_position $pos"
	[ "$pos" != none ] && [ "$pos" -gt 0 ] && [ "$pos" -lt $((size / 512)) ] ||
		fail "$what: reshape_position '$pos' not inside the array"
}

# fio_over_reshape WHAT DEV TAG SEED: while DEV reshapes, fio verify
# passes B<TAG> (regions "reg_B SEED+1", "reg_B SEED+2" ...), each followed
# by a verify of A<TAG> (reg_A); the caller defines reg_A and reg_B.
# Fails unless a pass overlapped the reshape (still running at its end,
# or the checkpointed position moved during it).  Then waits for mdadm's
# children and the resync.  Sets seed (the last one used), npass, moved
# and t1.
fio_over_reshape() {
	local what=$1 dev=$2 tag=$3 p0 p1
	seed=$4 npass=0 moved=0
	while reshaping "$dev"; do
		seed=$((seed + 1)) npass=$((npass + 1))
		p0=$(md_sysfs "$dev" reshape_position)
		# shellcheck disable=SC2046
		fio_verify "B$tag" "$dev" $(reg_B $seed)
		p1=$(md_sysfs "$dev" reshape_position)
		if reshaping "$dev" || { [ "$p0" != none ] && [ "$p0" != "$p1" ]; }; then
			moved=$((moved + 1))
		fi
		# shellcheck disable=SC2046
		fio_verify "A$tag" "$dev" $(reg_A) --verify_only
		log "pass $seed: reshape_position $p0 -> $p1, sync_max $(md_sysfs "$dev" sync_max); $(mdstat_reshape "$dev")"
	done
	[ $npass -ge 1 ] || fail "$what: the reshape ended before the first fio pass"
	[ $moved -ge 1 ] || fail "$what: no fio pass overlapped the reshape ($npass passes)"
	wait_grow_children
	wait_sync "$dev"
	t1=$(cut -d' ' -f1 /proc/uptime)
}

# passes_during_reshape DEV REGFN: in the background, fio verify passes
# B1, B2 ... (regions "REGFN i") on DEV until a pass ends with the reshape
# over; then /tmp/bpasses holds "passes passes-that-ended-mid-reshape".
# Sets bpid; a failure of the caller's script ends the passes too.
passes_during_reshape() {
	local dev=$1 regfn=$2
	(
		i=0 during=0
		while :; do
			i=$((i + 1))
			# shellcheck disable=SC2046
			fio_verify B$i "$dev" $($regfn $i)
			if reshaping "$dev"; then
				during=$((during + 1))
			else
				break
			fi
		done
		echo "$i $during" > /tmp/bpasses
	) &
	bpid=$!
	trap 'kill $bpid 2>/dev/null' EXIT
}

# release_reshape DEV WHAT: sync_max max, wait (120 s at most) for DEV's
# reshape to end, for mdadm's children and the resync; then for the
# passes_during_reshape ones (a failed pass fails here); sets passes and
# during from /tmp/bpasses.
release_reshape() {
	local dev=$1 what=$2 t=0
	echo max > "/sys/block/$(md_name "$dev")/md/sync_max" || fail "$what: sync_max max refused"
	while reshaping "$dev"; do
		[ $t -ge 1200 ] && fail "$what: reshape still running 120 s after the release: $(tr '\n' ' ' < /proc/mdstat)"
		sleep 0.1
		t=$((t + 1))
	done
	wait_grow_children
	wait_sync "$dev"
	wait "$bpid" || fail "$what: a fio pass of B failed during the degraded reshape"
	trap - EXIT
	read -r passes during < /tmp/bpasses
}

# fio_watched NAME DEV FIO-ARGS...: fio_verify under stall_watch_start and
# the hang_watchdog started before; sets t0, t1 and stall (the longest
# still run of md0's I/O, s).
fio_watched() {
	t0=$(cut -d' ' -f1 /proc/uptime)
	fio_verify "$@"
	t1=$(cut -d' ' -f1 /proc/uptime)
	: > /tmp/fio.done
	kill "$wd" 2>/dev/null
	sleep 1.2
	stall=$(cat /tmp/stall.worst)
}

# stall_watch_start: until /tmp/fio.done exists, keep in /tmp/stall.worst
# the longest run of seconds in which md0 completed no I/O.
stall_watch_start() {
	(
		last=0 still=0 worst=0
		while [ ! -e /tmp/fio.done ]; do
			read -r r _ _ _ w _ < /sys/block/md0/stat
			w=$((r + w))
			if [ "$w" = "$last" ]; then
				still=$((still + 1))
				[ $still -gt $worst ] && worst=$still
			else
				still=0 last=$w
			fi
			echo "$worst" > /tmp/stall.worst
			sleep 1
		done
	) &
}

# hang_watchdog SECONDS [reboot]: unless /tmp/fio.done exists by then, fail
# with md0's journal_stats and the blocked tasks (sysrq w); with "reboot",
# end the boot at once (a hung array would hold up the poweroff).  Sets wd.
hang_watchdog() {
	local limit=$1 reboot=${2:-}
	(
		sleep "$limit"
		[ -e /tmp/fio.done ] && exit 0
		cat /sys/block/md0/md/journal_stats 2>/dev/null
		echo w > /proc/sysrq-trigger
		result "FAIL $R5J_TEST: fio not done after $limit s: $(tr '\n' ' ' < /sys/block/md0/md/journal_stats 2>/dev/null | cut -c1-400)"
		if [ -n "$reboot" ]; then
			sleep 5
			echo b > /proc/sysrq-trigger	# -no-reboot: the VM ends
		fi
	) &
	wd=$!
}

# wait_grow_children: mdadm --grow with a backup file leaves a background
# child that moves the backup window; wait (120 s at most) until none is
# left, so the array is stopped only after mdadm has finished with it.
wait_grow_children() {
	local t=0 p left
	while :; do
		left=
		for p in /proc/[0-9]*; do
			tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -Eq '^(/sbin/)?mdadm .*--grow' &&
				left="$left ${p#/proc/}"
		done
		[ -z "$left" ] && return 0
		[ $t -ge 1200 ] && fail "mdadm --grow still running after 120 s:$left"
		sleep 0.1
		t=$((t + 1))
	done
}
