// SPDX-License-Identifier: GPL-2.0
/*
 * Reshape geometry (include/raid5j/reshape.h, Documentation/reshape.md).
 *
 * A reshape moves array sectors, one step at a time, from the previous to
 * the next geometry, in array order (forwards from 0, or backwards from
 * the end when the next geometry stores an array sector at a higher dev
 * sector than the previous one: fewer data members, or data moved to a
 * higher data_offset).  A step writes one unit of next-geometry dev
 * sectors and reads the previous-geometry rows holding the same array
 * sectors.  The reshape position on disk says which geometry every array
 * sector maps through after a crash, so a step may only overwrite rows a
 * resume from that position will not read again.
 *
 * Pure logic: compiled into the module and into userspace.
 */
#include "raid5j/types.h"
#include "raid5j/layout.h"
#include "raid5j/reshape.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#endif

static inline u64 r5j_rs_div(u64 n, u64 d)
{
#ifdef __KERNEL__
	return div64_u64(n, d);
#else
	return n / d;
#endif
}

/* Array sectors of one chunk stripe (one row of chunks) of g. */
static u64 r5j_rs_chunk_row(const struct r5j_geom *g)
{
	return (u64)g->chunk_sectors * (u64)r5j_geom_data_disks(g);
}

int r5j_reshape_check(const struct r5j_reshape *r, const char **msg)
{
	u32 pc = r->prev.chunk_sectors, nc = r->next.chunk_sectors;
	const char *why = NULL;

	if (r5j_geom_check(&r->prev, &why) || r5j_geom_check(&r->next, &why))
		;
	/* level changes are takeovers, done without a reshape (reshape.md) */
	else if (r->prev.level != r->next.level)
		why = "a reshape keeps the level";
	else if ((pc > nc ? pc % nc : nc % pc) != 0)
		why = "the larger chunk must be a multiple of the smaller";
	else if (r->prev.raid_disks < r->next.raid_disks && r->backwards)
		why = "adding members reshapes forwards";
	else if (r->prev.raid_disks > r->next.raid_disks && !r->backwards)
		why = "removing members reshapes backwards";
	else if (r->backwards ? r->offset_diff < 0 : r->offset_diff > 0)
		why = "data_offset must move against the reshape direction";
	else if (r->dev_sectors < r5j_reshape_unit(r))
		why = "members smaller than one reshape unit";

	if (msg)
		*msg = why;
	return why ? -EINVAL : 0;
}

u32 r5j_reshape_unit(const struct r5j_reshape *r)
{
	return r->prev.chunk_sectors > r->next.chunk_sectors ?
	       r->prev.chunk_sectors : r->next.chunk_sectors;
}

/* Array sectors of one step: a unit on every next-geometry data member. */
static u64 r5j_rs_step_sectors(const struct r5j_reshape *r)
{
	return (u64)r5j_reshape_unit(r) * (u64)r5j_geom_data_disks(&r->next);
}

/*
 * Whole units of the members, in the next geometry.  Growing, the part
 * past the old array's end is written with zeroes; shrinking, the array
 * was cut to this size (mdadm --array-size) before the reshape started.
 */
u64 r5j_reshape_end(const struct r5j_reshape *r)
{
	u64 u = r5j_reshape_unit(r);

	return r5j_rs_div(r->dev_sectors, u) * r5j_rs_step_sectors(r);
}

u64 r5j_reshape_start_pos(const struct r5j_reshape *r)
{
	return r->backwards ? r5j_reshape_end(r) : 0;
}

bool r5j_reshape_finished(const struct r5j_reshape *r, u64 pos)
{
	return r->backwards ? pos == 0 : pos >= r5j_reshape_end(r);
}

bool r5j_reshape_pos_valid(const struct r5j_reshape *r, u64 pos)
{
	u64 step = r5j_rs_step_sectors(r);

	return pos <= r5j_reshape_end(r) && r5j_rs_div(pos, step) * step == pos;
}

