// SPDX-License-Identifier: GPL-2.0
/*
 * Stripe parity over the kernel's xor and raid6 libraries.
 *
 * The raid6 library works on a table of block pointers: data slots first,
 * then P, then Q ("disks" entries in all), with Q = sum of g^slot * D[slot]
 * over GF(2^8).  Which member goes in which slot is the layout's business
 * (r5j_syndrome_slot()); getting it wrong gives a valid-looking Q that
 * mainline raid456 would reject, so every RAID6 call here builds the table
 * through r5j_fill_slots() and nowhere else.
 *
 * Compiled into the module and into userspace tests: only raid5j headers,
 * plus the two library headers in the kernel.
 */
#include "raid5j/types.h"
#include "raid5j/layout.h"
#include "raid5j/parity.h"

#ifdef __KERNEL__
#include <linux/raid/xor.h>
#include <linux/raid/pq.h>
#endif

void r5j_xor_into(void *dest, void * const *srcs, int count)
{
	while (count > 0) {
		int n = count < MAX_XOR_BLOCKS ? count : MAX_XOR_BLOCKS;

		/* xor_blocks() only reads srcs; it is just not declared const */
		xor_blocks(n, R5J_BLOCK_SIZE, dest, (void **)srcs);
		srcs += n;
		count -= n;
	}
}

/* dest = xor of srcs[0 .. count - 1], count >= 1. */
static void r5j_xor_set(void *dest, void **srcs, int count)
{
	memcpy(dest, srcs[0], R5J_BLOCK_SIZE);
	r5j_xor_into(dest, srcs + 1, count - 1);
}

/*
 * Gather into w->slots the blocks of every member except skip and, on
 * RAID6, Q: the sources of a P-style xor.  Returns their count.
 */
static int r5j_xor_sources(const struct r5j_geom *g,
			   const struct r5j_stripe_map *map, void **blocks,
			   int skip, struct r5j_parity_work *w)
{
	int m, count = 0;

	for (m = 0; m < g->raid_disks; m++)
		if (m != skip && m != map->qd_idx)
			w->slots[count++] = blocks[m];
	return count;
}

/* Rebuild member m (data or P) as the xor of the others (Q not used). */
static void r5j_xor_rebuild(const struct r5j_geom *g,
			    const struct r5j_stripe_map *map, void **blocks,
			    int m, struct r5j_parity_work *w)
{
	int count = r5j_xor_sources(g, map, blocks, m, w);

	r5j_xor_set(blocks[m], w->slots, count);
}

/*
 * Build the syndrome table in w->slots and return its length (the raid6
 * library's "disks").  DDF layouts leave the slots of P and Q's members
 * empty: they get the zero block.
 */
static int r5j_fill_slots(const struct r5j_geom *g,
			  const struct r5j_stripe_map *map, void **blocks,
			  struct r5j_parity_work *w)
{
	int sd = r5j_syndrome_disks(g, map);
	int i;

	for (i = 0; i < sd; i++)
		w->slots[i] = (void *)w->zero;
	for (i = 0; i < g->raid_disks; i++)
		w->slots[r5j_syndrome_slot(g, map, i)] = blocks[i];
	return sd + 2;
}

/* Q from the data, P into w->spare[0] and thrown away. */
static void r5j_compute_q(const struct r5j_geom *g,
			  const struct r5j_stripe_map *map, void **blocks,
			  struct r5j_parity_work *w)
{
	int disks = r5j_fill_slots(g, map, blocks, w);

	w->slots[disks - 2] = w->spare[0];
	raid6_call.gen_syndrome(disks, R5J_BLOCK_SIZE, w->slots);
}

void r5j_compute_parity(const struct r5j_geom *g,
			const struct r5j_stripe_map *map, void **blocks,
			struct r5j_parity_work *w)
{
	int disks;

	if (g->level != 6) {
		r5j_xor_rebuild(g, map, blocks, map->pd_idx, w);
		return;
	}
	disks = r5j_fill_slots(g, map, blocks, w);
	raid6_call.gen_syndrome(disks, R5J_BLOCK_SIZE, w->slots);
}

static int r5j_recover6(const struct r5j_geom *g,
			const struct r5j_stripe_map *map, void **blocks,
			const int *failed, int nfailed,
			struct r5j_parity_work *w)
{
	bool lost_p = false, lost_q = false;
	int data[2], ndata = 0;
	int i, disks, a, b;

