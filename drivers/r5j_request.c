// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j request entry points: bios from above (make_request) and the
 * resync/recovery/check driver (sync_request).
 *
 * A bio is cut into 4 KiB shares, one per stripe block it touches; each
 * share holds a reference on the bio (bio_inc_remaining), so the bio
 * completes when its last share does.  Reads that fit in one chunk of an
 * optimal array skip the stripe cache and go straight to the member.
 */
#include <linux/blkdev.h>
#include "r5j.h"
#include "r5j_journal.h"

/* Sectors of block [block, block + 8) that [first, last) covers, as bits. */
static u8 cover_mask(sector_t block, sector_t first, sector_t last)
{
	sector_t s = max(block, first), e = min(block + R5J_STRIPE_SECTORS, last);
	u8 mask = 0;

	for (; s < e; s++)
		mask |= 1 << (s - block);
	return mask;
}

/*
 * Attach @bi's share of the block at array sector @block to its stripe:
 * @sh if the caller already holds the stripe of that row, else a newly
 * taken one.  Returns the stripe, still referenced.
 */
static struct r5j_stripe *add_bio_share(struct r5j_conf *conf,
					const struct r5j_geom *g,
					struct bio *bi, sector_t block,
					bool is_write, struct r5j_stripe *sh,
					int flags)
{
	struct mddev *mddev = conf->mddev;
	struct r5j_stripe_map map;
	struct r5j_bref *ref;
	struct r5j_dev *dev;
	sector_t dev_sector;
	u64 bm_seq = 0;
	int dd_idx;

	dev_sector = r5j_map_array_sector(g, block, &dd_idx, &map);
	ref = mempool_alloc(&conf->bref_pool, GFP_NOIO);
	ref->bio = bi;
	bio_inc_remaining(bi);
	if (!sh)
		sh = r5j_get_stripe_geom(conf, dev_sector, g == &conf->rs.prev,
					 flags | (is_write ? R5J_GET_WRITE : 0));
	WARN_ON_ONCE(sh->sector != dev_sector || sh->geom != g);
	if (is_write) {
		if (!r5j_is_step_bio(bi))
			md_write_inc(mddev, bi);
		/*
		 * Bitmap bit set before the share can reach the stripe, and
		 * only once the stripe is active: quiesce waits for active
		 * stripes, so md_bitmap_resize() never swaps the counters
		 * under a write it has counted (see design.md).
		 */
		r5j_bitmap_startwrite(mddev, dev_sector, R5J_STRIPE_SECTORS);
		bm_seq = atomic64_inc_return(&conf->bm_write_seq);
	}
	dev = &sh->dev[dd_idx];
	spin_lock_irq(&sh->lock);
	if (is_write) {
		r5j_blist_add(&dev->towrite, ref);
		dev->towrite_mask |= cover_mask(block, bi->bi_iter.bi_sector,
						bio_end_sector(bi));
		if (bm_seq > sh->bm_seq)
			sh->bm_seq = bm_seq;
		/* journal_stats: a write that waits for a destage */
		if (test_bit(R5J_STRIPE_DESTAGE, &sh->state))
			r5j_wbcache_count_write_wait(conf);
	} else {
		r5j_blist_add(&dev->toread, ref);
	}
	spin_unlock_irq(&sh->lock);
	return sh;
}

/*
 * Send @bi through the stripe cache, one share per block, a stripe row at
 * a time: every block of the bio in one row is attached before the daemon
 * may see the row, so a bio that covers a whole row is a full-stripe write
 * (no pre-reads) although its blocks of one row are far apart in the bio.
 * @flags: extra R5J_GET_* flags for the stripes.
 */
void r5j_stripe_rows(struct r5j_conf *conf, const struct r5j_geom *g,
		     struct bio *bi, u64 first, u64 last, int flags)
{
	bool is_write = op_is_write(bio_op(bi));
	struct r5j_rows rows;
	u64 dev_sector, block;

