#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-dkms-boot: raid5j installed the way users install it (DKMS), and md
# picking it at boot for an array listed in /etc/mdadm/mdadm.conf.
#
#   host:   make dkms-install DKMS_KVERS=<guest kver> DKMS_ROOT=<staging>
#           (dkms add/build/install for the VM's kernel, which is not the
#           host's running one)  ->  .../updates/dkms/raid5j.ko
#   boot 1: that raid5j.ko in /lib/modules/KVER/updates/dkms, depmod,
#           modprobe raid5j; RAID5 on d0..d3, fio writes data;
#           `mdadm --detail --scan` becomes the next boot's mdadm.conf
#   host:   mkinitramfs for KVER (initramfs-tools, as update-initramfs
#           runs it) in a private mount namespace, where overlays add the
#           DKMS module to /lib/modules/KVER, `make install-boot DESTDIR=/`
#           (tools/boot: the modprobe.d rule, the initramfs hook) and that
#           mdadm.conf: the host's own directories stay as they are
#   boot 2: the initramfs step, with the files of that initramfs: its
#           raid5j.ko (copied there by the hook), modprobe.d/raid5j.conf,
#           etc/mdadm/mdadm.conf and conf/modules (the mdadm hook's
#           force_load list) put where they are in the initramfs; then
#           A  nothing but md-mod loaded; mdadm --assemble --scan
#              (md core's request_module("md-level-5") picks the module)
#           B  init's order: modprobe of every conf/modules entry (linear
#              multipath raid0 raid1 raid456 raid5 raid6 raid10 ...), then
#              mdadm --assemble --scan (scripts/local-block/mdadm)
#           C  raid5j.ko gone (a kernel DKMS could not build for):
#              the same steps bring the array up on raid456
#
#	   d0      d1      d2      d3        virtio, 64 MiB each
#	    \       \      /       /
#	     +-------+----+-------+
#	     |      /dev/md0      |          RAID5, in mdadm.conf
#	     +--------------------+
#
# Asserts:
#  - dkms-install succeeds; dkms status says installed for KVER; the
#    module it installed has vermagic KVER;
#  - the initramfs holds updates/dkms/raid5j.ko, etc/modprobe.d/raid5j.conf,
#    usr/local/sbin/r5jtool (the rule's write-back log check),
#    the ARRAY line in etc/mdadm/mdadm.conf, raid456 in conf/modules;
#  - boot 1: modprobe raid5j loads it from updates/dkms; the array runs
#    on it (md/level raid5, raid5j in use), fio write+verify passes;
#  - boot 2, A and B: the array assembled from mdadm.conf has md/level
#    raid5, is run by raid5j (refcnt >= 1) and raid456 is not loaded, even
#    after `modprobe raid456`; boot 1's data verifies;
#  - boot 2, C: without raid5j.ko, raid456 runs the array and the data
#    verifies (the fallback of the modprobe rule);
#  - no kernel BUG/WARNING/Oops/hung task.
# PERSONALITY=raid456 (validation, a stock system): no DKMS, no modprobe
# rule, no hook in the initramfs; boot 1 creates on raid456, boot 2 A
# asserts md picks raid456 when nothing says otherwise, the outcome the
# rule exists to change.
# BOOT_CONF=FILE replaces tools/boot/raid5j.conf (BOOT_CONF=/dev/null
# shows the test failing without the rule).
#
# Needs dkms, initramfs-tools, unshare and overlayfs on the host (make deps).
# Disks: 4 x 64 MiB.  Boots: 2.  Timeout: 150 s each.

. "$(dirname "$0")/lib.sh"

KVER=${KVER:-$("$R5J_ROOT/scripts/kver.sh" --image)} ||
	vm_fail "no Debian kernel image installed (make deps)"
STAGE=$BUILD/dkms-stage/$VM_TEST
CONF=${BOOT_CONF:-$R5J_ROOT/tools/boot/raid5j.conf}
mkdir -p "$BUILD/vm-logs"