u64 r5j_reshape_walked(const struct r5j_reshape *r, u64 pos)
{
	u64 done = r->backwards ? r5j_reshape_end(r) - pos : pos;

	return r5j_rs_div(done, (u64)r5j_geom_data_disks(&r->next));
}

bool r5j_reshape_unsafe(u64 safe, u64 progress, u64 first, u64 last)
{
	u64 lo = safe < progress ? safe : progress;
	u64 hi = safe < progress ? progress : safe;

	return lo < hi && first < hi && last > lo;
}

bool r5j_reshape_ahead(const struct r5j_reshape *r, u64 pos, u64 array_sector)
{
	return r->backwards ? array_sector < pos : array_sector >= pos;
}

const struct r5j_geom *r5j_reshape_geom(const struct r5j_reshape *r, u64 pos,
					u64 array_sector)
{
	return r5j_reshape_ahead(r, pos, array_sector) ? &r->prev : &r->next;
}

int r5j_reshape_row_side(const struct r5j_reshape *r, u64 pos,
			 const struct r5j_geom *g, u64 dev_sector)
{
	u64 k = r5j_rs_div(dev_sector, g->chunk_sectors);
	u64 o = dev_sector - k * g->chunk_sectors;
	u64 first = k * r5j_rs_chunk_row(g) + o;
	u64 last = first + (u64)(r5j_geom_data_disks(g) - 1) * g->chunk_sectors;
	bool a = r5j_reshape_ahead(r, pos, first);
	bool b = r5j_reshape_ahead(r, pos, last);

	if (a && b)
		return 1;
	if (!a && !b)
		return -1;
	return 0;
}

const struct r5j_geom *r5j_reshape_log_geom(const struct r5j_reshape *r,
					    u64 pos, const u64 *data, int n,
					    u64 parity_dev)
{
	const struct r5j_geom *g;
	int i, side;

	if (parity_dev % R5J_STRIPE_SECTORS)
		return NULL;
	if (!n) {
		bool p = r5j_reshape_row_side(r, pos, &r->prev, parity_dev) == 1;
		bool q = r5j_reshape_row_side(r, pos, &r->next, parity_dev) == -1;

		/* both at once does not occur (test_reshape's model checks) */
		return p == q ? NULL : p ? &r->prev : &r->next;
	}
	g = r5j_reshape_geom(r, pos, data[0]);
	/*
	 * A next row is logged only when all of it is done (positions are
	 * whole next rows, R4).  A prev row is logged when the blocks
	 * written are ahead: a row straddling the position takes writes to
	 * its blocks ahead of it, its done blocks (intact on the members,
	 * R1) only feed parity (reshape.md 5.1).  Every DATA block on g's
	 * side, in the row of parity_dev.
	 */
	side = r5j_reshape_row_side(r, pos, g, parity_dev);
	if (g == &r->prev ? side < 0 : side >= 0)
		return NULL;
	for (i = 0; i < n; i++) {
		struct r5j_stripe_map map;
		int dd;
		u64 dev;

		if (r5j_reshape_geom(r, pos, data[i]) != g)
			return NULL;
		dev = r5j_map_array_sector(g, data[i], &dd, &map);
		if (dev - dev % R5J_STRIPE_SECTORS != parity_dev)
			return NULL;
	}
	return g;
}

/* Previous-geometry rows holding array sectors [lo, hi), lo < hi. */
static void r5j_rs_src(const struct r5j_reshape *r, u64 lo, u64 hi,
		       struct r5j_reshape_step *st)
{
	u64 row = r5j_rs_chunk_row(&r->prev);
	u32 c = r->prev.chunk_sectors;
	u64 member = r5j_rs_div(r->dev_sectors, c) * c;

	st->src_lo = r5j_rs_div(lo, row) * c;
	st->src_hi = (r5j_rs_div(hi - 1, row) + 1) * c;
	/* past the previous array's end: zeroes, nothing to read */
	if (st->src_hi > member)
		st->src_hi = member;
	if (st->src_lo > st->src_hi)
		st->src_lo = st->src_hi;
}