	if (first >= last)
		return;
	r5j_rows_init(&rows, g, first, last);
	while (r5j_rows_next(&rows, &dev_sector)) {
		struct r5j_stripe *sh = NULL;

		while (r5j_rows_block(&rows, &block))
			sh = add_bio_share(conf, g, bi, block, is_write, sh,
					   flags);
		if (sh) {
			set_bit(R5J_STRIPE_HANDLE, &sh->state);
			r5j_release_stripe(sh);
		}
	}
}

/*
 * A request must wait while a reshape step copies its range, and a write
 * also while its range is reshaped but not yet checkpointed (R4: a crash
 * would redo the copy from the previous geometry), either direction.
 */
static bool reshape_blocks(struct r5j_conf *conf, u64 first, u64 last,
			   bool is_write)
{
	if (first < conf->reshape_win_hi && last > conf->reshape_win_lo)
		return true;
	return is_write && r5j_reshape_unsafe(conf->reshape_safe,
					      conf->reshape_progress,
					      first, last);
}

enum r5j_admit { R5J_ADMITTED, R5J_ADMIT_SUSPENDED, R5J_ADMIT_WOULDBLOCK };

/*
 * Wait until the reshape lets @bi in, then count it as a user until its
 * shares are attached (reshape_done()).  R5J_ADMIT_SUSPENDED if md core
 * is suspending the array meanwhile: a superblock update the wait may
 * depend on cannot happen before the suspend ends, so md core resubmits
 * @bi after it (as md_write_start() does).  R5J_ADMIT_WOULDBLOCK: @bi is
 * REQ_NOWAIT and would wait (raid456 refuses those too).
 */
static enum r5j_admit reshape_admit(struct mddev *mddev,
				    struct r5j_conf *conf, struct bio *bi)
{
	u64 first = bi->bi_iter.bi_sector, last = bio_end_sector(bi);
	bool is_write = op_is_write(bio_op(bi));

	spin_lock_irq(&conf->lock);
	while (reshape_blocks(conf, first, last, is_write)) {
		if (bi->bi_opf & REQ_NOWAIT) {
			spin_unlock_irq(&conf->lock);
			return R5J_ADMIT_WOULDBLOCK;
		}
		if (READ_ONCE(mddev->suspended)) {
			spin_unlock_irq(&conf->lock);
			return R5J_ADMIT_SUSPENDED;
		}
		wait_event_lock_irq_timeout(conf->wait_reshape,
					    !reshape_blocks(conf, first, last,
							    is_write),
					    conf->lock, HZ / 10);
	}
	conf->reshape_users++;
	spin_unlock_irq(&conf->lock);
	return R5J_ADMITTED;
}

static void reshape_done(struct r5j_conf *conf)
{
	spin_lock_irq(&conf->lock);
	if (!--conf->reshape_users)
		wake_up(&conf->wait_reshape);
	spin_unlock_irq(&conf->lock);
}

/*
 * The geometry switch of start_reshape (Documentation/reshape.md 5.2).
 * A bio maps its rows through conf->geom (and conf->rs) from the first
 * share to the last; the switch must find none half mapped, and none may
 * start until the cache is forgotten.  md core does not drain bios for
 * it on 6.12 (action_store() holds reconfig_mutex only, and its suspend
 * may not run under that mutex), so the personality does: every user of
 * the geometry holds a reference on conf->geom_users, a percpu_ref (a
 * per-CPU count while live, no shared cache line per bio: the hot path
 * stays as cheap as before), which the switch kills, waits to reach
 * zero, and revives.  Held only past md_write_start(): a bio waiting
 * there for a superblock update (which needs the reconfig_mutex the
 * switch holds) is never waited for.  Nothing a holder waits on needs
 * that mutex either (a free stripe; with a journal, log space, which
 * the wait below reclaims itself, as r5j_quiesce() does); a reshape
 * window (reshape_admit()) cannot be waited in: start_reshape refuses
 * while a reshape is set up.
 */
