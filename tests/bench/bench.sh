#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# raid5j vs raid456 benchmark (make bench).  Reports; never judges numbers.
#
#   tests/bench/bench.sh                    the matrix (below), 15-25 min
#   QUICK=1 tests/bench/bench.sh            same matrix, short runs, < 5 min
#   BENCH=basic tests/bench/bench.sh        issue 2's numbers: RAID5 and RAID6
#   LEVEL=6 DISKS=6 tests/bench/bench.sh    another geometry (LEVEL 4, 5, 6)
#
# Both personalities run in the same run on the same disk recipe: two VMs
# (raid456 and raid5j, each booted once, see vm.sh) are up together and
# the host hands out the steps of one plan alternately, step by step, the
# order swapped every step (raid456 first on odd steps, raid5j first on
# even ones), so slow drift of the host's load hits both alike.  Only one
# VM works at a time; the other polls its control disk.
#
# Matrix (BENCH=matrix, the default):
#   profiles   throttled (members BENCH_IOPS IOPS + BENCH_MBPS MB/s each,
#              like a disk; journal drive unthrottled) and unthrottled
#              (emulated CPU is the limit: CPU cost shows)
#   modes      none: no journal; wt: journal write-through; wb: journal
#              write-back (each cell
#              followed by a timed drain to the members, see guest.sh);
#              a fresh array each.  Default "none wt"
#   workloads  4 KiB random write qd1 and qd16, 64 KiB sequential write,
#              full-stripe sequential write, 4 KiB random read qd16,
#              70/30 random read/write qd16, 64 KiB buffered sequential
#              write with fsync every 1 MiB
# BENCH=basic: RAID5 and RAID6 (DISKS members), no journal, both profiles:
#   4 KiB random write qd16, 1 MiB sequential write, 4 KiB random read
#   qd16 (RAID5) / degraded 4 KiB random read qd16 with one member failed
#   (RAID6).
# BENCH=writeback: throttled members, journal write-through
#   and write-back (MODES "wt wb"), a 64 MiB journal
#   (JOURNAL_MB), REGION 256 MiB prefilled, 10 s cells, REPEAT 1:
#   hot4k-qd16   4 KiB random writes qd16 on a HOT (32) MiB hot set at the
#                start of the region (smaller than the journal)
#   sust4k-qd16  4 KiB random writes qd16 over the whole region for
#                SUST_RUNTIME (3 x RUNTIME) s: larger than the journal once
#                the acknowledged rate passes JOURNAL_MB / SUST_RUNTIME
#   results.md gets a "Write-back with a journal-sized cache" table:
#   destaged throughput (the cell and its drain) of raid5j wb, raid456 wb
#   and raid5j wt side by side, p50 / p99, member reads per user write,
#   journal bytes per user byte.
#
# Knobs (environment or make variables): QUICK, BENCH, LEVEL (5), DISKS (4),
# CHUNK (KiB, 512), RUNTIME (s per cell: 6, QUICK 1), REGION (MiB per
# array: 128, QUICK 16), REPEAT (runs of each cell, back to back, the best
# one reported: 2, QUICK 1), PROFILES ("throttled unthrottled"), MODES
# ("none wt"; also wb), WORKLOADS (names below), BENCH_IOPS (150), BENCH_MBPS (150),
# JOURNAL_MB (journal drive: 128, writeback 64), HOT (MiB, 32), SUST_RUNTIME,
# MEMBER_WBT (default: the members' writeback throttling as the guest
# kernel sets it; 0: every member's queue/wbt_lat_usec set to 0 for both
# personalities, the journal drive untouched), STRIPE_CACHE (stripe_cache_size
# of every array; default: the personality's), OUT (results/bench-<timestamp>).
#
# Output in OUT: results.md (tables), results.json (every cell, derived
# numbers), *.png (charts), raw/ (guest result lines, fio JSON, logs).
# Exit status: 0 when every step ran (whatever the numbers), 1 when a step
# or a VM failed.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 1
BUILD=${R5J_BUILD:-$root/build}
PY=/usr/bin/python3

die() { echo "bench: error: $*" >&2; exit 1; }
log() { echo "bench: $*"; }

# The knobs given, for the record (results.md names the exact command).
given=()
for n in QUICK BENCH LEVEL DISKS CHUNK RUNTIME REGION REPEAT PROFILES MODES \
	 WORKLOADS BENCH_IOPS BENCH_MBPS JOURNAL_MB HOT SUST_RUNTIME MEMBER_WBT STRIPE_CACHE; do
	[ -n "${!n:-}" ] && given+=("$n=${!n}")
