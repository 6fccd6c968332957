// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j stripe state machine.  Runs only in the daemon, one stripe at a
 * time, and only while none of the stripe's member I/O is in flight: every
 * decision is taken on a quiet stripe, then I/O is started and the stripe
 * comes back when the last of it completes.
 *
 * One pass, in order:
 *   1. finish     writes or sync writes that just completed: return bios
 *   2. give up    more members unusable than parity covers: fail bios
 *   3. write      rmw or rcw: read what is missing, then (bitmap on disk
 *                 first) copy bios into pages, compute parity, write
 *   4. read       serve reads from up-to-date pages, read or reconstruct
 *   5. sync       resync/check/repair/rebuild of this stripe
 */
#include <linux/highmem.h>
#include <linux/ratelimit.h>
#include "raid5j/parity.h"
#include "r5j.h"
#include "r5j_trace.h"
#include "r5j_journal.h"

struct r5j_state {
	int failed;			/* members whose block cannot be read */
	int failed_num[2];
	DECLARE_BITMAP(readable, R5J_MAX_DISKS);
	DECLARE_BITMAP(writable, R5J_MAX_DISKS);
	DECLARE_BITMAP(replacing, R5J_MAX_DISKS);	/* replacement being filled */
};

static void analyse_stripe(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	int i;

	s->failed = 0;
	bitmap_zero(s->readable, sh->disks);
	bitmap_zero(s->writable, sh->disks);
	bitmap_zero(s->replacing, sh->disks);
	rcu_read_lock();
	for (i = 0; i < sh->disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);
		struct md_rdev *repl = rcu_dereference(conf->disks[i].replacement);

		if (r5j_rdev_usable(rdev) || r5j_rdev_usable(repl))
			__set_bit(i, s->writable);
		if (r5j_rdev_usable(repl) && !test_bit(In_sync, &repl->flags))
			__set_bit(i, s->replacing);
		/* an error of a device since removed is no longer ours */
		if (test_bit(R5J_READ_ERROR, &sh->dev[i].flags) &&
		    sh->dev[i].read_error_gen != READ_ONCE(conf->disks[i].gen)) {
			clear_bit(R5J_READ_ERROR, &sh->dev[i].flags);
			clear_bit(R5J_REWRITE, &sh->dev[i].flags);
		}
		if (!test_bit(R5J_READ_ERROR, &sh->dev[i].flags) &&
		    (r5j_holds_stripe(rdev, r5j_rsec(sh, rdev)) ||
		     r5j_holds_stripe(repl, r5j_rsec(sh, repl)))) {
			__set_bit(i, s->readable);
			continue;
		}
		if (s->failed < 2)
			s->failed_num[s->failed] = i;
		s->failed++;
	}
	rcu_read_unlock();
}

/* Member block addresses of @sh, indexed by member (daemon scratch). */
static void **stripe_blocks(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	int i;

	for (i = 0; i < sh->disks; i++)
		conf->blocks[i] = page_address(sh->dev[i].page);
	return conf->blocks;
}

/* Recompute parity (P, and Q for RAID6) from the data, all up to date. */
static void compute_parity(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;

	r5j_compute_parity(sh->geom, &sh->map, stripe_blocks(sh),
			   &conf->pw);
	set_bit(R5J_UPTODATE, &sh->dev[sh->map.pd_idx].flags);
	if (sh->map.qd_idx >= 0)
		set_bit(R5J_UPTODATE, &sh->dev[sh->map.qd_idx].flags);
}

/* Fill in the unreadable blocks from the others (all up to date). */
static void compute_missing(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	int failed[2], i, n = 0;

	for (i = 0; i < s->failed && i < 2; i++)
		if (!test_bit(R5J_UPTODATE, &sh->dev[s->failed_num[i]].flags))
			failed[n++] = s->failed_num[i];
	if (!n)
		return;
	if (WARN_ON(r5j_recover(sh->geom, &sh->map, stripe_blocks(sh),
				failed, n, &conf->pw)))
		return;
	for (i = 0; i < n; i++)
		set_bit(R5J_UPTODATE, &sh->dev[failed[i]].flags);
}

/* rmw: fold the blocks about to be written into P/Q (old out or new in). */
static void fold_written(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	void **data = conf->rmw_data;
	int i;

	for (i = 0; i < sh->disks; i++)
		data[i] = (!r5j_is_parity(sh, i) &&
			   !r5j_blist_empty(&sh->dev[i].written)) ?
			page_address(sh->dev[i].page) : NULL;
	r5j_parity_rmw(sh->geom, &sh->map, data,
		       page_address(sh->dev[sh->map.pd_idx].page),
		       sh->map.qd_idx >= 0 ?
		       page_address(sh->dev[sh->map.qd_idx].page) : NULL,
		       &conf->pw);
}

/*
 * Make every block in @want up to date: read those that can be read; if
 * any cannot, read all the others and compute it.  Returns true when all of
 * @want is up to date now, false when reads were started.
 */
static bool ensure_blocks(struct r5j_stripe *sh, struct r5j_state *s,
			  unsigned long *want)
{
	bool need_compute = false, lost = false;
	int i, reads = 0;

	for_each_set_bit(i, want, sh->disks) {
		if (test_bit(R5J_UPTODATE, &sh->dev[i].flags))
			continue;
		if (!test_bit(i, s->readable))
			need_compute = true;
		else if (r5j_submit_block(sh, i, REQ_OP_READ, 0))
			reads++;
		else
			lost = true;
	}
	if (need_compute) {
		for (i = 0; i < sh->disks; i++) {
			if (!test_bit(i, s->readable) ||
			    test_bit(R5J_UPTODATE, &sh->dev[i].flags) ||
			    test_bit(R5J_LOCKED, &sh->dev[i].flags))
				continue;
			if (r5j_submit_block(sh, i, REQ_OP_READ, 0))
				reads++;
			else
				lost = true;
		}
	}
	if (lost) {
		/* a member failed since analyse_stripe(): look again */
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		return false;
	}
	if (reads)
		return false;
	if (need_compute)
		compute_missing(sh, s);
	return true;
}

/* Copy between @bio and the block at @block (array sector) in @page. */
static void copy_bio_block(struct bio *bio, struct page *page, sector_t block,
			   bool to_page)
{
	u64 blk_start = (u64)block << 9, blk_end = blk_start + PAGE_SIZE;
	struct bvec_iter iter;
	struct bio_vec bv;

	bio_for_each_segment(bv, bio, iter) {
		u64 seg_start = (u64)iter.bi_sector << 9;
		u64 start = max(seg_start, blk_start);
		u64 end = min(seg_start + bv.bv_len, blk_end);

		if (seg_start >= blk_end)
			break;
		if (start >= end)
			continue;
		if (to_page)
			memcpy_page(page, start - blk_start, bv.bv_page,
				    bv.bv_offset + (start - seg_start),
				    end - start);
		else
			memcpy_page(bv.bv_page, bv.bv_offset + (start - seg_start),
				    page, start - blk_start, end - start);
	}
}

/*
 * External metadata: mdmon records a member failure, then clears the
 * member's Blocked.  It may clear CHANGE_PENDING first (its answer to an
 * earlier write-pending), so Blocked is what says the failure is on disk.
 */
static bool member_blocked(struct r5j_conf *conf)
{
	bool blocked = false;
	int i;

	if (!conf->mddev->external)
		return false;
	rcu_read_lock();
	for (i = 0; i < conf->raid_disks && !blocked; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);
		struct md_rdev *repl = rcu_dereference(conf->disks[i].replacement);

		blocked = (rdev && (test_bit(Blocked, &rdev->flags) ||
				    test_bit(BlockedBadBlocks, &rdev->flags))) ||
			  (repl && test_bit(Blocked, &repl->flags));
	}
	rcu_read_unlock();
	return blocked;
}