static void geom_users_release(struct percpu_ref *ref)
{
	struct r5j_conf *conf = container_of(ref, struct r5j_conf, geom_users);

	wake_up_all(&conf->wait_geom);
}

int r5j_geom_users_init(struct r5j_conf *conf)
{
	init_waitqueue_head(&conf->wait_geom);
	return percpu_ref_init(&conf->geom_users, geom_users_release,
			       PERCPU_REF_ALLOW_REINIT, GFP_KERNEL);
}

/* Sleeps while a switch is under way; false: @bi is REQ_NOWAIT and would. */
static bool geom_enter(struct r5j_conf *conf, struct bio *bi)
{
	if (percpu_ref_tryget_live(&conf->geom_users))
		return true;
	if (bi->bi_opf & REQ_NOWAIT)
		return false;
	wait_event(conf->wait_geom, percpu_ref_tryget_live(&conf->geom_users));
	return true;
}

static void geom_exit(struct r5j_conf *conf)
{
	percpu_ref_put(&conf->geom_users);
}

/*
 * reconfig_mutex held: new requests wait, those mapping finish attaching
 * their shares, then the array is quiesced (no active stripe, no
 * aligned read).  In this order: a request waiting for a stripe would
 * wait for the end of the quiesce.
 */
void r5j_geom_freeze(struct mddev *mddev, struct r5j_conf *conf)
{
	percpu_ref_kill(&conf->geom_users);
	while (!wait_event_timeout(conf->wait_geom,
				   percpu_ref_is_zero(&conf->geom_users),
				   HZ / 10)) {
		md_wakeup_thread(mddev->thread);
		/* stripes parked for journal space need the tail moved */
		if (conf->log)
			r5j_journal_reclaim_locked(conf->log);
	}
	mddev->pers->quiesce(mddev, 1);
}

void r5j_geom_thaw(struct mddev *mddev, struct r5j_conf *conf)
{
	mddev->pers->quiesce(mddev, 0);
	percpu_ref_resurrect(&conf->geom_users);
	wake_up_all(&conf->wait_geom);
}

/*
 * During a reshape each block maps through the geometry of its side of
 * the position (Documentation/reshape.md, R4/R5).  A previous-geometry
 * row that straddles the position is still intact on the members (R1),
 * and its blocks on the done side, stale there, only feed parity.
 */
static void stripe_request(struct r5j_conf *conf, struct bio *bi, int flags)
{
	u64 first = bi->bi_iter.bi_sector, last = bio_end_sector(bi);
	const struct r5j_geom *lo = &conf->geom, *hi = &conf->rs.prev;
	u64 pos;

	if (!READ_ONCE(conf->reshaping)) {
		r5j_stripe_rows(conf, &conf->geom, bi, first, last, flags);
		return;
	}
	spin_lock_irq(&conf->lock);
	pos = conf->reshape_progress;
	spin_unlock_irq(&conf->lock);
	if (conf->rs.backwards)
		swap(lo, hi);
	r5j_stripe_rows(conf, lo, bi, first, min(last, pos), flags);
	r5j_stripe_rows(conf, hi, bi, max(first, pos), last, flags);
}

static unsigned int count_rows(const struct r5j_geom *g, u64 first, u64 last)
{
	struct r5j_rows rows;
	unsigned int n = 0;
	u64 dev_sector;

	if (first >= last)
		return 0;
	r5j_rows_init(&rows, g, first, last);
	while (r5j_rows_next(&rows, &dev_sector))
		n++;
	return n;
}

/*
 * REQ_NOWAIT through stripes: could stripe_request() take every stripe
 * of @bi now?  It sleeps for a free stripe otherwise, and once a share is
 * attached the bio can no longer be refused.  A hint (see
 * r5j_stripes_free_now()): a race can still make it wait.
 */
