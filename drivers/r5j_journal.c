// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j write journal at run time: units, their ordered release to the
 * members, reclaim, quiesce, replacement.  It logs write-through's
 * stripes (every stripe write is first made stable in the log, then
 * written to the members) and write-back's cached data and destage
 * parity, and it holds the ring's room policy for write-back (who may
 * recover the log: r5j_params.h; journal.md L11-L13).
 *
 * Ordering rules, journal.md L1-L4 (why a crash never shows a write
 * hole):
 *  1. A unit's blocks reach the members only once that unit AND every
 *     earlier unit are stable (L4): recovery stops at the first
 *     broken unit, so nothing after it may be on the members half-written.
 *  2. journal_tail moves past a unit only after its member writes completed
 *     AND the members were flushed AND the superblock holding the new tail
 *     was written; only then is that space reused.
 *  3. A completed write is in the log until L2 frees it, so flushes and
 *     FUA from above are already honoured by the log -- while the journal
 *     works.  Once it failed, the members are flushed once and flushes and
 *     FUA go to them again.
 *  4. A unit is stable once its write completed and, if the journal has a
 *     volatile write cache, a flush of the journal submitted after that
 *     completion has completed.  Units carry no FUA; one flush in flight
 *     at a time covers every unit completed before it was sent (the daemon
 *     sends it: issue_log_flush()).  A unit alone in the log goes FUA
 *     instead.  A failed flush fails the journal.
 *
 * Ring space: [tail, head) is reserved; one block more is always kept for
 * the empty unit a quiesce or clean stop writes.
 */
#include <linux/blkdev.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "raid5j/crc32c.h"
#include "raid5j/sb1csum.h"
#include "r5j_journal_int.h"
#include "r5j_params.h"
#include "r5j_trace.h"

static void wake_reclaim(struct r5j_journal *log)
{
	md_wakeup_thread(log->reclaim_thread);
}

static u64 free_sectors(struct r5j_journal *log)
{
	u64 reserve = R5J_BLOCK_SECTORS;	/* the quiesce empty unit */

	if (log->used + reserve >= log->fmt.ring_sectors)
		return 0;
	return log->fmt.ring_sectors - log->used - reserve;
}

static struct r5j_log_unit *new_unit(struct r5j_journal *log)
{
	struct r5j_log_unit *unit;

	unit = mempool_alloc(&log->unit_pool, GFP_NOIO);
	memset(unit, 0, sizeof(*unit));
	unit->log = log;
	unit->meta = mempool_alloc(&log->meta_pool, GFP_NOIO);
	unit->bio = bio_alloc_bioset(log->rdev->bdev, BIO_MAX_VECS,
				     REQ_OP_WRITE | REQ_SYNC, GFP_NOIO, &log->bs);
	INIT_LIST_HEAD(&unit->stripes);
	INIT_LIST_HEAD(&unit->flush_list);
	unit->state = R5J_UNIT_OPEN;
	return unit;
}

static void free_unit(struct r5j_log_unit *unit)
{
	struct r5j_journal *log = unit->log;

	if (unit->bio)
		bio_put(unit->bio);
	if (unit->meta)
		mempool_free(unit->meta, &log->meta_pool);
	mempool_free(unit, &log->unit_pool);
}

/* Open a unit at head (log->lock held, room checked by the caller). */
static void open_unit(struct r5j_journal *log, struct r5j_log_unit *unit)
{
	unit->seq = log->seq++;
	unit->pos = log->head;
	unit->lsn = log->lsn;
	log->lsn += R5J_BLOCK_SECTORS;
	unit->sectors = R5J_BLOCK_SECTORS;
	r5j_meta_init(page_address(unit->meta), unit->pos, unit->seq);
	__bio_add_page(unit->bio, unit->meta, PAGE_SIZE, 0);
	log->head = r5j_ring_add(&log->fmt, log->head, R5J_BLOCK_SECTORS);
	log->used += R5J_BLOCK_SECTORS;
	list_add_tail(&unit->list, &log->units);
	log->open = unit;
}

/* Release, in log order, the stripes of units that are stable. */
static void release_stable_units(struct r5j_journal *log)
{
	struct r5j_log_unit *unit;
	struct r5j_stripe *sh, *tmp;
	int i;

	list_for_each_entry(unit, &log->units, list) {
		if (unit->state == R5J_UNIT_RELEASED ||
		    unit->state == R5J_UNIT_DONE)
			continue;
		if (unit->state != R5J_UNIT_STABLE)
			break;
		trace_r5j_unit_stable(log->mddev, unit->seq, unit->pos,
				      unit->sectors, unit->fua,
				      blk_status_to_errno(unit->status));
		/* its destages' parity is durable: raid456 replays them */
		for (i = 0; i < R5J_RAID456_HASH_LISTS; i++) {
			log->wb_lists[i] -= min_t(u32, log->wb_lists[i],
						  unit->wb_parity[i]);
			unit->wb_parity[i] = 0;
		}
		list_for_each_entry_safe(sh, tmp, &unit->stripes, log_list) {
			list_del_init(&sh->log_list);
			sh->write_stage = (unit->status || log->failed) ?
				R5J_W_LOG_FAILED : R5J_W_TO_MEMBERS;
			set_bit(R5J_STRIPE_HANDLE, &sh->state);
			r5j_release_stripe(sh);
		}
		unit->state = unit->stripes_pending ? R5J_UNIT_RELEASED :
			R5J_UNIT_DONE;
	}
}

static void unit_end_io(struct bio *bio)
{
	struct r5j_log_unit *unit = bio->bi_private;
	struct r5j_journal *log = unit->log;
	unsigned long flags;

	if (bio->bi_status)
		unit->status = bio->bi_status;
	rdev_dec_pending(log->rdev, log->mddev);
	if (bio != unit->bio)
		bio_put(bio);	/* the front part of a split */
	if (!atomic_dec_and_test(&unit->io_pending))
		return;
	/*
	 * Written: its bio (a full bvec table) and meta page are never used
	 * again, and a write-back unit stays until its stripes are destaged,
	 * so keeping them made memory grow with the journal (a page and a
	 * bvec table per unit).  The block layer is done with both parts.
	 */
	bio_put(unit->bio);
	unit->bio = NULL;
	mempool_free(unit->meta, &log->meta_pool);
	unit->meta = NULL;
	if (unit->status) {
		pr_err("md/raid:%s: journal write failed at sector %llu\n",
		       mdname(log->mddev), (unsigned long long)unit->pos);
		md_error(log->mddev, log->rdev);
	}
	spin_lock_irqsave(&log->lock, flags);
	log->units_in_io--;
	if (unit->volatile_cache && !unit->fua && !unit->status) {
		/* durable once a later flush completes: the daemon sends it */
		unit->state = R5J_UNIT_WRITTEN;
		list_add_tail(&unit->flush_list, &log->unflushed);
	} else {
		unit->state = R5J_UNIT_STABLE;
		release_stable_units(log);
	}
	spin_unlock_irqrestore(&log->lock, flags);
	md_wakeup_thread(log->mddev->thread);
}

static void flush_end_io(struct bio *bio)
{
	struct r5j_journal *log = bio->bi_private;
	struct mddev *mddev = log->mddev;
	struct md_rdev *rdev = log->rdev;
	blk_status_t status = bio->bi_status;
	struct r5j_log_unit *unit, *tmp;
	unsigned long flags;

	if (status) {
		pr_err("md/raid:%s: journal flush failed on %pg\n",
		       mdname(mddev), rdev->bdev);
		md_error(mddev, rdev);
	}
	spin_lock_irqsave(&log->lock, flags);
	list_for_each_entry_safe(unit, tmp, &log->flushing, flush_list) {
		list_del_init(&unit->flush_list);
		if (status)
			unit->status = status;	/* its stripes: LOG_FAILED */
		unit->state = R5J_UNIT_STABLE;
	}
	release_stable_units(log);
	log->flush_busy = false;
	spin_unlock_irqrestore(&log->lock, flags);
	/* r5j_journal_exit() may free log from here on */
	rdev_dec_pending(rdev, mddev);
	md_wakeup_thread(mddev->thread);	/* units for the next flush */
	wake_up_var(&log->flush_busy);		/* the address only */
}

/*
 * Daemon: one flush of the journal for every unit whose write completed
 * (L4), unless one is in flight: its completion wakes the daemon,
 * and the units that completed meanwhile go with the next.
 */
