// SPDX-License-Identifier: GPL-2.0
/*
 * Array geometry: mainline md's RAID4/5/6 data layouts.
 *
 * Every layout is described by two things per chunk stripe (one row of
 * chunks across the members):
 *   - which members hold P (and Q), from the chunk stripe number, and
 *   - a bijection between data index (logical order of the data chunks of
 *     that row) and member index.
 * The forward map and its inverse below are written as a pair per family
 * of layouts, so each can be checked against the other (tests/unit) and
 * both against tables taken from mainline raid456 (tests/unit/data).
 *
 * Families (n = raid_disks, k = chunk stripe number):
 *   asymmetric ("data restart"): data fills the members in member order,
 *       skipping parity;
 *   symmetric ("data continuation"): data starts on the member after the
 *       parity (after P and Q for RAID6) and wraps around;
 *   fixed: parity on the first or last members.
 * RAID6 layouts 16..20 are the RAID5 layouts over the first n - 1 members
 * with Q on the last member (what a RAID5 -> RAID6 conversion leaves).
 * The DDF layouts (8, 9, 10) place data like RAID6 right-asymmetric, left
 * asymmetric shifted by one row, and left-symmetric with Q before P; they
 * differ from md's in the order of the syndrome's data blocks.
 *
 * This file is compiled into the module and into userspace programs, so it
 * uses only raid5j/types.h.
 */
#include "raid5j/types.h"
#include "raid5j/layout.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#endif

/* Quotient of n / d, remainder in *rem: 32-bit architectures lack u64 '/'. */
static inline u64 r5j_div_u64_rem(u64 n, u32 d, u32 *rem)
{
#ifdef __KERNEL__
	return div_u64_rem(n, d, rem);
#else
	*rem = (u32)(n % d);
	return n / d;
#endif
}

static inline u32 r5j_mod_u64(u64 n, u32 d)
{
	u32 rem;

	r5j_div_u64_rem(n, d, &rem);
	return rem;
}

static bool r5j_layout_is_ddf(int layout)
{
	return layout >= R5J_ALG_ROTATING_ZERO_RESTART &&
	       layout <= R5J_ALG_ROTATING_N_CONTINUE;
}

static bool r5j_layout_valid(int level, int layout)
{
	switch (layout) {
	case R5J_ALG_LEFT_ASYMMETRIC:
	case R5J_ALG_RIGHT_ASYMMETRIC:
	case R5J_ALG_LEFT_SYMMETRIC:
	case R5J_ALG_RIGHT_SYMMETRIC:
	case R5J_ALG_PARITY_0:
	case R5J_ALG_PARITY_N:
		return true;
	case R5J_ALG_ROTATING_ZERO_RESTART:
	case R5J_ALG_ROTATING_N_RESTART:
	case R5J_ALG_ROTATING_N_CONTINUE:
	case R5J_ALG_LEFT_ASYMMETRIC_6:
	case R5J_ALG_RIGHT_ASYMMETRIC_6:
	case R5J_ALG_LEFT_SYMMETRIC_6:
	case R5J_ALG_RIGHT_SYMMETRIC_6:
	case R5J_ALG_PARITY_0_6:
		return level == 6;
	default:
		return false;
	}
}

/*
 * Level changes keep every block where it is: RAID5's layouts 0..4 are
 * RAID6's 16..20 without the Q member (last), parity-N is parity-N.
 */
int r5j_layout_5_to_6(int layout)
{
	switch (layout) {
	case R5J_ALG_LEFT_ASYMMETRIC:
	case R5J_ALG_RIGHT_ASYMMETRIC:
	case R5J_ALG_LEFT_SYMMETRIC:
	case R5J_ALG_RIGHT_SYMMETRIC:
	case R5J_ALG_PARITY_0:
		return layout + R5J_ALG_LEFT_ASYMMETRIC_6;
	case R5J_ALG_PARITY_N:
		return R5J_ALG_PARITY_N;
	}
	return -1;
}

