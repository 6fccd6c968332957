# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest side of the benchmark (tests/bench/bench.sh).  Runs the steps of
# /test/plan.txt one at a time, each when the host says so:
#
#	<k> array <profile> <prefix> <level> <ndisks> <mode> <chunk_kb> <region_mb>
#	    fresh array on members <prefix>0.. (+ <prefix>j when mode is wt
#	    or wb): discard every disk, mdadm --create --assume-clean,
#	    full-stripe prefill of the first <region_mb> MiB (in write-through;
#	    mode wb switches to write-back after it)
#	<k> cell <cell-id> <fio options...>    one measured fio job on /dev/md0
#	<k> fail                               mdadm --fail the first member
#
# The host writes "go <k>" (then "go end") into the first sector of the
# disk with serial "ctl"; the guest polls it (page cache dropped, builtins
# only: the waiting VM costs the working one next to nothing), runs step k
# and says "MARK done-<k>".  That lets the host run the raid456 VM and the
# raid5j VM alternately, cell by cell, both booted once.
#
# The cells of one array run as the stonewalled jobs of ONE fio process
# (under TCG, starting fio and its 60 libraries costs seconds): each job's
# exec_prerun ("guest.sh hook pre K") waits for the go and takes the "before"
# snapshot just before fio starts the job's clock, exec_postrun ("hook post
# K") takes the "after" snapshot and says done.
#
# Write-back cells (mode wb): the prerun checks that journal_mode shows
# [write-back] (the cell is an error and does not run otherwise).  The
# postrun, after the "after" snapshot, drains the cache: it switches to
# write-through (both personalities destage every dirty stripe and wait
# for it), times that, takes a third snapshot (phase 2: the cell's writes
# are all on the members) and switches back to write-back.  So every cell
# starts with a clean cache, and phase 0->2 counts all the member traffic
# the cell's writes cause.
#
# Result lines (on the result port; the host's report.py parses them):
#	I <k> key=value ...             array geometry and settings
#	T <k> 0|1|2 <uptime>            clock before/after fio (2: after the
#	                                write-back drain)
#	S <k> 0|1|2 <role> <dev> <stat> /sys/block/<dev>/stat before/after;
#	                                role: md, m0.. (members), j (journal)
#	K <k> 0|1|2 raid5j|journal k=v  raid5j_stats / journal_stats (raid5j)
#	P <k> 0|1|2 <cpu fields>        first line of /proc/stat
#	F <k> <fio json on one line>    for the cells from step k on: one
#	                                job per cell, named s<step>
#	E <k> <message>                 the step failed (the run goes on)

. /test/guest-lib.sh

PLAN=/test/plan.txt
PORT=${R5J_RESULT_PORT:-/dev/null}
ERRORS=0
MD=/dev/md0
JM=/sys/block/md0/md/journal_mode
ROLES=()	# role names, parallel to DEVS
DEVS=()		# kernel block device names (md0, vda, ...)

out() {
	echo "$*" > "$PORT"
}

err() {
	local k=$1
	shift
	out "E $k $*"
	say "step $k: ERROR: $*"
	ERRORS=$((ERRORS + 1))
}

# wait_go K: until the control disk says "go K" (return 0) or "go end"
# (return 1: the host gave up).  No fork per poll: drop the page cache so
# that read(1) sees what the host wrote; sleep by a timed read of a fifo.
CTL=/dev/disk/by-id/virtio-ctl
SLEEP_FIFO=/tmp/bench-sleep.fifo
wait_go() {
	local want="go $1" tok
	[ -p "$SLEEP_FIFO" ] || mkfifo "$SLEEP_FIFO"
	exec 7<> "$SLEEP_FIFO"
	while :; do
		echo 5 > /proc/sys/vm/drop_caches	# 1: page cache, 4: quietly
		tok=
		read -r tok < "$CTL"
		[ "$tok" = "$want" ] && break
		[ "$tok" = "go end" ] && { exec 7>&-; return 1; }
		read -r -t 0.2 -u 7 _
	done
	exec 7>&-
	return 0
}

