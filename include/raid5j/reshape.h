/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reshape geometry: which layout an array sector maps through while a
 * reshape moves the array from one geometry to another, what one reshape
 * step reads and writes, and when the reshape position must be written to
 * the superblock before a step may write (Documentation/reshape.md).
 *
 * Pure logic like layout.h: compiled into the module and userspace tests.
 *
 * Terms:
 *   position   - md's reshape_position: an array sector.  Array sectors on
 *                the "done" side of it are in the next geometry, the others
 *                in the previous one.  Forwards the done side is below the
 *                position, backwards it is at or above it.
 *   unit       - dev sectors of the next geometry one step writes: the
 *                larger of the two chunk sizes (what mainline processes at
 *                once; the smaller chunk must divide it).
 *   offset_diff - new_data_offset - data_offset of the member with the
 *                least room (mainline's min_offset_diff): <= 0 forwards,
 *                >= 0 backwards.  Dev sectors of the next geometry sit at
 *                dev sector + offset_diff of the previous one's numbering.
 */
#ifndef RAID5J_RESHAPE_H
#define RAID5J_RESHAPE_H

#include "types.h"
#include "layout.h"

struct r5j_reshape {
	struct r5j_geom prev;	/* geometry of the part not yet reshaped */
	struct r5j_geom next;	/* geometry being written */
	u64 dev_sectors;	/* per member, as mddev->dev_sectors */
	s64 offset_diff;
	bool backwards;		/* position runs from the end down to 0 */
};

/* One step: array sectors [array_lo, array_hi) move to the next geometry. */
struct r5j_reshape_step {
	u64 pos;		/* position before the step */
	u64 pos_after;		/* position once the step is done */
	u64 array_lo, array_hi;
	u64 dst_lo, dst_hi;	/* next-geometry dev sectors written */
	u64 src_lo, src_hi;	/* previous-geometry dev sectors read (may be empty) */
};

/* What must happen before a step may write its destination. */
enum r5j_reshape_need {
	R5J_RESHAPE_GO,		/* safe with the position already on disk */
	R5J_RESHAPE_CHECKPOINT,	/* write the step's position to the superblock first */
	R5J_RESHAPE_BACKUP,	/* overwrites its own sources: only with a backup */
};

/* Validate a reshape; returns 0 or -EINVAL and, if msg, a reason. */
int r5j_reshape_check(const struct r5j_reshape *r, const char **msg);

u32 r5j_reshape_unit(const struct r5j_reshape *r);

/* Array sectors the reshape moves: [0, end).  Forwards it starts at 0. */
u64 r5j_reshape_end(const struct r5j_reshape *r);
u64 r5j_reshape_start_pos(const struct r5j_reshape *r);
bool r5j_reshape_finished(const struct r5j_reshape *r, u64 pos);

/* A position md may hold: a multiple of unit * next data disks in [0, end]. */
bool r5j_reshape_pos_valid(const struct r5j_reshape *r, u64 pos);

/*
 * Next-geometry dev sectors md's sync thread has walked when the reshape
 * is at pos: its sync_request() counter (from 0 forwards, from the end
 * backwards, as raid456's reshape_request()).
 */
u64 r5j_reshape_walked(const struct r5j_reshape *r, u64 pos);

/*
 * True if array sectors [first, last) touch the range reshaped but not
 * yet on disk, between the on-disk position safe and progress (either
 * direction): a write there waits for the next checkpoint (R4).
 */
bool r5j_reshape_unsafe(u64 safe, u64 progress, u64 first, u64 last);

/* True if array_sector is not yet reshaped at pos (maps through prev). */
bool r5j_reshape_ahead(const struct r5j_reshape *r, u64 pos, u64 array_sector);
const struct r5j_geom *r5j_reshape_geom(const struct r5j_reshape *r, u64 pos,
					u64 array_sector);

/*
 * Side of pos a stripe (4 KiB row at dev_sector of geometry g, which is
 * r->prev or r->next) lies on: 1 all its data ahead, -1 all done, 0 both.
 */
int r5j_reshape_row_side(const struct r5j_reshape *r, u64 pos,
			 const struct r5j_geom *g, u64 dev_sector);

/*
 * Geometry a logged stripe replays through when the superblock says pos
 * (Documentation/reshape.md, R11): every DATA sector (n of them, may be 0)
 * on the same side of pos, and parity_dev (the PARITY location, 4 KiB
 * aligned) their row in that geometry, a next row wholly done, a prev row
 * not wholly done (it may straddle pos: only its blocks ahead are
 * written); with no DATA the row must be wholly on its geometry's side in
 * exactly one geometry.  NULL: raid5j never logs such a stripe at pos
 * (corrupt log, or logged before a checkpoint that should have retired
 * it).
 */
const struct r5j_geom *r5j_reshape_log_geom(const struct r5j_reshape *r,
					    u64 pos, const u64 *data, int n,
					    u64 parity_dev);

/* The step taken at pos; -ERANGE if the reshape is finished at pos. */
int r5j_reshape_step(const struct r5j_reshape *r, u64 pos,
		     struct r5j_reshape_step *st);

/*
 * Previous-geometry dev sectors a resume from position safe still reads
 * (whole rows, parity included): forwards [r5j_reshape_keep_from(), end of
 * member), backwards [0, r5j_reshape_keep_to()).
 */
u64 r5j_reshape_keep_from(const struct r5j_reshape *r, u64 safe);
u64 r5j_reshape_keep_to(const struct r5j_reshape *r, u64 safe);

/* Before writing step st with position safe on disk. */
enum r5j_reshape_need r5j_reshape_need(const struct r5j_reshape *r,
				       const struct r5j_reshape_step *st,
				       u64 safe);

/*
 * Mainline's assembly test (raid5_run()): may a reshape at pos resume
 * without userspace help?  ro: the array starts read-only (mdadm does that
 * for reshapes that keep the member count).
 */
bool r5j_reshape_resume_ok(const struct r5j_reshape *r, u64 pos, bool ro);

#endif /* RAID5J_RESHAPE_H */