static bool stripes_free_now(struct r5j_conf *conf, struct bio *bi)
{
	u64 first = bi->bi_iter.bi_sector, last = bio_end_sector(bi);
	const struct r5j_geom *lo = &conf->geom, *hi = &conf->rs.prev;
	unsigned int n;
	u64 pos;

	if (!READ_ONCE(conf->reshaping)) {
		n = count_rows(&conf->geom, first, last);
	} else {
		spin_lock_irq(&conf->lock);
		pos = conf->reshape_progress;
		spin_unlock_irq(&conf->lock);
		if (conf->rs.backwards)
			swap(lo, hi);
		n = count_rows(lo, first, min(last, pos)) +
		    count_rows(hi, max(first, pos), last);
	}
	return r5j_stripes_free_now(conf, n, op_is_write(bio_op(bi)) ?
				    R5J_GET_WRITE : 0);
}

static void aligned_read_end_io(struct bio *clone)
{
	struct r5j_aligned_read *ar =
		container_of(clone, struct r5j_aligned_read, clone);
	struct r5j_conf *conf = ar->conf;
	struct bio *orig = ar->orig;
	unsigned long acct_start = ar->acct_start;
	blk_status_t status = clone->bi_status;
	unsigned long flags;

	rdev_dec_pending(ar->rdev, conf->mddev);
	/* @ar is the clone's front pad: nothing of it is read after this */
	bio_put(clone);
	/* a retry through stripes is not accounted again */
	if (acct_start)
		bio_end_io_acct(orig, acct_start);
	if (status && !(status == BLK_STS_AGAIN &&
			(orig->bi_opf & REQ_NOWAIT))) {
		/*
		 * Let the stripe path read it again and reconstruct.  The
		 * read stays counted in aligned_reads until the retry has
		 * its shares attached (r5j_retry_reads_work()).
		 */
		spin_lock_irqsave(&conf->lock, flags);
		bio_list_add(&conf->retry_reads, orig);
		spin_unlock_irqrestore(&conf->lock, flags);
		queue_work(system_long_wq, &conf->retry_work);
		return;
	}
	/* a member that would have blocked: so would the array */
	if (status)
		orig->bi_status = status;
	bio_endio(orig);
	if (atomic_dec_and_test(&conf->aligned_reads))
		wake_up(&conf->wait_quiesce);
}

/*
 * Work item: failed chunk-aligned reads go through the stripe cache.
 * Each is still counted in aligned_reads, which every quiesce waits for
 * (a quiesce comes before a geometry switch, a reshape's start, a
 * takeover and a free), so a retry maps through the geometry its read
 * was admitted with and never meets a reshape: it needs no geom_enter()
 * or reshape_admit().  Its stripes may be taken while a quiesce waits
 * (R5J_GET_NOQUIESCE), which then waits for them.
 */
void r5j_retry_reads_work(struct work_struct *work)
{
	struct r5j_conf *conf = container_of(work, struct r5j_conf, retry_work);
	struct bio *bi;

	for (;;) {
		spin_lock_irq(&conf->lock);
		bi = bio_list_pop(&conf->retry_reads);
		spin_unlock_irq(&conf->lock);
		if (!bi)
			break;
		WARN_ON_ONCE(READ_ONCE(conf->reshaping));
		stripe_request(conf, bi, R5J_GET_NOQUIESCE);
		bio_endio(bi);	/* the reference the clone held */
		if (atomic_dec_and_test(&conf->aligned_reads))
			wake_up(&conf->wait_quiesce);
	}
}

/*
 * Read one chunk's worth straight from its member; false: use stripes.
 * True also when @bi was ended (REQ_NOWAIT and no clone at hand).
 */