snap() {	# snap K PHASE
	local k=$1 ph=$2 i st line cpu kv
	read -r up _ < /proc/uptime
	out "T $k $ph $up"
	for i in "${!DEVS[@]}"; do
		read -r st < "/sys/block/${DEVS[$i]}/stat"
		out "S $k $ph ${ROLES[$i]} ${DEVS[$i]} $st"
	done
	read -r cpu < /proc/stat
	out "P $k $ph $cpu"
	for f in raid5j:raid5j_stats journal:journal_stats; do
		[ -r "/sys/block/md0/md/${f#*:}" ] || continue
		kv=
		while read -r line; do
			# shellcheck disable=SC2086
			set -- $line
			[ $# -eq 2 ] && kv="$kv $1=$2"
		done < "/sys/block/md0/md/${f#*:}"
		[ -n "$kv" ] && out "K $k $ph ${f%%:*}$kv"
	done
}

stop_array() {
	if [ -e /sys/block/md0/md ]; then
		mdadm --stop "$MD" > /dev/null 2>&1
		sleep 0.2
	fi
}

# set_mode MODE: journal_mode write-through or write-back; 0 when it then
# shows [MODE] (a refused or ignored switch fails).
set_mode() {
	local jm=
	echo "$1" > $JM 2> /dev/null || return 1
	read -r jm < $JM
	[[ "$jm" == *"[$1]"* ]]
}

# step_array K PROFILE PREFIX LEVEL NDISKS MODE CHUNK_KB REGION_MB
step_array() {
	local k=$1 prof=$2 pre=$3 level=$4 n=$5 mode=$6 chunk=$7 region=$8
	local i members=() jdev='' d data fs t0 t1 t2 wbt
	read -r t0 _ < /proc/uptime
	stop_array
	for i in $(seq 0 $((n - 1))); do
		members+=("$(disk "$pre$i")")
	done
	[ "$mode" = wt ] || [ "$mode" = wb ] && jdev=$(disk "${pre}j")
	for d in "${members[@]}" $jdev; do
		mdadm --zero-superblock "$d" > /dev/null 2>&1
		blkdiscard "$d" > /dev/null 2>&1 ||
			dd if=/dev/zero of="$d" bs=1M count=4 oflag=direct 2>/dev/null
	done
	ROLES=() DEVS=()
	export BENCH_ROLES='' BENCH_DEVS='' BENCH_MODE=$mode
	if ! mdadm --create "$MD" --run --level="$level" --raid-devices="$n" \
		--chunk="$chunk" --assume-clean --bitmap=none \
		${jdev:+--write-journal=$jdev} "${members[@]}" > /tmp/create.out 2>&1; then
		err "$k" "mdadm --create failed: $(tail -n 2 /tmp/create.out | tr '\n' ' ')"
		return
	fi
	ROLES+=(md) DEVS+=(md0)
	wbt=
	for i in "${!members[@]}"; do
		d=$(basename "${members[$i]}")
		ROLES+=("m$i") DEVS+=("$d")
		# MEMBER_WBT=0 (bench.sh): the members' writeback throttling off
		if [ "${BENCH_MEMBER_WBT:-default}" = 0 ] &&
		   ! echo 0 > "/sys/block/$d/queue/wbt_lat_usec"; then
			err "$k" "cannot set $d's wbt_lat_usec to 0"
		fi
		wbt=${wbt:+$wbt,}$(cat "/sys/block/$d/queue/wbt_lat_usec" 2>/dev/null)
	done
	[ -n "$jdev" ] && ROLES+=(j) DEVS+=("$(basename "$jdev")")
	BENCH_ROLES=${ROLES[*]} BENCH_DEVS=${DEVS[*]}
	if [ "$(md_sysfs "$MD" level)" != "raid$level" ] ||
	   [ "$(cat "/sys/module/$PERSONALITY/refcnt" 2>/dev/null)" -lt 1 ]; then
		err "$k" "array is not raid$level on $PERSONALITY: $(grep -A1 '^md0' /proc/mdstat | tr '\n' ' ')"
		return
	fi
	if [ -n "${BENCH_STRIPE_CACHE:-}" ] &&
	   ! echo "$BENCH_STRIPE_CACHE" > "/sys/block/md0/md/stripe_cache_size"; then
		err "$k" "cannot set stripe_cache_size $BENCH_STRIPE_CACHE"
	fi
	if [ -n "$jdev" ] && ! set_mode write-through; then
		err "$k" "cannot set journal_mode write-through: $(cat $JM)"
	fi
	data=$((n - (level == 6 ? 2 : 1)))
	fs=$((chunk * data))
	out "I $k personality=$PERSONALITY profile=$prof level=$level ndisks=$n mode=$mode" \
		"chunk_kb=$chunk region_mb=$region full_stripe_kb=$fs" \
		"stripe_cache_size=$(md_sysfs "$MD" stripe_cache_size)" \
		"journal_mode=$(md_sysfs "$MD" journal_mode | tr ' ' ',')" \
		"member_max_sectors_kb=$(cat "/sys/block/${DEVS[1]}/queue/max_sectors_kb")" \
		"member_max_segments=$(cat "/sys/block/${DEVS[1]}/queue/max_segments")" \
		"md_max_sectors_kb=$(cat /sys/block/md0/queue/max_sectors_kb)" \
		"member_wbt=${BENCH_MEMBER_WBT:-default} member_wbt_lat_usec=$wbt" \
		"roles=$(IFS=,; echo "${ROLES[*]}") devs=$(IFS=,; echo "${DEVS[*]}")"
	read -r t1 _ < /proc/uptime
	# Prefill the region: reads see written blocks, not holes.
	if ! fio --name=prefill --filename="$MD" --rw=write --bs="${fs}k" \
		--iodepth=4 --ioengine=libaio --direct=1 --size="${region}M" \
		> /tmp/prefill.out 2>&1; then
		err "$k" "prefill failed: $(tail -n 3 /tmp/prefill.out | tr '\n' ' ')"
	fi
	read -r t2 _ < /proc/uptime
	if [ "$mode" = wb ] && ! set_mode write-back; then
		err "$k" "cannot set journal_mode write-back: $(cat $JM 2>&1)"
	fi
	[ -n "$jdev" ] && out "I $k journal_mode_cells=$(tr ' ' ',' < $JM)"
	out "I $k create_s=$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" \
		"prefill_s=$(echo "$t2 $t1" | awk '{ print $1 - $2 }')"
	say "step $k: $(grep -A1 '^md0' /proc/mdstat | tr -s ' \n' ' ')"
}

step_fail() {
	local k=$1 m
	m=/dev/${DEVS[1]}
	if ! mdadm "$MD" --fail "$m" > /tmp/fail.out 2>&1; then
		err "$k" "mdadm --fail $m: $(tr '\n' ' ' < /tmp/fail.out)"
		return
	fi
	sleep 0.5
	out "I $k degraded=$(md_sysfs "$MD" degraded) failed_member=${DEVS[1]}"
	say "step $k: failed $m: $(grep -A1 '^md0' /proc/mdstat | tail -n 1)"
}

# finish K [scan]: end of step K: with "scan", check the kernel log first
# (array and fail steps: cells skip it, it costs forks between cells; init
# checks the whole log at the end anyway).  Then tell the host.
finish() {
	if [ "${2:-}" = scan ] && [ ! -e /run/bench-kbug ] && ! scan_dmesg; then
		: > /run/bench-kbug
		err "$1" "kernel reported a bug (see the console log)"
	fi
	mark "done-$1"
}

# drain K: write-back cell K ran; put its dirty data on the members (the
# switch to write-through returns once every dirty stripe is destaged),
# snapshot phase 2, back to write-back.
drain() {
	local k=$1 t0 t1 ok=1 jm=
	read -r jm < $JM
	[[ "$jm" == *"[write-back]"* ]] || err "$k" "journal_mode after the cell: '$jm'"
	read -r t0 _ < /proc/uptime
	set_mode write-through || { ok=0; err "$k" "drain: switch to write-through failed"; }
	read -r t1 _ < /proc/uptime
	out "I $k drain_s=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') drain_ok=$ok"
	snap "$k" 2
	set_mode write-back || err "$k" "drain: switch back to write-back failed: $(cat $JM)"
}

# hook pre|post K: fio's exec_prerun / exec_postrun of cell K.
hook() {
	read -r -a ROLES <<< "$BENCH_ROLES"
	read -r -a DEVS <<< "$BENCH_DEVS"
	case $1 in
	pre)
		wait_go "$2" || exit 1
		if [ "$BENCH_MODE" = wb ]; then
			local jm=
			read -r jm < $JM
			if [[ "$jm" != *"[write-back]"* ]]; then
				# fio skips a job whose prerun fails; the
				# host gets its turn back here
				err "$2" "journal_mode is '$jm', not [write-back]: cell not run"
				echo "$2" >> /tmp/bench-done
				finish "$2"
				exit 1
			fi
		fi
		snap "$2" 0
		;;
	post)
		snap "$2" 1
		[ "$BENCH_MODE" = wb ] && drain "$2"
		echo "$2" >> /tmp/bench-done
		finish "$2"
		;;
	esac
	exit 0
}

