# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the mdadm peer suite (run by the VM's init; see
# tests/vm/t-mdadm-suite.sh).  Runs mdadm's own tests, one `./test
# --tests=NAME` invocation per test, against the packaged /sbin/mdadm and
# the personality this boot loaded (PERSONALITY: raid5j or raid456).
#
# Input (in /test/, put there by the host through VM_FILES and --env):
#   mdadm-suite.tar     mdadm source tree (test driver, tests/), the helper
#                       programs its tests call (swap_super, raid6check,
#                       test_stripe), linear.ko
#   MDSUITE_TESTS       NAME[:TIMEOUT] ..., in run order
#   MDSUITE_TIMEOUT     seconds a test may take when it names none (300)
#   disk "vartmp"       an empty ext4 file system (made by the host), for
#                       /var/tmp: the test driver's $targetdir, where the
#                       loop devices' backing files and the tests' bitmap
#                       files go (md needs bmap(), which tmpfs lacks)
#
# Output:
#   result port:  VAL start:NAME <uptime>            before each test
#                 VAL result:NAME pass|fail|timeout|hang SECS [reason]
#                 VAL reboot-wanted <why>            environment not clean:
#                                                    the host boots again for
#                                                    the tests left
#                 VAL suite-done <n>                 all given tests ran
#   disk "mdlogs": a tar of /run/mdlogs/NAME/ (driver output, the test's
#                 set -x trace, mdadm's failure log with dmesg/mdstat/-D,
#                 the kernel log of the test), rewritten after every test.

. /test/guest-lib.sh

TMO=${MDSUITE_TIMEOUT:-300}
LOGS=/run/mdlogs
LOGDISK=$(disk mdlogs)
BAD_RE='BUG:|WARNING:|Oops|INFO: task .* blocked|general protection fault|kernel BUG|Kernel panic|UBSAN:|stack-protector|list_(add|del) corruption|refcount_t:'

load_personality
modprobe loop max_loop=16 || fail "modprobe loop failed"

mkdir -p /opt/mdsuite /var/tmp "$LOGS" /usr/local/bin
mount -t ext4 "$(disk vartmp)" /var/tmp || fail "cannot mount the vartmp disk on /var/tmp"
tar -xf /test/mdadm-suite.tar -C /opt/mdsuite || fail "cannot unpack mdadm-suite.tar"
SRC=$(echo /opt/mdsuite/mdadm-*)
[ -x "$SRC/test" ] || fail "no mdadm test driver in mdadm-suite.tar"