done

QUICK=${QUICK:-0}
[ "$QUICK" = 0 ] && QUICK=
BENCH=${BENCH:-matrix}
if [ "$BENCH" = writeback ]; then
	PROFILES=${PROFILES:-throttled}
	MODES=${MODES:-wt wb}
	REGION=${REGION:-256}
	RUNTIME=${RUNTIME:-10}
	REPEAT=${REPEAT:-1}
	JOURNAL_MB=${JOURNAL_MB:-64}
fi
JOURNAL_MB=${JOURNAL_MB:-128}
HOT=${HOT:-32}
LEVEL=${LEVEL:-5}
DISKS=${DISKS:-4}
CHUNK=${CHUNK:-512}
RUNTIME=${RUNTIME:-$([ -n "$QUICK" ] && echo 1 || echo 6)}
REGION=${REGION:-$([ -n "$QUICK" ] && echo 16 || echo 128)}
REPEAT=${REPEAT:-$([ -n "$QUICK" ] && echo 1 || echo 2)}
PROFILES=${PROFILES:-throttled unthrottled}
MODES=${MODES:-none wt}
BENCH_IOPS=${BENCH_IOPS:-150}
BENCH_MBPS=${BENCH_MBPS:-150}
SUST_RUNTIME=${SUST_RUNTIME:-$((RUNTIME * 3))}
MEMBER_WBT=${MEMBER_WBT:-default}
STRIPE_CACHE=${STRIPE_CACHE:-}
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${OUT:-$root/results/bench-$STAMP}

case $BENCH in
matrix) WORKLOADS=${WORKLOADS:-rw4k-qd1 rw4k-qd16 sw64k fsw rr4k-qd16 mix7030 swfsync} ;;
basic) WORKLOADS=${WORKLOADS:-rw4k-qd16 sw1m rr4k-qd16} ;;
writeback) WORKLOADS=${WORKLOADS:-hot4k-qd16 sust4k-qd16} ;;
*) die "BENCH must be matrix, basic or writeback, not '$BENCH'" ;;
esac
case $LEVEL in 4 | 5 | 6) ;; *) die "LEVEL must be 4, 5 or 6" ;; esac
case $MEMBER_WBT in default | 0) ;; *) die "MEMBER_WBT must be default or 0" ;; esac
minimum=$([ "$LEVEL" = 6 ] && echo 4 || echo 3)
[ "$BENCH" = basic ] && minimum=4
[ "$DISKS" -ge "$minimum" ] 2>/dev/null || die "DISKS must be >= $minimum"
[ "$REPEAT" -ge 1 ] 2>/dev/null || die "REPEAT must be >= 1"

# ---- dependencies -------------------------------------------------------

"$root/scripts/install-deps.sh" > /dev/null || die "scripts/install-deps.sh failed"
if ! "$PY" -c 'import matplotlib' 2>/dev/null; then
	log "installing python3-matplotlib (charts)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends python3-matplotlib > /dev/null 2>&1 ||
		{ apt-get -q update > /dev/null 2>&1 &&
		  apt-get install -y -q --no-install-recommends python3-matplotlib > /dev/null; } ||
		log "warning: python3-matplotlib did not install: no charts"
fi
[ -x "$PY" ] || die "$PY missing"
[ -f "$root/raid5j.ko" ] || die "raid5j.ko not built (make)"

# One benchmark at a time in this tree (the VM names are fixed).
mkdir -p "$BUILD"
exec 9> "$BUILD/bench.lock"
if ! flock -n 9; then
	log "another benchmark runs in this tree; waiting for it"
	flock 9
fi

# ---- the plan -----------------------------------------------------------

mkdir -p "$OUT/raw" || die "cannot create $OUT"
PLAN=$OUT/raw/plan.txt
: > "$PLAN"
k=0
add() {
	k=$((k + 1))
	echo "$k $*" >> "$PLAN"
}

ndata() {	# ndata LEVEL N
	echo $(($2 - ($1 == 6 ? 2 : 1)))
}

