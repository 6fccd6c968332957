// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j journal recovery at assembly (the personality's start op, with
 * reconfig_mutex held and no user I/O yet).
 *
 *   scan from journal_tail (drivers/shared/logscan.c decides validity)
 *     DATA    -> remember the page for its stripe (newest wins)
 *     PARITY  -> the stripe is complete: write its remembered data and
 *                parity to the members that are present, forget it
 *     FLUSH   -> forget the listed stripes
 *   members flushed, then a new log: an empty unit at the end of the old
 *   one with seq + R5J_SEQ_JUMP, and journal_tail moved there.
 *
 * Only blocks that were logged are written, so a degraded array never
 * reconstructs anything from parity that may be stale.  Replaying twice
 * (a crash during recovery) writes the same blocks again: harmless.
 */
#include <linux/blkdev.h>
#include <linux/random.h>
#include <linux/slab.h>
#include "r5j_journal_int.h"

struct rec_stripe {
	struct list_head list;
	sector_t sector;
	struct page *blocks[];		/* per member: logged block or NULL */
};

struct rec_ctx {
	struct r5j_journal *log;
	struct r5j_conf *conf;
	struct list_head pending;	/* stripes with data, no parity yet */
	unsigned int nr_pending;
	u64 txns, stripes, blocks;
};

static int read_log_block(void *ctx, u64 sector, void *buf)
{
	struct r5j_journal *log = ctx;
	struct page *page = virt_to_page(buf);

	if (sector + R5J_BLOCK_SECTORS > log->rdev->sectors)
		return -ERANGE;
	if (!sync_page_io(log->rdev, sector, PAGE_SIZE, page, REQ_OP_READ,
			  false))
		return -EIO;
	return 0;
}

static void free_rec_stripe(struct rec_ctx *rc, struct rec_stripe *rs)
{
	int i;

	for (i = 0; i < rc->conf->raid_disks; i++)
		if (rs->blocks[i])
			put_page(rs->blocks[i]);
	list_del(&rs->list);
	kfree(rs);
	rc->nr_pending--;
}

static struct rec_stripe *find_rec_stripe(struct rec_ctx *rc, sector_t sector,
					  bool create)
{
	struct rec_stripe *rs;

	list_for_each_entry(rs, &rc->pending, list)
		if (rs->sector == sector)
			return rs;
	if (!create)
		return NULL;
	rs = kzalloc(struct_size(rs, blocks, rc->conf->raid_disks),
		     GFP_KERNEL);
	if (!rs)
		return ERR_PTR(-ENOMEM);
	rs->sector = sector;
	list_add_tail(&rs->list, &rc->pending);
	rc->nr_pending++;
	return rs;
}

/* Read page @i of payload @p from the log and check it again. */
static struct page *load_page(struct rec_ctx *rc, const struct r5j_payload *p,
			      unsigned int i)
{
	struct r5j_journal *log = rc->log;
	struct page *page = alloc_page(GFP_KERNEL);
	u64 pos = r5j_payload_page_pos(&log->fmt, p, i);

	if (!page)
		return ERR_PTR(-ENOMEM);
	if (read_log_block(log, pos, page_address(page)) ||
	    r5j_page_csum(log->fmt.seed, page_address(page)) !=
	    r5j_payload_csum(p, i)) {
		pr_err("md/raid:%s: journal: block at %llu changed or unreadable during recovery\n",
		       mdname(log->mddev), (unsigned long long)pos);
		put_page(page);
		return ERR_PTR(-EIO);
	}
	return page;
}

