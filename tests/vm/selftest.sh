#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest: the harness must catch what it claims to catch.  Not a t-*
# scenario (make check does not run it); run it after changing lib.sh,
# init or guest-lib.sh:  tests/vm/run.sh tests/vm/selftest.sh
#
#	   d0      d1      d2      d3        virtio, 32 MiB each
#
# Each boot is expected to end a certain way; this script passes only if
# every one did:
#  1. a failing check            -> vm_boot fails, guest FAIL line
#  2. corrupted data under fio   -> fio verification fails
#  3. "WARNING:" in the kernel log -> fails (guest scan and console scan)
#  4. a guest that hangs         -> fails on --timeout
#  5. power cut: data synced before "mark written", then the VM killed
#     1 s later -> vm_boot returns 0, VM_KILLED=1; boot 6 finds the data
#  6. a clean boot               -> passes, VAL reaches the host
#  7. VM_NBD_CACHE=1 (volatile disk cache): a power cut keeps a write
#     followed by a flush and loses one that was never flushed; a clean
#     exit keeps an unflushed write
#  8. qemu dying before init reached the test (SIGSEGV): retried once and
#     passes; dying every time fails
#
# Disks: 4 x 32 MiB.  Boots: 11 (plus 3 that crash).  Timeout: ~4 minutes.
# Runs on raid456 unless PERSONALITY is set.

PERSONALITY=${PERSONALITY:-raid456}
. "$(dirname "$0")/lib.sh"

bad=0
expect() {	# expect pass|fail WHAT: judge the last vm_boot's status ($rc)
	if { [ "$1" = pass ] && [ "$rc" -eq 0 ]; } ||
	   { [ "$1" = fail ] && [ "$rc" -ne 0 ]; }; then
		echo "selftest ok: $2 ($1 as expected)"
	else
		echo "selftest BROKEN: $2: expected $1, vm_boot returned $rc"
		bad=1
	fi
}

vm_disks 32M d0 d1 d2 d3

vm_boot --timeout 60 - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 $(disks d0 d1 d2 d3)
wait_sync /dev/md0
check state '[4/3] [UUU_]' /dev/md0
pass "should not get here"
EOF
rc=$?
expect fail "wrong state check"
grep -q "^FAIL .*check state" "$VM_RESULTS" || { echo "selftest BROKEN: no FAIL line"; bad=1; }

vm_boot --timeout 60 - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
load_personality
run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3)
fio_verify x /dev/md0 --rw=write --bs=64k --size=8m
# overwrite 4k in the middle, behind fio's back
dd if=/dev/urandom of=/dev/md0 bs=4k seek=1000 count=1 oflag=direct 2>/dev/null
fio_verify x /dev/md0 --rw=write --bs=64k --size=8m --verify_only
pass "should not get here"
EOF
rc=$?
expect fail "corrupted data"
grep -q "^FAIL .*fio x" "$VM_RESULTS" || { echo "selftest BROKEN: no fio FAIL line"; bad=1; }

vm_boot --timeout 60 - <<'EOF'
. /test/guest-lib.sh
echo "<4>WARNING: CPU: 0 PID: 1 at selftest.c:1 fake warning" > /dev/kmsg
pass "script itself passes"
EOF
rc=$?
expect fail "kernel WARNING"
grep -q "^FAIL .*kernel: .*WARNING" "$VM_RESULTS" || { echo "selftest BROKEN: no kernel FAIL line"; bad=1; }

vm_boot --timeout 25 - <<'EOF'
. /test/guest-lib.sh
sleep 1000
EOF
rc=$?
expect fail "hung guest"

vm_boot --kill-mark written --kill-after 1 --timeout 60 - d0 <<'EOF'
. /test/guest-lib.sh
printf 'raid5j-selftest-%s\n' $(seq 1000) > /tmp/pattern
dd if=/tmp/pattern of=$(disk d0) bs=64k oflag=direct conv=fsync 2>/dev/null
report sum "$(md5sum < /tmp/pattern | cut -d' ' -f1)"
mark written
sleep 1000
EOF
rc=$?
expect pass "power cut after mark"
[ "$VM_KILLED" = 1 ] || { echo "selftest BROKEN: VM_KILLED=$VM_KILLED"; bad=1; }
sum=$(vm_val sum)