int r5j_layout_6_to_5(int layout)
{
	if (layout >= R5J_ALG_LEFT_ASYMMETRIC_6 &&
	    layout <= R5J_ALG_PARITY_0_6)
		return layout - R5J_ALG_LEFT_ASYMMETRIC_6;
	return layout == R5J_ALG_PARITY_N ? R5J_ALG_PARITY_N : -1;
}

int r5j_geom_check(const struct r5j_geom *g, const char **msg)
{
	const char *why = NULL;

	if (g->level != 4 && g->level != 5 && g->level != 6)
		why = "level must be 4, 5 or 6";
	else if (g->level != 4 && !r5j_layout_valid(g->level, g->layout))
		why = g->level == 5 ? "layout not valid for RAID5 (0..5)" :
		      "layout not valid for RAID6 (0..5, 8..10, 16..20)";
	/*
	 * Mainline takes two members for RAID4/5 (one data member: a mirror,
	 * what a RAID1 -> RAID5 takeover gives) and four for RAID6.
	 */
	else if (g->raid_disks < (g->level == 6 ? 4 : 2))
		why = g->level == 6 ? "RAID6 needs at least 4 members" :
		      "RAID4/5 needs at least 2 members";
	else if (g->raid_disks > R5J_MAX_DISKS)
		why = "too many members";
	/*
	 * GF(2^8) has 255 distinct powers of {02}: a DDF syndrome gives every
	 * member a slot, so two slots of a 256-member DDF array would share a
	 * coefficient and a double failure there could not be recovered.
	 */
	else if (g->level == 6 && r5j_layout_is_ddf(g->layout) &&
		 g->raid_disks > 255)
		why = "RAID6 DDF layouts take at most 255 members";
	else if (g->chunk_sectors < R5J_STRIPE_SECTORS ||
		 g->chunk_sectors % R5J_STRIPE_SECTORS)
		why = "chunk size must be a multiple of 4 KiB";

	if (msg)
		*msg = why;
	return why ? -EINVAL : 0;
}

int r5j_geom_parity_disks(const struct r5j_geom *g)
{
	return g->level == 6 ? 2 : 1;
}

int r5j_geom_data_disks(const struct r5j_geom *g)
{
	return g->raid_disks - r5j_geom_parity_disks(g);
}

/* Parity members of chunk stripe k. */
static void r5j_parity_of_chunk_stripe(const struct r5j_geom *g, u64 k,
				       struct r5j_stripe_map *map)
{
	int n = g->raid_disks;
	int pd = -1, qd = -1;

	map->ddf_layout = false;