# run_cells I J: the cells STEP[I..J-1] as one fio run.
run_cells() {
	local i=$1 j=$2 x k a rc
	: > /tmp/bench-done
	{
		echo "[global]"
		echo "filename=$MD"
		for ((x = i; x < j; x++)); do
			k=${STEP[$x]}
			echo "[s$k]"
			echo "stonewall"
			echo "exec_prerun=bash /test/guest.sh hook pre $k"
			echo "exec_postrun=bash /test/guest.sh hook post $k"
			# shellcheck disable=SC2086
			set -- ${REST[$x]}
			shift	# the cell id
			for a in "$@"; do
				a=${a#--}
				case $a in
				name=*) ;;
				*) echo "$a" ;;
				esac
			done
		done
	} > /tmp/cells.fio
	if [ ! -e /sys/block/md0/md ] || [ -z "$BENCH_DEVS" ]; then
		rc=no-array
	else
		(cd /tmp && fio --output-format=json --output=/tmp/fio.json /tmp/cells.fio \
			> /tmp/fio.err 2>&1)
		rc=$?
		out "F ${STEP[$i]} $(tr -d '\n' < /tmp/fio.json 2>/dev/null)"
	fi
	# cells that did not run (fio failed, or a prerun did) still get
	# their turn, as errors
	for ((x = i; x < j; x++)); do
		k=${STEP[$x]}
		grep -qx "$k" /tmp/bench-done && continue
		wait_go "$k" || return 1
		err "$k" "cell did not run: fio rc=$rc: $(tail -n 3 /tmp/fio.err 2>/dev/null | tr '\n' ' ')"
		finish "$k"
	done
	[ "$rc" = 0 ] || say "fio rc=$rc: $(tail -n 3 /tmp/fio.err | tr '\n' ' ')"
	return 0
}