static bool writes_held(struct r5j_conf *conf)
{
	return test_bit(MD_SB_CHANGE_PENDING, &conf->mddev->sb_flags) ||
	       member_blocked(conf);
}

/*
 * Writes complete only once a member failure they skipped is recorded in
 * the superblock (or by mdmon): their shares wait on conf->held (as refs:
 * one bio can have several shares held, so bi_next cannot chain them).
 */
void r5j_return_held_bios(struct r5j_conf *conf)
{
	if (!writes_held(conf))
		r5j_end_held_bios(conf);
}

/*
 * Complete every held share now.  Also from free_conf(): no bio is ever
 * dropped (a quiesce inside 6.1's suspend waits for the superblock, and
 * a stop writes it before the free).
 */
void r5j_end_held_bios(struct r5j_conf *conf)
{
	struct r5j_blist list;
	struct r5j_bref *ref;

	r5j_blist_init(&list);
	spin_lock_irq(&conf->lock);
	r5j_blist_splice(&list, &conf->held);
	spin_unlock_irq(&conf->lock);
	while ((ref = r5j_blist_pop(&list))) {
		struct bio *bi = ref->bio;

		mempool_free(ref, &conf->bref_pool);
		bio_endio(bi);
	}
}

static void end_write_part(struct r5j_stripe *sh, struct r5j_bref *ref,
			   bool ok)
{
	struct r5j_conf *conf = sh->conf;
	struct bio *bi = ref->bio;
	unsigned long flags;

	if (!ok)
		bi->bi_status = BLK_STS_IOERR;
	r5j_bitmap_endwrite(conf->mddev, sh->sector, R5J_STRIPE_SECTORS,
			    ok && !test_bit(R5J_STRIPE_DEGRADED, &sh->state));
	if (!r5j_is_step_bio(bi))
		md_write_end(conf->mddev);
	if (writes_held(conf)) {
		spin_lock_irqsave(&conf->lock, flags);
		r5j_blist_add(&conf->held, ref);
		spin_unlock_irqrestore(&conf->lock, flags);
		return;
	}
	mempool_free(ref, &conf->bref_pool);
	bio_endio(bi);
}

static void end_read_part(struct r5j_stripe *sh, struct r5j_bref *ref,
			  bool ok)
{
	struct bio *bi = ref->bio;

	mempool_free(ref, &sh->conf->bref_pool);
	if (!ok)
		bi->bi_status = BLK_STS_IOERR;
	bio_endio(bi);
}

/* Writes of this stripe are on the members (or failed): complete bios. */
static void finish_writes(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	bool ok = s->failed <= conf->max_degraded;
	struct r5j_bref *ref;
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (test_and_clear_bit(R5J_WRITE_ERROR, &dev->flags))
			set_bit(R5J_STRIPE_DEGRADED, &sh->state);
		while ((ref = r5j_blist_pop(&dev->written)))
			end_write_part(sh, ref, ok);
		if (test_and_clear_bit(R5J_DIRTY, &dev->flags))
			r5j_wbcache_count(conf, -1);
	}
	if (conf->log)
		r5j_journal_stripe_done(conf->log, sh);
	if (test_and_clear_bit(R5J_STRIPE_DIRTY, &sh->state)) {
		/* destaged: the members have it, the log may let it go */
		trace_r5j_wb_destage(sh);
		if (conf->log)
			r5j_journal_destaged(conf->log, sh);
		clear_bit(R5J_STRIPE_DESTAGE, &sh->state);
		clear_bit(R5J_STRIPE_HOT, &sh->state);
		atomic_dec(&conf->dirty_stripes);
	}
	sh->write_stage = R5J_W_IDLE;
	clear_bit(R5J_STRIPE_FUA, &sh->state);
	clear_bit(R5J_STRIPE_DEGRADED, &sh->state);
}

/*
 * The journal failed under the stripe: its writes fail, and the pages,
 * which hold data the members never got, are forgotten.
 */
static void fail_logged_writes(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_bref *ref;
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		while ((ref = r5j_blist_pop(&dev->written)))
			end_write_part(sh, ref, false);
		/*
		 * A block this write made dirty was never stable in the log:
		 * it is not dirty, and its page is not the member's block.
		 * Acknowledged write-back data stays: it is only here now,
		 * and its destage writes the members directly.
		 */
		if (test_and_clear_bit(R5J_DIRTY_NEW, &dev->flags) &&
		    test_and_clear_bit(R5J_DIRTY, &dev->flags)) {
			r5j_wbcache_count(conf, -1);
			dev->log_pos = R5J_NO_LOG_POS;
		}
		if (!test_bit(R5J_DIRTY, &dev->flags))
			clear_bit(R5J_UPTODATE, &dev->flags);
	}
	if (conf->log)
		r5j_journal_stripe_done(conf->log, sh);
	clear_bit(R5J_STRIPE_WB_LOG, &sh->state);
	sh->write_stage = R5J_W_IDLE;
	clear_bit(R5J_STRIPE_FUA, &sh->state);
}

/* Refuse new writes: the journal is gone and nothing may bypass it. */
static void fail_new_writes(struct r5j_stripe *sh)
{
	struct r5j_blist writes;
	struct r5j_bref *ref;
	int i;

	for (i = 0; i < sh->disks; i++) {
		r5j_blist_init(&writes);
		spin_lock_irq(&sh->lock);
		r5j_blist_splice(&writes, &sh->dev[i].towrite);
		sh->dev[i].towrite_mask = 0;
		spin_unlock_irq(&sh->lock);
		while ((ref = r5j_blist_pop(&writes)))
			end_write_part(sh, ref, false);
	}
}

static void submit_member_writes(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	/*
	 * With a working journal, the log's FUA already made the data
	 * durable; once it failed, that copy is gone.
	 */
	bool fua = test_bit(R5J_STRIPE_FUA, &sh->state) &&
		   (!conf->log || r5j_journal_failed(conf->log));
	bool full = true;
	int i, writes = 0;

	/* journal_stats: how deep the member queues are as a destage joins */
	if (test_bit(R5J_STRIPE_DIRTY, &sh->state)) {
		int queued = atomic_read(&conf->member_inflight) +
			conf->nr_pending;

		r5j_wbcache_count_destage_submit(conf, queued);
	}
	sh->write_stage = R5J_W_MEMBERS;
	for (i = 0; i < sh->disks; i++) {
		if (!r5j_is_parity(sh, i) &&
		    r5j_blist_empty(&sh->dev[i].written) &&
		    !test_bit(R5J_DIRTY, &sh->dev[i].flags)) {
			full = false;
			continue;
		}
		writes += r5j_submit_block(sh, i,
				       REQ_OP_WRITE | (fua ? REQ_FUA : 0), 0);
	}
	/* a full stripe's destage: r5j_end_pass() lets its run grow */
	if (full && test_bit(R5J_STRIPE_DIRTY, &sh->state))
		conf->pending_full += writes;
	if (!writes)
		set_bit(R5J_STRIPE_HANDLE, &sh->state);	/* finish next pass */
}

/*
 * The stripe is lost: a block that failed to read cannot be rebuilt.
 * Record it as a bad block (or fail the member), as raid456 does: the
 * range is then never read again.
 */
static void uncorrectable_read_errors(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		struct md_rdev *rdev;

		if (!test_and_clear_bit(R5J_READ_ERROR, &dev->flags))
			continue;
		clear_bit(R5J_REWRITE, &dev->flags);
		rcu_read_lock();
		rdev = rcu_dereference(conf->disks[i].rdev);
		if (r5j_rdev_usable(rdev) && test_bit(In_sync, &rdev->flags)) {
			pr_warn_ratelimited("md/raid:%s: read error not correctable (sector %llu on %pg).\n",
					    mdname(conf->mddev),
					    (unsigned long long)(r5j_rsec(sh, rdev) +
								 rdev->data_offset),
					    rdev->bdev);
			r5j_record_bad(conf, rdev, r5j_rsec(sh, rdev));
		} else if (r5j_rdev_usable(rdev)) {
			/* not in sync: no bad block for it (as raid456) */
			md_error(conf->mddev, rdev);
		}
		rcu_read_unlock();
	}
}