static bool read_one_chunk(struct mddev *mddev, struct r5j_conf *conf,
			   struct bio *bi)
{
	bool nowait = bi->bi_opf & REQ_NOWAIT;
	struct r5j_aligned_read *ar;
	struct r5j_stripe_map map;
	struct md_rdev *rdev;
	struct bio *clone;
	sector_t dev_sector, first_bad;
	int dd_idx, bad_sectors;

	dev_sector = r5j_map_array_sector(&conf->geom, bi->bi_iter.bi_sector,
					  &dd_idx, &map);
	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[dd_idx].rdev);
	if (!rdev || test_bit(Faulty, &rdev->flags) ||
	    !(test_bit(In_sync, &rdev->flags) ||
	      dev_sector + bio_sectors(bi) <= rdev->recovery_offset)) {
		rcu_read_unlock();
		return false;
	}
	atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();

	if (is_badblock(rdev, dev_sector, bio_sectors(bi), &first_bad,
			&bad_sectors))
		goto out_rdev;
	/* write-back: the member lacks the data of a dirty stripe */
	if (atomic_read(&conf->dirty_stripes) &&
	    r5j_range_dirty(conf, dev_sector, bio_sectors(bi)))
		goto out_rdev;

	/*
	 * One clone does both jobs: md_account_bio() would allocate a second
	 * one per read only to time it.
	 */
	clone = bio_alloc_clone(rdev->bdev, bi, nowait ? GFP_NOWAIT : GFP_NOIO,
				&conf->bio_clone);
	if (!clone) {
		rdev_dec_pending(rdev, mddev);
		bio_wouldblock_error(bi);
		return true;
	}
	spin_lock_irq(&conf->lock);
	if (conf->quiesce) {
		spin_unlock_irq(&conf->lock);
		bio_put(clone);
		goto out_rdev;
	}
	atomic_inc(&conf->aligned_reads);
	spin_unlock_irq(&conf->lock);

	ar = container_of(clone, struct r5j_aligned_read, clone);
	ar->conf = conf;
	ar->rdev = rdev;
	ar->orig = bi;
	ar->acct_start = 0;
	if (blk_queue_io_stat(bi->bi_bdev->bd_disk->queue))
		ar->acct_start = bio_start_io_acct(bi) ?: 1;
	clone->bi_end_io = aligned_read_end_io;
	clone->bi_iter.bi_sector = dev_sector + rdev->data_offset;
	atomic64_inc(&conf->stats.aligned_reads);
	submit_bio_noacct(clone);
	return true;

out_rdev:
	rdev_dec_pending(rdev, mddev);
	return false;
}

/* Returns the part of @bi still to be done through stripes, or NULL. */
static struct bio *chunk_aligned_read(struct mddev *mddev,
				      struct r5j_conf *conf, struct bio *bi)
{
	unsigned int chunk = conf->geom.chunk_sectors;
	unsigned int to_boundary = chunk - (bi->bi_iter.bi_sector & (chunk - 1));

	if (bio_sectors(bi) > to_boundary) {
		bool nowait = bi->bi_opf & REQ_NOWAIT;
		struct bio *split = bio_split(bi, to_boundary,
					      nowait ? GFP_NOWAIT : GFP_NOIO,
					      &conf->bio_split);

		if (!split) {
			bio_wouldblock_error(bi);
			return NULL;
		}
		bio_chain(split, bi);
		submit_bio_noacct(bi);
		bi = split;
	}
	if (read_one_chunk(mddev, conf, bi))
		return NULL;
	return bi;
}

/*
 * REQ_NOWAIT: would md_write_start() sleep until the superblock says the
 * array is dirty, or until a pending update is written (a RAID4/5/6 array
 * always has superblocks)?  Racy: the common case, a write after an idle
 * spell marked the array clean.
 */
static bool write_start_would_wait(struct mddev *mddev)
{
	return READ_ONCE(mddev->in_sync) ||
	       test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags);
}