	for (i = 0; i < nfailed; i++) {
		if (failed[i] == map->pd_idx)
			lost_p = true;
		else if (failed[i] == map->qd_idx)
			lost_q = true;
		else
			data[ndata++] = failed[i];
	}

	switch (ndata) {
	case 0:
		if (lost_p && lost_q)
			r5j_compute_parity(g, map, blocks, w);
		else if (lost_p)
			r5j_xor_rebuild(g, map, blocks, map->pd_idx, w);
		else if (lost_q)
			r5j_compute_q(g, map, blocks, w);
		return 0;
	case 1:
		if (!lost_p) {
			/* P is there: plain xor, then Q if it went too */
			r5j_xor_rebuild(g, map, blocks, data[0], w);
			if (lost_q)
				r5j_compute_q(g, map, blocks, w);
			return 0;
		}
		disks = r5j_fill_slots(g, map, blocks, w);
		raid6_datap_recov(disks, R5J_BLOCK_SIZE,
				  r5j_syndrome_slot(g, map, data[0]), w->slots);
		return 0;
	default:
		disks = r5j_fill_slots(g, map, blocks, w);
		a = r5j_syndrome_slot(g, map, data[0]);
		b = r5j_syndrome_slot(g, map, data[1]);
		/* the library wants the lower slot first */
		raid6_2data_recov(disks, R5J_BLOCK_SIZE, a < b ? a : b,
				  a < b ? b : a, w->slots);
		return 0;
	}
}

int r5j_recover(const struct r5j_geom *g, const struct r5j_stripe_map *map,
		void **blocks, const int *failed, int nfailed,
		struct r5j_parity_work *w)
{
	int i, j;

	if (nfailed < 0 || nfailed > r5j_geom_parity_disks(g))
		return -EINVAL;
	for (i = 0; i < nfailed; i++) {
		if (failed[i] < 0 || failed[i] >= g->raid_disks)
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (failed[j] == failed[i])
				return -EINVAL;
	}
	if (nfailed == 0)
		return 0;
	if (g->level != 6) {
		r5j_xor_rebuild(g, map, blocks, failed[0], w);
		return 0;
	}
	return r5j_recover6(g, map, blocks, failed, nfailed, w);
}

int r5j_parity_rmw(const struct r5j_geom *g, const struct r5j_stripe_map *map,
		   void **data, void *p, void *q, struct r5j_parity_work *w)
{
	int sd = r5j_syndrome_disks(g, map);
	int m, slot, count = 0, start = sd, stop = -1;

	if (g->level != 6) {
		for (m = 0; m < g->raid_disks; m++)
			if (m != map->pd_idx && data[m])
				w->slots[count++] = data[m];
		r5j_xor_into(p, w->slots, count);
		return 0;
	}
	if (!raid6_call.xor_syndrome)
		return -EOPNOTSUPP;

	for (slot = 0; slot < sd; slot++)
		w->slots[slot] = (void *)w->zero;
	for (m = 0; m < g->raid_disks; m++) {
		if (m == map->pd_idx || m == map->qd_idx || !data[m])
			continue;
		slot = r5j_syndrome_slot(g, map, m);
		w->slots[slot] = data[m];
		if (slot < start)
			start = slot;
		if (slot > stop)
			stop = slot;
	}
	if (stop < 0)
		return 0;
	w->slots[sd] = p;
	w->slots[sd + 1] = q;
	/* only slots start..stop are read; the zero block fills the gaps */
	raid6_call.xor_syndrome(sd + 2, start, stop, R5J_BLOCK_SIZE, w->slots);
	return 0;
}

int r5j_check_parity(const struct r5j_geom *g,
		     const struct r5j_stripe_map *map, void **blocks,
		     struct r5j_parity_work *w)
{
	int bad = 0;
	int count, disks;

	if (g->level != 6) {
		count = r5j_xor_sources(g, map, blocks, map->pd_idx, w);
		r5j_xor_set(w->spare[0], w->slots, count);
	} else {
		disks = r5j_fill_slots(g, map, blocks, w);
		w->slots[disks - 2] = w->spare[0];
		w->slots[disks - 1] = w->spare[1];
		raid6_call.gen_syndrome(disks, R5J_BLOCK_SIZE, w->slots);
		if (memcmp(w->spare[1], blocks[map->qd_idx], R5J_BLOCK_SIZE))
			bad |= R5J_Q_BAD;
	}
	if (memcmp(w->spare[0], blocks[map->pd_idx], R5J_BLOCK_SIZE))
		bad |= R5J_P_BAD;
	return bad;
}