/* Is @rdev being rebuilt at @sector? */
static bool rebuilding(struct md_rdev *rdev, sector_t sector)
{
	return r5j_rdev_usable(rdev) && !test_bit(In_sync, &rdev->flags) &&
	       sector + R5J_STRIPE_SECTORS > rdev->recovery_offset;
}

/*
 * A rebuild step that cannot be made: record the stripe in the bad block
 * log of every device being rebuilt.  Returns false if one has no room
 * (no log, or a full one).
 */
static bool record_lost_stripe(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	bool ok = true;
	int i;

	rcu_read_lock();
	for (i = 0; i < 2 * conf->raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(*r5j_dev_slot(conf, i));

		if (rebuilding(rdev, r5j_rsec(sh, rdev)) &&
		    !rdev_set_badblocks(rdev, r5j_rsec(sh, rdev),
					R5J_STRIPE_SECTORS, 0))
			ok = false;
	}
	rcu_read_unlock();
	return ok;
}

/*
 * Daemon, end of a pass with no I/O started: a block whose read failed is
 * up to date now (rebuilt from the others).  Write it back, as a disk
 * remaps a sector on write, then read it back (read_done() counts it as
 * corrected, read_failed() records a bad block).  As raid456, not on a
 * read-only array and only while the stripe can be rebuilt.  A block up
 * to date here in a recorded bad range of a member that never failed a
 * write is handled as a read error too (raid456 does the same): the
 * rewrite clears the range.
 */
static void fix_read_errors(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	int i;

	if (s->failed > conf->max_degraded || !md_is_rdwr(conf->mddev))
		return;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		struct md_rdev *rdev;
		bool write;

		/* a dirty block reaches the member by its destage only */
		if (test_bit(R5J_LOCKED, &dev->flags) ||
		    !test_bit(R5J_UPTODATE, &dev->flags) ||
		    test_bit(R5J_DIRTY, &dev->flags))
			continue;
		rcu_read_lock();
		rdev = rcu_dereference(conf->disks[i].rdev);
		if (!r5j_can_rewrite(rdev, r5j_rsec(sh, rdev)) ||
		    (!test_bit(R5J_READ_ERROR, &dev->flags) &&
		     !r5j_has_badblock(rdev, r5j_rsec(sh, rdev))))
			rdev = NULL;
		else
			atomic_inc(&rdev->nr_pending);
		rcu_read_unlock();
		if (!rdev)
			continue;
		if (!test_and_set_bit(R5J_READ_ERROR, &dev->flags)) {
			dev->read_error_gen = READ_ONCE(conf->disks[i].gen);
			clear_bit(R5J_REWRITE, &dev->flags);
		}
		write = !test_and_set_bit(R5J_REWRITE, &dev->flags);
		if (!write)
			clear_bit(R5J_UPTODATE, &dev->flags);
		set_bit(R5J_LOCKED, &dev->flags);
		r5j_submit_io(sh, dev->io, rdev, write ? REQ_OP_WRITE :
			  REQ_OP_READ | REQ_NOMERGE, 0);
	}
}

/*
 * A range that cannot be cleared (splitting it needs a free entry of a
 * full table) would be rewritten on every pass (fix_read_errors()):
 * stop writing the member's bad ranges, as after a write error.
 */
static void clear_range(struct md_rdev *rdev, sector_t sector)
{
	struct mddev *mddev = rdev->mddev;

	if (rdev_clear_badblocks(rdev, sector, R5J_STRIPE_SECTORS, 0)) {
		set_bit(WriteErrorSeen, &rdev->flags);
		return;
	}
	/*
	 * The writes that made the block good complete once the superblock
	 * no longer lists it (end_write_part() holds them): a range recorded
	 * with the stripe's parity would otherwise read EIO after a crash.
	 */
	set_mask_bits(&mddev->sb_flags, 0,
		      BIT(MD_SB_CHANGE_CLEAN) | BIT(MD_SB_CHANGE_PENDING));
	md_wakeup_thread(mddev->thread);
}

/*
 * Daemon: writes over recorded bad ranges succeeded (write_done()): clear
 * the ranges, unless another device took the slot since.
 */
static void clear_made_good(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		struct md_rdev *rdev;
		bool m, r;

		/* every pass of every stripe: no locked op when none is set */
		if (!test_bit(R5J_MADE_GOOD, &dev->flags) &&
		    !test_bit(R5J_MADE_GOOD_REPL, &dev->flags))
			continue;
		m = test_and_clear_bit(R5J_MADE_GOOD, &dev->flags);
		r = test_and_clear_bit(R5J_MADE_GOOD_REPL, &dev->flags);
		if (dev->made_good_gen != READ_ONCE(conf->disks[i].gen))
			continue;
		rcu_read_lock();
		rdev = rcu_dereference(conf->disks[i].rdev);
		if (m && r5j_rdev_usable(rdev))
			clear_range(rdev, r5j_rsec(sh, rdev));
		rdev = rcu_dereference(conf->disks[i].replacement);
		if (r && r5j_rdev_usable(rdev))
			clear_range(rdev, r5j_rsec(sh, rdev));
		rcu_read_unlock();
	}
}

/*
 * Too many blocks lost for this stripe: writes fail, and reads of blocks
 * neither in the cache nor readable (as raid456: the others are read by
 * handle_reads()).
 */
static void fail_stripe(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_blist reads, writes;
	struct r5j_bref *ref;
	bool ok = true;
	int i;

	uncorrectable_read_errors(sh);
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		r5j_blist_init(&reads);
		r5j_blist_init(&writes);
		spin_lock_irq(&sh->lock);
		if (!test_bit(i, s->readable) &&
		    !test_bit(R5J_UPTODATE, &dev->flags))
			r5j_blist_splice(&reads, &dev->toread);
		r5j_blist_splice(&writes, &dev->towrite);
		dev->towrite_mask = 0;
		spin_unlock_irq(&sh->lock);
		while ((ref = r5j_blist_pop(&reads)))
			end_read_part(sh, ref, false);
		while ((ref = r5j_blist_pop(&writes)))
			end_write_part(sh, ref, false);
	}
	if (test_and_clear_bit(R5J_STRIPE_SYNC, &sh->state)) {
		/* a later sync of this cached stripe reads the members again */
		clear_bit(R5J_STRIPE_SYNC_STARTED, &sh->state);
		/*
		 * The pass goes on, as raid456's: a resync, check or repair
		 * has nothing to do here (the read errors are recorded
		 * above).  A rebuild must not leave garbage behind: md core
		 * would count the step and the device become In_sync, so the
		 * stripe goes into the bad block log of every device being
		 * rebuilt; only if that fails (no log, or a full one) does
		 * the step fail and recovery stop, the device staying a
		 * spare.
		 */
		if (!test_bit(MD_RECOVERY_SYNC, &conf->mddev->recovery)) {
			ok = record_lost_stripe(sh);
			if (!ok)
				conf->recovery_disabled =
					conf->mddev->recovery_disabled;
		}
		md_done_sync(conf->mddev, R5J_STRIPE_SECTORS, ok);
	}
}

static bool has_writes(struct r5j_stripe *sh)
{
	int i;

	for (i = 0; i < sh->disks; i++)
		if (!r5j_blist_empty(&sh->dev[i].towrite))
			return true;
	return false;
}