/*
 * A flush without a working journal: write-back data acknowledged before
 * it may be only in the stripe cache (the journal failed under it).  Wait
 * for its destage, which writes the members with FUA; new writes are
 * refused meanwhile, so the count only falls.  false: some of it cannot
 * reach the members (STUCK stripes): the flush fails.
 */
static bool wait_destaged(struct r5j_conf *conf)
{
	while (atomic_read(&conf->dirty_stripes) >
	       atomic_read(&conf->stuck_stripes)) {
		md_wakeup_thread(conf->mddev->thread);
		wait_event_timeout(conf->wait_quiesce,
				   atomic_read(&conf->dirty_stripes) <=
				   atomic_read(&conf->stuck_stripes), HZ / 10);
	}
	return !atomic_read(&conf->dirty_stripes);
}

/*
 * REQ_NOWAIT (advertised by md core when every member supports it): @bi
 * ends with BLK_STS_AGAIN wherever it would sleep before its first share
 * is attached: md_write_start(), a geometry switch, a reshape window, a
 * quiesce, the stripe cache short of free stripes (stripes_free_now()),
 * and the allocations of the aligned-read bypass.  Not after: a bio half
 * attached cannot be refused.  So it can still sleep in a race for the
 * last free stripes and where memory is short (the share and accounting
 * mempools), as any raid456 request.
 */
bool r5j_make_request(struct mddev *mddev, struct bio *bi)
{
	struct r5j_conf *conf = mddev->private;
	bool is_write = op_is_write(bio_op(bi));
	bool nowait = bi->bi_opf & REQ_NOWAIT;
	bool admitted = false;

	/*
	 * Reads and writes only (a flush is an empty write).  Nothing else is
	 * advertised (discard, write zeroes and secure erase limits are 0, as
	 * raid456 without devices_handle_discard_safely), and the stripes copy
	 * data pages no other op has.
	 */
	if (unlikely(bio_op(bi) != REQ_OP_READ && bio_op(bi) != REQ_OP_WRITE)) {
		bi->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bi);
		return true;
	}
	if (unlikely(bi->bi_opf & REQ_PREFLUSH)) {
		if (conf->log && !r5j_journal_failed(conf->log)) {
			/*
			 * Completed writes stay in the journal (stable,
			 * journal.md L4) until the members are
			 * flushed: already durable.  Not once the journal
			 * failed: then md core flushes.
			 */
			if (!bio_sectors(bi)) {
				bio_endio(bi);
				return true;
			}
			bi->bi_opf &= ~REQ_PREFLUSH;
		} else {
			if (!wait_destaged(conf)) {
				bio_io_error(bi);
				return true;
			}
			if (md_flush_request(mddev, bi))
				/* md core flushes every member, resubmits */
				return true;
		}
	}
	if (unlikely(bio_end_sector(bi) > mddev->array_sectors)) {
		/*
		 * Only a bio that waited out a shrink (r5j_resize()) gets
		 * here: a logged block past the end would fail recovery.
		 */
		bio_io_error(bi);
		return true;
	}
	if (unlikely(nowait) && is_write && write_start_would_wait(mddev)) {
		bio_wouldblock_error(bi);
		return true;
	}
	if (!r5j_write_start(mddev, bi))
		return false;

	if (!geom_enter(conf, bi))
		goto would_block;
	if (READ_ONCE(conf->reshaping)) {
		switch (reshape_admit(mddev, conf, bi)) {
		case R5J_ADMITTED:
			break;
		case R5J_ADMIT_SUSPENDED:
			geom_exit(conf);
			if (is_write)
				md_write_end(mddev);
			return false;
		case R5J_ADMIT_WOULDBLOCK:
			geom_exit(conf);
			goto would_block;
		}
		admitted = true;
	}

	/*
	 * Also when degraded: read_one_chunk() checks the one member it
	 * reads, and writes complete only after their member writes, so a
	 * live member's block is current.  raid456 sends every degraded read
	 * through its stripe cache.
	 */
	/* during a reshape: reads go through the stripes of their side */
	if (!is_write && !admitted && !READ_ONCE(conf->reshaping)) {
		bi = chunk_aligned_read(mddev, conf, bi);
		if (!bi) {
			geom_exit(conf);
			return true;
		}
	}

	if (unlikely(nowait) && !stripes_free_now(conf, bi)) {
		if (admitted)
			reshape_done(conf);
		geom_exit(conf);
		goto would_block;
	}
	md_account_bio(mddev, &bi);
	stripe_request(conf, bi, 0);
	if (admitted)
		reshape_done(conf);
	geom_exit(conf);
	if (is_write)
		md_write_end(mddev);
	bio_endio(bi);	/* drop the submitter's reference: shares hold theirs */
	return true;