static void issue_log_flush(struct r5j_journal *log)
{
	struct r5j_log_unit *unit, *tmp;
	struct bio *bio = &log->flush_bio;

	if (list_empty_careful(&log->unflushed))
		return;
	spin_lock_irq(&log->lock);
	if (log->flush_busy || list_empty(&log->unflushed)) {
		spin_unlock_irq(&log->lock);
		return;
	}
	if (log->failed) {
		/* the log's copy is void: the stripes take the failed path */
		list_for_each_entry_safe(unit, tmp, &log->unflushed,
					 flush_list) {
			list_del_init(&unit->flush_list);
			unit->state = R5J_UNIT_STABLE;
		}
		release_stable_units(log);
		spin_unlock_irq(&log->lock);
		return;
	}
	list_for_each_entry(unit, &log->unflushed, flush_list)
		unit->state = R5J_UNIT_FLUSHING;
	list_splice_init(&log->unflushed, &log->flushing);
	log->flush_busy = true;
	log->stats.log_flushes++;
	spin_unlock_irq(&log->lock);

	bio_reset(bio, log->rdev->bdev, REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC);
	bio->bi_end_io = flush_end_io;
	bio->bi_private = log;
	atomic_inc(&log->rdev->nr_pending);
	submit_bio_noacct(bio);
}

static void submit_unit(struct r5j_journal *log, struct r5j_log_unit *unit)
{
	struct bio *bio = unit->bio;
	u64 ring = log->fmt.ring_sectors;
	bool wb = READ_ONCE(log->conf->writeback);

	r5j_meta_set_writeback(page_address(unit->meta), wb);
	r5j_meta_seal(page_address(unit->meta), log->fmt.seed);
	/* read per unit: the cache can be switched off (queue/write_cache) */
	unit->volatile_cache = bdev_write_cache(log->rdev->bdev);
	spin_lock_irq(&log->lock);
	/*
	 * Alone in the log (qd1): FUA, whose write and post-flush need no
	 * daemon pass in between; with others in flight, the batched flush
	 * (L4).  Stable still comes in log order.
	 */
	unit->fua = unit->volatile_cache && !log->units_in_io &&
		    list_empty(&log->unflushed) && !log->flush_busy;
	if (unit->fua)
		bio->bi_opf |= REQ_FUA;
	log->units_in_io++;
	log->wb_logged = wb;
	unit->state = R5J_UNIT_IO;
	log->stats.units++;
	log->stats.meta_bytes += r5j_meta_size(page_address(unit->meta));
	if (!unit->pages)
		log->stats.empty_units++;
	spin_unlock_irq(&log->lock);

	trace_r5j_unit_submit(log->mddev, unit->seq, unit->pos, unit->sectors,
			      unit->fua, 0);
	bio->bi_iter.bi_sector = log->rdev->data_offset + unit->pos;
	bio->bi_end_io = unit_end_io;
	bio->bi_private = unit;
	atomic_set(&unit->io_pending, 1);
	atomic_inc(&log->rdev->nr_pending);
	if (unit->pos + unit->sectors > ring) {
		/* the unit wraps: its front goes up to the ring end */
		struct bio *front = bio_split(bio, ring - unit->pos, GFP_NOIO,
					      &log->bs);

		front->bi_end_io = unit_end_io;
		front->bi_private = unit;
		atomic_inc(&unit->io_pending);
		atomic_inc(&log->rdev->nr_pending);
		bio->bi_iter.bi_sector = log->rdev->data_offset;
		submit_bio_noacct(front);
	}
	submit_bio_noacct(bio);
}

/* What add_stripe() logs of a stripe. */
enum r5j_log_what {
	R5J_LOG_STRIPE,		/* write-through: written data, then parity */
	R5J_LOG_DATA,		/* write-back: written data only */
	R5J_LOG_PARITY,		/* write-back destage: parity only */
	R5J_LOG_X,		/* parity into X, room checked by build_x() */
};

static unsigned int stripe_log_pages(struct r5j_stripe *sh,
				     enum r5j_log_what what, u32 *meta_bytes)
{
	struct r5j_conf *conf = sh->conf;
	unsigned int i, pages = 0;

	if (what == R5J_LOG_STRIPE || what == R5J_LOG_DATA)
		for (i = 0; i < conf->raid_disks; i++)
			if (!r5j_is_parity(sh, i) &&
			    !r5j_blist_empty(&sh->dev[i].written))
				pages++;
	*meta_bytes = pages * (R5J_DATA_PAYLOAD_SIZE + 4);
	if (what == R5J_LOG_DATA)
		return pages;
	*meta_bytes += R5J_DATA_PAYLOAD_SIZE + 4 * conf->max_degraded;
	return pages + conf->max_degraded;
}

/* Ring kept per dirty stripe for its destage: its parity pages. */
static u64 wb_reserve(struct r5j_conf *conf)
{
	return (u64)conf->max_degraded * R5J_BLOCK_SECTORS;
}

/*
 * Sectors kept for @stripes dirty stripes whose parity is not logged
 * (log->lock held): their parity pages, the meta blocks the destages of
 * the oldest unit's stripes may take, and those of recovery's batched
 * parity transactions (Documentation/journal.md, L11).
 */
u64 r5j_journal_wb_kept(struct r5j_journal *log, u64 stripes)
{
	int p = log->conf->max_degraded;
	u64 meta;

	if (log->fixed)
		return r5j_wb_fixed_kept(p, log->pin_cap, stripes) *
			R5J_BLOCK_SECTORS;
	if (!stripes)
		return 0;
	meta = min_t(u64, stripes, log->pin_cap) +
		DIV_ROUND_UP_ULL(stripes, r5j_parity_batch(p));
	return (stripes * p + meta) * R5J_BLOCK_SECTORS;
}

/*
 * L11's promise to recovery (lock held): after the log there is room
 * for the parity pages of every dirty stripe without logged parity, a
 * meta block per recovery batch, and (the quiesce block) the empty unit.
 * Checked after every use of the ring; a miss is counted and warned once.
 */
static void check_recovery_room(struct r5j_journal *log)
{
	int p = log->conf->max_degraded;
	u64 n = log->wb_stripes, need, free = free_sectors(log);
	struct r5j_log_unit *unit;

	if (log->fixed) {
		/*
		 * L12: R + 1 blocks after the log (the empty unit is
		 * outside free_sectors()), once recovery has replayed the
		 * leading units with no data-only stripe left (an X was
		 * logged for them) and moved the tail past them.
		 */
		if (!n)
			return;
		need = r5j_wb_fixed_reserve(p, log->pin_cap) *
			R5J_BLOCK_SECTORS;
		if (likely(free >= need))
			return;
		list_for_each_entry(unit, &log->units, list) {
			if (unit->wb_left || unit->state == R5J_UNIT_OPEN)
				break;
			free += unit->sectors;
			if (free >= need)
				return;
		}
	} else {
		need = (n * p + DIV_ROUND_UP_ULL(n, r5j_parity_batch(p))) *
			R5J_BLOCK_SECTORS;
		if (likely(free >= need))
			return;
	}
	log->stats.room_short++;
	WARN_ONCE(1, "raid5j: journal room %llu sectors below %llu for %llu dirty stripes' parity (L%s)\n",
		  free, need, n, log->fixed ? "12" : "11");
}

/*
 * Stripes raid456's recovery would find data-only (lock held): dirty
 * ones and destages whose parity unit is not stable yet, as wb_lists
 * counts them, so that what is in flight at a power cut is covered.
 */
static u64 raid456_data_only(struct r5j_journal *log)
{
	u64 n = 0;
	int i;

	for (i = 0; i < R5J_RAID456_HASH_LISTS; i++)
		n += log->wb_lists[i];
	return n;
}

/*
 * Sectors of the ring left beside the log and raid456's whole recovery
 * of it (lock held; r5j_raid456_spare() is the one predicate), @more
 * data-only stripes and @blocks dirty blocks counted beyond the present.
 * The log is counted from the durable journal_tail (log->used drops only
 * once the superblock has the new tail) with the quiesce reserve.
 */
static u64 raid456_spare(struct r5j_journal *log, u64 more, u64 blocks)
{
	u64 ring = div_u64(log->fmt.ring_sectors, R5J_BLOCK_SECTORS);
	u64 used = div_u64(log->used, R5J_BLOCK_SECTORS) + 1;

	return r5j_raid456_spare(ring, used, log->conf->max_degraded,
				 raid456_data_only(log) + more,
				 r5j_wbcache_dirty_blocks(log->conf) + blocks) *
		R5J_BLOCK_SECTORS;
}