/*
 * Choose read-modify-write or reconstruct-write by the number of reads
 * each needs (and rmw_level: r5j_rmw_wins()) and set @want to the blocks
 * that must be up to date first.  Returns true for rmw.
 */
/*
 * Parity at or above the resync point is not made good yet: rmw would
 * carry its error into the new parity, and a member lost before the
 * resync gets there would rebuild the block just written wrong.  rcw
 * computes parity from the data alone, as raid456 forces there.
 */
static bool parity_unsynced(struct r5j_stripe *sh)
{
	sector_t cp = READ_ONCE(r5j_resync_offset(sh->conf->mddev));

	return cp != MaxSector && sh->sector >= cp;
}

static bool plan_write(struct r5j_stripe *sh, struct r5j_state *s,
		       unsigned long *want)
{
	struct r5j_conf *conf = sh->conf;
	int i, rmw_reads = 0, rcw_reads = 0;

	bitmap_zero(want, sh->disks);
	for (i = 0; i < sh->disks && !s->failed; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		bool uptodate = test_bit(R5J_UPTODATE, &dev->flags);

		if (r5j_is_parity(sh, i)) {
			rmw_reads += !uptodate;
			continue;
		}
		if (!r5j_blist_empty(&dev->towrite))
			rmw_reads += !uptodate;
		if (dev->towrite_mask != 0xff)
			rcw_reads += !uptodate;
	}
	if (!s->failed && !parity_unsynced(sh) &&
	    r5j_rmw_wins(conf, rmw_reads, rcw_reads)) {
		for (i = 0; i < sh->disks; i++)
			if (r5j_is_parity(sh, i) ||
			    !r5j_blist_empty(&sh->dev[i].towrite))
				__set_bit(i, want);
		return true;
	}
	/*
	 * rcw, and always when degraded: an unreadable block it reads is
	 * computed from all the others (ensure_blocks()); one rewritten whole
	 * is not needed, nor is the parity.
	 */
	for (i = 0; i < sh->disks; i++)
		if (!r5j_is_parity(sh, i) && sh->dev[i].towrite_mask != 0xff)
			__set_bit(i, want);
	return false;
}

/*
 * sh->lock held: every block the chosen write method reads from the page is
 * up to date, for all the writes now queued (more may have come since the
 * plan): rmw takes old data of each written block out of parity; rcw
 * builds parity from every data block, whole-block overwrites aside.
 */
static bool plan_still_holds(struct r5j_stripe *sh, bool rmw)
{
	int i;

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		bool need;

		if (r5j_is_parity(sh, i))
			need = rmw;
		else if (rmw)
			need = !r5j_blist_empty(&dev->towrite);
		else
			need = dev->towrite_mask != 0xff;
		if (need && !test_bit(R5J_UPTODATE, &dev->flags))
			return false;
	}
	return true;
}

/* Returns true if the stripe is busy with writes (I/O started or waiting). */
static bool handle_writes(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	DECLARE_BITMAP(want, R5J_MAX_DISKS);
	bool rmw, full, fua = false;
	struct r5j_bref *ref;
	int i;

	if (!has_writes(sh))
		return false;
	if (r5j_journal_blocks_writes(conf)) {
		fail_new_writes(sh);
		return false;
	}

	rmw = plan_write(sh, s, want);
	if (!ensure_blocks(sh, s, want))
		return true;

	/*
	 * The write-intent bitmap must cover these sectors on disk before
	 * any of them change; the daemon flushes it for a batch of stripes.
	 */
	spin_lock_irq(&sh->lock);
	if (!plan_still_holds(sh, rmw)) {
		/* writes arrived since plan_write() that need other reads */
		spin_unlock_irq(&sh->lock);
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		return true;
	}
	if (conf->mddev->bitmap && sh->bm_seq > READ_ONCE(conf->bm_flush_seq)) {
		spin_unlock_irq(&sh->lock);
		spin_lock_irq(&conf->lock);
		atomic_inc(&sh->count);	/* the list's reference */
		list_add_tail(&sh->lru, &conf->bitmap_list);
		spin_unlock_irq(&conf->lock);
		atomic64_inc(&conf->stats.bitmap_waits);
		return true;
	}
	full = true;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (!r5j_is_parity(sh, i) && dev->towrite_mask != 0xff)
			full = false;
		r5j_blist_splice(&dev->written, &dev->towrite);
		dev->towrite_mask = 0;
	}
	spin_unlock_irq(&sh->lock);
	if (full)
		atomic64_inc(&conf->stats.full_stripe_writes);

	if (rmw)
		fold_written(sh);	/* take the old data out of P/Q */
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		for (ref = dev->written.head; ref; ref = ref->next) {
			copy_bio_block(ref->bio, dev->page, dev->array_sector,
				       true);
			fua |= !!(ref->bio->bi_opf & REQ_FUA);
		}
		if (dev->written.head)
			set_bit(R5J_UPTODATE, &dev->flags);
	}
	if (rmw) {
		fold_written(sh);	/* and put the new data in */
		atomic64_inc(&conf->stats.rmw);	} else {
		compute_parity(sh);
		atomic64_inc(&conf->stats.rcw);
	}

	if (fua)
		set_bit(R5J_STRIPE_FUA, &sh->state);
	if (conf->log && !r5j_reshape_copy(conf, sh)) {
		sh->write_stage = R5J_W_LOGGING;
		if (r5j_journal_write_stripe(conf->log, sh))
			fail_logged_writes(sh);
		return true;
	}
	submit_member_writes(sh);
	return true;
}

/*
 * Write-back (Documentation/journal.md, section 15).
 *
 * A cached write copies the bios into the stripe's pages and logs those
 * blocks alone (DATA payloads, no parity, no member read unless a block is
 * partly written and not cached); the bios complete once that unit is
 * stable and the blocks stay R5J_DIRTY in the cache.  The destage later
 * computes parity (rcw: the dirty blocks are the new data, the others are
 * read unless cached), logs it (PARITY payload, in room reserved when the
 * stripe became dirty), and writes the dirty blocks and parity to the
 * members.  A dirty stripe is destaged before anything else touches it
 * in a way that would read the members or parity: a write that cannot
 * be cached, a sync, a journal failure, the switch back to write-through.
 */
/* Every data block of @sh is dirty. */
static bool stripe_full(struct r5j_stripe *sh)
{
	int i;

	for (i = 0; i < sh->disks; i++)
		if (!r5j_is_parity(sh, i) &&
		    !test_bit(R5J_DIRTY, &sh->dev[i].flags))
			return false;
	return true;
}

static void finish_cached_write(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_bref *ref;
	int i;

	trace_r5j_wb_cache(sh);
	/* dirty before the first bio completes: aligned reads look */
	if (!test_and_set_bit(R5J_STRIPE_DIRTY, &sh->state)) {
		sh->dirty_tick = READ_ONCE(conf->dirty_tick);
		atomic_inc(&conf->dirty_stripes);
	}
	r5j_journal_data_stable(conf->log, sh);
	sh->write_stage = R5J_W_IDLE;
	clear_bit(R5J_STRIPE_FUA, &sh->state);
	for (i = 0; i < sh->disks; i++)
		clear_bit(R5J_DIRTY_NEW, &sh->dev[i].flags);
	/*
	 * A full stripe is destaged now (handle_writeback() next): it reads
	 * no member, and holding it would only take a free stripe away.  Not
	 * a hot one while the journal is the cache (an evicted stripe frees
	 * its head): it will be rewritten, and a write to it while its member
	 * writes queue would wait for them (journal.md "Destage policy").
	 */
	if (stripe_full(sh) && !test_bit(R5J_STRIPE_HOT, &sh->state))
		set_bit(R5J_STRIPE_DESTAGE, &sh->state);
	for (i = 0; i < sh->disks; i++)
		while ((ref = r5j_blist_pop(&sh->dev[i].written)))
			end_write_part(sh, ref, true);
}