# md's linear personality (00names, 00readonly, 03assem-incr use it) is not
# in the harness's initramfs: it travels in the tarball.
for ko in /opt/mdsuite/modules/*.ko; do
	[ -f "$ko" ] && { insmod "$ko" || log "insmod $ko failed"; }
done

# ---- what the test driver and tests expect of the system ----------------
# mdadm: the driver runs $PWD/mdadm; make that the packaged binary.
ln -sf "$(command -v mdadm)" "$SRC/mdadm"
# helpers built from the same source: tests call ./raid6check and, with an
# unset $dir, /swap_super, /raid6check, /test_stripe.
for h in swap_super raid6check test_stripe; do
	if [ -x "/opt/mdsuite/helpers/$h" ]; then
		ln -sf "/opt/mdsuite/helpers/$h" "$SRC/$h"
		ln -sf "/opt/mdsuite/helpers/$h" "/$h"
	fi
done
# mdadm starts /sbin/mdmon for DDF and IMSM containers
[ -x /usr/sbin/mdmon ] || cp /opt/mdsuite/helpers/mdmon /usr/sbin/mdmon
# no udev in the VM: mdadm makes its own nodes (MDADM_NO_UDEV=1 from init)
printf '#!/bin/sh\nexit 0\n' > /usr/local/bin/udevadm
# lsblk only serves check_env's "is any RAID running" look; we know none is
printf '#!/bin/sh\nexit 0\n' > /usr/local/bin/lsblk
# util-linux blockdev takes several devices ("blockdev --flushbufs $md0
# $devs" in the 19raid6* tests); busybox's takes one and prints its usage
cat > /usr/local/bin/blockdev <<'EOB'
#!/bin/sh
opt=
case $1 in
--setra | --setbsz) opt="$1 $2"; shift 2 ;;
-*) opt=$1; shift ;;
esac
[ $# -le 1 ] && exec busybox blockdev $opt "$@"
rc=0
for d in "$@"; do
	busybox blockdev $opt "$d" || rc=$?
done
exit $rc
EOB
chmod +x /usr/local/bin/udevadm /usr/local/bin/lsblk /usr/local/bin/blockdev
# e2fsprogs under the names the tests use
command -v mkfs.ext3 >/dev/null || ln -sf "$(command -v mke2fs)" /usr/local/bin/mkfs.ext3
command -v fsck >/dev/null || ln -sf "$(command -v e2fsck)" /usr/local/bin/fsck
export PATH=/usr/local/bin:$PATH
export HOSTNAME=raid5j-vm

# ---- kernel log, kept whole (the test driver clears dmesg) --------------
KMSG=/run/kmsg.raw
( while :; do cat /dev/kmsg; sleep 0.2; done ) >> "$KMSG" 2>/dev/null &
kmsg_pid=$!
sleep 0.3
kmsg_seq() {	# last sequence number read so far
	tail -n 50 "$KMSG" | awk -F'[,;]' '/^[0-9]+,[0-9]+,/ { s = $2 } END { print s + 0 }'
}
kmsg_since() {	# kernel messages after sequence $1, once each, readable
	awk -F';' -v from="$1" '
		/^[0-9]+,[0-9]+,/ {
			split($1, h, ",")
			seq = h[2] + 0
			if (seq <= from || seen[seq]++) next
			ts = h[3] / 1000000
			msg = substr($0, length($1) + 2)
			printf "[%11.6f] %s\n", ts, msg
		}' "$KMSG"
}

save_logs() {	# the log tree onto the host's disk, now
	(cd "$LOGS" && tar -cf "$LOGDISK" .) 2>/dev/null
	sync
}

# Any array or loop device left over?  Try to clean up; 1 if still dirty.
clean_env() {
	local i
	for i in 1 2 3 4 5; do
		mdadm -Ssq 2>/dev/null
		for l in /dev/loop[0-9]*; do
			[ -b "$l" ] && losetup -d "$l" 2>/dev/null
		done
		if ! grep -q '^md' /proc/mdstat && ! grep -q ' loop[0-9]' /proc/partitions; then
			rm -f /var/tmp/mdtest*
			return 0
		fi
		sleep 1
	done
	return 1
}

# The driver's loop device backing files ($targetdir/mdtestN, made with dd
# unless they exist): the same sizes (func.sh: size, ddfsize), all zeros,
# but sparse.  Saves the driver writing 544 MB per test.  They live on
# ext4, which (unlike tmpfs) takes the loop devices' WRITE_ZEROES: on
# tmpfs each one logs "operation not supported error", and the driver
# fails any test whose dmesg says "error".
make_backing() {
	local d sz
	for d in 0 1 2 3 4 5 6 7 8 9 10 11 12 13; do
		sz=20000
		[ $d -gt 7 ] && sz=65536
		rm -f "/var/tmp/mdtest$d"
		truncate -s "${sz}K" "/var/tmp/mdtest$d"
	done
}

# why_failed LOG: where the test's trace stopped: its last command and the
# last message before mdadm's save_log, on one line.
why_failed() {
	awk '/^\+* *save_log fail/ { exit } { print }' "$1" 2>/dev/null |
		grep -v '^+* *\(rm -f /var/tmp/stderr\|case \|cat /var/tmp/stderr\|return \|rv=\|for args\|\[\[\|echo -e\|die \|exit \|udevadm\|echo [0-9]*$\|p=\)' |
		grep -v '^[[:space:]]*$' | tail -n 3 | cut -c1-120 | tr '\n' '|' | sed 's/|$//; s/|/ | /g'
}

# Tests that need write-back journal mode: a sampler reads every md/journal_mode each 0.1 s while the test runs; the test
# fails unless some sample showed "[write-back]", so a refused
# "echo write-back" (the test does not stop on it) cannot pass.
WB_TESTS=" 21raid5cache "
wb_pid=
wb_start() {
	case $WB_TESTS in *" $1 "*) ;; *) return 0 ;; esac
	echo 0 > /run/wb-seen
	(
		n=0
		while :; do
			cat /sys/block/md*/md/journal_mode 2>/dev/null |
				grep -q '\[write-back\]' && n=$((n + 1)) && echo $n > /run/wb-seen
			sleep 0.1
		done
	) &
	wb_pid=$!
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }
secs_since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }'; }

log "mdadm $(mdadm --version 2>&1 | head -n 1), tests: $MDSUITE_TESTS"
echo 0 > /proc/sys/kernel/hung_task_panic 2>/dev/null

