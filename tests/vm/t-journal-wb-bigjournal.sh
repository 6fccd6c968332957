#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-bigjournal: a write-back journal at real scale (a 10 GiB
# journal can hold ~10 GiB of dirty data), cut, past what
# raid456 can recover, recovered by raid5j.  Developer scenario, not in CI.
#
# t-journal-wb-bigcache-powercut with RAID5, 4 x MEMBER_MB (512) MiB
# members, a JOURNAL_MB (1024) MiB journal, stripe_cache_size 256,
# writeback_log_high 90 (the most it takes), one cycle.
# The writers are the stamp tool's, every write one random 4 KiB block
# (STAMP_SMALL: data-only stripes, ~131,000 rows to pick from).  The age
# destage has no knob, so the members' writes are throttled in the
# writing boot (THROTTLE_IOPS 25 write requests a second each, as
# t-journal-wb-fullring-powercut) and the writers outrun it.  The power is
# cut (SIGKILL) 0-0.1 s after journal_stats' wb_stripes passes
# CUT_STRIPES (default 40000; not within CUT_WAIT 900 s fails).
#
# raid456's journal recovery keeps every data-only stripe of the log in
# its stripe cache, which cannot pass 32768 stripes (raid5_set_cache_size()
# refuses more; r5c_recovery_analyze_meta_block(): "Cannot increase cache
# size", or "Cannot get enough stripes due to memory pressure").  So with
# CUT_STRIPES above 32768 + the stripe cache, an extra boot assembles the
# cut array under raid456 (REFUSE_PERSONALITY, without the member boot 2
# leaves out) and its recovery must fail: that line in dmesg, no kernel
# bug.  It is NOT a refusal: mainline's do_md_run() ignores md_start()'s
# error, so the array runs with its log dropped (journal_mode empty) and
# serves the members' stale blocks; the scenario copies what it serves
# and records the loss.  Once such an array has run, the journal holds a
# new empty log (journal_tail 0) and raid5j finds nothing to recover, so
# that boot runs on qemu snapshots of the disks (REFUSE_SNAPSHOT=1).
# Then boot 2 (raid5j) assembles the disks as the cut left them, without
# a member, no --force: every acknowledged block verified, mismatch_cnt 0
# after the rebuild.
#
# Parameters: the module's default (writeback_recoverable_by=raid456)
# keeps every raid456 hash list within raid456's limit (journal.md,
# "raid456's stripe limit"), so the log never gets past the bound; past
# it needs R5J_MODPARAMS="writeback_recoverable_by=raid5j" (the journal's
# capacity, for arrays only raid5j assembles after a crash), this
# scenario's default.  R5J_MODPARAMS="" (set, empty) runs on the
# defaults: with CUT_STRIPES=26000
# RESTART_PERSONALITY=raid456, raid456 recovered 26147 data-only stripes,
# every block intact.
#
# The second case: CUT_STRIPES=2000 R5J_MODPARAMS="" RESTART_PERSONALITY=
# raid456: a log raid456 must recover (no refusal boot: CUT_STRIPES is
# below the bound).  PERSONALITY=raid456 (writing and restarting): the same
# I/O with a timed cut (2-6 s in, CUT_MS) as a check of the harness,
# losses recorded, not asserted (the wrapped scenario's LOSS_RECORD).
# Not later: cut 21 s in (CUT_MS=20000: 1323 writes acknowledged, its
# writes slow behind the throttled members), raid456's own recovery,
# degraded, hung ("INFO: task mdadm blocked for more than 184 seconds"),
# as t-journal-crafted's 3000 data-only stripes do.
# Plain cuts (VM_NBD_CACHE=0) unless VM_NBD_CACHE=1 is given.
#
# Measured (6.1, TCG, 2 vCPUs, the host shared with another
# VM): 9 min 42 s in all.  Writing boot 111 s: 52067 writes acknowledged,
# cut at wb_stripes 40032, dirty_bytes 177 MB (16 % of the 1022 MiB ring,
# 43314 blocks), used_sectors 28 % of the ring, evicted_stripes 39886,
# journal_reads 9150.  Guest memory: MemAvailable 1781 -> 1632 MB, Slab
# 20 -> 106 MB: the index entries (kmalloc-96, 96 bytes a one-block
# entry) +36639, 3.4 MB, but the journal units between tail and head
# stay allocated until reclaim, each with its meta page and a 256-vector
# bio (biovec-max +18528, kmalloc-192 +18522): ~8.4 KiB a unit, ~2.8
# writes a unit here, ~140 MB for 288 MiB of log: memory grows with the
# log (about half its size here), not with stripe_cache_size.  raid456's boot 194 s: mdadm returned 0 after 114 s,
# "Cannot increase cache size, ret=-22, new_size=65536", md0 active with
# journal_mode empty, 43337 of 48737 acknowledged blocks stale and 8
# garbage in what it served.  raid5j's boot 246 s: recovery 150 s
# (18572 transactions, 40062 data-only stripes destaged), every
# acknowledged block intact, mismatch_cnt 0.
export R5J_MODPARAMS=${R5J_MODPARAMS-writeback_recoverable_by=raid5j}
export CYCLES=${CYCLES:-1} JOURNAL_MB=${JOURNAL_MB:-1024} MEMBER_MB=${MEMBER_MB:-512}
export STRIPE_CACHE=${STRIPE_CACHE:-256} LOG_HIGH=${LOG_HIGH:-90} JWATCH=1
export STAMP_SMALL=1 STAMP_SECONDS=${STAMP_SECONDS:-1200}
export CUT_STRIPES=${CUT_STRIPES:-40000} CUT_WAIT=${CUT_WAIT:-900}
export WRITE_TIMEOUT=${WRITE_TIMEOUT:-1500} RESTART_TIMEOUT=${RESTART_TIMEOUT:-1200}
export MEMBER_DRIVE_OPTS=${MEMBER_DRIVE_OPTS:-throttling.iops-write=${THROTTLE_IOPS:-25}}
export VM_NBD_CACHE=${VM_NBD_CACHE:-0}
export VM_TEST=${VM_TEST:-t-journal-wb-bigjournal}
write_p=${WRITE_PERSONALITY:-${PERSONALITY:-raid5j}}
if [ "$write_p" = raid5j ] && [ "$CUT_STRIPES" -gt $((32768 + STRIPE_CACHE)) ]; then
	export REFUSE_PERSONALITY=${REFUSE_PERSONALITY-raid456}
fi
exec "$(dirname "$0")/t-journal-wb-bigcache-powercut.sh"