/* Write the stripe's logged blocks to the members that are present. */
static void replay_stripe(struct rec_ctx *rc, struct rec_stripe *rs)
{
	struct r5j_conf *conf = rc->conf;
	int i;

	for (i = 0; i < conf->raid_disks * 2; i++) {
		int member = i % conf->raid_disks;
		struct md_rdev *rdev;

		if (!rs->blocks[member])
			continue;
		/* the member, then its replacement (mid `mdadm --replace`) */
		rdev = rcu_dereference_protected(*r5j_dev_slot(conf, i),
				lockdep_is_held(&conf->mddev->reconfig_mutex));
		if (!r5j_rdev_usable(rdev))
			continue;	/* parity carries it */
		if (!sync_page_io(rdev, rs->sector, PAGE_SIZE,
				  rs->blocks[member], REQ_OP_WRITE, false)) {
			pr_err("md/raid:%s: journal replay: write to %pg failed\n",
			       mdname(conf->mddev), rdev->bdev);
			md_error(conf->mddev, rdev);
			continue;
		}
		rc->blocks++;
	}
	rc->stripes++;
	free_rec_stripe(rc, rs);
}

static int recover_txn(struct rec_ctx *rc, const struct r5j_txn *t)
{
	struct r5j_journal *log = rc->log;
	struct r5j_conf *conf = rc->conf;
	struct r5j_payload_iter it;
	struct r5j_stripe_map map;
	struct r5j_payload p;
	struct rec_stripe *rs;
	struct page *page;
	unsigned int i;
	int dd_idx;
	u64 stripe;

	r5j_payload_iter_init(&it, &log->fmt, t->meta, t->pos);
	while (r5j_payload_next(&it, &p)) {
		switch (p.type) {
		case R5LOG_PAYLOAD_DATA:
			stripe = r5j_map_array_sector(&conf->geom, p.location,
						      &dd_idx, &map);
			if (stripe + R5J_STRIPE_SECTORS > conf->mddev->dev_sectors) {
				pr_err("md/raid:%s: journal: data block for array sector %llu lies beyond the array\n",
				       mdname(conf->mddev),
				       (unsigned long long)p.location);
				return -EINVAL;
			}
			rs = find_rec_stripe(rc, stripe, true);
			if (IS_ERR(rs))
				return PTR_ERR(rs);
			page = load_page(rc, &p, 0);
			if (IS_ERR(page))
				return PTR_ERR(page);
			if (rs->blocks[dd_idx])
				put_page(rs->blocks[dd_idx]);
			rs->blocks[dd_idx] = page;
			break;
		case R5LOG_PAYLOAD_PARITY:
			rs = find_rec_stripe(rc, p.location, false);
			if (!rs)
				break;	/* parity alone: nothing to replay */
			r5j_stripe_parity(&conf->geom, p.location, &map);
			for (i = 0; i < p.pages && i < 2; i++) {
				int idx = i ? map.qd_idx : map.pd_idx;

				if (idx < 0)
					break;
				page = load_page(rc, &p, i);
				if (IS_ERR(page))
					return PTR_ERR(page);
				if (rs->blocks[idx])
					put_page(rs->blocks[idx]);
				rs->blocks[idx] = page;
			}
			replay_stripe(rc, rs);
			break;
		case R5LOG_PAYLOAD_FLUSH:
			for (i = 0; i < p.nr_stripes; i++) {
				rs = find_rec_stripe(rc,
						     r5j_payload_stripe(&p, i),
						     false);
				if (rs)
					free_rec_stripe(rc, rs);
			}
			break;
		}
	}
	rc->txns++;
	return 0;
}

static void drop_pending(struct rec_ctx *rc)
{
	struct rec_stripe *rs, *tmp;

	list_for_each_entry_safe(rs, tmp, &rc->pending, list)
		free_rec_stripe(rc, rs);
}

/* Start an empty log at @pos with @seq: the one block at journal_tail. */
static int new_log(struct r5j_journal *log, u64 pos, u64 seq)
{
	int err;

	r5j_flush_members(log->conf);
	err = r5j_journal_write_empty(log, pos, seq);
	if (err)
		return err;
	err = r5j_journal_set_tail(log, pos);
	if (err && err != -EROFS)
		return err;
	log->tail = pos;
	log->seq = seq + 1;
	log->head = r5j_ring_add(&log->fmt, pos, R5J_BLOCK_SECTORS);
	log->used = R5J_BLOCK_SECTORS;
	return 0;
}