# fio options of a workload; the region is the array's first REGION MiB.
wl_args() {	# wl_args NAME FULL_STRIPE_KB
	local base="--ioengine=libaio --direct=1 --time_based"
	base="$base --lat_percentiles=1 --percentile_list=50:99:99.9 --unified_rw_reporting=both"
	local common="$base --size=${REGION}M --runtime=$RUNTIME"
	case $1 in
	hot4k-qd16) echo "--name=$1 $base --size=${HOT}M --runtime=$RUNTIME --rw=randwrite --bs=4k --iodepth=16 --norandommap" ;;
	sust4k-qd16) echo "--name=$1 $base --size=${REGION}M --runtime=$SUST_RUNTIME --rw=randwrite --bs=4k --iodepth=16 --norandommap" ;;
	rw4k-qd1) echo "--name=$1 $common --rw=randwrite --bs=4k --iodepth=1 --norandommap" ;;
	rw4k-qd16) echo "--name=$1 $common --rw=randwrite --bs=4k --iodepth=16 --norandommap" ;;
	sw64k) echo "--name=$1 $common --rw=write --bs=64k --iodepth=16" ;;
	sw1m) echo "--name=$1 $common --rw=write --bs=1m --iodepth=4" ;;
	fsw) echo "--name=$1 $common --rw=write --bs=${2}k --iodepth=4" ;;
	rr4k-qd16 | rr4k-deg) echo "--name=$1 $common --rw=randread --bs=4k --iodepth=16 --norandommap" ;;
	mix7030) echo "--name=$1 $common --rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --norandommap" ;;
	swfsync) echo "--name=$1 $common --rw=write --bs=64k --ioengine=psync --direct=0 --fsync=16 --end_fsync=1" ;;
	*) die "unknown workload '$1'" ;;
	esac
}

levels=$LEVEL
modes=$MODES
[ "$BENCH" = basic ] && levels="5 6" && modes=none
for prof in $PROFILES; do
	case $prof in
	throttled) pre=t ;;
	unthrottled) pre=u ;;
	*) die "unknown profile '$prof'" ;;
	esac
	for lv in $levels; do
		fs=$((CHUNK * $(ndata "$lv" "$DISKS")))
		for mode in $modes; do
			case $mode in none | wt | wb) ;; *) die "MODES: none, wt, wb (not '$mode')" ;; esac
			add array "$prof" "$pre" "$lv" "$DISKS" "$mode" "$CHUNK" "$REGION"
			for wl in $WORKLOADS; do
				if [ "$BENCH" = basic ] && [ "$lv" = 6 ] && [ "$wl" = rr4k-qd16 ]; then
					add fail
					wl=rr4k-deg
				fi
				for _ in $(seq "$REPEAT"); do
					add cell "$prof.r$lv.$mode.$wl" "$(wl_args "$wl" "$fs")"
				done
			done
		done
	done
done
nsteps=$k
ncells=$(grep -c ' cell ' "$PLAN")

# ---- boot both VMs --------------------------------------------------------

PERS=(raid456 raid5j)
KVER=$("$root/scripts/kver.sh" --image) || die "no Debian 6.1 kernel image (make deps)"
export KVER
setup_err=$( (VM_TEST=setup; . "$root/tests/vm/lib.sh"; _vm_setup) 2>&1 ) ||
	die "VM setup failed: $setup_err"

member_mb=$((REGION / $(ndata 6 "$DISKS") + 160))
export BENCH_DISKS=$DISKS BENCH_IOPS BENCH_MBPS BENCH_MEMBER_WBT=$MEMBER_WBT
export BENCH_STRIPE_CACHE=$STRIPE_CACHE
export BENCH_MEMBER_SIZE=${member_mb}M BENCH_JOURNAL_SIZE=${JOURNAL_MB}M
export BENCH_TIMEOUT=$((nsteps * (SUST_RUNTIME + 60) * 2 + 600))

git_rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
cmd="make bench"
for v in "${given[@]}"; do
	case $v in
	QUICK=0) ;;
	*' '*) cmd="$cmd ${v%%=*}=\"${v#*=}\"" ;;
	*) cmd="$cmd $v" ;;
	esac
done
cat > "$OUT/raw/config.sh" <<EOF
command='$cmd'
bench=$BENCH
quick=${QUICK:-0}
level=$LEVEL
disks=$DISKS
chunk_kb=$CHUNK
runtime_s=$RUNTIME
repeat=$REPEAT
region_mb=$REGION
profiles='$PROFILES'
modes='$modes'
workloads='$WORKLOADS'
throttle_iops=$BENCH_IOPS
throttle_mbps=$BENCH_MBPS
member_size_mb=$member_mb
journal_size_mb=$JOURNAL_MB
hot_mb=$HOT
sust_runtime_s=$SUST_RUNTIME
member_wbt=$MEMBER_WBT
kernel=$KVER
git=$git_rev
host_cpus=$(nproc)
host='$(uname -srm)'
started='$(date -Is)'
EOF