/* The blocks the queued writes cover partly and the cache lacks. */
static void partial_blocks(struct r5j_stripe *sh, unsigned long *want)
{
	int i;

	bitmap_zero(want, sh->disks);
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (!r5j_blist_empty(&dev->towrite) &&
		    dev->towrite_mask != 0xff &&
		    !test_bit(R5J_UPTODATE, &dev->flags))
			__set_bit(i, want);
	}
}

/*
 * Cache the queued writes.  True if the stripe is busy with it; false if
 * the journal has no room for them: the caller writes them through, or
 * destages a dirty stripe first.  The room is checked on the blocks taken
 * here, which are exactly the ones logged: writes that arrive meanwhile on
 * other blocks stay queued for the next pass.
 */
static bool cache_writes(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	DECLARE_BITMAP(want, R5J_MAX_DISKS);
	DECLARE_BITMAP(take, R5J_MAX_DISKS);
	struct r5j_bref *ref;
	int i, err, pages = 0;

	partial_blocks(sh, want);
	if (!ensure_blocks(sh, s, want))
		return true;

	bitmap_zero(take, sh->disks);
	spin_lock_irq(&sh->lock);
	partial_blocks(sh, want);
	if (!bitmap_empty(want, sh->disks)) {
		/* partial writes arrived since: read those blocks first */
		spin_unlock_irq(&sh->lock);
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		return true;
	}
	for (i = 0; i < sh->disks; i++) {
		if (!r5j_blist_empty(&sh->dev[i].towrite)) {
			__set_bit(i, take);
			pages++;
		}
	}
	spin_unlock_irq(&sh->lock);
	/*
	 * Only the daemon adds to the ring and nothing else shrinks the
	 * room, so what fits now still fits when r5j_journal_write_data()
	 * adds these blocks (a write arriving on one of them meanwhile adds
	 * no block, and a partial one covers a block already readable).
	 */
	if (!r5j_journal_data_fits(conf->log, sh, pages))
		return false;

	spin_lock_irq(&sh->lock);
	for_each_set_bit(i, take, sh->disks) {
		r5j_blist_splice(&sh->dev[i].written, &sh->dev[i].towrite);
		sh->dev[i].towrite_mask = 0;
	}
	spin_unlock_irq(&sh->lock);

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (r5j_is_parity(sh, i)) {
			/* stale until the destage computes it */
			clear_bit(R5J_UPTODATE, &dev->flags);
			continue;
		}
		if (!dev->written.head)
			continue;
		for (ref = dev->written.head; ref; ref = ref->next)
			copy_bio_block(ref->bio, dev->page, dev->array_sector,
				       true);
		set_bit(R5J_UPTODATE, &dev->flags);
		if (!test_and_set_bit(R5J_DIRTY, &dev->flags)) {
			set_bit(R5J_DIRTY_NEW, &dev->flags);
			r5j_wbcache_count(conf, 1);
		} else {
			set_bit(R5J_STRIPE_HOT, &sh->state);
		}
	}
	set_bit(R5J_STRIPE_WB_LOG, &sh->state);
	sh->write_stage = R5J_W_LOGGING;
	err = r5j_journal_write_data(conf->log, sh);
	/* -EIO: the journal failed; -EAGAIN: the check above is wrong */
	WARN_ON_ONCE(err == -EAGAIN);
	if (err)
		fail_logged_writes(sh);
	return true;
}

/*
 * May the queued writes be cached?  A first look, before blocks are read
 * for them; cache_writes() checks the room again on what it takes.
 */
static bool cacheable(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	int i, pages = 0;

	DECLARE_BITMAP(want, R5J_MAX_DISKS);

	if (!READ_ONCE(conf->writeback) || conf->quiesce ||
	    test_bit(R5J_STRIPE_SYNC, &sh->state) ||
	    r5j_journal_failed(conf->log))
		return false;
	/* degraded: a partly written block must be readable, never computed */
	partial_blocks(sh, want);
	if (s->failed && !bitmap_subset(want, s->readable, sh->disks))
		return false;
	for (i = 0; i < sh->disks; i++)
		if (!r5j_blist_empty(&sh->dev[i].towrite))
			pages++;
	return r5j_journal_data_fits(conf->log, sh, pages);
}

/*
 * A dirty stripe that cannot be destaged now keeps its blocks in the cache
 * and in the journal (whose recovery at the next assembly can destage it);
 * quiesce and the destage triggers pass it over.
 */
static void set_stuck(struct r5j_stripe *sh, int member)
{
	struct r5j_conf *conf = sh->conf;

	clear_bit(R5J_STRIPE_DESTAGE, &sh->state);
	if (test_and_set_bit(R5J_STRIPE_STUCK, &sh->state))
		return;
	atomic_inc(&conf->stuck_stripes);
	pr_warn_ratelimited("md/raid:%s: write-back stripe %llu cannot be destaged with member %d missing: kept in the journal for the next assembly\n",
			    mdname(conf->mddev), (unsigned long long)sh->sector,
			    member);
}

/*
 * A STUCK stripe: new writes fail, a sync step ends unsuccessfully (it
 * would read the members over the dirty blocks), reads go on (dirty blocks
 * from the cache, the rest from readable members).  Returns false.
 */
static bool stuck_work(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;

	fail_new_writes(sh);
	if (test_and_clear_bit(R5J_STRIPE_SYNC, &sh->state)) {
		clear_bit(R5J_STRIPE_SYNC_STARTED, &sh->state);
		conf->recovery_disabled = conf->mddev->recovery_disabled;
		md_done_sync(conf->mddev, R5J_STRIPE_SECTORS, 0);
	}
	return false;
}

static void put_orig(struct r5j_stripe *sh)
{
	int i;

	for (i = 0; i < sh->disks; i++) {
		clear_bit(R5J_ORIG_UPTODATE, &sh->dev[i].flags);
		if (sh->dev[i].orig) {
			put_page(sh->dev[i].orig);
			sh->dev[i].orig = NULL;
		}
	}
}

/*
 * Degraded destage: a member lost since the stripe became dirty held a
 * clean data block.  The members still hold the old stripe, consistent
 * (L10), so it is rebuilt from them: the old blocks of the dirty ones
 * are read into dev->orig (the page keeps the new data), the others into
 * their pages, and the lost blocks computed.  0: done; 1: reads started,
 * or a page or a member missing since (the stripe is handled again: never
 * made permanent); -EIO: the old stripe cannot be computed.
 */
static int rebuild_clean(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	void **blocks = conf->blocks;
	int i, reads = 0, err;

	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		bool dirty = test_bit(R5J_DIRTY, &dev->flags);

		/* a lost dirty block too: r5j_recover() writes its old one */
		if (dirty && !dev->orig) {
			dev->orig = alloc_page(GFP_NOIO);
			if (!dev->orig)
				break;	/* transient: the next pass retries */
		}
		if (!test_bit(i, s->readable))
			continue;
		if (dirty && test_bit(R5J_ORIG_UPTODATE, &dev->flags))
			continue;
		if (!dirty && test_bit(R5J_UPTODATE, &dev->flags))
			continue;
		if (!r5j_submit_block(sh, i, REQ_OP_READ, dirty ? R5J_IO_ORIG : 0))
			break;	/* a member failed since: look again */
		reads++;
	}
	if (i < sh->disks) {
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		return 1;
	}
	if (reads)
		return 1;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		blocks[i] = page_address(test_bit(R5J_DIRTY, &dev->flags) ?
					 dev->orig : dev->page);
	}
	err = r5j_recover(sh->geom, &sh->map, blocks, s->failed_num,
			  min(s->failed, 2), &conf->pw);
	if (err)
		return -EIO;
	for (i = 0; i < s->failed && i < 2; i++)
		if (!test_bit(R5J_DIRTY, &sh->dev[s->failed_num[i]].flags))
			set_bit(R5J_UPTODATE, &sh->dev[s->failed_num[i]].flags);
	put_orig(sh);
	return 0;
}