/* Sectors raid456's recovery of the log would write (lock held). */
static u64 raid456_recovery_sectors(struct r5j_journal *log)
{
	return r5j_raid456_recovery(log->conf->max_degraded,
				    raid456_data_only(log),
				    r5j_wbcache_dirty_blocks(log->conf)) *
		R5J_BLOCK_SECTORS;
}

/*
 * Data-only stripes one raid456 hash list may get.  Destages whose
 * parity is logged but not durable yet are data-only to raid456 too:
 * they stay in wb_lists until their unit is stable, so the cap does not
 * depend on how many may be in flight (stripe_cache_size).
 */
static u32 raid456_list_cap(struct r5j_journal *log)
{
	return r5j_raid456_list_cap(log->raid456_stripes);
}

/* The fullest list's data-only stripes (lock held). */
static u32 raid456_list_max(struct r5j_journal *log)
{
	u32 most = 0;
	int i;

	for (i = 0; i < R5J_RAID456_HASH_LISTS; i++)
		most = max(most, log->wb_lists[i]);
	return most;
}

/*
 * Sectors a payload may take and raid456's recovery still fit (lock
 * held), @more dirty stripes and @blocks dirty blocks counted beyond the
 * present.  @data: it caches writes, so raid456's stripe limit applies
 * too.  Destages' parity is not held back: once durable it takes 1 + P
 * blocks of the log and frees the 2 + P + d of the stripe's recovery, and
 * until then raid456 would not find it, so it never makes the need grow.
 */
static u64 raid456_room(struct r5j_journal *log, struct r5j_stripe *sh,
			u64 more, u64 blocks, bool data)
{
	if (!log->raid456_room)
		return U64_MAX;
	/* raid456's stripe limit, for a stripe becoming data-only */
	if (data && more &&
	    log->wb_lists[r5j_raid456_hash(sh->sector)] >= raid456_list_cap(log))
		return 0;
	return raid456_spare(log, more, blocks);
}

/* Room beyond what dirty stripes keep, @more of them counted (lock held). */
static u64 room_left(struct r5j_journal *log, u64 more)
{
	u64 free = free_sectors(log);
	u64 kept = r5j_journal_wb_kept(log, log->wb_stripes + more);

	return free > kept ? free - kept : 0;
}

/*
 * Does @sh pin the oldest unit?  Its destage's parity may then use the
 * meta blocks kept for it (L11): only releasing that unit frees ring.
 */
static bool pins_oldest(struct r5j_journal *log, struct r5j_stripe *sh)
{
	return sh->dirty_unit && sh->dirty_unit ==
		list_first_entry_or_null(&log->units, struct r5j_log_unit,
					 list);
}

/*
 * L12 (lock held): the oldest unit not yet done, whose stripes' parity
 * X takes.  Units before it are done and only wait for reclaim, which
 * frees them with no parity written; the walk stops at the first not
 * done, so it is short.
 */
static struct r5j_log_unit *oldest_live(struct r5j_journal *log)
{
	struct r5j_log_unit *unit;

	list_for_each_entry(unit, &log->units, list)
		if (unit->state != R5J_UNIT_DONE)
			return unit;
	return NULL;
}

/*
 * The largest a unit may grow: the ring less the largest stripe with its
 * own meta block and the quiesce reserve.  When every unit is done,
 * reclaim keeps the newest one as the tail (reclaimable_tail()); capped
 * so, it always leaves room for any parked stripe, and tiny rings cannot
 * deadlock (Documentation/journal.md, "Tiny journals").
 */
static u64 unit_cap(struct r5j_journal *log)
{
	return log->fmt.ring_sectors -
		(u64)(log->conf->raid_disks + 2) * R5J_BLOCK_SECTORS;
}

/*
 * Put @sh in the open unit (log->lock held; the unit was allocated by the
 * caller if none is open).  -EAGAIN: no room in the ring.
 */
static int add_stripe(struct r5j_journal *log, struct r5j_stripe *sh,
		      struct r5j_log_unit **spare, struct r5j_log_unit **full,
		      enum r5j_log_what what)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_log_unit *unit = log->open;
	u32 meta_bytes, csums[R5J_MAX_PARITY_PAGES];
	unsigned int pages = stripe_log_pages(sh, what, &meta_bytes);
	u64 need = (u64)pages * R5J_BLOCK_SECTORS, room;
	bool pin = false;
	u32 off;
	void *meta;
	int i, p;

	/*
	 * The destages of the stripes pinning the oldest unit must never
	 * wait for space that only they free: dirty stripes keep room
	 * nothing else may take (L11).  A stripe becoming dirty is
	 * counted first; a destage uses its own parity pages, and if it
	 * pins the oldest unit, the meta blocks kept too.
	 */
	if (what == R5J_LOG_DATA && !test_bit(R5J_STRIPE_DIRTY, &sh->state))
		pin = true;
	room = room_left(log, pin);
	if (what == R5J_LOG_DATA || what == R5J_LOG_STRIPE)
		room = min(room, raid456_room(log, sh, pin, 0,
					      what == R5J_LOG_DATA));
	if (what == R5J_LOG_X) {
		room = free_sectors(log);	/* X alone may use R */
	} else if (what == R5J_LOG_PARITY && log->fixed) {
		/* L12: leave R + (P - 1) per stripe still without parity */
		u64 free = free_sectors(log);
		u64 kept = r5j_journal_wb_kept(log, log->wb_stripes ?
					       log->wb_stripes - 1 : 0);

		room = free > kept ? free - kept : 0;
	} else if (what == R5J_LOG_PARITY) {
		u64 free = free_sectors(log), pages_kept;

		pages_kept = (log->wb_stripes ? log->wb_stripes - 1 : 0) *
			wb_reserve(conf);
		if (pins_oldest(log, sh))
			room = free > pages_kept ? free - pages_kept : 0;
		else
			room += wb_reserve(conf);
	}

	if (unit && (unit->pages + pages > R5J_UNIT_MAX_PAGES ||
		     r5j_meta_size(page_address(unit->meta)) + meta_bytes >
		     R5J_BLOCK_SIZE ||
		     unit->sectors + need > unit_cap(log) ||
		     (pin && unit->pinners >= log->pin_cap))) {
		/* full: the caller sends it */
		*full = unit;
		log->open = NULL;
		unit = NULL;
	}
	if (!unit)
		need += R5J_BLOCK_SECTORS;
	if (need > room)
		return -EAGAIN;
	if (!unit) {
		if (!*spare)
			return -ENOMEM;
		unit = *spare;
		*spare = NULL;
		open_unit(log, unit);
	}

	meta = page_address(unit->meta);
	off = unit->sectors;
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (what == R5J_LOG_PARITY || what == R5J_LOG_X ||
		    r5j_is_parity(sh, i) ||
		    r5j_blist_empty(&dev->written))
			continue;
		dev->log_csum = r5j_page_csum(log->fmt.seed,
					      page_address(dev->page));
		r5j_meta_add_data(meta, dev->array_sector, dev->log_csum);
		/* where a reload reads a dropped dirty block back from */
		dev->log_pos = r5j_ring_add(&log->fmt, unit->pos, off);
		off += R5J_BLOCK_SECTORS;
		__bio_add_page(unit->bio, dev->page, PAGE_SIZE, 0);
	}
	for (p = 0; what != R5J_LOG_DATA && p < conf->max_degraded; p++) {
		int idx = p ? sh->map.qd_idx : sh->map.pd_idx;

		csums[p] = r5j_page_csum(log->fmt.seed,
					 page_address(sh->dev[idx].page));
		__bio_add_page(unit->bio, sh->dev[idx].page, PAGE_SIZE, 0);
	}
	if (what != R5J_LOG_DATA)
		r5j_meta_add_parity(meta, sh->sector, csums,
				    conf->max_degraded);

	unit->pages += pages;
	unit->sectors += pages * R5J_BLOCK_SECTORS;
	log->head = r5j_ring_add(&log->fmt, log->head,
				 (u64)pages * R5J_BLOCK_SECTORS);
	log->used += (u64)pages * R5J_BLOCK_SECTORS;
	log->lsn += (u64)pages * R5J_BLOCK_SECTORS;
	unit->stripes_pending++;
	sh->unit = unit;
	sh->write_stage = R5J_W_LOGGING;
	atomic_inc(&sh->count);		/* the unit's reference */
	list_add_tail(&sh->log_list, &unit->stripes);
	if (pin) {
		unit->pinners++;
		unit->wb_left++;
		log->wb_stripes++;
		log->wb_lists[r5j_raid456_hash(sh->sector)]++;
	}
	if (what == R5J_LOG_PARITY || what == R5J_LOG_X) {
		if (log->wb_stripes)
			log->wb_stripes--;
		/* data-only to raid456 until this unit is stable */
		unit->wb_parity[r5j_raid456_hash(sh->sector)]++;
		if (sh->dirty_unit && sh->dirty_unit->wb_left)
			sh->dirty_unit->wb_left--;
	}
	if (what != R5J_LOG_X)
		check_recovery_room(log);	/* build_x(): once X is whole */
	log->stats.stripes++;
	if (what == R5J_LOG_DATA) {
		log->stats.cached_writes++;
		log->stats.cached_blocks += pages;
		log->stats.data_pages += pages;
	} else {
		log->stats.data_pages += pages - conf->max_degraded;
		log->stats.parity_pages += conf->max_degraded;
	}
	return 0;
}