n=0
for spec in $MDSUITE_TESTS; do
	t=${spec%%:*}
	tmo=$TMO
	[ "$spec" != "$t" ] && tmo=${spec#*:}
	d=$LOGS/$t
	rm -rf "$d"
	mkdir -p "$d"
	if ! clean_env; then
		report reboot-wanted "arrays or loop devices left before $t"
		save_logs
		exit 0
	fi
	[ -f "$SRC/tests/$t" ] || {
		report "result:$t" fail 0 "no such test in mdadm $(mdadm --version 2>&1 | sed 's/.* v\([0-9.]*\).*/\1/')"
		continue
	}
	make_backing
	seq0=$(kmsg_seq)
	t0=$(uptime_s)
	report "start:$t" "$t0"
	log "==== mdadm test $t ($PERSONALITY)"
	wb_start "$t"
	cd "$SRC" || exit 1
	setsid ./test --tests="$t" --keep-going --save-logs --logdir="$d" \
		> "$d/driver.out" 2>&1 < /dev/null &
	pid=$!
	state=running
	while kill -0 "$pid" 2>/dev/null; do
		el=$(secs_since "$t0")
		if [ "${el%.*}" -ge "$tmo" ]; then
			state=timeout
			log "$t: still running after ${tmo}s: stopping it"
			echo w > /proc/sysrq-trigger	# blocked tasks, to the log
			kill -TERM -- "-$pid" 2>/dev/null
			for _ in $(seq 20); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.5
			done
			kill -KILL -- "-$pid" 2>/dev/null
			sleep 2
			kill -0 "$pid" 2>/dev/null && state=hang
			break
		fi
		sleep 0.5
	done
	[ $state = running ] && wait "$pid"
	rc=$?
	secs=$(secs_since "$t0")
	sleep 0.3	# let the kmsg reader catch up
	kmsg_since "$seq0" > "$d/kernel.log"
	out=$(cat "$d/driver.out")

	reason=
	res=fail
	if [ $state != running ]; then
		res=$state
		reason="no end after ${tmo}s$([ $state = hang ] && echo ', unkillable (D state?)')"
	elif [ $rc -eq 0 ] && printf '%s' "$out" | grep -q 'succeeded'; then
		res=pass
	elif printf '%s' "$out" | grep -q 'dmesg prints errors'; then
		reason="driver: dmesg shows error/call trace/segfault"
	elif printf '%s' "$out" | grep -q 'FAILED'; then
		reason="stopped at: $(why_failed "$d/$t.log")"
	else
		reason="driver rc=$rc: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ' | cut -c1-160)"
	fi
	# A refused sysfs write (echo: write error) does not stop a test (no
	# errexit for it): 21raid5cache goes on in write-through when "echo
	# write-back > md/journal_mode" is refused.  Count them ("refused=N"):
	# the host compares the counts of the two personalities (raid456 too
	# refuses write-back on a degraded array).
	werr=$(grep -B1 'echo: write error' "$d/$t.log" 2>/dev/null | grep -v "^--" | head -n 2 |
		sed 's/^.*tests\/[^:]*: //' | paste -sd' ' | cut -c1-160)
	if [ -n "$werr" ]; then
		n_werr=$(grep -c 'echo: write error' "$d/$t.log")
		reason="refused=$n_werr sysfs write(s) refused, first: $werr${reason:+; $reason}"
	fi
	if [ -n "$wb_pid" ]; then
		kill "$wb_pid" 2>/dev/null
		wait "$wb_pid" 2>/dev/null
		wb_pid=
		wbn=$(cat /run/wb-seen 2>/dev/null || echo 0)
		# after the text above: the host parses a leading "refused="
		reason="${reason:+$reason; }write-back seen in $wbn journal_mode samples"
		if [ "$wbn" = 0 ] && [ $res = pass ]; then
			res=fail
			reason="$reason: journal_mode never showed [write-back]"
		fi
	fi
	kbug=$(grep -E "$BAD_RE" "$d/kernel.log" | grep -v 'module verification failed' | head -n 1)
	if [ -n "$kbug" ]; then
		[ $res = pass ] && res=fail
		reason="kernel: $(echo "$kbug" | cut -c1-160)${reason:+; $reason}"
	fi
	report "result:$t" "$res" "$secs" "$reason"
	log "==== $t: $res (${secs}s) $reason"
	n=$((n + 1))
	save_logs
	if [ $state = hang ]; then
		report reboot-wanted "$t hung"
		exit 0
	fi
done

clean_env || log "arrays or loop devices left at the end"
kill "$kmsg_pid" 2>/dev/null
save_logs
report suite-done "$n"