# plain_ko DIR OUT: DIR's raid5j.ko as a plain .ko (kernels whose modules
# are compressed, like Debian's 6.12, get raid5j.ko.xz from dkms)
plain_ko() {
	local f
	for f in "$1"/raid5j.ko "$1"/raid5j.ko.xz "$1"/raid5j.ko.zst; do
		[ -f "$f" ] || continue
		case $f in
		*.xz) xz -dc "$f" > "$2" ;;
		*.zst) zstd -qdc "$f" > "$2" ;;
		*) cp "$f" "$2" ;;
		esac
		return
	done
	return 1
}

command -v mkinitramfs >/dev/null && command -v unmkinitramfs >/dev/null ||
	vm_fail "initramfs-tools is not installed (make deps)"

rm -rf "$STAGE"
mkdir -p "$STAGE"
if [ "$PERSONALITY" = raid5j ]; then
	t0=$SECONDS
	DKMS_ROOT=$STAGE make -s -C "$R5J_ROOT" dkms-install DKMS_KVERS="$KVER" \
		> "$BUILD/vm-logs/$VM_TEST.dkms.log" 2>&1 ||
		{ tail -n 30 "$BUILD/vm-logs/$VM_TEST.dkms.log"; vm_fail "make dkms-install failed"; }
	vm_log "dkms add/build/install for $KVER: $((SECONDS - t0)) s"
	st=$(dkms status --dkmstree "$STAGE/var/lib/dkms" -m raid5j -k "$KVER" 2>&1)
	vm_log "dkms status: $st"
	case $st in
	*"$KVER"*installed*) ;;
	*) vm_fail "dkms status does not say installed for $KVER: $st" ;;
	esac
	R5J_KO=$STAGE/raid5j.ko
	plain_ko "$STAGE/lib/modules/$KVER/updates/dkms" "$R5J_KO" ||
		vm_fail "dkms installed no raid5j.ko in updates/dkms"
	# raid5j_dmraid.ko: built and kept, not installed (no redirect yet)
	compgen -G "$STAGE/var/lib/dkms/raid5j/*/$KVER/*/module/raid5j_dmraid.ko" >/dev/null ||
		vm_fail "dkms's build did not keep raid5j_dmraid.ko beside raid5j.ko"
	compgen -G "$STAGE/lib/modules/$KVER/updates/dkms/raid5j_dmraid.ko*" >/dev/null &&
		vm_fail "dkms installed raid5j_dmraid.ko without the redirect: dm-raid would load raid5j"
	vm=$(modinfo -F vermagic "$R5J_KO" | cut -d' ' -f1)
	[ "$vm" = "$KVER" ] || vm_fail "DKMS module has vermagic '$vm', not $KVER"
	export R5J_KO
fi

vm_disks 64M d0 d1 d2 d3
vm_boot --timeout 150 - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
kv=$(uname -r)
if [ "$PERSONALITY" = raid5j ]; then
	# what dkms install leaves: the module in updates/dkms, depmod run
	run mkdir -p /lib/modules/$kv/updates/dkms
	run cp /test/raid5j.ko /lib/modules/$kv/updates/dkms/raid5j.ko
	run depmod -a
	expect_eq "$(modinfo -n raid5j)" /lib/modules/$kv/updates/dkms/raid5j.ko \
		"modinfo -n raid5j"
	run modprobe raid5j
else
	run modprobe raid456
fi
fast_sync
D=$(disks d0 d1 d2 d3)
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 $D
wait_sync /dev/md0
check raid5 /dev/md0
check state '[4/4] [UUUU]' /dev/md0
fio_verify boot1 /dev/md0 --rw=write --bs=64k --iodepth=8 --size=96m
report mdconf "$(mdadm --detail --scan | head -n 1)"
run mdadm --stop /dev/md0
pass "t-dkms-boot/dkms-module"
EOF
[ $? -eq 0 ] || vm_fail "boot 1 failed"
line=$(vm_val mdconf)
case $line in
ARRAY*UUID=*) ;;
*) vm_fail "boot 1 reported no ARRAY line for mdadm.conf: '$line'" ;;
esac
printf 'DEVICE partitions\n%s\n' "$line" > "$STAGE/mdadm.conf"

