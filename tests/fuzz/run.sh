#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the code that reads untrusted journals and superblocks, each target
# for SECONDS (default 60):
#   tests/fuzz/run.sh [SECONDS] [TARGET...]      (make fuzz [FUZZ_SECONDS=N])
# Targets (all by default):
#   journal  meta block checks, payload iterator, log scanner (fuzz_journal.c)
#   bounds   geometry, location mapping, payload bounds checks (fuzz_bounds.c)
#   mdsb     superblock reader and its offset checks (fuzz_mdsb.c)
#   replay   r5jtool's planning, checks and writes on fixed-up crafted
#            journals: nothing outside the data areas changes (fuzz_replay.c)
# Each is built with clang (libFuzzer, ASan, UBSan) and fails on any crash,
# sanitizer report or broken invariant.  Inputs: the kept corpus
# tests/fuzz/corpus/TARGET (committed, small, read only here), seeds made
# by gen_seeds (journal, replay) and a work corpus in tests/fuzz/build/.
# FUZZ_MERGE=1 merges what the run found into the kept corpus (minimized:
# libFuzzer -merge=1), to be committed when it adds coverage.
set -euo pipefail

secs=${1:-60}
shift || true
targets=${*:-journal bounds mdsb replay}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$here/build

if ! command -v clang >/dev/null; then
	echo "run.sh: clang is needed (apt-get install clang)" >&2
	exit 2
fi
mkdir -p "$build"
shared=$(ls "$top"/drivers/shared/*.c)
user=$(ls "$top"/tools/lib/*_user.c)
cflags="-std=gnu11 -g -O1 -Wall -Wextra -Werror -I$top/include"
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

cc -std=gnu11 -O1 -Wall -Wextra -Werror -I"$top/include" \
	-o "$build/gen_seeds" "$here/gen_seeds.c" \
	"$top/drivers/shared/jformat.c" "$top/drivers/shared/logscan.c"

rc_all=0
for t in $targets; do
	srcs="$shared $user" opts="-max_len=65539"
	case $t in
	journal)	;;
	bounds)		opts="-max_len=4096" ;;
	mdsb)		srcs="$srcs $top/tools/mdsb.c" opts="-max_len=4099" ;;
	replay)		srcs="$srcs $top/tools/mdsb.c"
			cflags_t=-Wno-gnu-variable-sized-type-not-at-end
			# die() paths leave the tool's memory to the harness
			opts="-max_len=131080 -detect_leaks=0" ;;
	*)		echo "run.sh: unknown target $t" >&2; exit 2 ;;
	esac
	clang $cflags ${cflags_t:-} $san -o "$build/fuzz_$t" \
		"$here/fuzz_$t.c" $srcs
	cflags_t=
	seeds=$build/seeds-$t work=$build/corpus-$t kept=$here/corpus/$t
	rm -rf "$seeds"
	mkdir -p "$seeds" "$work" "$kept"
	case $t in
	journal)	"$build/gen_seeds" "$seeds" ;;
	replay)		"$build/gen_seeds" --replay "$seeds" ;;
	esac
	cd "$build"
	set +e
	"./fuzz_$t" -max_total_time="$secs" $opts -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$build/$t-" \
		"$work" "$kept" "$seeds" > "fuzz-$t.log" 2>&1
	rc=$?
	set -e
	echo "== $t:"
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^#[0-9]+ *DONE|ERROR|SUMMARY' "fuzz-$t.log" || true
	if [ $rc -ne 0 ]; then
		echo "run.sh: fuzz_$t failed (rc $rc), see $build/fuzz-$t.log" >&2
		tail -n 40 "fuzz-$t.log" >&2
		rc_all=1
		continue
	fi
	if [ "${FUZZ_MERGE:-0}" = 1 ]; then
		"./fuzz_$t" -merge=1 $opts "$kept" "$work" "$seeds" \
			> "merge-$t.log" 2>&1 || { echo "merge of $t failed" >&2; rc_all=1; }
	fi
	cd "$here"
done
[ $rc_all = 0 ] && echo "run.sh: ok, ${secs}s per target ($targets)"
exit $rc_all