/*
 * rmw destage, when it reads fewer member blocks than rcw (a few dirty
 * blocks in a wide stripe; rmw_level decides, r5j_rmw_wins()): the
 * members' old blocks of the dirty ones (into dev->orig, the page keeps
 * the new data) and the old parity; P/Q lose the old data and take the
 * new.  The members hold the old stripe consistently (L10), so old parity
 * and old data match.  Optimal stripes only.  0: parity computed; 1: reads
 * in flight; -1: use rcw.
 */
static int destage_rmw(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	void **data = conf->rmw_data;
	int i, rmw_reads = 0, rcw_reads = 0, reads = 0, rmw_cost = 0;
	void *p, *q;

	if (READ_ONCE(conf->rmw_level) == R5J_RMW_NEVER || s->failed ||
	    parity_unsynced(sh))
		return -1;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (r5j_is_parity(sh, i)) {
			rmw_reads += !test_bit(R5J_UPTODATE, &dev->flags);
			rmw_cost++;	/* stale since the stripe became dirty */
		} else if (test_bit(R5J_DIRTY, &dev->flags)) {
			rmw_reads += !test_bit(R5J_ORIG_UPTODATE, &dev->flags);
			rmw_cost++;
		} else {
			rcw_reads += !test_bit(R5J_UPTODATE, &dev->flags);
		}
	}
	if (!r5j_rmw_wins(conf, rmw_reads, rcw_reads))
		return -1;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		bool parity = r5j_is_parity(sh, i);

		if (parity ? test_bit(R5J_UPTODATE, &dev->flags) :
		    (!test_bit(R5J_DIRTY, &dev->flags) ||
		     test_bit(R5J_ORIG_UPTODATE, &dev->flags)))
			continue;
		if (!parity && !dev->orig) {
			dev->orig = alloc_page(GFP_NOIO);
			if (!dev->orig)
				break;	/* nothing read yet for it: rcw */
		}
		if (!r5j_submit_block(sh, i, REQ_OP_READ,
				      parity ? 0 : R5J_IO_ORIG)) {
			/* a member failed since analyse_stripe(): look again */
			set_bit(R5J_STRIPE_HANDLE, &sh->state);
			return 1;
		}
		reads++;
	}
	if (reads) {
		if (conf->log)
			r5j_journal_count_destage(conf->log, -1, reads);
		return 1;
	}
	if (i < sh->disks)
		return -1;	/* no page for an old block: rcw */

	p = page_address(sh->dev[sh->map.pd_idx].page);
	q = sh->map.qd_idx >= 0 ? page_address(sh->dev[sh->map.qd_idx].page) :
		NULL;
	for (i = 0; i < sh->disks; i++)
		data[i] = (!r5j_is_parity(sh, i) &&
			   test_bit(R5J_DIRTY, &sh->dev[i].flags)) ?
			page_address(sh->dev[i].orig) : NULL;
	if (r5j_parity_rmw(sh->geom, &sh->map, data, p, q, &conf->pw))
		return -1;	/* not touched: rmw_level said it works */
	for (i = 0; i < sh->disks; i++)
		if (data[i])
			data[i] = page_address(sh->dev[i].page);
	r5j_parity_rmw(sh->geom, &sh->map, data, p, q, &conf->pw);
	put_orig(sh);
	/* what rcw would read now, less what this rmw read */
	if (conf->log)
		r5j_journal_count_rmw(conf->log, max(rcw_reads - rmw_cost, 0));
	return 0;
}

/*
 * Lost array sectors are named one block a line: a burst of stripes that
 * lost blocks together (a journal range gone) still fits, the rate stays
 * bounded.  journal_stats lost_blocks counts them all.
 */
static DEFINE_RATELIMIT_STATE(lost_ratelimit, 5 * HZ, 256);

/* Record block @i of @sh in the bad block log of its member and replacement. */
static void record_lost_block(struct r5j_stripe *sh, int i)
{
	struct r5j_conf *conf = sh->conf;
	int slot;

	rcu_read_lock();
	for (slot = i; slot < 2 * conf->raid_disks; slot += conf->raid_disks) {
		struct md_rdev *rdev = rcu_dereference(*r5j_dev_slot(conf, slot));

		if (r5j_rdev_usable(rdev))
			r5j_record_bad(conf, rdev, r5j_rsec(sh, rdev));
	}
	rcu_read_unlock();
}

/* A dirty block (in the cache or its journal copy) that the members lack. */
static bool has_lost_block(struct r5j_stripe *sh)
{
	int i;

	for (i = 0; i < sh->disks; i++)
		if (test_bit(R5J_LOST, &sh->dev[i].flags))
			return true;
	return false;
}

/* Devices of the stripe with neither member nor replacement working. */
static int members_missing(struct r5j_stripe *sh, struct r5j_state *s)
{
	return sh->disks - bitmap_weight(s->writable, sh->disks);
}

/*
 * A dirty stripe that cannot be destaged whole, its members there
 * (journal.md section 15, "Lost blocks"): a dirty block whose journal copy
 * did not come back (R5J_LOST), or more blocks unreadable than the parity
 * covers (a read error, a recorded bad block on a degraded stripe).  Its
 * parity cannot be computed.  As raid456 with a block it cannot rebuild:
 * what is known (the dirty blocks in the cache) goes to the members, and
 * every device whose block is unknown or stale -- the lost data blocks,
 * the parity -- gets the stripe in its bad block log, so that no read
 * returns a member's older block, directly or computed from the parity:
 * those blocks read EIO.  The stripe is then clean, its pin released: the
 * ring and stop never wait for it.  The log keeps the tail until the bad
 * blocks are on disk (r5j_journal_set_tail()).  true: busy.
 */
static bool destage_lost(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	int i, lost = 0;

	if (sh->write_stage != R5J_W_IDLE)
		return true;
	put_orig(sh);
	uncorrectable_read_errors(sh);
	if (conf->log)
		r5j_journal_wb_forget(conf->log, sh);
	sh->write_stage = R5J_W_MEMBERS;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		bool dirty = test_bit(R5J_DIRTY, &dev->flags);
		const char *why;

		if (r5j_is_parity(sh, i)) {
			clear_bit(R5J_UPTODATE, &dev->flags);
			record_lost_block(sh, i);
			continue;
		}
		if (dirty && test_bit(R5J_UPTODATE, &dev->flags) &&
		    !test_bit(R5J_LOST, &dev->flags) &&
		    test_bit(i, s->writable)) {
			r5j_submit_block(sh, i, REQ_OP_WRITE, 0);
			continue;
		}
		if (!dirty && (test_bit(i, s->readable) ||
			       test_bit(R5J_UPTODATE, &dev->flags)))
			continue;	/* the members have it */
		if (test_bit(R5J_LOST, &dev->flags))
			why = "its journal copy could not be read back";
		else if (dirty)
			why = "its member is missing";
		else
			why = "unreadable, and too many blocks of its stripe lost to rebuild it";
		if (__ratelimit(&lost_ratelimit))
			pr_warn("md/raid:%s: write-back stripe %llu: array sectors %llu-%llu lost (%s): recorded as bad blocks, reads of them fail\n",
				mdname(conf->mddev),
				(unsigned long long)sh->sector,
				(unsigned long long)dev->array_sector,
				(unsigned long long)dev->array_sector +
				R5J_STRIPE_SECTORS - 1, why);
		clear_bit(R5J_LOST, &dev->flags);
		clear_bit(R5J_UPTODATE, &dev->flags);
		record_lost_block(sh, i);
		lost++;
	}
	if (lost)
		r5j_wbcache_count_lost(conf, lost);
	/* finish_writes() releases the pin once the writes are done */
	if (!atomic_read(&sh->io_pending))
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
	return true;
}