# The initramfs update-initramfs would make on that system.  Only the
# mount namespace sees the overlays; their upper layers are in $STAGE/ov.
t0=$SECONDS
DKMS_TREE=$STAGE/var/lib/dkms unshare -m --propagation private bash -s -- "$STAGE" "$KVER" "$PERSONALITY" \
	"$R5J_ROOT" "$CONF" "$STAGE/lib/modules/$KVER/updates/dkms" > "$BUILD/vm-logs/$VM_TEST.mkinitramfs.log" 2>&1 <<'NS' ||
set -eux
stage=$1 kver=$2 pers=$3 top=$4 conf=$5 dkmsdir=$6
for d in /lib/modules/$kver /etc/modprobe.d /etc/initramfs-tools /etc/mdadm /usr/local; do
	ov=$stage/ov/$(echo "$d" | tr / _)
	mkdir -p "$d" "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
cp "$stage/mdadm.conf" /etc/mdadm/mdadm.conf
# a small image, quick to make: the hooks' modules only
printf 'MODULES=list\nCOMPRESS=gzip\n' > /etc/initramfs-tools/conf.d/zz-r5j-test
if [ "$pers" = raid5j ]; then
	# what dkms install and make install-boot leave on the system
	mkdir -p "/lib/modules/$kver/updates/dkms"
	cp "$dkmsdir"/raid5j.ko* "/lib/modules/$kver/updates/dkms/"
	depmod -a "$kver"
	make -s -C "$top" install-boot DESTDIR=/	# DKMS_TREE: the staged one
	ls "/lib/modules/$kver/updates/dkms/raid5j_dmraid.ko"
	cp "$conf" /etc/modprobe.d/raid5j.conf		# BOOT_CONF
fi
mkinitramfs -o "$stage/initrd.img" "$kver"
NS
	{ tail -n 20 "$BUILD/vm-logs/$VM_TEST.mkinitramfs.log"; vm_fail "mkinitramfs failed"; }
rm -rf "$STAGE/initrd"
unmkinitramfs "$STAGE/initrd.img" "$STAGE/initrd" || vm_fail "unmkinitramfs failed"
I=$STAGE/initrd
[ -d "$I/main" ] && I=$I/main		# early microcode cpio first
vm_log "mkinitramfs + unmkinitramfs: $((SECONDS - t0)) s"
grep -qw raid456 "$I/conf/modules" || vm_fail "initramfs: no raid456 in conf/modules"
grep -qF "$line" "$I/etc/mdadm/mdadm.conf" || vm_fail "initramfs: mdadm.conf without $line"
mkdir -p "$STAGE/files"
cp "$I/conf/modules" "$I/etc/mdadm/mdadm.conf" "$STAGE/files/"
export VM_FILES="$STAGE/files/modules $STAGE/files/mdadm.conf"
if [ "$PERSONALITY" = raid5j ]; then
	R5J_KO=$STAGE/files/raid5j.ko
	plain_ko "$I/usr/lib/modules/$KVER/updates/dkms" "$R5J_KO" ||
		vm_fail "initramfs: no updates/dkms/raid5j.ko (the hook's job)"
	[ -f "$I/etc/modprobe.d/raid5j.conf" ] || vm_fail "initramfs: no etc/modprobe.d/raid5j.conf"
	cp "$I/usr/lib/modules/$KVER/updates/dkms/raid5j_dmraid.ko" "$STAGE/files/" ||
		vm_fail "initramfs: no updates/dkms/raid5j_dmraid.ko (make install-boot's and the hook's job)"
	VM_FILES="$VM_FILES $STAGE/files/raid5j_dmraid.ko"
	[ -x "$I/usr/local/sbin/r5jtool" ] || vm_fail "initramfs: no usr/local/sbin/r5jtool (the hook's job)"
	cp "$I/etc/modprobe.d/raid5j.conf" "$STAGE/files/"
	VM_FILES="$VM_FILES $STAGE/files/raid5j.conf"