/*
 * Under log->lock: queue @sh, which found no room, where reclaim resumes
 * it; false: not queued (the caller retries in a new unit or returns
 * -EAGAIN).  A write-through stripe parks on log->parked whatever filled
 * up.  Write-back's data and parity do not queue behind parked
 * write-through stripes (they are other stripes: no order to keep); a
 * destage's parity without room parks on log->parked_wb until the oldest
 * unit's destages and reclaim free some (L11); data-only is refused.
 */
static bool park_stripe(struct r5j_journal *log, struct r5j_stripe *sh,
			enum r5j_log_what what, bool full)
{
	if (what == R5J_LOG_STRIPE) {
		sh->write_stage = R5J_W_PARKED;
		atomic_inc(&sh->count);	/* the parked list's reference */
		list_add_tail(&sh->log_list, &log->parked);
		log->stats.space_waits++;
		return true;
	}
	if (full || what != R5J_LOG_PARITY)
		return false;
	sh->write_stage = R5J_W_PARKED;
	atomic_inc(&sh->count);	/* the parked list's reference */
	if (log->fixed && sh->dirty_unit &&
	    sh->dirty_unit == oldest_live(log)) {
		/* L12: its parity goes into X (build_x()) */
		list_add_tail(&sh->log_list, &log->x_wait);
		log->x_count++;
	} else {
		/* L11: the oldest unit's always fit, a miscount */
		WARN_ON_ONCE(pins_oldest(log, sh));
		list_add_tail(&sh->log_list, &log->parked_wb);
		log->stats.parity_waits++;
	}
	return true;
}

/*
 * Log @sh (@what: a write-through stripe, write-back data or destage
 * parity) in the open unit, opening a new one when it is full, and send
 * the unit that filled up.  0 also when @sh was parked; -EAGAIN: no room
 * for write-back data; -EIO: the journal failed.
 */
static int log_stripe(struct r5j_journal *log, struct r5j_stripe *sh,
		      enum r5j_log_what what)
{
	struct r5j_log_unit *spare = NULL, *full;
	bool parked;
	int err;

again:
	full = NULL;
	parked = false;
	if (!log->open && !spare)
		spare = new_unit(log);
	spin_lock_irq(&log->lock);
	if (log->failed)
		err = -EIO;
	else if (what == R5J_LOG_STRIPE && !list_empty(&log->parked))
		err = -EAGAIN;		/* keep arrival order */
	else
		err = add_stripe(log, sh, &spare, &full, what);
	if (err == -EAGAIN)
		parked = park_stripe(log, sh, what, full);
	spin_unlock_irq(&log->lock);
	if (full)
		submit_unit(log, full);
	if (err == -ENOMEM || (err == -EAGAIN && !parked && full))
		goto again;		/* the open unit was full: new one */
	if (spare)
		free_unit(spare);
	if (err == -EAGAIN) {
		wake_reclaim(log);
		if (parked)
			err = 0;
	}
	return err;
}

int r5j_journal_write_stripe(struct r5j_journal *log, struct r5j_stripe *sh)
{
	return log_stripe(log, sh, R5J_LOG_STRIPE);
}

int r5j_journal_write_data(struct r5j_journal *log, struct r5j_stripe *sh)
{
	return log_stripe(log, sh, R5J_LOG_DATA);
}

int r5j_journal_write_parity(struct r5j_journal *log, struct r5j_stripe *sh)
{
	return log_stripe(log, sh, R5J_LOG_PARITY);
}

void r5j_journal_data_stable(struct r5j_journal *log, struct r5j_stripe *sh)
{
	/*
	 * journal_tail stops at the first unit not done, so pinning the
	 * oldest unit with the stripe's dirty data keeps the newer ones too.
	 */
	if (!sh->dirty_unit) {
		sh->dirty_unit = sh->unit;
		sh->unit = NULL;
		return;
	}
	r5j_journal_stripe_done(log, sh);
}

void r5j_journal_destaged(struct r5j_journal *log, struct r5j_stripe *sh)
{
	struct r5j_log_unit *unit = sh->unit;

	sh->unit = sh->dirty_unit;
	sh->dirty_unit = NULL;
	r5j_journal_stripe_done(log, sh);
	sh->unit = unit;
}

/*
 * Daemon: @sh goes to the members without its parity (blocks lost,
 * r5j_handle.c destage_lost()): it no longer needs the room kept for its
 * parity unit.  What logging its parity would have released.
 */
void r5j_journal_wb_forget(struct r5j_journal *log, struct r5j_stripe *sh)
{
	u32 *list;

	spin_lock_irq(&log->lock);
	list = &log->wb_lists[r5j_raid456_hash(sh->sector)];
	if (log->wb_stripes)
		log->wb_stripes--;
	if (*list)
		(*list)--;
	if (sh->dirty_unit && sh->dirty_unit->wb_left)
		sh->dirty_unit->wb_left--;
	spin_unlock_irq(&log->lock);
}

/* Daemon: would write_data() take @pages blocks of @sh now? */
bool r5j_journal_data_fits(struct r5j_journal *log, struct r5j_stripe *sh,
			   int pages)
{
	u64 need = (u64)(pages + 1) * R5J_BLOCK_SECTORS, room;
	bool more = !test_bit(R5J_STRIPE_DIRTY, &sh->state);

	spin_lock_irq(&log->lock);
	/* the blocks are counted dirty only once taken: count them here */
	room = min(room_left(log, more),
		   raid456_room(log, sh, more, pages, true));
	spin_unlock_irq(&log->lock);
	return need <= room;
}

/* Destage statistics: @full < 0 counts reads alone. */
void r5j_journal_count_destage(struct r5j_journal *log, int full, int reads)
{
	spin_lock_irq(&log->lock);
	log->stats.destage_reads += reads;
	if (full > 0)
		log->stats.destaged_full++;
	else if (!full)
		log->stats.destaged_partial++;
	spin_unlock_irq(&log->lock);
}

/* An rmw destage computed its parity, @saved member reads fewer than rcw. */
void r5j_journal_count_rmw(struct r5j_journal *log, int saved)
{
	spin_lock_irq(&log->lock);
	log->stats.destaged_partial++;
	log->stats.destaged_rmw++;
	log->stats.destage_reads_saved += saved;
	spin_unlock_irq(&log->lock);
}

/*
 * Write-back cache: is the ring's use (blocks and parity reserve) above
 * @high percent?  Then the stripes pinning units with an lsn below
 * *@limit must reach the members for the use to fall to @high - 10:
 * journal_tail moves only past the oldest pinned unit (journal.md rule
 * 13).  Units are contiguous in lsn, so O(1), not a walk of the units:
 * the daemon asks on every pass.
 */
bool r5j_journal_over_high(struct r5j_journal *log, int high, u64 *limit)
{
	u64 ring = log->fmt.ring_sectors, use, target;
	struct r5j_log_unit *first;

	spin_lock_irq(&log->lock);
	use = log->used + r5j_journal_wb_kept(log, log->wb_stripes);
	if (log->raid456_room && raid456_data_only(log)) {
		/* writes are not cached past raid456's room: destage before */
		u32 cap = raid456_list_cap(log);

		use = max(use, log->used + R5J_BLOCK_SECTORS +
			  raid456_recovery_sectors(log));
		/* the fullest hash list, as a share of the ring */
		use = max(use, cap ? div_u64(ring * raid456_list_max(log),
					     cap) : ring);
	}
	if (log->failed || use * 100 <= ring * high) {
		spin_unlock_irq(&log->lock);
		return false;
	}
	target = use - div_u64(ring * max(high - 10, 0), 100);
	first = list_first_entry_or_null(&log->units, struct r5j_log_unit,
					 list);
	*limit = first ? first->lsn + target : 0;
	spin_unlock_irq(&log->lock);
	return true;
}

