/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Array geometry: where each array sector lives on the members.
 *
 * The mapping is mainline md's on-disk data layout (RAID4, every RAID5 and
 * RAID6 algorithm mdadm creates), so arrays move between raid456 and raid5j.
 * This file and drivers/shared/layout.c are pure logic: they compile in the
 * module and in userspace (tests/unit, tools/r5jtool).
 *
 * Terms:
 *   dev sector    - sector offset on a member, relative to its data_offset.
 *   stripe        - one 4 KiB row across all members: dev sectors
 *                   [s, s + 8) with s a multiple of 8.  Every member holds
 *                   one block of it: data, P or (RAID6) Q.
 *   chunk stripe  - dev_sector / chunk_sectors: selects the parity rotation.
 *   data index    - position of a data member's block in the stripe's
 *                   logical data order (0 .. data_disks - 1).
 */
#ifndef RAID5J_LAYOUT_H
#define RAID5J_LAYOUT_H

#include "types.h"

/* md layout numbers (md superblock "layout" field, mdadm --layout) */
#define R5J_ALG_LEFT_ASYMMETRIC		0
#define R5J_ALG_RIGHT_ASYMMETRIC	1
#define R5J_ALG_LEFT_SYMMETRIC		2
#define R5J_ALG_RIGHT_SYMMETRIC		3
#define R5J_ALG_PARITY_0		4
#define R5J_ALG_PARITY_N		5
#define R5J_ALG_ROTATING_ZERO_RESTART	8	/* RAID6 DDF */
#define R5J_ALG_ROTATING_N_RESTART	9	/* RAID6 DDF */
#define R5J_ALG_ROTATING_N_CONTINUE	10	/* RAID6 DDF */
#define R5J_ALG_LEFT_ASYMMETRIC_6	16	/* RAID6, Q on last device */
#define R5J_ALG_RIGHT_ASYMMETRIC_6	17
#define R5J_ALG_LEFT_SYMMETRIC_6	18
#define R5J_ALG_RIGHT_SYMMETRIC_6	19
#define R5J_ALG_PARITY_0_6		20

#define R5J_STRIPE_SECTORS	8	/* one 4 KiB block per member */
#define R5J_STRIPE_SHIFT	3
#define R5J_MAX_DISKS		256

struct r5j_geom {
	int level;		/* 4, 5 or 6 */
	int layout;		/* R5J_ALG_*; ignored for RAID4 */
	int raid_disks;		/* members, parity included */
	u32 chunk_sectors;	/* >= 8, multiple of 8; mainline also wants a power of 2 */
};

/* Where one stripe's parity lives and how its data is ordered. */
struct r5j_stripe_map {
	int pd_idx;		/* member holding P */
	int qd_idx;		/* member holding Q, -1 unless RAID6 */
	bool ddf_layout;	/* RAID6 syndrome order is by member index */
};

/* Validate a geometry; returns 0 or -EINVAL and, if msg, a reason. */
int r5j_geom_check(const struct r5j_geom *g, const char **msg);

/*
 * The RAID6 layout whose first raid_disks - 1 members are placed exactly
 * as this RAID5 layout (Q on the new last member), and back; -1: none.
 */
int r5j_layout_5_to_6(int layout);
int r5j_layout_6_to_5(int layout);

/* Number of parity members (1 for RAID4/5, 2 for RAID6). */
int r5j_geom_parity_disks(const struct r5j_geom *g);

/* Number of data members. */
int r5j_geom_data_disks(const struct r5j_geom *g);

/*
 * Map an array sector to its member and dev sector.  *dd_idx receives the
 * data member, *map the parity members of that stripe.  Returns the dev sector.
 */
u64 r5j_map_array_sector(const struct r5j_geom *g, u64 array_sector,
			 int *dd_idx, struct r5j_stripe_map *map);

/* Parity members of the stripe holding dev_sector. */
void r5j_stripe_parity(const struct r5j_geom *g, u64 dev_sector,
		       struct r5j_stripe_map *map);

/*
 * Inverse mapping: the array sector stored at dev_sector on data member
 * dev_idx (dev_idx must not be P or Q of that stripe).
 */
u64 r5j_array_sector_of(const struct r5j_geom *g, u64 dev_sector, int dev_idx);

/*
 * RAID6 syndrome order.  gen_syndrome() takes r5j_syndrome_disks() + 2 block
 * pointers: data slots first, then P, then Q.  r5j_syndrome_slot() gives the
 * slot of member dev_idx: data members a value below r5j_syndrome_disks(),
 * P exactly r5j_syndrome_disks(), Q that plus one.  For md layouts the data
 * slots follow member order starting at the member after Q (wrapping); that
 * is not the logical data order for layouts 0, 1, 18 and 19.  For RAID4/5,
 * data slots are the logical data order and P is r5j_syndrome_disks() (no Q).
 * For DDF layouts there is one slot per
 * member in member order (r5j_syndrome_disks() == raid_disks), so two data
 * slots (where P and Q sit) get no member: callers fill every slot with a
 * zero block first, then place the members.
 */
int r5j_syndrome_disks(const struct r5j_geom *g, const struct r5j_stripe_map *map);
int r5j_syndrome_slot(const struct r5j_geom *g, const struct r5j_stripe_map *map,
		      int dev_idx);

/*
 * The blocks of an array range, one stripe row at a time: every block of
 * the range that lives in a row comes out before the next row starts, so a
 * caller can attach a request to each stripe once.  Array sector
 * (n * data_disks + k) * chunk + o lies in row (n, o), whatever the layout.
 *
 *	r5j_rows_init(&it, g, first, last);
 *	while (r5j_rows_next(&it, &dev_sector))
 *		while (r5j_rows_block(&it, &block))
 *			... block: array sector, multiple of 8, in row dev_sector
 */
struct r5j_rows {
	const struct r5j_geom *g;
	u64 first, last;	/* the range, array sectors */
	u64 n, n_last;		/* chunk stripe: current and last */
	u64 base;		/* array sector of chunk stripe n */
	u32 o, o_hi;		/* current offset in the chunk, end of row */
	int k;			/* next data chunk of the row to look at */
	bool fresh;		/* o is a row not yet returned */
};

void r5j_rows_init(struct r5j_rows *it, const struct r5j_geom *g,
		   u64 first, u64 last);
bool r5j_rows_next(struct r5j_rows *it, u64 *dev_sector);
bool r5j_rows_block(struct r5j_rows *it, u64 *block);

/* Array size in sectors for members of dev_sectors (rounded to chunks). */
u64 r5j_array_size(const struct r5j_geom *g, u64 dev_sectors);

#endif /* RAID5J_LAYOUT_H */