fi

vm_boot --timeout 150 - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
kv=$(uname -r)
other=raid456
[ "$PERSONALITY" = raid456 ] && other=raid5j

# bound MOD: md0 is up as raid5, run by MOD; the other module not loaded
bound() {
	local refs PERSONALITY=$1	# check raid5 checks $PERSONALITY is in use
	check raid5 /dev/md0
	refs=$(cat "/sys/module/$1/refcnt" 2>/dev/null)
	[ "${refs:-0}" -ge 1 ] || fail "$1 does not run md0 (refcnt '$refs')"
	grep -qw "^$2" /proc/modules && fail "$2 is loaded: $(grep -E '^(raid5j|raid456) ' /proc/modules | tr '\n' ' ')"
	log "md0: md/level $(md_sysfs /dev/md0 level), run by $1"
}

assemble_and_verify() {	# what initramfs-tools' local-block/mdadm runs
	run mdadm --assemble --scan
	[ -e /sys/block/md0/md/level ] || fail "mdadm --assemble --scan did not start md0"
	wait_sync /dev/md0
	check state '[4/4] [UUUU]' /dev/md0
	fio_verify boot1 /dev/md0 --rw=write --bs=64k --iodepth=8 --size=96m --verify_only
}

# The initramfs's files where they are in it (the module with the
# index depmod gives it there).
mkdir -p /etc/modprobe.d /etc/mdadm
run cp /test/mdadm.conf /etc/mdadm/mdadm.conf
cat /etc/mdadm/mdadm.conf
if [ "$PERSONALITY" = raid5j ]; then
	run cp /test/raid5j.conf /etc/modprobe.d/raid5j.conf
	run mkdir -p /lib/modules/$kv/updates/dkms
	run cp /test/raid5j.ko /lib/modules/$kv/updates/dkms/raid5j.ko
	run cp /test/raid5j_dmraid.ko /lib/modules/$kv/updates/dkms/raid5j_dmraid.ko
	run depmod -a
fi
grep -q . /proc/modules && log "loaded at start: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
grep -qE '^(raid5j|raid456) ' /proc/modules && fail "a RAID4/5/6 personality is loaded already"

log "==== A: md core's request_module only"
run modprobe md_mod
assemble_and_verify
bound "$PERSONALITY" "$other"
pass "t-dkms-boot/request-module"
[ "$PERSONALITY" = raid5j ] || exit 0

FORCE_LOAD=$(cat /test/modules)
log "==== B: init loads conf/modules ($(echo $FORCE_LOAD)), then assemble"
run mdadm --stop /dev/md0
run rmmod raid5j_dmraid raid5j
for m in $FORCE_LOAD; do
	modprobe "$m" 2>&1 || log "modprobe $m failed (as in the initramfs: not fatal)"
done
grep -qw '^raid5j' /proc/modules || fail "modprobe raid456 did not load raid5j"
assemble_and_verify
bound raid5j raid456
pass "t-dkms-boot/initramfs-order"

log "==== C: a kernel without raid5j.ko: raid456 takes over"
run mdadm --stop /dev/md0
run rmmod raid5j_dmraid raid5j
run rm /lib/modules/$kv/updates/dkms/raid5j.ko /lib/modules/$kv/updates/dkms/raid5j_dmraid.ko
run depmod -a
run modprobe raid456
assemble_and_verify
bound raid456 raid5j
pass "t-dkms-boot/fallback"
check dmesg
EOF
[ $? -eq 0 ] || vm_fail "boot 2 failed"
exit 0