if [ "${1:-}" = hook ]; then
	hook "$2" "$3"
fi

load_personality
fast_sync
[ -e "$CTL" ] || fail "no control disk"
mark ready
say "$PERSONALITY ready: $(nproc) vCPUs, $(grep MemTotal /proc/meminfo | tr -s ' ')"

STEP=() WHAT=() REST=()
while read -r k what rest; do
	[ -z "$k" ] || [ "${k#\#}" != "$k" ] && continue
	STEP+=("$k") WHAT+=("$what") REST+=("$rest")
done < "$PLAN"

i=0
while [ "$i" -lt "${#STEP[@]}" ]; do
	k=${STEP[$i]}
	if [ "${WHAT[$i]}" = cell ]; then
		j=$i
		while [ "$j" -lt "${#STEP[@]}" ] && [ "${WHAT[$j]}" = cell ]; do
			j=$((j + 1))
		done
		run_cells "$i" "$j" || break
		i=$j
		continue
	fi
	wait_go "$k" || break
	# shellcheck disable=SC2086
	case ${WHAT[$i]} in
	array) step_array "$k" ${REST[$i]} ;;
	fail) step_fail "$k" ;;
	*) err "$k" "unknown step '${WHAT[$i]}'" ;;
	esac
	finish "$k" scan
	i=$((i + 1))
done
[ "$i" -lt "${#STEP[@]}" ] && err "${STEP[$i]}" "the host stopped the run"
wait_go end
stop_array
[ "$ERRORS" -eq 0 ] || fail "$ERRORS step(s) failed"
pass