/*
 * L12 (the write-back cache asks on every pass): true when it is on
 * and a unit is in the log; *@lsn is the oldest unit's, whose stripes'
 * reloads may take X's head pool.  *@waiting: stripes wait on x_wait,
 * so every stripe pinning that unit must be destaged for X to be built.
 */
bool r5j_journal_x_oldest(struct r5j_journal *log, u64 *lsn, bool *waiting)
{
	struct r5j_log_unit *first;

	*waiting = false;
	if (!log->fixed)
		return false;
	spin_lock_irq(&log->lock);
	first = oldest_live(log);
	if (first) {
		*lsn = first->lsn;
		*waiting = !list_empty(&log->x_wait) && !log->failed;
	}
	spin_unlock_irq(&log->lock);
	return !!first;
}

/*
 * Does anything wait for ring space: write-through stripes, destage
 * parity, X's stripes?  Then the high-water mark's destages are not
 * paced (r5j_wbcache_destage_idle()).  Lockless: a hint for one pass.
 */
bool r5j_journal_space_waits(struct r5j_journal *log)
{
	return !list_empty_careful(&log->parked) ||
	       !list_empty_careful(&log->parked_wb) ||
	       !list_empty_careful(&log->x_wait);
}

/* The journal failed: parked stripes go back to fail their writes. */
static void release_parked(struct r5j_journal *log)
{
	struct r5j_stripe *sh, *tmp;
	LIST_HEAD(list);

	spin_lock_irq(&log->lock);
	list_splice_init(&log->x_wait, &list);
	log->x_count = 0;
	list_splice_tail_init(&log->parked_wb, &list);
	list_splice_tail_init(&log->parked, &list);
	spin_unlock_irq(&log->lock);
	list_for_each_entry_safe(sh, tmp, &list, log_list) {
		list_del_init(&sh->log_list);
		sh->write_stage = R5J_W_LOG_FAILED;
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		r5j_release_stripe(sh);	/* the parked list's reference */
	}
}

/*
 * Log the parity of parked destages that fit now (daemon), each on its
 * own: the oldest unit's may pass newer ones (L11).
 */
static void retry_parked_wb(struct r5j_journal *log,
			    struct r5j_log_unit **spare)
{
	struct r5j_log_unit *full, *live;
	struct r5j_stripe *sh, *tmp;
	int err;

again:
	if (!log->open && !*spare)
		*spare = new_unit(log);
	full = NULL;
	err = 0;
	spin_lock_irq(&log->lock);
	live = log->fixed ? oldest_live(log) : NULL;
	list_for_each_entry_safe(sh, tmp, &log->parked_wb, log_list) {
		if (log->failed)
			break;
		list_del_init(&sh->log_list);
		err = add_stripe(log, sh, spare, &full, R5J_LOG_PARITY);
		if (!err) {
			/* add_stripe took its own reference: drop the park's */
			atomic_dec(&sh->count);
		} else if (err == -EAGAIN && !full && live &&
			   sh->dirty_unit == live) {
			/* its unit is the oldest now: X takes its parity */
			list_add_tail(&sh->log_list, &log->x_wait);
			log->x_count++;
		} else {
			/* back where it was, before the next one */
			list_add_tail(&sh->log_list, &tmp->log_list);
		}
		if (full || err == -ENOMEM)
			break;
	}
	spin_unlock_irq(&log->lock);
	if (full)
		submit_unit(log, full);
	if (full || err == -ENOMEM)
		goto again;	/* a new unit for the rest */
}

/*
 * L12 (daemon): once every stripe pinning the oldest unit U waits on
 * x_wait with its parity computed, log all their parity in one unit X,
 * sealed and submitted in this same pass; X alone may use the fixed
 * reserve R.  Until then nothing is opened: an X held open across passes
 * kept the ring's head while the stripes it waited for needed a pass
 * that logged something else first (journal.md,
 * L12).  A STUCK stripe never computes its parity: while any exists
 * (it may pin U), X also takes those that wait when that leaves R for
 * the rest; if it pins U, U stays pinned, as under L11.
 */
static void build_x(struct r5j_journal *log)
{
	struct r5j_log_unit *x, *open, *full = NULL, *none = NULL, *u;
	int p = log->conf->max_degraded;
	u64 need, room, others, r_sectors;
	struct r5j_stripe *sh, *tmp;
	bool ready, all, done_ahead;
	int err = 0;

	if (!log->fixed || list_empty_careful(&log->x_wait))
		return;
	x = new_unit(log);
	spin_lock_irq(&log->lock);
	u = oldest_live(log);
	need = ((u64)p * log->x_count + 1) * R5J_BLOCK_SECTORS;
	/* the stripes not in X keep their (P - 1) pages */
	others = log->wb_stripes > log->x_count ?
		(log->wb_stripes - log->x_count) * (p - 1) * R5J_BLOCK_SECTORS :
		0;
	room = free_sectors(log);
	room = room > others ? room - others : 0;
	r_sectors = r5j_wb_fixed_reserve(p, log->pin_cap) * R5J_BLOCK_SECTORS;
	all = u && !log->failed && log->x_count &&
		log->x_count >= u->wb_left;
	ready = all || (u && !log->failed && log->x_count &&
			atomic_read(&log->conf->stuck_stripes) &&
			need + r_sectors <= room);
	if (!ready || need > room ||
	    log->x_count > r5j_parity_batch(p)) {
		/*
		 * The arithmetic says it fits once all are there and the
		 * done units before U (the last X's among them) are
		 * reclaimed: reclaim then wakes the daemon.
		 */
		done_ahead = u && u != list_first_entry(&log->units,
							struct r5j_log_unit,
							list);
		WARN_ONCE(all && !done_ahead,
			  "raid5j: L12 parity unit X for %u stripes needs %llu sectors, %llu left (miscount)\n",
			  log->x_count, need, room);
		spin_unlock_irq(&log->lock);
		free_unit(x);
		if (ready && done_ahead)
			wake_reclaim(log);
		return;
	}
	open = log->open;	/* X holds the parity alone */
	log->open = NULL;
	open_unit(log, x);
	list_for_each_entry_safe(sh, tmp, &log->x_wait, log_list) {
		list_del_init(&sh->log_list);
		log->x_count--;
		err = add_stripe(log, sh, &none, &full, R5J_LOG_X);
		/* C <= r5j_parity_batch(): X never fills */
		if (WARN_ONCE(err || full,
			      "raid5j: L12 parity unit X full or short (%d)\n",
			      err)) {
			list_add(&sh->log_list, &log->x_wait);
			log->x_count++;
			break;
		}
		atomic_dec(&sh->count);	/* add_stripe took its own */
	}
	if (log->open == x)
		log->open = NULL;
	log->stats.x_units++;
	check_recovery_room(log);
	spin_unlock_irq(&log->lock);
	if (open)
		submit_unit(log, open);
	if (full && full != x)
		submit_unit(log, full);
	submit_unit(log, x);
}

/* Move parked stripes into units while there is room (daemon). */
static void retry_parked(struct r5j_journal *log)
{
	struct r5j_log_unit *spare = NULL, *full = NULL;
	struct r5j_stripe *sh;
	int err = 0;

	if (READ_ONCE(log->failed)) {
		release_parked(log);
		return;
	}
	/* first: it may move stripes whose unit became the oldest to x_wait */
	retry_parked_wb(log, &spare);
	build_x(log);
	while (!err) {
		if (!log->open && !spare)
			spare = new_unit(log);
		spin_lock_irq(&log->lock);
		if (list_empty(&log->parked) || log->failed) {
			spin_unlock_irq(&log->lock);
			break;
		}
		sh = list_first_entry(&log->parked, struct r5j_stripe, log_list);
		list_del_init(&sh->log_list);
		err = add_stripe(log, sh, &spare, &full, R5J_LOG_STRIPE);
		if (err) {
			list_add(&sh->log_list, &log->parked);
		} else {
			/* add_stripe took its own reference: drop the park's */
			atomic_dec(&sh->count);
		}
		spin_unlock_irq(&log->lock);
		if (full) {
			submit_unit(log, full);
			full = NULL;
			if (err)
				err = 0;	/* room may be there now */
		}
	}
	if (spare)
		free_unit(spare);
}

void r5j_journal_submit(struct r5j_journal *log)
{
	struct r5j_log_unit *unit;

	retry_parked(log);
	unit = log->open;
	if (unit) {
		log->open = NULL;
		submit_unit(log, unit);
	}
	issue_log_flush(log);
}

