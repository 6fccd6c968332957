// SPDX-License-Identifier: GPL-2.0
/*
 * Member I/O, under the stripe state machine (r5j_handle.c): which member
 * (or replacement) can serve a stripe's block, one block's I/O queued per
 * member and direction, the daemon's submission of those queues, and the
 * completions that record what happened in the block's flags for the
 * state machine's next look (read errors, bad blocks, failed members).
 */
#include <linux/ratelimit.h>
#include "r5j.h"
#include "r5j_trace.h"

/* Members that count as lost: missing, failed, or not yet rebuilt. */
int r5j_calc_degraded(struct r5j_conf *conf)
{
	int i, degraded = 0;

	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		/* a replacement in sync stands for its failed member */
		if (!rdev || test_bit(Faulty, &rdev->flags))
			rdev = rcu_dereference(conf->disks[i].replacement);
		if (!rdev || test_bit(Faulty, &rdev->flags) ||
		    !test_bit(In_sync, &rdev->flags))
			degraded++;
	}
	rcu_read_unlock();
	return degraded;
}

/*
 * @rdev's bad block list (kept by raid456, or md core's sysfs) has a range
 * in the stripe at @sector: what is there is stale or unreadable.
 */
bool r5j_has_badblock(struct md_rdev *rdev, sector_t sector)
{
	sector_t first_bad;
	int bad_sectors;

	return is_badblock(rdev, sector, R5J_STRIPE_SECTORS, &first_bad,
			   &bad_sectors);
}

/*
 * @rdev holds the current contents of the stripe at @sector, readable:
 * a recorded bad range is never read, its block is rebuilt from the others
 * (as raid456).
 */
bool r5j_holds_stripe(struct md_rdev *rdev, sector_t sector)
{
	return r5j_rdev_usable(rdev) &&
	       (test_bit(In_sync, &rdev->flags) ||
		sector + R5J_STRIPE_SECTORS <= rdev->recovery_offset) &&
	       !r5j_has_badblock(rdev, sector);
}

/*
 * A write of @rdev's block at @sector is skipped: the member failed a
 * write before (WriteErrorSeen) and the stripe is in its bad block log.
 * A member that never failed a write takes writes over its recorded
 * ranges (recorded for a read error or on a rebuild target, they are
 * usually writable again); one that succeeds clears the range
 * (clear_made_good()), as raid456.
 */
bool r5j_skips_write(struct md_rdev *rdev, sector_t sector)
{
	return test_bit(WriteErrorSeen, &rdev->flags) &&
	       r5j_has_badblock(rdev, sector);
}

/* As r5j_holds_stripe(), or the block is recorded bad but may be rewritten. */
bool r5j_can_rewrite(struct md_rdev *rdev, sector_t sector)
{
	return r5j_rdev_usable(rdev) &&
	       (test_bit(In_sync, &rdev->flags) ||
		sector + R5J_STRIPE_SECTORS <= rdev->recovery_offset) &&
	       !r5j_skips_write(rdev, sector);
}

/*
 * A block of @rdev at @sector cannot be read or written: record it in the
 * member's bad block log, so the member stays and the block is rebuilt
 * from the others; without a log (or with the log full) fail the member.
 * Any context: rdev_set_badblocks() does not sleep.
 */
void r5j_record_bad(struct r5j_conf *conf, struct md_rdev *rdev,
		    sector_t sector)
{
	if (!rdev_set_badblocks(rdev, sector, R5J_STRIPE_SECTORS, 0))
		md_error(conf->mddev, rdev);
}

/*
 * Completion: a read of block @io->idx failed.  The first failure is
 * retried alone (a merged request fails every bio in it); a second one
 * marks the block R5J_READ_ERROR: it is rebuilt from the others and
 * written back (fix_read_errors()), or, where the stripe cannot be
 * rebuilt, recorded as a bad block (uncorrectable_read_errors()).  A
 * failed read-back records a bad block.  A replacement is failed on any
 * read error.
 *
 * The member itself is failed only as raid456 fails it: after more read
 * errors than stripe_cache_size with no good read between (read_done()
 * resets the count), and only while the array could still correct
 * them.  md's max_read_errors is raid1/raid10's limit, not used here.
 */
static void read_failed(struct r5j_stripe *sh, struct r5j_io *io,
			struct md_rdev *rdev)
{
	struct r5j_conf *conf = sh->conf;
	struct mddev *mddev = conf->mddev;
	struct r5j_dev *dev = &sh->dev[io->idx];
	sector_t s = r5j_rsec(sh, rdev) + rdev->data_offset;
	int n = atomic_read(&rdev->read_errors);
	bool too_many;