would_block:
	if (is_write)
		md_write_end(mddev);
	bio_wouldblock_error(bi);
	return true;
}

/*
 * One stripe of resync, recovery, check or repair per call, as md core
 * expects: returns the sectors dealt with (or skipped).
 */
sector_t r5j_sync_request(struct mddev *mddev, sector_t sector_nr,
			  int *skipped)
{
	struct r5j_conf *conf = mddev->private;
	sector_t max_sector = mddev->dev_sectors;
	struct r5j_stripe *sh;
	sector_t sync_blocks;
	bool still_degraded = false;
	int i;

	if (test_bit(MD_RECOVERY_RESHAPE, &mddev->recovery))
		return r5j_reshape_sync(mddev, sector_nr, skipped);
	if (conf->reshaping) {
		/* not reached: md core runs nothing else during a reshape */
		*skipped = 1;
		return max_sector > sector_nr ? max_sector - sector_nr : 0;
	}
	if (sector_nr >= max_sector) {
		/* finished or aborted: close the bitmap's sync window */
		if (mddev->curr_resync < max_sector)
			r5j_bitmap_end_sync(mddev, mddev->curr_resync,
					    &sync_blocks);
		else
			conf->fullsync = false;
		r5j_bitmap_close_sync(mddev);
		return 0;
	}

	if (mddev->degraded >= conf->max_degraded &&
	    test_bit(MD_RECOVERY_SYNC, &mddev->recovery)) {
		/* parity cannot be made right with members missing */
		*skipped = 1;
		return max_sector - sector_nr;
	}
	if (!test_bit(MD_RECOVERY_REQUESTED, &mddev->recovery) &&
	    !conf->fullsync &&
	    !r5j_bitmap_start_sync(mddev, sector_nr, &sync_blocks, true) &&
	    sync_blocks >= R5J_STRIPE_SECTORS) {
		/* the bitmap says this region is clean */
		*skipped = 1;
		return sync_blocks & ~(sector_t)(R5J_STRIPE_SECTORS - 1);
	}
	r5j_bitmap_cond_end_sync(mddev, sector_nr, false);

	sh = r5j_get_stripe(conf, sector_nr, R5J_GET_NOBLOCK);
	if (!sh) {
		sh = r5j_get_stripe(conf, sector_nr, 0);
		/* give user I/O a chance before taking more stripes */
		schedule_timeout_uninterruptible(1);
	}

	/* a member that stays missing keeps the bitmap bits set */
	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		if (!rdev || test_bit(Faulty, &rdev->flags))
			still_degraded = true;
	}
	rcu_read_unlock();
	r5j_bitmap_start_sync(mddev, sector_nr, &sync_blocks, still_degraded);

	set_bit(R5J_STRIPE_SYNC, &sh->state);
	set_bit(R5J_STRIPE_HANDLE, &sh->state);
	r5j_release_stripe(sh);
	return R5J_STRIPE_SECTORS;
}

/* md core's sync_request op where its prototype differs (r5j_compat.h) */
R5J_SYNC_REQUEST_OP(r5j_sync_request)
