/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parity of one stripe: P (RAID4/5/6) and Q (RAID6), and rebuilding lost
 * blocks from the rest.
 *
 * The caller (the stripe engine) passes blocks[], one 4 KiB block address
 * per member, indexed by member (0 .. raid_disks - 1), and the stripe's
 * r5j_stripe_map.  This file puts the blocks in the order the RAID6
 * syndrome needs (r5j_syndrome_slot(): md and DDF layouts differ), so the
 * on-disk P and Q are exactly mainline raid456's.
 *
 * In the kernel the work is done by xor_blocks() and the raid6 library
 * (raid6_call.gen_syndrome, raid6_2data_recov, raid6_datap_recov).
 * Userspace builds link stand-ins with the same entry points (declared at
 * the end of this file; tools/lib/raid6_user.c implements them).
 *
 * Nothing here sleeps or allocates, and nothing takes locks: the caller
 * owns the blocks and the work area for the duration of the call.
 */
#ifndef RAID5J_PARITY_H
#define RAID5J_PARITY_H

#include "types.h"
#include "layout.h"

#define R5J_BLOCK_SIZE	4096	/* bytes per member block of a stripe */

/* Pointer slots a work area needs for raid_disks members. */
#define R5J_PARITY_SLOTS(raid_disks)	((raid_disks) + 2)

/*
 * Working memory for one call, owned by the caller (the engine keeps one
 * per array: stripe work runs in the array's one thread).  The syndrome
 * table (up to 258 pointers) is too big for the kernel stack.
 */
struct r5j_parity_work {
	void **slots;		/* R5J_PARITY_SLOTS(raid_disks) entries */
	const void *zero;	/* R5J_BLOCK_SIZE zero bytes, never written */
	void *spare[2];		/* R5J_BLOCK_SIZE bytes each, clobbered;
				 * spare[1] only by RAID6 r5j_check_parity()
				 */
};

/* dest ^= srcs[0] ^ ... ^ srcs[count - 1] (read-modify-write of P). */
void r5j_xor_into(void *dest, void * const *srcs, int count);

/*
 * Compute parity from the data members' blocks: P for RAID4/5, P and Q for
 * RAID6.  Only the parity blocks are written.
 */
void r5j_compute_parity(const struct r5j_geom *g,
			const struct r5j_stripe_map *map, void **blocks,
			struct r5j_parity_work *w);

/*
 * Rebuild the blocks of the nfailed (0..parity disks) members listed in
 * failed[] from the other members: data, P or Q in any combination.  Only
 * the listed blocks are written.  Returns 0, or -EINVAL when more members
 * failed than the level tolerates or a member index is bad or repeated.
 */
int r5j_recover(const struct r5j_geom *g, const struct r5j_stripe_map *map,
		void **blocks, const int *failed, int nfailed,
		struct r5j_parity_work *w);

/*
 * Read-modify-write: fold data blocks into the existing parity,
 *   P ^= data[m], Q ^= {02}^slot(m) * data[m]
 * for every data member m with data[m] != NULL (others unchanged), where
 * p and q are the stripe's parity blocks (q unused for RAID4/5).  Called
 * once with the old contents of the members being written (taking them
 * out) and once with the new (putting them in).  Returns -EOPNOTSUPP when
 * the raid6 library lacks xor_syndrome (then compute the parity in full).
 */
int r5j_parity_rmw(const struct r5j_geom *g, const struct r5j_stripe_map *map,
		   void **data, void *p, void *q, struct r5j_parity_work *w);

#define R5J_P_BAD	1
#define R5J_Q_BAD	2

/*
 * Check a stripe (md's "check"): 0 when P (and Q) match the data, else
 * R5J_P_BAD | R5J_Q_BAD for the ones that don't.  No block is written;
 * the parity is recomputed into w->spare[].
 */
int r5j_check_parity(const struct r5j_geom *g,
		     const struct r5j_stripe_map *map, void **blocks,
		     struct r5j_parity_work *w);

#ifndef __KERNEL__
/*
 * The kernel library entry points parity.c calls, with their kernel
 * signatures (<linux/raid/xor.h>, <linux/raid/pq.h>).  A userspace program
 * linking parity.c provides them (tools/lib/raid6_user.c).
 */
#define MAX_XOR_BLOCKS 4
void xor_blocks(unsigned int count, unsigned int bytes, void *dest,
		void **srcs);

struct raid6_calls {
	void (*gen_syndrome)(int disks, size_t bytes, void **ptrs);
	void (*xor_syndrome)(int disks, int start, int stop, size_t bytes,
			     void **ptrs);
	int (*valid)(void);
	const char *name;
	int priority;
};

extern struct raid6_calls raid6_call;
extern void (*raid6_2data_recov)(int disks, size_t bytes, int faila,
				 int failb, void **ptrs);
extern void (*raid6_datap_recov)(int disks, size_t bytes, int faila,
				 void **ptrs);
#endif

#endif /* RAID5J_PARITY_H */