void r5j_journal_stripe_done(struct r5j_journal *log, struct r5j_stripe *sh)
{
	struct r5j_log_unit *unit = sh->unit;
	bool wake = false;

	if (!unit)
		return;
	spin_lock_irq(&log->lock);
	sh->unit = NULL;
	if (--unit->stripes_pending == 0 &&
	    unit->state == R5J_UNIT_RELEASED) {
		unit->state = R5J_UNIT_DONE;
		wake = !list_empty(&log->parked) ||
			!list_empty(&log->parked_wb) ||
			!list_empty(&log->x_wait) ||
			log->used * R5J_RECLAIM_DIVISOR >= log->fmt.ring_sectors;
	}
	spin_unlock_irq(&log->lock);
	if (wake)
		wake_reclaim(log);
}

bool r5j_journal_failed(struct r5j_journal *log)
{
	return READ_ONCE(log->failed);
}

struct md_rdev *r5j_journal_rdev(struct r5j_journal *log)
{
	return log->rdev;
}

void r5j_journal_error(struct r5j_journal *log)
{
	unsigned long flags;

	spin_lock_irqsave(&log->lock, flags);
	log->failed = true;
	spin_unlock_irqrestore(&log->lock, flags);
	pr_crit("md/raid:%s: journal device %pg failed: writes are refused until a new journal is added (mdadm --add-journal)\n",
		mdname(log->mddev), log->rdev->bdev);
	md_wakeup_thread(log->mddev->thread);
	wake_reclaim(log);	/* flushes the members: we may be atomic */
}

/*
 * Flush every member's volatile cache: their writes become durable.  A
 * member whose flush fails may have lost writes that completed: it is
 * failed (md_error(), as md fails a member whose superblock write, which
 * carries a flush, fails) and -EIO tells the caller to keep the log.
 */
int r5j_flush_members(struct r5j_conf *conf)
{
	int i, err = 0;

	for (i = 0; i < conf->raid_disks * 2; i++) {
		struct md_rdev *rdev;

		rcu_read_lock();
		rdev = rcu_dereference(*r5j_dev_slot(conf, i));
		if (!r5j_rdev_usable(rdev)) {
			rcu_read_unlock();
			continue;
		}
		atomic_inc(&rdev->nr_pending);
		rcu_read_unlock();
		if (blkdev_issue_flush(rdev->bdev)) {
			pr_err("md/raid:%s: flush of %pg failed: its completed writes may be lost\n",
			       mdname(conf->mddev), rdev->bdev);
			md_error(conf->mddev, rdev);
			err = -EIO;
		}
		rdev_dec_pending(rdev, conf->mddev);
	}
	return err;
}

/*
 * The journal device's superblock as md core last wrote it, with @tail as
 * journal_tail, written to the journal device alone (flush first: the
 * members were flushed by the caller, and the tail may move only once what
 * it frees is durable everywhere).  The event count stays as it is: a full
 * md_update_sb() would bump it and write every device at once, and a power
 * cut between the journal's write and the members' leaves the journal one
 * event ahead, which mdadm refuses to assemble (Documentation/journal.md,
 * "Superblock updates").  false: the caller must do a full update.
 */
static bool write_tail_only(struct r5j_journal *log, u64 tail, int *err)
{
	struct mddev *mddev = log->mddev;
	struct md_rdev *rdev = log->rdev;
	struct mdp_superblock_1 *sb;

	if (mddev->major_version != 1 || !rdev->sb_page ||
	    rdev->sb_size > R5J_SB1_MAX_BYTES)
		return false;
	sb = page_address(rdev->sb_page);
	/*
	 * Only a superblock md core wrote for the current event count, and
	 * no device change pending: a member failed for a lost flush must be
	 * recorded before the log that covers it is let go.
	 */
	if (rdev->sb_events != mddev->events ||
	    le64_to_cpu(sb->events) != mddev->events ||
	    test_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags))
		return false;
	rdev->journal_tail = tail;
	sb->journal_tail = cpu_to_le64(tail);
	sb->sb_csum = r5j_sb1_csum(sb);
	*err = 0;
	if (!sync_page_io(rdev, 0, rdev->sb_size, rdev->sb_page,
			  REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH | REQ_FUA |
			  REQ_META, true)) {
		pr_err("md/raid:%s: journal: superblock write to %pg failed\n",
		       mdname(mddev), rdev->bdev);
		md_error(mddev, rdev);
		*err = -EIO;
	}
	log->stats.tail_writes++;
	return true;
}

/*
 * Record @tail as journal_tail in the superblock.  Caller holds
 * reconfig_mutex.  Returns 0 once it is on disk.
 */
int r5j_journal_set_tail(struct r5j_journal *log, u64 tail)
{
	struct mddev *mddev = log->mddev;
	struct md_rdev *rdev;
	bool pending;
	int err;

	/*
	 * Bad blocks recorded for blocks the log held and could not give
	 * back (destage_lost()) reach the members' superblocks before the
	 * tail leaves those blocks: else a crash in between would let the
	 * members' stale blocks read as good.  So do ranges cleared by
	 * writes the log held (r5j_handle.c clear_range() marks the update
	 * pending): else the written blocks would read EIO.
	 */
	pending = test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags);
	rdev_for_each(rdev, mddev)
		pending |= rdev->badblocks.unacked_exist;
	if (md_is_rdwr(mddev) && pending)
		md_update_sb(mddev, 1);
	if (md_is_rdwr(mddev) && write_tail_only(log, tail, &err))
		return err;
	/*
	 * A full update; on a read-only array md core only marks it pending
	 * and writes it once the array goes read-write.
	 */
	log->rdev->journal_tail = tail;
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev, 1);
	if (test_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags))
		return -EROFS;	/* read-only: nothing was written */
	log->stats.full_sb_updates++;
	return 0;
}

/*
 * Where the tail can move: to the first unit not yet on the members if its
 * meta block is on disk, else to the newest unit that is done (replaying
 * it again is harmless).  Never to a position not yet written in this lap
 * of the ring: an older lap's meta block there would still pass the checks
 * recovery makes at journal_tail and replay stale data.  log->lock held.
 */
static u64 reclaimable_tail(struct r5j_journal *log)
{
	struct r5j_log_unit *unit, *last_done = NULL;

	list_for_each_entry(unit, &log->units, list) {
		if (unit->state == R5J_UNIT_DONE) {
			last_done = unit;
			continue;
		}
		if (unit->state == R5J_UNIT_STABLE ||
		    unit->state == R5J_UNIT_RELEASED)
			return unit->pos;
		break;
	}
	return last_done ? last_done->pos : log->tail;
}

/*
 * Move journal_tail past the units the members have.  @locked: the caller
 * holds reconfig_mutex (quiesce); otherwise try to take it.  Every tail
 * update happens under reconfig_mutex, so they never interleave.
 * false: reconfig_mutex was taken (the reclaim thread retries shortly).
 * The caller sets its own timeout: at stop log->reclaim_thread is
 * already NULL while the thread still runs (r5j_unregister_thread()).
 */
static bool do_reclaim(struct r5j_journal *log, bool locked)
{
	struct mddev *mddev = log->mddev;
	struct r5j_log_unit *unit, *tmp;
	u64 new_tail, freed, old_tail, used;
	LIST_HEAD(reclaimed);

	if (READ_ONCE(log->failed))
		return true;
	if (!locked && !mddev_trylock(mddev))
		return false;	/* someone reconfigures */
	spin_lock_irq(&log->lock);
	old_tail = log->tail;
	new_tail = reclaimable_tail(log);
	freed = r5j_ring_distance(&log->fmt, old_tail, new_tail);
	spin_unlock_irq(&log->lock);
	if (!freed)
		goto out;

	/* a failed member flush: the tail stays until that member is failed */
	if (r5j_flush_members(log->conf) ||
	    r5j_journal_set_tail(log, new_tail))
		goto out;

	spin_lock_irq(&log->lock);
	list_for_each_entry_safe(unit, tmp, &log->units, list) {
		if (unit->state != R5J_UNIT_DONE ||
		    r5j_ring_distance(&log->fmt, old_tail, unit->pos) >= freed)
			break;
		list_move_tail(&unit->list, &reclaimed);
	}
	log->tail = new_tail;
	log->used -= freed;
	used = log->used;
	log->stats.reclaims++;
	spin_unlock_irq(&log->lock);
	trace_r5j_journal_reclaim(mddev, old_tail, new_tail, used);

	list_for_each_entry_safe(unit, tmp, &reclaimed, list) {
		list_del(&unit->list);
		free_unit(unit);
	}
	md_wakeup_thread(mddev->thread);	/* parked stripes may go */
out:
	if (!locked)
		mddev_unlock(mddev);
	return true;
}

