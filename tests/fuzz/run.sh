#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the journal format library and scanner for SECONDS (default 60):
#   tests/fuzz/run.sh [SECONDS]
# Builds fuzz_journal with clang (libFuzzer, ASan, UBSan), makes the seed
# corpus with gen_seeds, fuzzes with a bounded time, and fails on any
# crash, sanitizer report or broken invariant.  Work files go to
# tests/fuzz/build/ (corpus kept between runs).
set -euo pipefail

secs=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$here/build

if ! command -v clang >/dev/null; then
	echo "run.sh: clang is needed (apt-get install clang)" >&2
	exit 2
fi
mkdir -p "$build/seeds" "$build/corpus"
srcs="$top/drivers/shared/jformat.c $top/drivers/shared/logscan.c"

clang -std=gnu11 -g -O1 -Wall -Wextra -Werror -I"$top/include" \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-o "$build/fuzz_journal" "$here/fuzz_journal.c" $srcs
cc -std=gnu11 -O1 -Wall -Wextra -Werror -I"$top/include" \
	-o "$build/gen_seeds" "$here/gen_seeds.c" $srcs
"$build/gen_seeds" "$build/seeds"

cd "$build"
set +e
./fuzz_journal -max_total_time="$secs" -max_len=65539 -timeout=10 \
	-print_final_stats=1 -artifact_prefix="$build/" \
	corpus seeds > fuzz.log 2>&1
rc=$?
set -e
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^#[0-9]+ *DONE|ERROR|SUMMARY' fuzz.log || true
if [ $rc -ne 0 ]; then
	echo "run.sh: fuzzer failed (rc $rc), see $build/fuzz.log" >&2
	tail -n 40 fuzz.log >&2
	exit 1
fi
echo "run.sh: ok, ${secs}s"