	if (g->level == 4) {
		pd = n - 1;
	} else if (g->level == 5) {
		switch (g->layout) {
		case R5J_ALG_LEFT_ASYMMETRIC:
		case R5J_ALG_LEFT_SYMMETRIC:
			/* P walks down from the last member */
			pd = n - 1 - (int)r5j_mod_u64(k, n);
			break;
		case R5J_ALG_RIGHT_ASYMMETRIC:
		case R5J_ALG_RIGHT_SYMMETRIC:
			pd = (int)r5j_mod_u64(k, n);
			break;
		case R5J_ALG_PARITY_0:
			pd = 0;
			break;
		default: /* R5J_ALG_PARITY_N */
			pd = n - 1;
			break;
		}
	} else {
		switch (g->layout) {
		case R5J_ALG_LEFT_ASYMMETRIC:
		case R5J_ALG_LEFT_SYMMETRIC:
			pd = n - 1 - (int)r5j_mod_u64(k, n);
			qd = pd + 1 == n ? 0 : pd + 1;
			break;
		case R5J_ALG_RIGHT_ASYMMETRIC:
		case R5J_ALG_RIGHT_SYMMETRIC:
		case R5J_ALG_ROTATING_ZERO_RESTART:
			pd = (int)r5j_mod_u64(k, n);
			qd = pd + 1 == n ? 0 : pd + 1;
			break;
		case R5J_ALG_ROTATING_N_RESTART:
			/* left asymmetric one row on: row 0 is D..D P Q */
			pd = n - 1 - (int)r5j_mod_u64(k + 1, n);
			qd = pd + 1 == n ? 0 : pd + 1;
			break;
		case R5J_ALG_ROTATING_N_CONTINUE:
			/* Q just before P, wrapping */
			pd = n - 1 - (int)r5j_mod_u64(k, n);
			qd = pd == 0 ? n - 1 : pd - 1;
			break;
		case R5J_ALG_PARITY_0:
			pd = 0;
			qd = 1;
			break;
		case R5J_ALG_PARITY_N:
			pd = n - 2;
			qd = n - 1;
			break;
		case R5J_ALG_LEFT_ASYMMETRIC_6:
		case R5J_ALG_LEFT_SYMMETRIC_6:
			pd = n - 2 - (int)r5j_mod_u64(k, n - 1);
			qd = n - 1;
			break;
		case R5J_ALG_RIGHT_ASYMMETRIC_6:
		case R5J_ALG_RIGHT_SYMMETRIC_6:
			pd = (int)r5j_mod_u64(k, n - 1);
			qd = n - 1;
			break;
		default: /* R5J_ALG_PARITY_0_6 */
			pd = 0;
			qd = n - 1;
			break;
		}
		map->ddf_layout = r5j_layout_is_ddf(g->layout);
	}
	map->pd_idx = pd;
	map->qd_idx = qd;
}

/*
 * Member holding data index di of a row whose parity is *map.
 * The families below are the same for RAID5 and RAID6; what differs is
 * how many members rotate (n, or n - 1 with Q fixed on the last member)
 * and where the data run starts relative to P.
 */
static int r5j_data_member(const struct r5j_geom *g,
			   const struct r5j_stripe_map *map, int di)
{
	int n = g->raid_disks;
	int pd = map->pd_idx, qd = map->qd_idx;

	if (g->level == 4)
		return di;

	if (g->level == 5) {
		switch (g->layout) {
		case R5J_ALG_LEFT_SYMMETRIC:
		case R5J_ALG_RIGHT_SYMMETRIC:
			return (pd + 1 + di) % n;
		case R5J_ALG_PARITY_N:
			return di;
		default: /* asymmetric, parity 0: skip P */
			return di < pd ? di : di + 1;
		}
	}

	switch (g->layout) {
	case R5J_ALG_LEFT_ASYMMETRIC:
	case R5J_ALG_RIGHT_ASYMMETRIC:
	case R5J_ALG_ROTATING_ZERO_RESTART:
	case R5J_ALG_ROTATING_N_RESTART:
		/* skip P and Q; when P is last, Q wrapped to member 0 */
		if (qd == 0)
			return di + 1;
		return di < pd ? di : di + 2;
	case R5J_ALG_LEFT_SYMMETRIC:
	case R5J_ALG_RIGHT_SYMMETRIC:
		return (pd + 2 + di) % n;
	case R5J_ALG_ROTATING_N_CONTINUE:
		/* Q sits before P, so data starts right after P */
		return (pd + 1 + di) % n;
	case R5J_ALG_PARITY_0:
		return di + 2;
	case R5J_ALG_PARITY_N:
		return di;
	case R5J_ALG_LEFT_SYMMETRIC_6:
	case R5J_ALG_RIGHT_SYMMETRIC_6:
		return (pd + 1 + di) % (n - 1);
	default: /* _6 asymmetric, parity 0 _6: skip P below Q */
		return di < pd ? di : di + 1;
	}
}