/* Write the dirty blocks of @sh to the members; true: busy with it. */
static bool destage(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	DECLARE_BITMAP(want, R5J_MAX_DISKS);
	bool full;
	int i, reads;

	for (i = 0; i < s->failed && i < 2; i++) {
		int f = s->failed_num[i];

		if (r5j_is_parity(sh, f) ||
		    test_bit(R5J_DIRTY, &sh->dev[f].flags))
			continue;
		/* a clean data block is lost: rebuild it from the old stripe */
		switch (rebuild_clean(sh, s)) {
		case 0:
			break;
		case 1:
			return true;	/* reads in flight */
		default:
			return destage_lost(sh, s);
		}
		break;
	}

	set_bit(R5J_STRIPE_DESTAGE, &sh->state);
	switch (destage_rmw(sh, s)) {
	case 0:
		goto computed;
	case 1:
		return true;
	}
	put_orig(sh);	/* an rmw given up: its old blocks must not linger */

	/* rcw: every clean data block, the dirty ones are in the cache */
	bitmap_zero(want, sh->disks);
	reads = 0;
	full = true;
	for (i = 0; i < sh->disks; i++) {
		if (r5j_is_parity(sh, i) ||
		    test_bit(R5J_DIRTY, &sh->dev[i].flags))
			continue;
		__set_bit(i, want);
		full = false;
		reads += !test_bit(R5J_UPTODATE, &sh->dev[i].flags);
	}
	if (!ensure_blocks(sh, s, want)) {
		if (conf->log)
			r5j_journal_count_destage(conf->log, -1, reads);
		return true;
	}
	compute_parity(sh);
	if (conf->log)
		r5j_journal_count_destage(conf->log, full, 0);
computed:
	if (conf->log && !r5j_journal_failed(conf->log)) {
		sh->write_stage = R5J_W_LOGGING;
		if (!r5j_journal_write_parity(conf->log, sh))
			return true;
		sh->write_stage = R5J_W_IDLE;
	}
	/* no journal any more: the cache holds the only copy, FUA */
	set_bit(R5J_STRIPE_FUA, &sh->state);
	submit_member_writes(sh);
	return true;
}

/* Write-back work of a stripe; true: busy. */
static bool handle_writeback(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	bool writes = has_writes(sh);

	if (!test_bit(R5J_STRIPE_DIRTY, &sh->state)) {
		if (!conf->log)
			return false;
		/* otherwise write-through */
		return writes && cacheable(sh, s) && cache_writes(sh, s);
	}
	if (test_bit(R5J_STRIPE_STUCK, &sh->state))
		return stuck_work(sh);
	if (has_lost_block(sh))
		return destage_lost(sh, s);
	if (!conf->log || r5j_journal_failed(conf->log))
		return destage(sh, s);
	if (writes && !test_bit(R5J_STRIPE_DESTAGE, &sh->state) &&
	    cacheable(sh, s) && cache_writes(sh, s))
		return true;
	if (writes || test_bit(R5J_STRIPE_DESTAGE, &sh->state) ||
	    test_bit(R5J_STRIPE_SYNC, &sh->state) ||
	    !READ_ONCE(conf->writeback))
		return destage(sh, s);
	return false;
}

static void fail_dirty_reads(struct r5j_stripe *sh, unsigned long *want)
{
	struct r5j_blist reads;
	struct r5j_bref *ref;
	int i;

	for_each_set_bit(i, want, sh->disks) {
		r5j_blist_init(&reads);
		spin_lock_irq(&sh->lock);
		r5j_blist_splice(&reads, &sh->dev[i].toread);
		spin_unlock_irq(&sh->lock);
		while ((ref = r5j_blist_pop(&reads)))
			end_read_part(sh, ref, false);
	}
}

/* Returns true if reads were started. */
static bool handle_reads(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	DECLARE_BITMAP(want, R5J_MAX_DISKS);
	struct r5j_blist done;
	struct r5j_bref *ref;
	bool any = false;
	int i;

	bitmap_zero(want, sh->disks);
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (r5j_blist_empty(&dev->toread))
			continue;
		if (!test_bit(R5J_UPTODATE, &dev->flags) &&
		    test_bit(R5J_DIRTY, &dev->flags)) {
			/* not read back from the journal: L17, EIO */
			DECLARE_BITMAP(lost, R5J_MAX_DISKS);

			bitmap_zero(lost, sh->disks);
			__set_bit(i, lost);
			fail_dirty_reads(sh, lost);
			continue;
		}
		if (!test_bit(R5J_UPTODATE, &dev->flags)) {
			__set_bit(i, want);
			any = true;
			continue;
		}
		r5j_blist_init(&done);
		spin_lock_irq(&sh->lock);
		r5j_blist_splice(&done, &dev->toread);
		spin_unlock_irq(&sh->lock);
		while ((ref = r5j_blist_pop(&done))) {
			copy_bio_block(ref->bio, dev->page, dev->array_sector,
				       false);
			end_read_part(sh, ref, true);
		}
	}
	if (!any)
		return false;
	if (s->failed)
		atomic64_inc(&conf->stats.degraded_reads);
	if (test_bit(R5J_STRIPE_DIRTY, &sh->state) &&
	    !bitmap_subset(want, s->readable, sh->disks)) {
		/*
		 * Members hold the stripe before its dirty blocks, the cache
		 * after: nothing can be computed from the mix.  Destage
		 * first (it rebuilds the lost block from the old stripe),
		 * unless that is impossible (journal.md section 15).
		 */
		if (test_bit(R5J_STRIPE_STUCK, &sh->state)) {
			fail_dirty_reads(sh, want);
			return false;
		}
		set_bit(R5J_STRIPE_DESTAGE, &sh->state);
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		return true;
	}
	if (!ensure_blocks(sh, s, want))
		return true;
	/* computed from the others: serve them now */
	return handle_reads(sh, s);
}