	/* a checksum mismatch of the integrity layer is no media error */
	if (io->bio.bi_status != BLK_STS_PROTECTION)
		n = atomic_inc_return(&rdev->read_errors);
	if (rdev == rcu_access_pointer(conf->disks[io->idx].replacement)) {
		pr_warn_ratelimited("md/raid:%s: read error on replacement device (sector %llu on %pg).\n",
				    mdname(mddev), (unsigned long long)s,
				    rdev->bdev);
		md_error(mddev, rdev);
		return;
	}
	if (test_bit(R5J_REWRITE, &dev->flags)) {
		/* the read-back after a rewrite */
		pr_warn_ratelimited("md/raid:%s: read error NOT corrected!! (sector %llu on %pg).\n",
				    mdname(mddev), (unsigned long long)s,
				    rdev->bdev);
		clear_bit(R5J_READ_RETRY, &dev->flags);
		clear_bit(R5J_REWRITE, &dev->flags);
		clear_bit(R5J_READ_ERROR, &dev->flags);
		r5j_record_bad(conf, rdev, r5j_rsec(sh, rdev));
		return;
	}
	too_many = n > READ_ONCE(conf->max_nr_stripes) &&
		   mddev->degraded < conf->max_degraded;
	if (!too_many && !test_and_set_bit(R5J_READ_RETRY, &dev->flags))
		return;
	clear_bit(R5J_READ_RETRY, &dev->flags);
	dev->read_error_gen = READ_ONCE(conf->disks[io->idx].gen);
	set_bit(R5J_READ_ERROR, &dev->flags);
	if (too_many && !test_bit(Faulty, &rdev->flags)) {
		pr_warn("md/raid:%s: %d read_errors > %d stripes\n",
			mdname(mddev), n, READ_ONCE(conf->max_nr_stripes));
		pr_warn("md/raid:%s: Too many read errors, failing device %pg.\n",
			mdname(mddev), rdev->bdev);
		md_error(mddev, rdev);
	}
}

/* Completion: a read of block @io->idx succeeded. */
static void read_done(struct r5j_stripe *sh, struct r5j_io *io,
		      struct md_rdev *rdev)
{
	struct r5j_dev *dev = &sh->dev[io->idx];

	/* raid456's count: read errors since the last good read */
	if (atomic_read(&rdev->read_errors))
		atomic_set(&rdev->read_errors, 0);
	clear_bit(R5J_READ_RETRY, &dev->flags);
	if (test_and_clear_bit(R5J_REWRITE, &dev->flags) &&
	    test_and_clear_bit(R5J_READ_ERROR, &dev->flags)) {
		pr_info_ratelimited("md/raid:%s: read error corrected (%d sectors at %llu on %pg)\n",
				    mdname(sh->conf->mddev), R5J_STRIPE_SECTORS,
				    (unsigned long long)(r5j_rsec(sh, rdev) +
							 rdev->data_offset),
				    rdev->bdev);
		atomic_add(R5J_STRIPE_SECTORS, &rdev->corrected_errors);
	}
	/* a degraded destage's read of a dirty block's old contents */
	set_bit(io->to_orig ? R5J_ORIG_UPTODATE : R5J_UPTODATE, &dev->flags);
}

/*
 * Completion: a write of block @io->idx succeeded.  Over a recorded bad
 * range, the device holds the block again: the daemon clears the range
 * (badblocks_clear() is not for interrupt context).
 */
static void write_done(struct r5j_stripe *sh, struct r5j_io *io,
		       struct md_rdev *rdev)
{
	struct r5j_dev *dev = &sh->dev[io->idx];

	if (!r5j_has_badblock(rdev, r5j_rsec(sh, rdev)))
		return;
	dev->made_good_gen = READ_ONCE(sh->conf->disks[io->idx].gen);
	set_bit(io->replacement ? R5J_MADE_GOOD_REPL : R5J_MADE_GOOD,
		&dev->flags);
}

/*
 * Completion: a write of block @io->idx failed.  A member with a bad block
 * log keeps working with the range recorded; one without is failed.  A
 * replacement is failed either way.
 */
