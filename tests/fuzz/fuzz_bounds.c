// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: array geometry, location mapping and the journal
 * payload bounds checks (drivers/shared/layout.c and bounds.c), the code
 * that decides where recovery and r5jtool write.
 *
 * Input: level (4/5/6 from byte 0), layout (byte 1: one of md's, or raw
 * when bit 7 of byte 0 is set), raid_disks (byte 2), chunk_sectors (bytes
 * 3-4), member data size (bytes 5-12, little endian), then 9-byte
 * records: payload type (0 DATA, 1 PARITY), location (u64).
 *
 * Invariants beyond memory safety, for every geometry r5j_geom_check()
 * accepts:
 *   - a location r5j_payload_target() accepts writes one whole, aligned
 *     stripe row inside the members' data area, to a data member that is
 *     neither P nor Q of that row; a DATA location maps back to itself;
 *   - every aligned DATA location inside the array is accepted (the array
 *     size and the mapping agree), for members up to 2^40 sectors;
 *   - nothing unaligned, past the array or past the members is accepted.
 */
#include <stdio.h>
#include <stdlib.h>
#include "raid5j/types.h"
#include "raid5j/bounds.h"

static const int layouts[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18, 19, 20 };

static u64 le64(const u8 *p)
{
	u64 v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct r5j_stripe_map map;
	struct r5j_bounds b;
	struct r5j_payload p;
	struct r5j_geom g;
	enum r5j_reason r;
	size_t off;
	u64 stripe;
	int dd;

	if (size < 13)
		return 0;
	g.level = 4 + data[0] % 3;
	g.layout = data[0] & 0x80 ? (int)(signed char)data[1] :
		   layouts[data[1] % (sizeof(layouts) / sizeof(layouts[0]))];
	g.raid_disks = data[2] + (data[0] & 0x40 ? 1 : 0);
	g.chunk_sectors = (u32)data[3] | (u32)data[4] << 8;
	if (data[0] & 0x20)
		g.chunk_sectors <<= 8;
	if (r5j_geom_check(&g, NULL))
		return 0;
	r5j_bounds_init(&b, &g, le64(data + 5));

	for (off = 13; off + 9 <= size; off += 9) {
		memset(&p, 0, sizeof(p));
		p.type = data[off] & 1 ? R5LOG_PAYLOAD_PARITY :
			 R5LOG_PAYLOAD_DATA;
		p.location = le64(data + off + 1);
		if (data[off] & 2)	/* near the array end */
			p.location = b.array_sectors - (p.location & 0xffff);
		stripe = ~0ull;
		dd = -2;
		r = r5j_payload_target(&b, &p, &stripe, &dd, &map);
		if (r == R5J_OK) {
			if (stripe % 8 ||
			    !r5j_range_ok(stripe, 8, b.dev_sectors))
				abort();
			if (map.pd_idx < 0 || map.pd_idx >= g.raid_disks)
				abort();
			if (g.level == 6 ? (map.qd_idx < 0 ||
					    map.qd_idx >= g.raid_disks ||
					    map.qd_idx == map.pd_idx) :
			    map.qd_idx != -1)
				abort();
			if (p.type == R5LOG_PAYLOAD_PARITY) {
				if (stripe != p.location || dd != -1)
					abort();
				continue;
			}
			if (dd < 0 || dd >= g.raid_disks ||
			    dd == map.pd_idx || dd == map.qd_idx)
				abort();
			if (!r5j_range_ok(p.location, 8, b.array_sectors))
				abort();
			if (r5j_array_sector_of(&g, stripe, dd) != p.location)
				abort();
			continue;
		}
		if (r != R5J_BAD_LOCATION && r != R5J_UNALIGNED)
			abort();
		if (p.location % 8 && r != R5J_UNALIGNED)
			abort();
		if (p.type == R5LOG_PAYLOAD_DATA && p.location % 8 == 0 &&
		    r5j_range_ok(p.location, 8, b.array_sectors) &&
		    b.dev_sectors <= 1ull << 40)
			abort();	/* inside the array yet refused */
		if (p.type == R5LOG_PAYLOAD_PARITY && p.location % 8 == 0 &&
		    r5j_range_ok(p.location, 8, b.dev_sectors))
			abort();
	}
	return 0;
}
