// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the md v1.x superblock reader (tools/mdsb.c) and the
 * offset checks r5jtool applies to it (mdsb_check(), md's super_1_load
 * rules).
 *
 * Input: byte 0: minor version to place the superblock at (0/1/2) and
 * which fields the harness fixes up (bit 2: none; else magic, major
 * version, super_offset and max_dev are made valid), bytes 1-2: device
 * size in 4 KiB blocks (6..4101), the rest: the superblock's first bytes.
 * The harness always recomputes sb_csum, so the fuzzer gets past the
 * checksum to the code behind it.
 *
 * Invariants beyond memory safety: a superblock mdsb_read() returns sits
 * where its minor version says, with a valid max_dev; one mdsb_check()
 * accepts has its data area on the device and clear of the superblock's
 * own sectors; mdsb_role() stays inside dev_roles.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include "raid5j/types.h"
#include "raid5j/bounds.h"
#include "raid5j/mdsb.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static int fd = -1;
	static u8 raw[MDSB_BYTES];
	struct mdp_superblock_1 *sb = (void *)raw;
	struct mdsb s;
	const char *why;
	u64 dev_sectors, at, doff, dsize, sb_end;
	int minor, err;

	if (size < 3)
		return 0;
	if (fd < 0)
		fd = memfd_create("fuzz-mdsb", 0);
	if (fd < 0)
		abort();
	minor = data[0] % 3;
	dev_sectors = (6 + ((u64)data[1] | (u64)data[2] << 8) % 4096) * 8;
	memset(raw, 0, sizeof(raw));
	memcpy(raw, data + 3, size - 3 < MDSB_BYTES ? size - 3 : MDSB_BYTES);
	at = mdsb_location(minor, dev_sectors);
	if (!(data[0] & 4)) {
		sb->magic = cpu_to_le32(MD_SB_MAGIC);
		sb->major_version = cpu_to_le32(1);
		sb->super_offset = cpu_to_le64(at);
		sb->max_dev = cpu_to_le32(le32_to_cpu(sb->max_dev) % 1921);
	}
	if (le32_to_cpu(sb->max_dev) <= (MDSB_BYTES - 256) / 2)
		sb->sb_csum = mdsb_csum(sb);
	if (ftruncate(fd, 0) || ftruncate(fd, (off_t)(dev_sectors * 512)))
		abort();
	if (pwrite(fd, raw, MDSB_BYTES, (off_t)(at * 512)) != MDSB_BYTES)
		abort();

	err = mdsb_read(fd, &s);
	if (err)
		return 0;
	if (s.sb_sector != mdsb_location(s.minor, dev_sectors) ||
	    le32_to_cpu(s.sb.max_dev) > (MDSB_BYTES - 256) / 2 ||
	    s.dev_sectors != dev_sectors)
		abort();
	if (mdsb_role(&s) < 0 || mdsb_role(&s) > 0xffff)
		abort();
	if (mdsb_check(&s, &why))
		return 0;
	doff = le64_to_cpu(s.sb.data_offset);
	dsize = le64_to_cpu(s.sb.data_size);
	sb_end = s.sb_sector + (256 + 2 * (u64)le32_to_cpu(s.sb.max_dev) +
				511) / 512;
	if (!r5j_range_ok(doff, dsize, dev_sectors) || dsize < 10)
		abort();
	if (s.minor ? doff < sb_end : !r5j_range_ok(doff, dsize, s.sb_sector))
		abort();
	return 0;
}
