/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md v1.x superblock reader and writer for userspace tools (r5jtool and its
 * tests).  The layout is struct mdp_superblock_1 of <linux/raid/md_p.h>;
 * v1.0 sits 8..16 KiB before the device end (4 KiB aligned), v1.1 at
 * sector 0, v1.2 at sector 8.  The checksum is md's: the 32-bit sum, with
 * carry folded once, of the little-endian words of the first
 * 256 + 2 * max_dev bytes, sb_csum counted as zero.
 */
#ifndef RAID5J_MDSB_H
#define RAID5J_MDSB_H

#include "types.h"
#include <linux/raid/md_p.h>

#define MDSB_BYTES	4096	/* read and written whole: 256 + 2 * max_dev fits */

struct mdsb {
	int minor;		/* 0, 1 or 2 */
	u64 sb_sector;		/* where it was found */
	u64 dev_sectors;	/* size of the device it was read from */
	union {
		struct mdp_superblock_1 sb;
		u8 raw[MDSB_BYTES];
	};
};

/* Sector of the v1.minor superblock on a device of dev_sectors. */
u64 mdsb_location(int minor, u64 dev_sectors);

/* md's v1 checksum of sb (sb_csum counted as zero), little endian. */
__le32 mdsb_csum(const struct mdp_superblock_1 *sb);

/*
 * Find a valid v1.x superblock on fd (1.2, 1.1 then 1.0): magic, major
 * version 1, max_dev <= 1920, super_offset == where found, checksum.
 * Returns 0, -ENOENT if none, or -errno on I/O errors.
 */
int mdsb_read(int fd, struct mdsb *s);

/*
 * The offsets md's super_1_load checks, without overflow: data_size at
 * least 10 sectors, the data area [data_offset, data_offset + data_size)
 * on the device and clear of the superblock's own sectors (after them for
 * v1.1/1.2, before them for v1.0).  Returns 0, or -EINVAL and *why.
 */
int mdsb_check(const struct mdsb *s, const char **why);

/* Recompute the checksum and write the superblock back; fsync. */
int mdsb_write(int fd, struct mdsb *s);

/* This device's role: dev_roles[dev_number], 0xffff if out of range. */
int mdsb_role(const struct mdsb *s);

/* Size of a file or block device in sectors, or -errno. */
s64 mdsb_dev_sectors(int fd);

/* "xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx" as mdadm prints a uuid (36 bytes). */
void mdsb_uuid_str(const u8 uuid[16], char out[36]);

#endif /* RAID5J_MDSB_H */