static void write_failed(struct r5j_stripe *sh, struct r5j_io *io,
			 struct md_rdev *rdev)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_dev *dev = &sh->dev[io->idx];

	if (io->replacement) {
		clear_bit(R5J_MADE_GOOD_REPL, &dev->flags);
		md_error(conf->mddev, rdev);
		return;
	}
	clear_bit(R5J_MADE_GOOD, &dev->flags);
	set_bit(WriteErrorSeen, &rdev->flags);
	if (!test_and_set_bit(WantReplacement, &rdev->flags))
		set_bit(MD_RECOVERY_NEEDED, &conf->mddev->recovery);
	if (test_and_clear_bit(R5J_REWRITE, &dev->flags)) {
		pr_warn_ratelimited("md/raid:%s: read error NOT corrected!! (sector %llu on %pg).\n",
				    mdname(conf->mddev),
				    (unsigned long long)(r5j_rsec(sh, rdev) +
							 rdev->data_offset),
				    rdev->bdev);
		clear_bit(R5J_READ_ERROR, &dev->flags);
	}
	set_bit(R5J_WRITE_ERROR, &dev->flags);
	r5j_record_bad(conf, rdev, r5j_rsec(sh, rdev));
}

static void r5j_end_io(struct bio *bio)
{
	struct r5j_io *io = container_of(bio, struct r5j_io, bio);
	struct r5j_stripe *sh = io->sh;
	struct r5j_dev *dev = &sh->dev[io->idx];
	struct r5j_conf *conf = sh->conf;
	struct md_rdev *rdev = io->rdev;
	bool is_write = op_is_write(bio_op(bio));

	trace_r5j_member_end(sh, io->idx, is_write, io->replacement,
			     blk_status_to_errno(bio->bi_status));
	if (bio->bi_status && is_write)
		write_failed(sh, io, rdev);
	else if (bio->bi_status)
		read_failed(sh, io, rdev);	/* (reads use dev->io) */
	else if (!is_write)
		read_done(sh, io, rdev);
	else
		write_done(sh, io, rdev);
	bio_uninit(bio);
	if (!io->replacement)
		clear_bit(R5J_LOCKED, &dev->flags);
	rdev_dec_pending(rdev, conf->mddev);
	atomic_dec(&conf->member_inflight);
	set_bit(R5J_STRIPE_HANDLE, &sh->state);
	atomic_dec(&sh->io_pending);
	r5j_release_stripe(sh);
}

/*
 * Queue @io of its block to @rdev, with R5J_IO_SYNC and R5J_IO_ORIG of
 * @flags.  Every member I/O of a stripe block goes through here, so where
 * it reads into or writes from (io->to_orig, which read_done() follows)
 * is always this I/O's, never a previous one's.
 */
void r5j_submit_io(struct r5j_stripe *sh, struct r5j_io *io,
		   struct md_rdev *rdev, blk_opf_t opf, int flags)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_dev *dev = &sh->dev[io->idx];
	struct bio_list *queue;
	int slot;

	trace_r5j_member_submit(sh, io->idx, op_is_write(opf), io->replacement,
				0);
	if (op_is_write(opf))
		atomic64_inc(&conf->stats.member_writes);
	else
		atomic64_inc(&conf->stats.member_reads);
	if (flags & R5J_IO_SYNC)
		md_sync_acct(rdev->bdev, R5J_STRIPE_SECTORS);

	/*
	 * The daemon never sleeps in a member's write throttle: it is the
	 * only thread that moves the journal, and while blk-wbt held it no
	 * journal unit went out and no cached write was acknowledged
	 * (Documentation/lab/notes-p99.md section 5).  blk-wbt lets REQ_SYNC | REQ_IDLE writes
	 * (O_DIRECT's) through.  raid5j bounds its member queues itself:
	 * one I/O per block of a cached stripe, destages paced by
	 * R5J_DESTAGE_PER_MEMBER and r5j_end_pass().
	 */
	if (op_is_write(opf))
		opf |= REQ_SYNC | REQ_IDLE;
	/* dev->orig takes old contents only: nothing is written from it */
	io->to_orig = !op_is_write(opf) && (flags & R5J_IO_ORIG);
	io->rdev = rdev;
	bio_init(&io->bio, rdev->bdev, &io->vec, 1, opf);
	io->bio.bi_iter.bi_sector = r5j_rsec(sh, rdev) + rdev->data_offset;
	__bio_add_page(&io->bio, io->to_orig ? dev->orig : dev->page,
		       PAGE_SIZE, 0);
	io->bio.bi_end_io = r5j_end_io;
	atomic_inc(&sh->io_pending);
	atomic_inc(&sh->count);
	slot = io->replacement ? conf->raid_disks + io->idx : io->idx;
	queue = &conf->pending[2 * slot + op_is_write(opf)];
	if (queue->tail && bio_end_sector(queue->tail) ==
	    io->bio.bi_iter.bi_sector)
		conf->pending_joined++;
	else if (queue->tail && io->bio.bi_iter.bi_sector <
		 queue->tail->bi_iter.bi_sector)
		conf->pending_unsorted = true;
	bio_list_add(queue, &io->bio);
	conf->nr_pending++;
}

