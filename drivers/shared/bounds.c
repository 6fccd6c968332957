// SPDX-License-Identifier: GPL-2.0
/*
 * Bounds checks on journal payload locations; see include/raid5j/bounds.h.
 * Pure logic shared by the kernel module and userspace.
 */
#include "raid5j/types.h"
#include "raid5j/bounds.h"

void r5j_bounds_init(struct r5j_bounds *b, const struct r5j_geom *g,
		     u64 dev_sectors)
{
	b->geom = g;
	b->dev_sectors = dev_sectors;
	b->array_sectors = r5j_array_size(g, dev_sectors);
}

enum r5j_reason r5j_payload_target(const struct r5j_bounds *b,
				   const struct r5j_payload *p, u64 *stripe,
				   int *dd_idx, struct r5j_stripe_map *map)
{
	u64 s;

	if (p->location % R5J_STRIPE_SECTORS)
		return R5J_UNALIGNED;
	if (p->type == R5LOG_PAYLOAD_DATA) {
		if (!r5j_range_ok(p->location, R5J_STRIPE_SECTORS,
				  b->array_sectors))
			return R5J_BAD_LOCATION;
		s = r5j_map_array_sector(b->geom, p->location, dd_idx, map);
	} else if (p->type == R5LOG_PAYLOAD_PARITY) {
		s = p->location;
		*dd_idx = -1;
		r5j_stripe_parity(b->geom, s, map);
	} else {
		return R5J_BAD_PAYLOAD;
	}
	/* the mapping stays inside for a sane geometry; check what is written */
	if (s % R5J_STRIPE_SECTORS)
		return R5J_UNALIGNED;
	if (!r5j_range_ok(s, R5J_STRIPE_SECTORS, b->dev_sectors))
		return R5J_BAD_LOCATION;
	*stripe = s;
	return R5J_OK;
}