/* Inverse of r5j_data_member(); m must not be P or Q. */
static int r5j_member_data_index(const struct r5j_geom *g,
				 const struct r5j_stripe_map *map, int m)
{
	int n = g->raid_disks;
	int pd = map->pd_idx, qd = map->qd_idx;

	if (g->level == 4)
		return m;

	if (g->level == 5) {
		switch (g->layout) {
		case R5J_ALG_LEFT_SYMMETRIC:
		case R5J_ALG_RIGHT_SYMMETRIC:
			return (m - pd - 1 + n) % n;
		case R5J_ALG_PARITY_N:
			return m;
		default:
			return m < pd ? m : m - 1;
		}
	}

	switch (g->layout) {
	case R5J_ALG_LEFT_ASYMMETRIC:
	case R5J_ALG_RIGHT_ASYMMETRIC:
	case R5J_ALG_ROTATING_ZERO_RESTART:
	case R5J_ALG_ROTATING_N_RESTART:
		if (qd == 0)
			return m - 1;
		return m < pd ? m : m - 2;
	case R5J_ALG_LEFT_SYMMETRIC:
	case R5J_ALG_RIGHT_SYMMETRIC:
		return (m - pd - 2 + 2 * n) % n;
	case R5J_ALG_ROTATING_N_CONTINUE:
		return (m - pd - 1 + n) % n;
	case R5J_ALG_PARITY_0:
		return m - 2;
	case R5J_ALG_PARITY_N:
		return m;
	case R5J_ALG_LEFT_SYMMETRIC_6:
	case R5J_ALG_RIGHT_SYMMETRIC_6:
		return (m - pd - 1 + (n - 1)) % (n - 1);
	default:
		return m < pd ? m : m - 1;
	}
}

u64 r5j_map_array_sector(const struct r5j_geom *g, u64 array_sector,
			 int *dd_idx, struct r5j_stripe_map *map)
{
	u32 chunk_offset, di;
	u64 chunk, k;

	chunk = r5j_div_u64_rem(array_sector, g->chunk_sectors, &chunk_offset);
	k = r5j_div_u64_rem(chunk, r5j_geom_data_disks(g), &di);

	r5j_parity_of_chunk_stripe(g, k, map);
	*dd_idx = r5j_data_member(g, map, (int)di);
	return k * g->chunk_sectors + chunk_offset;
}

void r5j_stripe_parity(const struct r5j_geom *g, u64 dev_sector,
		       struct r5j_stripe_map *map)
{
	u32 chunk_offset;
	u64 k = r5j_div_u64_rem(dev_sector, g->chunk_sectors, &chunk_offset);

	r5j_parity_of_chunk_stripe(g, k, map);
}

/* Chunk offsets [o, o_hi) the range covers in any data chunk of stripe n. */
static void r5j_rows_setup(struct r5j_rows *it)
{
	u32 chunk = it->g->chunk_sectors;
	int dd = r5j_geom_data_disks(it->g), k;
	u32 lo = chunk, hi = 0;

	it->base = it->n * dd * chunk;
	for (k = 0; k < dd; k++) {
		u64 c = it->base + (u64)k * chunk;
		u64 s = it->first > c ? it->first : c;
		u64 e = it->last < c + chunk ? it->last : c + chunk;

		if (s >= e)
			continue;
		if (s - c < lo)
			lo = (u32)(s - c);
		if (e - c > hi)
			hi = (u32)(e - c);
	}
	it->o = lo & ~(u32)(R5J_STRIPE_SECTORS - 1);
	it->o_hi = hi;
	it->fresh = true;
}

void r5j_rows_init(struct r5j_rows *it, const struct r5j_geom *g,
		   u64 first, u64 last)
{
	u32 dd = (u32)r5j_geom_data_disks(g), rem;

	it->g = g;
	it->first = first;
	it->last = last;
	it->k = 0;
	if (first >= last) {
		it->n = 1;
		it->n_last = 0;
		it->o = 0;
		it->o_hi = 0;
		it->fresh = false;
		return;
	}
	it->n = r5j_div_u64_rem(r5j_div_u64_rem(first, g->chunk_sectors, &rem),
				dd, &rem);
	it->n_last = r5j_div_u64_rem(r5j_div_u64_rem(last - 1, g->chunk_sectors,
						     &rem), dd, &rem);
	r5j_rows_setup(it);
}