/* Stable merge of two chains of bios in sector order. */
static struct bio *merge_by_sector(struct bio *a, struct bio *b)
{
	struct bio *head = NULL, **tail = &head;

	while (a && b) {
		struct bio **from = b->bi_iter.bi_sector <
				    a->bi_iter.bi_sector ? &b : &a;

		*tail = *from;
		tail = &(*from)->bi_next;
		*from = *tail;
	}
	*tail = a ? a : b;
	return head;
}

#define R5J_SORT_LEVELS	12	/* 2^11 bios before the last level fills */

/*
 * Put a device's queue in sector order, bios of one sector in the order
 * queued.  Rows queued over several passes, or two streams interleaved
 * (full rows and partial destages), then reach the member as one request
 * per run instead of one per piece: the block layer merges a bio only
 * with the newest request of its device in the plug.  Bottom-up merge
 * sort; level[i] holds 2^i bios, older than those of the levels below.
 */
static void sort_queue(struct bio_list *q)
{
	struct bio *level[R5J_SORT_LEVELS] = { NULL };
	struct bio *bio, *next, *run;
	int i;

	for (bio = q->head; bio; bio = next) {
		next = bio->bi_next;
		bio->bi_next = NULL;
		run = bio;
		for (i = 0; i < R5J_SORT_LEVELS - 1 && level[i]; i++) {
			run = merge_by_sector(level[i], run);
			level[i] = NULL;
		}
		level[i] = level[i] ? merge_by_sector(level[i], run) : run;
	}
	run = NULL;
	for (i = 0; i < R5J_SORT_LEVELS; i++)
		if (level[i])
			run = merge_by_sector(level[i], run);
	q->head = run;
	q->tail = run;
	while (q->tail && q->tail->bi_next)
		q->tail = q->tail->bi_next;
}

/* raid5j_stats: a submission this long held up the daemon's pass */
#define R5J_SUBMIT_SLOW_MS	100

/*
 * How long the daemon spent submitting: a member whose requests are all
 * in use sleeps it there (blk-wbt does not: r5j_submit_io()).
 */
static void count_submit_time(struct r5j_conf *conf, ktime_t start)
{
	s64 us = ktime_us_delta(ktime_get(), start);
	s64 max = atomic64_read(&conf->stats.member_submit_us_max);

	if (us >= R5J_SUBMIT_SLOW_MS * USEC_PER_MSEC)
		atomic64_inc(&conf->stats.member_submit_slow);
	while (us > max &&
	       !atomic64_try_cmpxchg(&conf->stats.member_submit_us_max,
				     &max, us))
		;
}

/*
 * Daemon: submit the member bios queued by this pass, device by device,
 * reads before writes.  Queued in stripe order, a device's bios of
 * consecutive rows follow each other and merge in the daemon's plug;
 * submitted as each stripe was handled, reads and writes of different
 * rows would alternate on a member and each stay a 4 KiB request.
 */
void r5j_submit_pending(struct r5j_conf *conf)
{
	struct bio *bio;
	ktime_t start;
	bool more;
	int i, runs = 0;

	if (!conf->nr_pending)
		return;
	start = ktime_get();
	atomic64_inc(&conf->stats.member_batches);
	atomic_add(conf->nr_pending, &conf->member_inflight);
	if (conf->pending_unsorted)
		for (i = 0; i < R5J_PENDING_QUEUES(conf); i++)
			sort_queue(&conf->pending[i]);
	for (i = 0; i < R5J_PENDING_QUEUES(conf); i += 2)
		while ((bio = bio_list_pop(&conf->pending[i])))
			submit_bio_noacct(bio);
	/*
	 * Writes a run at a time per device, device after device: a member
	 * whose requests are all in use (nr_requests) puts the daemon to
	 * sleep in submit_bio_noacct() until it completes one, and then the
	 * other members must have theirs already, not wait behind it.  (Its
	 * first reason, blk-wbt, no longer applies: r5j_submit_io().)  A run
	 * (consecutive rows) still merges into one request in the plug.
	 */
	do {
		more = false;
		for (i = 1; i < R5J_PENDING_QUEUES(conf); i += 2) {
			struct bio_list *q = &conf->pending[i];

			runs += !bio_list_empty(q);
			while ((bio = bio_list_pop(q))) {
				sector_t end = bio_end_sector(bio);

				submit_bio_noacct(bio);
				if (!q->head || q->head->bi_iter.bi_sector != end)
					break;
			}
			more |= !bio_list_empty(q);
		}
	} while (more);
	atomic64_add(runs, &conf->stats.member_runs);
	count_submit_time(conf, start);
	conf->pass_submitted += conf->nr_pending;
	conf->nr_pending = 0;
	conf->pending_joined = 0;
	conf->pending_full = 0;
	conf->pending_unsorted = false;
}