log "$BENCH: $ncells cells x 2 personalities, ${RUNTIME}s each, RAID$LEVEL x $DISKS," \
	"chunk ${CHUNK}K, region ${REGION} MiB; output $OUT"

declare -A child results ctl logoff
for p in "${PERS[@]}"; do
	logoff[$p]=$(stat -c %s "$BUILD/vm-logs/bench-$p.log" 2>/dev/null || echo 0)
	results[$p]=$BUILD/vm-logs/bench-$p.boot1.results
	ctl[$p]=$BUILD/vm-disks/bench-$p/ctl.img
	rm -f "${results[$p]}"
	"$here/vm.sh" "$p" "$PLAN" > "$OUT/raw/vm-$p.out" 2>&1 &
	child[$p]=$!
done

# shellcheck disable=SC2317	# called from the trap
cleanup() {
	local p
	for p in "${PERS[@]}"; do
		[ -n "${child[$p]:-}" ] && kill "${child[$p]}" 2>/dev/null
	done
	wait 2>/dev/null
}
trap 'cleanup; exit 130' INT TERM

go() {		# go PERSONALITY TOKEN
	printf 'go %s\n' "$2" | dd of="${ctl[$1]}" bs=512 count=1 conv=notrunc,sync status=none
}

alive() {
	kill -0 "${child[$1]}" 2>/dev/null
}

# wait_mark PERSONALITY WORD TIMEOUT_S: 0 when seen, 1 on timeout or death.
wait_mark() {
	local p=$1 w=$2 end=$((SECONDS + $3))
	while [ $SECONDS -lt $end ]; do
		grep -qx "MARK $w" "${results[$p]}" 2>/dev/null && return 0
		alive "$p" || { grep -qx "MARK $w" "${results[$p]}" 2>/dev/null; return; }
		sleep 0.1
	done
	return 1
}

failed=0
for p in "${PERS[@]}"; do
	if ! wait_mark "$p" ready 600; then
		log "$p: VM did not come up (see $OUT/raw/vm-$p.out)"
		failed=1
	fi
done

steps=$OUT/raw/steps.tsv
printf 'step\tpersonality\tstart\tend\tloadavg\n' > "$steps"
t0=$SECONDS
if [ $failed = 0 ]; then
	while read -r s what rest; do
		if [ $((s % 2)) = 1 ]; then order="raid456 raid5j"; else order="raid5j raid456"; fi
		case $what in
		cell) tmo=$((SUST_RUNTIME * 4 + 300)); desc=${rest%% *} ;;
		*) tmo=900; desc="$what ${rest}" ;;
		esac
		for p in $order; do
			la=$(cut -d' ' -f1-3 /proc/loadavg)
			start=$(date +%s.%N)
			go "$p" "$s"
			if ! wait_mark "$p" "done-$s" "$tmo"; then
				log "step $s ($desc) on $p: no answer in ${tmo}s; stopping"
				failed=1
				break 2
			fi
			printf '%s\t%s\t%s\t%s\t%s\n' "$s" "$p" "$start" "$(date +%s.%N)" "$la" >> "$steps"
		done
		log "[$((SECONDS - t0))s] step $s/$nsteps done: $desc"
	done < "$PLAN"
fi

for p in "${PERS[@]}"; do
	go "$p" end
done
for p in "${PERS[@]}"; do
	end=$((SECONDS + 120))
	while alive "$p" && [ $SECONDS -lt $end ]; do
		sleep 0.5
	done
	alive "$p" && kill "${child[$p]}" 2>/dev/null
	wait "${child[$p]}"
	rc=$?
	child[$p]=
	[ $rc = 0 ] || { log "$p: VM run failed (rc $rc, see $OUT/raw/vm-$p.out)"; failed=1; }
	cp -f "${results[$p]}" "$OUT/raw/results-$p.txt" 2>/dev/null
	tail -c +$((logoff[$p] + 1)) "$BUILD/vm-logs/bench-$p.log" > "$OUT/raw/console-$p.log" 2>/dev/null
	grep -q '^E ' "$OUT/raw/results-$p.txt" 2>/dev/null && failed=1
done
log "VMs done after $((SECONDS - t0))s"

"$PY" "$here/report.py" "$OUT" || { log "report failed"; failed=1; }
[ -f "$OUT/results.md" ] && cat "$OUT/results.md"
log "results in $OUT"
if [ $failed != 0 ]; then
	log "FAILED: some step or VM failed (see above and $OUT/raw/)"
	exit 1
fi
exit 0