int r5j_reshape_step(const struct r5j_reshape *r, u64 pos,
		     struct r5j_reshape_step *st)
{
	u64 step = r5j_rs_step_sectors(r);
	u64 nd = (u64)r5j_geom_data_disks(&r->next);

	if (r5j_reshape_finished(r, pos) || !r5j_reshape_pos_valid(r, pos))
		return -ERANGE;
	st->pos = pos;
	if (r->backwards) {
		st->array_hi = pos;
		st->array_lo = pos - step;
		st->pos_after = st->array_lo;
	} else {
		st->array_lo = pos;
		st->array_hi = pos + step;
		st->pos_after = st->array_hi;
	}
	st->dst_lo = r5j_rs_div(st->array_lo, nd);
	st->dst_hi = st->dst_lo + r5j_reshape_unit(r);
	r5j_rs_src(r, st->array_lo, st->array_hi, st);
	return 0;
}

u64 r5j_reshape_keep_from(const struct r5j_reshape *r, u64 safe)
{
	return r5j_rs_div(safe, r5j_rs_chunk_row(&r->prev)) *
	       r->prev.chunk_sectors;
}

u64 r5j_reshape_keep_to(const struct r5j_reshape *r, u64 safe)
{
	if (!safe)
		return 0;
	return (r5j_rs_div(safe - 1, r5j_rs_chunk_row(&r->prev)) + 1) *
	       r->prev.chunk_sectors;
}

/*
 * Compare where the step writes, in the previous geometry's dev sector
 * numbering (offset_diff applied), with the rows a resume would read:
 * first with the position already on disk, then with the step's own
 * position (what a checkpoint would write).  Signed: a forwards write may
 * land below the previous data_offset.
 */
enum r5j_reshape_need r5j_reshape_need(const struct r5j_reshape *r,
				       const struct r5j_reshape_step *st,
				       u64 safe)
{
	if (r->backwards) {
		s64 w = (s64)st->dst_lo + r->offset_diff;

		if (w >= (s64)r5j_reshape_keep_to(r, safe))
			return R5J_RESHAPE_GO;
		if (w >= (s64)r5j_reshape_keep_to(r, st->pos))
			return R5J_RESHAPE_CHECKPOINT;
	} else {
		s64 w = (s64)st->dst_hi + r->offset_diff;

		if (w <= (s64)r5j_reshape_keep_from(r, safe))
			return R5J_RESHAPE_GO;
		if (w <= (s64)r5j_reshape_keep_from(r, st->pos))
			return R5J_RESHAPE_CHECKPOINT;
	}
	return R5J_RESHAPE_BACKUP;
}

/*
 * raid5_run()'s test, so raid5j resumes exactly the reshapes raid456
 * resumes: the position is on a step boundary, and the next step's write
 * has not reached the first row it reads (measured in units, as mainline
 * does).  A reshape that keeps the member count overlaps itself unless
 * the data moves by at least a chunk of either size; mdadm then drives it
 * with a backup and starts the array read-only.
 */
bool r5j_reshape_resume_ok(const struct r5j_reshape *r, u64 pos, bool ro)
{
	u64 u = r5j_reshape_unit(r);
	u64 here_new, here_old;
	s64 d = r->offset_diff < 0 ? -r->offset_diff : r->offset_diff;

	if (!r5j_reshape_pos_valid(r, pos))
		return false;
	if (r->prev.raid_disks == r->next.raid_disks)
		return ro || (d >= r->prev.chunk_sectors &&
			      d >= r->next.chunk_sectors);
	here_new = r5j_rs_div(pos, r5j_rs_step_sectors(r)) * u;
	here_old = r5j_rs_div(pos, u * (u64)r5j_geom_data_disks(&r->prev)) * u;
	if (r->backwards)
		return (s64)here_new + r->offset_diff > (s64)here_old;
	return (s64)here_new < (s64)here_old - r->offset_diff;
}