/*
 * Daemon, end of a pass.  Queued bios that form runs may grow into larger
 * requests: while the members have more in flight than this pass queued,
 * they lose nothing if the runs wait, since the next completion brings the
 * daemon back and the rows it handles then join them.  Scattered bios
 * (random I/O) would only wait, so they go now.
 *
 * Runs that are mostly full stripes leaving the write-back cache wait
 * until nothing is in flight: one request per member at a time, the next
 * growing behind it as the writer fills rows.  Their writes were
 * acknowledged at the journal, so waiting delays no caller, and a member
 * that pays per request moves more data per request (design.md section
 * 4).  What this pass submitted itself is still in its plug: the queued
 * rows go now if nothing else is in flight, and join those requests.
 */
void r5j_end_pass(struct r5j_conf *conf)
{
	int inflight = atomic_read(&conf->member_inflight);
	bool hold = false;

	if (!conf->quiesce && conf->pending_joined)
		hold = inflight > conf->nr_pending ||
		       (inflight > conf->pass_submitted &&
			2 * conf->pending_full >= conf->nr_pending);
	if (!hold)
		r5j_submit_pending(conf);
	else
		atomic64_inc(&conf->stats.member_holds);
	conf->pass_submitted = 0;
}

/*
 * Start I/O of block @i.  A read goes to the member if it holds the block,
 * else to its replacement if that does.  A write goes to the member and to
 * its replacement (R5J_IO_REPL: the replacement alone).  Returns the
 * number of I/Os started: 0 if no device can take it.
 */
int r5j_submit_block(struct r5j_stripe *sh, int i, blk_opf_t opf, int flags)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_dev *dev = &sh->dev[i];
	struct md_rdev *rdev, *repl;
	bool write = op_is_write(opf);
	int n = 0;

	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[i].rdev);
	repl = rcu_dereference(conf->disks[i].replacement);
	if (!r5j_rdev_usable(rdev) || (write && (flags & R5J_IO_REPL)))
		rdev = NULL;
	if (!r5j_rdev_usable(repl))
		repl = NULL;
	if (write) {
		if (rdev && r5j_skips_write(rdev, r5j_rsec(sh, rdev)))
			rdev = NULL;
		if (repl && r5j_skips_write(repl, r5j_rsec(sh, repl)))
			repl = NULL;
	} else {
		/* one read: the member unless only the replacement has it */
		if (!r5j_holds_stripe(rdev, r5j_rsec(sh, rdev)))
			rdev = r5j_holds_stripe(repl, r5j_rsec(sh, repl)) ?
			       repl : NULL;
		repl = NULL;
	}
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	if (repl)
		atomic_inc(&repl->nr_pending);
	rcu_read_unlock();

	if (write && !rdev && !(flags & (R5J_IO_SYNC | R5J_IO_REPL)))
		set_bit(R5J_STRIPE_DEGRADED, &sh->state);	/* keep bitmap bit */
	if (rdev) {
		/* LOCKED follows the member's I/O: its end_io clears it */
		if (!write && !(flags & R5J_IO_ORIG))
			clear_bit(R5J_UPTODATE, &dev->flags);
		if (!write && test_bit(R5J_READ_RETRY, &dev->flags))
			opf |= REQ_NOMERGE;
		set_bit(R5J_LOCKED, &dev->flags);
		r5j_submit_io(sh, dev->io, rdev, opf, flags);
		n++;
	}
	if (repl) {
		r5j_submit_io(sh, dev->rio, repl, opf, flags);
		n++;
	}
	return n;
}