bool r5j_rows_block(struct r5j_rows *it, u64 *block)
{
	int dd = r5j_geom_data_disks(it->g);

	while (it->k < dd) {
		u64 b = it->base + (u64)it->k++ * it->g->chunk_sectors + it->o;

		if (b + R5J_STRIPE_SECTORS > it->first && b < it->last) {
			*block = b;
			return true;
		}
	}
	return false;
}

bool r5j_rows_next(struct r5j_rows *it, u64 *dev_sector)
{
	u64 block;

	for (;;) {
		if (!it->fresh)
			it->o += R5J_STRIPE_SECTORS;
		it->fresh = false;
		while (it->o >= it->o_hi) {
			if (it->n >= it->n_last)
				return false;
			it->n++;
			r5j_rows_setup(it);
			it->fresh = false;
		}
		/*
		 * A range that ends in one chunk and starts late in another
		 * leaves rows in between with no block of it: skip those.
		 */
		it->k = 0;
		if (r5j_rows_block(it, &block))
			break;
	}
	it->k--;	/* r5j_rows_block() yields that first block again */
	*dev_sector = it->n * it->g->chunk_sectors + it->o;
	return true;
}

u64 r5j_array_sector_of(const struct r5j_geom *g, u64 dev_sector, int dev_idx)
{
	struct r5j_stripe_map map;
	u32 chunk_offset;
	u64 k = r5j_div_u64_rem(dev_sector, g->chunk_sectors, &chunk_offset);
	int di;

	r5j_parity_of_chunk_stripe(g, k, &map);
	di = r5j_member_data_index(g, &map, dev_idx);
	return (k * r5j_geom_data_disks(g) + di) * g->chunk_sectors +
	       chunk_offset;
}

int r5j_syndrome_disks(const struct r5j_geom *g,
		       const struct r5j_stripe_map *map)
{
	if (map->ddf_layout)
		return g->raid_disks;
	return r5j_geom_data_disks(g);
}

/*
 * md layouts: walk the members starting just after Q, wrapping; the data
 * members get slots 0, 1, ... in that walk.  Q is always the last member
 * of the walk, so only P has to be stepped over.  (This is member order
 * rotated, not the logical data order: they differ for left/right
 * asymmetric and left/right symmetric_6, where P splits the data run.)
 * DDF layouts: slot = member index; the slots of P and Q stay empty.
 * RAID4/5 have no syndrome: data slots are the logical data order and P
 * is slot data_disks, so xor code can share the slot table.
 */
int r5j_syndrome_slot(const struct r5j_geom *g,
		      const struct r5j_stripe_map *map, int dev_idx)
{
	int n = g->raid_disks;
	int sd = r5j_syndrome_disks(g, map);
	int d0, pos, ppos;

	if (dev_idx < 0 || dev_idx >= n)
		return -1;
	if (dev_idx == map->pd_idx)
		return sd;
	if (g->level != 6)
		return r5j_member_data_index(g, map, dev_idx);
	if (dev_idx == map->qd_idx)
		return sd + 1;
	if (map->ddf_layout)
		return dev_idx;

	d0 = map->qd_idx + 1 == n ? 0 : map->qd_idx + 1;
	pos = (dev_idx - d0 + n) % n;
	ppos = (map->pd_idx - d0 + n) % n;
	return ppos < pos ? pos - 1 : pos;
}

u64 r5j_array_size(const struct r5j_geom *g, u64 dev_sectors)
{
	u32 rem;
	u64 chunks = r5j_div_u64_rem(dev_sectors, g->chunk_sectors, &rem);

	return chunks * g->chunk_sectors * r5j_geom_data_disks(g);
}
