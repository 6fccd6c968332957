/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounds checks on locations read from an untrusted journal or superblock.
 *
 * Every location, size and offset that comes from disk and decides where
 * the kernel or r5jtool writes goes through here.  Two rules:
 *
 *   - no overflow: [loc, loc + len) lies in [0, size) is tested as
 *     loc < size && size - loc >= len, never as loc + len <= size (a
 *     location near 2^64 wraps to a small one and would pass);
 *   - 4 KiB alignment: a journal block covers one stripe row exactly, so a
 *     DATA or PARITY location must be a multiple of 8 sectors; otherwise
 *     its page would straddle two rows.
 *
 * drivers/r5j_recovery.c and tools/r5jtool.c both call
 * r5j_payload_target() on every DATA and PARITY payload before anything is
 * written, so neither can write outside a member's data area.
 */
#ifndef RAID5J_BOUNDS_H
#define RAID5J_BOUNDS_H

#include "types.h"
#include "journal.h"
#include "layout.h"

/* [loc, loc + len) inside [0, size), without overflow. */
static inline bool r5j_range_ok(u64 loc, u64 len, u64 size)
{
	return loc < size && size - loc >= len;
}

/* What a payload may address: one array's geometry and member size. */
struct r5j_bounds {
	const struct r5j_geom *geom;
	u64 dev_sectors;	/* data area used on each member */
	u64 array_sectors;	/* r5j_array_size(geom, dev_sectors) */
};

void r5j_bounds_init(struct r5j_bounds *b, const struct r5j_geom *g,
		     u64 dev_sectors);

/*
 * Where a DATA or PARITY payload writes: R5J_OK and *stripe (dev sector of
 * its row), *dd_idx (DATA: the data member, PARITY: -1) and *map filled;
 * or R5J_BAD_LOCATION (outside the array or the members' data area) or
 * R5J_UNALIGNED (not a multiple of 8 sectors).  FLUSH payloads write
 * nothing and are not checked here.
 */
enum r5j_reason r5j_payload_target(const struct r5j_bounds *b,
				   const struct r5j_payload *p, u64 *stripe,
				   int *dd_idx, struct r5j_stripe_map *map);

#endif /* RAID5J_BOUNDS_H */