vm_boot --timeout 60 --env "SUM=$sum" - d0 <<'EOF'
. /test/guest-lib.sh
got=$(head -c $(seq 1000 | sed 's/^/raid5j-selftest-/' | wc -c) $(disk d0) | md5sum | cut -d' ' -f1)
expect_eq "$got" "$SUM" "data written before the power cut"
report back ok
pass
EOF
rc=$?
expect pass "data survives the power cut"
[ "$(vm_val back)" = ok ] || { echo "selftest BROKEN: VAL back not seen"; bad=1; }

# 7. The volatile cache model.  Block 0 is written and flushed, block 256
# (1 MiB) written O_DIRECT without a flush: the cut must keep only block 0.
img_block() {	# img_block DISK BLOCK: the 4 KiB block's first line, host side
	dd if="$(vm_disk_path "$1")" bs=4k skip="$2" count=1 2>/dev/null | head -n 1 | tr -d '\0'
}
vm_disk d0 32M
VM_NBD_CACHE=1 vm_boot --kill-mark written --kill-after 1 --timeout 60 - d0 <<'EOF'
. /test/guest-lib.sh
yes flushed | head -c 4096 | dd of=$(disk d0) bs=4k oflag=direct conv=fsync 2>/dev/null
yes unflushed | head -c 4096 | dd of=$(disk d0) bs=4k seek=256 oflag=direct 2>/dev/null
mark written
sleep 1000
EOF
rc=$?
expect pass "power cut with VM_NBD_CACHE=1"
expect_img() {	# expect_img BLOCK WANT WHAT
	local got
	got=$(img_block d0 "$1")
	if [ "$got" = "$2" ]; then
		echo "selftest ok: $3"
	else
		echo "selftest BROKEN: $3: block $1 holds '$got', expected '$2'"
		bad=1
	fi
}
expect_img 0 flushed "VM_NBD_CACHE: a flushed write survives the power cut"
expect_img 256 "" "VM_NBD_CACHE: an unflushed write is lost in the power cut"
VM_NBD_CACHE=1 vm_boot --timeout 60 - d0 <<'EOF'
. /test/guest-lib.sh
yes clean | head -c 4096 | dd of=$(disk d0) bs=4k seek=512 oflag=direct 2>/dev/null
pass
EOF
rc=$?
expect pass "clean boot with VM_NBD_CACHE=1"
expect_img 512 clean "VM_NBD_CACHE: a clean exit keeps an unflushed write"

# 8. qemu dying before init opens the result port (a SIGSEGV under TCG):
# the boot is retried once and passes; a qemu that dies every time fails.
crashy=$BUILD/selftest-crashy-qemu
cat > "$crashy" <<'QEOF'
#!/bin/bash
# dies of SIGSEGV while its count file has lines left, then is qemu
if [ -s "$CRASHES" ]; then
	sed -i 1d "$CRASHES"
	kill -SEGV $$
fi
exec qemu-system-x86_64 "$@"
QEOF
chmod +x "$crashy"
export CRASHES=$BUILD/selftest-crashes
echo 1 > "$CRASHES"
VM_QEMU=$crashy vm_boot --timeout 60 - <<'EOF'
. /test/guest-lib.sh
pass
EOF
rc=$?
expect pass "qemu crashed once before init: boot retried"
grep -q "^==== boot $VM_BOOTS: exited before init reached the test: booting again" "$VM_LOG" ||
	{ echo "selftest BROKEN: no retry note in the log"; bad=1; }
printf '1\n1\n' > "$CRASHES"
VM_QEMU=$crashy vm_boot --timeout 60 - <<'EOF'
. /test/guest-lib.sh
pass
EOF
rc=$?
expect fail "qemu crashing at every boot"

exit $bad