int r5j_journal_recover(struct r5j_journal *log)
{
	struct mddev *mddev = log->mddev;
	struct rec_ctx rc = { .log = log, .conf = log->conf };
	struct page *meta_page, *scratch;
	struct r5j_scan scan;
	struct r5j_txn t;
	u64 tail = log->rdev->journal_tail;
	int err, n;

	INIT_LIST_HEAD(&rc.pending);
	meta_page = alloc_page(GFP_KERNEL);
	scratch = alloc_page(GFP_KERNEL);
	if (!meta_page || !scratch) {
		err = -ENOMEM;
		goto out;
	}
	r5j_scan_init(&scan, &log->fmt, read_log_block, log,
		      page_address(meta_page), page_address(scratch));
	err = r5j_scan_start(&scan, tail);
	if (scan.tail_reset)
		pr_warn("md/raid:%s: journal: journal_tail %llu is past the journal or unaligned; scanning from 0\n",
			mdname(mddev), (unsigned long long)tail);
	if (err == -ENOENT) {
		pr_info("md/raid:%s: journal: no valid log at sector %llu (%s): starting a new log\n",
			mdname(mddev), (unsigned long long)scan.pos,
			r5j_reason_name(scan.stop));
		err = new_log(log, 0, get_random_u32());
		goto out;
	}
	if (err) {
		pr_err("md/raid:%s: journal: cannot read the log (%d)\n",
		       mdname(mddev), err);
		goto out;
	}

	while ((n = r5j_scan_next(&scan, &t)) > 0) {
		if (t.verdict != R5J_OK) {
			pr_warn("md/raid:%s: journal: transaction seq %llu at %llu skipped: %s\n",
				mdname(mddev), (unsigned long long)t.seq,
				(unsigned long long)t.pos,
				r5j_reason_name(t.verdict));
			continue;
		}
		err = recover_txn(&rc, &t);
		if (err)
			goto out;
	}
	if (n < 0) {
		err = n;
		pr_err("md/raid:%s: journal: read error while scanning at %llu\n",
		       mdname(mddev), (unsigned long long)scan.pos);
		goto out;
	}
	if (rc.nr_pending) {
		/* write-back data without parity: needs the cache issue */
		pr_err("md/raid:%s: journal holds %u write-back stripes without parity; raid5j cannot recover them yet: assemble with raid456\n",
		       mdname(mddev), rc.nr_pending);
		err = -EOPNOTSUPP;
		goto out;
	}

	pr_info("md/raid:%s: journal: recovered %llu transactions, replayed %llu stripes (%llu blocks); log ended at sector %llu seq %llu (%s)\n",
		mdname(mddev), rc.txns, rc.stripes, rc.blocks,
		(unsigned long long)scan.pos, (unsigned long long)scan.seq,
		r5j_reason_name(scan.stop));
	log->stats.recovered_txns = rc.txns;
	log->stats.replayed_stripes = rc.stripes;
	log->stats.replayed_blocks = rc.blocks;
	/*
	 * After a journal_tail reset the scan began at an arbitrary block:
	 * the old log may go on right after the end found, so no seq derived
	 * from it is safe.  A random one chains on to nothing.
	 */
	err = new_log(log, scan.pos, scan.tail_reset ? get_random_u32() :
		      scan.seq + R5J_SEQ_JUMP);
out:
	drop_pending(&rc);
	if (meta_page)
		put_page(meta_page);
	if (scratch)
		put_page(scratch);
	return err;
}

int r5j_journal_start(struct r5j_conf *conf)
{
	struct mddev *mddev = conf->mddev;
	int err;

	if (!conf->log)
		return 0;
	err = r5j_journal_recover(conf->log);
	if (err) {
		/*
		 * md core ignores ->start's result and runs the array: keep
		 * the journal untouched and take no writes that would
		 * overwrite it.
		 */
		conf->log->failed = true;
		mddev->ro = 1;
		set_disk_ro(mddev->gendisk, 1);
		pr_crit("md/raid:%s: journal recovery failed (%d): array is read-only, the journal is left as it was\n",
			mdname(mddev), err);
	}
	return err;
}