void r5j_journal_reclaim_locked(struct r5j_journal *log)
{
	do_reclaim(log, true);
}

/*
 * The journal failed: what only it held durably is in the members'
 * volatile caches.  Flush them once; later flushes and FUA from above
 * reach the members through md core (Documentation/journal.md).
 */
static void flush_after_failure(struct r5j_journal *log)
{
	if (log->failed_flushed)
		return;
	log->failed_flushed = true;
	r5j_flush_members(log->conf);
	pr_info("md/raid:%s: members flushed after the journal failure\n",
		mdname(log->mddev));
}

static void r5j_reclaim_thread(struct md_thread *thread)
{
	struct r5j_conf *conf = thread->mddev->private;

	thread->timeout = R5J_RECLAIM_PERIOD;
	if (!conf || !conf->log)
		return;
	if (r5j_journal_failed(conf->log))
		flush_after_failure(conf->log);
	else if (!do_reclaim(conf->log, false))
		thread->timeout = HZ / 10;	/* try again shortly */
	/* dirty stripes stay in the cache for one to two periods */
	if (time_before(jiffies, conf->log->tick_at + R5J_RECLAIM_PERIOD))
		return;
	conf->log->tick_at = jiffies;
	WRITE_ONCE(conf->dirty_tick, conf->dirty_tick + 1);
	if (atomic_read(&conf->dirty_stripes)) {
		WRITE_ONCE(conf->destage_aged, true);
		md_wakeup_thread(thread->mddev->thread);
	}
}

bool r5j_journal_idle(struct r5j_journal *log)
{
	bool idle;

	spin_lock_irq(&log->lock);
	idle = list_empty(&log->parked) && list_empty(&log->parked_wb) &&
		list_empty(&log->x_wait) && !log->open;
	spin_unlock_irq(&log->lock);
	return idle;
}

bool r5j_journal_empty(struct r5j_journal *log)
{
	bool empty;

	spin_lock_irq(&log->lock);
	empty = !log->failed && list_empty(&log->parked) &&
		list_empty(&log->parked_wb) && list_empty(&log->x_wait) &&
		!log->open &&
		list_empty(&log->units);
	spin_unlock_irq(&log->lock);
	return empty;
}

/*
 * Write an empty meta block (a unit with no payloads) at @pos, stable.
 * Uses the page set aside at init: a stop or quiesce under memory pressure
 * must not fail the journal for want of a page.  Callers hold
 * reconfig_mutex or run before the array starts, so one page serves all.
 */
int r5j_journal_write_empty(struct r5j_journal *log, u64 pos, u64 seq)
{
	struct page *page = log->empty_page;
	bool wb = READ_ONCE(log->conf->writeback);

	r5j_meta_init(page_address(page), pos, seq);
	r5j_meta_set_writeback(page_address(page), wb);
	r5j_meta_seal(page_address(page), log->fmt.seed);
	if (!sync_page_io(log->rdev, pos, PAGE_SIZE, page,
			  REQ_OP_WRITE | REQ_FUA | REQ_SYNC, false))
		return -EIO;
	log->wb_logged = wb;
	return 0;
}

/*
 * Quiesced (no stripe active), reconfig_mutex held: leave the log as a
 * clean stop must, one empty unit at journal_tail, nothing after it.
 */
void r5j_journal_quiesce(struct r5j_journal *log)
{
	struct r5j_log_unit *unit, *tmp;
	LIST_HEAD(reclaimed);
	u64 pos, seq;

	if (log->mddev->ro)
		return;		/* a read-only array writes nothing */
	spin_lock_irq(&log->lock);
	list_for_each_entry(unit, &log->units, list) {
		if (unit->state != R5J_UNIT_DONE) {
			spin_unlock_irq(&log->lock);
			return;		/* not drained (journal failed?) */
		}
	}
	if (log->failed ||
	    (list_empty(&log->units) && log->used == R5J_BLOCK_SECTORS &&
	     log->wb_logged == READ_ONCE(log->conf->writeback))) {
		/* failed, or already one empty unit recording the mode */
		spin_unlock_irq(&log->lock);
		return;
	}
	pos = log->head;
	seq = log->seq;
	spin_unlock_irq(&log->lock);

	if (r5j_flush_members(log->conf))
		return;		/* the log stays: a member lost its cache */
	if (r5j_journal_write_empty(log, pos, seq)) {
		md_error(log->mddev, log->rdev);
		return;
	}
	if (r5j_journal_set_tail(log, pos))
		return;
	spin_lock_irq(&log->lock);
	list_splice_init(&log->units, &reclaimed);
	log->seq = seq + 1;
	log->tail = pos;
	log->head = r5j_ring_add(&log->fmt, pos, R5J_BLOCK_SECTORS);
	log->used = R5J_BLOCK_SECTORS;
	log->wb_stripes = 0;	/* every unit done: no dirty stripe left */
	memset(log->wb_lists, 0, sizeof(log->wb_lists));
	log->stats.empty_units++;
	log->stats.reclaims++;
	spin_unlock_irq(&log->lock);
	list_for_each_entry_safe(unit, tmp, &reclaimed, list) {
		list_del(&unit->list);
		free_unit(unit);
	}
}

ssize_t r5j_journal_stats_show(struct r5j_journal *log, char *page)
{
	struct r5j_journal_stats st;
	u64 used, ring, tail, head, seq, wb_reserved, wb_stripes;
	u64 data_only, recovery;
	u32 list_cap, list_max;
	bool failed;
	int len = 0;

	spin_lock_irq(&log->lock);
	st = log->stats;
	wb_reserved = r5j_journal_wb_kept(log, log->wb_stripes);
	wb_stripes = log->wb_stripes;
	data_only = raid456_data_only(log);
	recovery = raid456_recovery_sectors(log);
	list_cap = raid456_list_cap(log);
	list_max = raid456_list_max(log);
	used = log->used;
	ring = log->fmt.ring_sectors;
	tail = log->tail;
	head = log->head;
	seq = log->seq;
	failed = log->failed;
	spin_unlock_irq(&log->lock);

	len += sysfs_emit(page,
			  "state %s\nring_sectors %llu\nused_sectors %llu\n"
			  "tail %llu\nhead %llu\nnext_seq %llu\n"
			  "units %llu\nlog_flushes %llu\nempty_units %llu\n"
			  "stripes %llu\n"
			  "data_pages %llu\nparity_pages %llu\nmeta_bytes %llu\n"
			  "reclaims %llu\nspace_waits %llu\n"
			  "recovered_transactions %llu\nreplayed_stripes %llu\n"
			  "replayed_blocks %llu\ntail_writes %llu\n"
			  "full_sb_updates %llu\n"
			  "mode %s\ndirty_stripes %d\nwb_reserved_sectors %llu\n"
			  "cached_writes %llu\ncached_blocks %llu\n"
			  "destaged_full %llu\ndestaged_partial %llu\n"
			  "destage_reads %llu\nrecovered_wb_stripes %llu\n"
			  "destaged_rmw %llu\ndestage_reads_saved %llu\n"
			  "dirty_high %d\ndirty_low %d\n"
			  "parity_waits %llu\nwb_stripes %llu\nroom_short %llu\n"
			  "fixed_reserve %d\nx_units %llu\n"
			  "raid456_room %d\nraid456_data_only %llu\n"
			  "raid456_recovery_sectors %llu\n"
			  "raid456_list_cap %u\nraid456_list_max %u\n",
			  failed ? "failed" : "ok", ring, used, tail, head, seq,
			  st.units, st.log_flushes, st.empty_units, st.stripes,
			  st.data_pages,
			  st.parity_pages, st.meta_bytes, st.reclaims,
			  st.space_waits, st.recovered_txns,
			  st.replayed_stripes, st.replayed_blocks,
			  st.tail_writes, st.full_sb_updates,
			  READ_ONCE(log->conf->writeback) ? "write-back" :
			  "write-through",
			  atomic_read(&log->conf->dirty_stripes), wb_reserved,
			  st.cached_writes, st.cached_blocks, st.destaged_full,
			  st.destaged_partial, st.destage_reads,
			  st.recovered_wb_stripes, st.destaged_rmw,
			  st.destage_reads_saved,
			  r5j_dirty_mark(log->conf, READ_ONCE(log->conf->dirty_high)),
			  r5j_dirty_mark(log->conf, READ_ONCE(log->conf->dirty_low)),
			  st.parity_waits, wb_stripes, st.room_short,
			  log->fixed, st.x_units, log->raid456_room,
			  data_only, recovery, list_cap, list_max);
	return len;
}