/* One stripe of resync, check, repair or rebuild. */
static void handle_sync(struct r5j_stripe *sh, struct r5j_state *s)
{
	struct r5j_conf *conf = sh->conf;
	struct mddev *mddev = conf->mddev;
	DECLARE_BITMAP(want, R5J_MAX_DISKS);
	int i, writes = 0;

	if (!test_bit(R5J_STRIPE_SYNC, &sh->state))
		return;
	if (!test_and_set_bit(R5J_STRIPE_SYNC_STARTED, &sh->state)) {
		/* check what the members hold, not what the cache holds */
		for (i = 0; i < sh->disks; i++)
			clear_bit(R5J_UPTODATE, &sh->dev[i].flags);
	}
	bitmap_fill(want, sh->disks);
	if (!ensure_blocks(sh, s, want))
		return;

	if (!test_bit(MD_RECOVERY_SYNC, &mddev->recovery)) {
		/* rebuild: write computed blocks to members being recovered */
		for (i = 0; i < s->failed && i < 2; i++) {
			int f = s->failed_num[i];

			if (test_bit(f, s->writable))
				writes += r5j_submit_block(sh, f, REQ_OP_WRITE,
						       R5J_IO_SYNC);
		}
		/*
		 * and copy to replacements being filled the blocks their
		 * members hold (the failed ones were written whole above)
		 */
		for_each_set_bit(i, s->replacing, sh->disks)
			if (test_bit(i, s->readable))
				writes += r5j_submit_block(sh, i, REQ_OP_WRITE,
						       R5J_IO_SYNC |
						       R5J_IO_REPL);
	} else if (!s->failed || (s->failed == 1 && conf->max_degraded == 2)) {
		/*
		 * Resync, check, repair.  RAID6 with one block lost: it was
		 * just rebuilt from one parity, so the other one is checked.
		 */
		int bad = r5j_check_parity(sh->geom, &sh->map,
					   stripe_blocks(sh), &conf->pw);

		if (bad) {
			atomic64_add(R5J_STRIPE_SECTORS,
				     &mddev->resync_mismatches);
			if (test_bit(MD_RECOVERY_CHECK, &mddev->recovery)) {
				pr_warn_ratelimited("%s: mismatch sector in range %llu-%llu\n",
						    mdname(mddev),
						    (unsigned long long)sh->sector,
						    (unsigned long long)sh->sector +
						    R5J_STRIPE_SECTORS);
			} else {
				compute_parity(sh);
				if (bad & R5J_P_BAD)
					writes += r5j_submit_block(sh, sh->map.pd_idx,
							       REQ_OP_WRITE,
							       R5J_IO_SYNC);
				if (bad & R5J_Q_BAD)
					writes += r5j_submit_block(sh, sh->map.qd_idx,
							       REQ_OP_WRITE,
							       R5J_IO_SYNC);
			}
		}
	}
	/* else: no redundancy left to check against */
	if (writes) {
		set_bit(R5J_STRIPE_SYNC_IO, &sh->state);
		return;
	}
	clear_bit(R5J_STRIPE_SYNC_STARTED, &sh->state);
	clear_bit(R5J_STRIPE_SYNC, &sh->state);
	md_done_sync(mddev, R5J_STRIPE_SECTORS, 1);
}

static void finish_sync_io(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	bool ok = true;
	int i;

	/* a write error recorded as a bad block is no failed step */
	rcu_read_lock();
	for (i = 0; i < sh->disks; i++)
		if (test_and_clear_bit(R5J_WRITE_ERROR, &sh->dev[i].flags) &&
		    !r5j_rdev_usable(rcu_dereference(conf->disks[i].rdev)))
			ok = false;
	rcu_read_unlock();
	clear_bit(R5J_STRIPE_SYNC_IO, &sh->state);
	clear_bit(R5J_STRIPE_SYNC_STARTED, &sh->state);
	clear_bit(R5J_STRIPE_SYNC, &sh->state);
	md_done_sync(sh->conf->mddev, R5J_STRIPE_SECTORS, ok);
}

/* Will a write of block @i of @sh reach its member or replacement? */
static bool takes_rewrite(struct r5j_stripe *sh, int i)
{
	struct r5j_conf *conf = sh->conf;
	struct md_rdev *rdev, *repl;
	bool ok;

	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[i].rdev);
	repl = rcu_dereference(conf->disks[i].replacement);
	ok = r5j_can_rewrite(rdev, r5j_rsec(sh, rdev)) ||
	     r5j_can_rewrite(repl, r5j_rsec(sh, repl));
	rcu_read_unlock();
	return ok;
}

/*
 * More blocks of @sh unreadable than its parity covers -- a lost block
 * and its parity recorded bad by destage_lost(), read errors -- and yet
 * every unreadable data block is rewritten whole: by the queued writes,
 * or (a dirty stripe) by a dirty block in the cache.  A reconstruct-write
 * then needs none of them: parity comes from the readable data and the
 * new blocks, and the writes clear the bad ranges (clear_made_good()),
 * as md clears a range that takes a write.  Enough of the unreadable
 * blocks must take their write for the stripe to be within its
 * redundancy again.  A partial write of an unreadable block has no old
 * data to merge with: fail_stripe() fails it.
 */
static bool rewrites_unreadable(struct r5j_stripe *sh, struct r5j_state *s)
{
	bool dirty = test_bit(R5J_STRIPE_DIRTY, &sh->state);
	int i, stale = 0;

	if (test_bit(R5J_STRIPE_STUCK, &sh->state) || has_lost_block(sh))
		return false;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (test_bit(i, s->readable))
			continue;
		/* a dirty stripe's destage reads clean blocks (rebuild_clean()) */
		if (!r5j_is_parity(sh, i) &&
		    !(dirty ? test_bit(R5J_DIRTY, &dev->flags) &&
		      test_bit(R5J_UPTODATE, &dev->flags) :
		      dev->towrite_mask == 0xff))
			return false;
		if (!takes_rewrite(sh, i))
			stale++;
	}
	return stale <= sh->conf->max_degraded;
}

/* The writes of rewrites_unreadable(); true: busy with them. */
static bool rewrite_unreadable(struct r5j_stripe *sh, struct r5j_state *s)
{
	/* destaged at once: until then the stripe is beyond its parity */
	if (test_bit(R5J_STRIPE_DIRTY, &sh->state))
		set_bit(R5J_STRIPE_DESTAGE, &sh->state);
	return handle_writeback(sh, s) || handle_writes(sh, s);
}

void r5j_handle_stripe(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_state s;

	trace_r5j_stripe_handle(sh);
	if (atomic_read(&sh->io_pending))
		return;		/* the last completion brings it back */
	if (sh->wb_entry && r5j_wbcache_reload(sh))
		return;		/* evicted blocks being read back */
	atomic64_inc(&conf->stats.stripes_handled);

	clear_made_good(sh);
	analyse_stripe(sh, &s);
	switch (sh->write_stage) {
	case R5J_W_LOGGING:
	case R5J_W_PARKED:
		return;		/* the journal hands it back */
	case R5J_W_TO_MEMBERS:
		if (test_and_clear_bit(R5J_STRIPE_WB_LOG, &sh->state)) {
			finish_cached_write(sh);
			break;
		}
		submit_member_writes(sh);
		return;
	case R5J_W_LOG_FAILED:
		fail_logged_writes(sh);
		break;
	case R5J_W_MEMBERS:
		finish_writes(sh, &s);
		break;
	case R5J_W_IDLE:
		break;
	}
	if (test_bit(R5J_STRIPE_SYNC_IO, &sh->state))
		finish_sync_io(sh);

	if (s.failed > conf->max_degraded) {
		if (rewrites_unreadable(sh, &s) && rewrite_unreadable(sh, &s))
			return;
		/*
		 * Dirty: kept for the next assembly only when members are
		 * missing (they may come back); blocks unreadable with the
		 * members there are lost, as raid456 loses them.
		 */
		if (test_bit(R5J_STRIPE_DIRTY, &sh->state)) {
			if (members_missing(sh, &s) > conf->max_degraded)
				set_stuck(sh, s.failed_num[0]);
			else if (destage_lost(sh, &s))
				return;
		}
		fail_stripe(sh, &s);
		handle_reads(sh, &s);
		return;
	}
	if (handle_writeback(sh, &s))
		return;
	if (handle_writes(sh, &s))
		return;
	if (handle_reads(sh, &s))
		return;
	handle_sync(sh, &s);
	if (!atomic_read(&sh->io_pending))
		fix_read_errors(sh, &s);
}

/* Daemon: write the bitmap once for every stripe waiting on it. */
void r5j_flush_bitmap_list(struct r5j_conf *conf)
{
	struct r5j_stripe *sh, *tmp;
	LIST_HEAD(list);
	u64 seq;

	spin_lock_irq(&conf->lock);
	list_splice_init(&conf->bitmap_list, &list);
	spin_unlock_irq(&conf->lock);
	if (list_empty(&list))
		return;

	seq = atomic64_read(&conf->bm_write_seq);
	r5j_bitmap_unplug(conf->mddev);
	WRITE_ONCE(conf->bm_flush_seq, seq);

	list_for_each_entry_safe(sh, tmp, &list, lru) {
		list_del_init(&sh->lru);
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		r5j_release_stripe(sh);
	}
}