int r5j_journal_init(struct r5j_conf *conf, struct md_rdev *rdev)
{
	struct mddev *mddev = conf->mddev;
	struct md_thread *thread;
	struct r5j_journal *log;
	int err;

	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		return -ENOMEM;
	log->conf = conf;
	log->mddev = mddev;
	log->rdev = rdev;
	err = r5j_log_init(&log->fmt, (const u8 *)mddev->uuid, rdev->sectors,
			   mddev->level);
	if (err) {
		pr_err("md/raid:%s: journal device %pg is too small (%llu sectors)\n",
		       mdname(mddev), rdev->bdev,
		       (unsigned long long)rdev->sectors);
		kfree(log);
		return err;
	}
	/*
	 * One stripe's payloads must fit in a meta block (mainline's limit
	 * too).  The ring must hold a unit with the largest stripe (meta +
	 * raid_disks pages) beside room for another and the quiesce
	 * reserve: unit_cap() is then at least one stripe.
	 */
	if (conf->raid_disks > R5J_MAX_JOURNAL_DISKS) {
		pr_err("md/raid:%s: journal unusable: %d members, at most %d\n",
		       mdname(mddev), conf->raid_disks, R5J_MAX_JOURNAL_DISKS);
		kfree(log);
		return -EINVAL;
	}
	if (log->fmt.ring_sectors < 2 * (conf->raid_disks + 2) *
				    (u64)R5J_BLOCK_SECTORS) {
		pr_err("md/raid:%s: journal device %pg too small: %llu sectors of ring, %d members need at least %llu\n",
		       mdname(mddev), rdev->bdev,
		       (unsigned long long)log->fmt.ring_sectors,
		       conf->raid_disks,
		       2 * (conf->raid_disks + 2) * (u64)R5J_BLOCK_SECTORS);
		kfree(log);
		return -EINVAL;
	}
	/* stripes one unit may pin: a small part of the ring (L11) */
	BUILD_BUG_ON(R5J_WB_MAX_PINS != R5J_UNIT_MAX_PINS);
	log->pin_cap = r5j_wb_pin_cap(log->fmt.ring_sectors);
	log->raid456_room = r5j_wb_recoverable_by() == R5J_RECOVERABLE_BY_RAID456;
	log->raid456_stripes = READ_ONCE(r5j_hook_raid456_stripes);
	/* L12: C, so that X's parity fits a unit and its head pool */
	log->fixed = r5j_wb_recoverable_by() == R5J_RECOVERABLE_BY_RAID5J;
	if (log->fixed)
		log->pin_cap = r5j_wb_x_cap(log->pin_cap,
					    r5j_parity_batch(conf->max_degraded));
	spin_lock_init(&log->lock);
	INIT_LIST_HEAD(&log->units);
	INIT_LIST_HEAD(&log->parked);
	INIT_LIST_HEAD(&log->parked_wb);
	INIT_LIST_HEAD(&log->x_wait);
	INIT_LIST_HEAD(&log->unflushed);
	INIT_LIST_HEAD(&log->flushing);
	bio_init(&log->flush_bio, NULL, NULL, 0, 0);
	err = bioset_init(&log->bs, 4, 0, BIOSET_NEED_BVECS);
	if (err)
		goto fail;
	err = mempool_init_kmalloc_pool(&log->unit_pool, 4,
					sizeof(struct r5j_log_unit));
	if (err)
		goto fail;
	err = mempool_init_page_pool(&log->meta_pool, 4, 0);
	if (err)
		goto fail;
	log->empty_page = alloc_page(GFP_KERNEL);
	if (!log->empty_page)
		goto fail;
	thread = md_register_thread(r5j_reclaim_thread, mddev, "reclaim");
	if (!thread) {
		err = -ENOMEM;
		goto fail;
	}
	thread->timeout = R5J_RECLAIM_PERIOD;
	r5j_thread_set(&log->reclaim_thread, thread);
	conf->log = log;
	return 0;
fail:
	if (log->empty_page)
		put_page(log->empty_page);
	bioset_exit(&log->bs);
	mempool_exit(&log->unit_pool);
	mempool_exit(&log->meta_pool);
	kfree(log);
	return err ? err : -ENOMEM;
}

void r5j_journal_exit(struct r5j_conf *conf)
{
	struct r5j_journal *log = conf->log;
	struct r5j_log_unit *unit, *tmp;

	if (!log)
		return;
	r5j_unregister_thread(log->mddev, &log->reclaim_thread);
	if (log->failed)
		flush_after_failure(log);	/* removed before it ran */
	/* a failed journal can go with its flush in flight */
	wait_var_event(&log->flush_busy, !READ_ONCE(log->flush_busy));
	spin_lock_irq(&log->lock);	/* flush_end_io() left the lock */
	spin_unlock_irq(&log->lock);
	bio_uninit(&log->flush_bio);
	list_for_each_entry_safe(unit, tmp, &log->units, list) {
		list_del(&unit->list);
		free_unit(unit);
	}
	put_page(log->empty_page);
	bioset_exit(&log->bs);
	mempool_exit(&log->unit_pool);
	mempool_exit(&log->meta_pool);
	kfree(log);
	conf->log = NULL;
}

/*
 * ->takeover of a journaled array (Documentation/reshape.md 8.1): the
 * reclaim thread the handed-over log will run, made where a failure can
 * still be refused.  It sleeps until r5j_journal_hand_over() wakes it.
 */
int r5j_journal_takeover_prepare(struct r5j_conf *conf)
{
	struct md_thread *thread;

	thread = md_register_thread(r5j_reclaim_thread, conf->mddev, "reclaim");
	if (!thread)
		return -ENOMEM;
	r5j_thread_set(&conf->log_reclaim, thread);
	return 0;
}

/*
 * md core frees the old conf @from after it made @to the array's and
 * before @to's run(): the array is suspended and @from quiesced, so the
 * log is one empty unit at journal_tail with nothing in flight, and its
 * state is head, tail and seq.  Move it to @to; false, nothing moved,
 * if it is not so (the journal failed after ->takeover).
 */
bool r5j_journal_hand_over(struct r5j_conf *from, struct r5j_conf *to)
{
	struct r5j_journal *log = from->log;
	struct md_thread *thread = r5j_thread(&to->log_reclaim);
	bool drained;

	if (!log || !thread)
		return false;
	spin_lock_irq(&log->lock);
	drained = !log->failed && !log->open && !log->flush_busy &&
		  list_empty(&log->units) && list_empty(&log->parked) &&
		  list_empty(&log->parked_wb) && list_empty(&log->x_wait) &&
		  list_empty(&log->unflushed) && list_empty(&log->flushing) &&
		  log->used == R5J_BLOCK_SECTORS && !log->wb_logged;
	spin_unlock_irq(&log->lock);
	if (!drained)
		return false;
	/* it reads mddev->private, which md core has just changed */
	r5j_unregister_thread(log->mddev, &log->reclaim_thread);
	thread->timeout = R5J_RECLAIM_PERIOD;
	r5j_thread_set(&log->reclaim_thread, thread);
	r5j_thread_set(&to->log_reclaim, NULL);
	log->conf = to;
	to->log = log;
	from->log = NULL;
	wake_reclaim(log);
	return true;
}

/*
 * A new journal device for an array whose journal failed or was missing
 * (reconfig_mutex held, no writes in flight: the array refused them).
 */
int r5j_journal_replace(struct r5j_conf *conf, struct md_rdev *rdev)
{
	struct r5j_journal *old = conf->log;
	u64 seq = get_random_u32();
	int err;

	if (old && !old->failed)
		return -EBUSY;
	if (old && !r5j_journal_idle(old))
		return -EBUSY;
	r5j_journal_exit(conf);
	rdev->journal_tail = 0;
	err = r5j_journal_init(conf, rdev);
	if (err)
		return err;
	err = r5j_journal_write_empty(conf->log, 0, seq);
	if (!err) {
		conf->log->tail = 0;
		conf->log->head = R5J_BLOCK_SECTORS;
		conf->log->used = R5J_BLOCK_SECTORS;
		conf->log->seq = seq + 1;
		set_bit(MD_HAS_JOURNAL, &conf->mddev->flags);
		err = r5j_journal_set_tail(conf->log, 0);
		if (err == -EROFS)
			err = 0;
	}
	if (err)
		r5j_journal_exit(conf);
	pr_info("md/raid:%s: journal device %pg added%s\n",
		mdname(conf->mddev), rdev->bdev, err ? " but failed to start" : "");
	return err;
}
