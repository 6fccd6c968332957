// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j journal recovery at assembly (the personality's start op, with
 * reconfig_mutex held and no user I/O yet).
 *
 * The journal is untrusted input, so recovery runs in two passes over the
 * log from journal_tail (drivers/shared/logscan.c decides validity):
 *
 *   check   every DATA and PARITY location is bounds-checked
 *           (drivers/shared/bounds.c) and the replay is simulated on a hash
 *           of stripe -> logged block positions; nothing is written.
 *   replay  only if the check found nothing to refuse: the same walk again,
 *           now writing.  DATA remembers the block's log position for its
 *           stripe (newest wins), PARITY writes the stripe's remembered
 *           data and its parity to the members that are present (each page
 *           read back from the log and its checksum checked again), FLUSH
 *           forgets the listed stripes.
 *   then    members flushed, and a new log: an empty unit at the end of
 *           the old one with seq + R5J_SEQ_JUMP, journal_tail moved there.
 *
 * Memory: one hash entry per stripe holding data without parity yet, a
 * log position and checksum per member (never a page), at most
 * recovery_mem_kb in total; a FLUSH only looks entries up.  Time: each
 * pass reads the log once plus one read per replayed block, with O(1)
 * lookups.  A journal that breaks a bound, holds a location outside the
 * array, or ends with more write-back stripes (data without parity) than
 * there is room after the log for their parity, is refused before the
 * first write: the array stays read-only and the journal is left as it
 * was.  Write-back stripes are destaged after the replay pass
 * (destage_pending(), Documentation/journal.md section 15): batched when
 * the parity of all of them fits after the log, otherwise (a nearly full
 * ring, or the test hook recovery_unit_by_unit in debugfs) unit by unit
 * in log order, journal_tail moved past each unit whose stripes are on
 * the members (destage_units());
 * the check pass plans those steps and refuses a log they do not fit.
 *
 * Only blocks that were logged are written, so a degraded array never
 * reconstructs anything from parity that may be stale.  Replaying twice
 * (a crash during recovery) writes the same blocks again: harmless.
 */
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/list_sort.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "raid5j/bounds.h"
#include "r5j_journal_int.h"
#include "r5j_params.h"

/* hash buckets: 2^14, up to 2^20 for the stripes a large journal holds */
#define REC_HASH_BITS_MIN	14
#define REC_HASH_BITS_MAX	20

struct rec_block {
	u64 pos;			/* ring sector of the logged page + 1 */
	u32 csum;
	u32 back;			/* sectors from its meta block to it */
};

struct rec_stripe {
	union {
		struct hlist_node node;	/* rc->hash */
		struct list_head order;	/* unit by unit: rc->order */
	};
	sector_t sector;
	struct rec_block blocks[];	/* per member; pos 0: not logged */
};

struct rec_ctx {
	struct r5j_journal *log;
	struct r5j_conf *conf;
	struct r5j_bounds bounds;
	bool replay;			/* second pass: write */
	struct hlist_head *hash;
	int hash_bits;
	unsigned int nr_pending;	/* stripes with data, no parity yet */
	unsigned int max_pending;
	struct page *buf;		/* one block in flight */
	u64 txns, stripes, blocks;
	/* write-back: destage of data-only stripes (wb_*) */
	struct page **pages;		/* raid_disks: the stripe */
	struct page **old;		/* raid_disks: members' old blocks */
	struct md_rdev **rerr;		/* raid_disks: a read of it failed */
	unsigned long *unknown;		/* raid_disks: block not read */
	struct page *meta;
	struct r5j_parity_work pw;
	u64 wb_pos, wb_seq, wb_stripes;
	bool wb_mode;			/* the log's last meta block: write-back */
	/* stripes whose parity pages are written, meta block not yet */
	struct rec_batch *batch;	/* r5j_parity_batch() entries */
	struct md_rdev **batch_rerr;	/* per entry, raid_disks */
	unsigned int nbatch;
	/* unit by unit: the stripes, oldest pinned unit first */
	bool by_unit, ordered;
	bool unit_by_unit;		/* test hook: even where batched fits */
	struct list_head order;
	u64 start, walked;		/* the scan's start and length */
	u64 units, tail_moves;
	/* a reshape position on disk (R11): NULL without one */
	const struct r5j_reshape *rs;
	u64 rs_pos;
	struct r5j_bounds bounds_prev;	/* rc->bounds: the next geometry */
	u64 *rs_data;			/* DATA locations before a PARITY */
	struct rec_block *rs_log;	/* R5J_MAX_DISKS each */
	int rs_n;
};

struct rec_batch {
	struct rec_stripe *rs;
	u64 pos[R5J_MAX_PARITY_PAGES];	/* ring sector of each parity page */
	u32 csum[R5J_MAX_PARITY_PAGES];
};

static int read_log_block(void *ctx, u64 sector, void *buf)
{
	struct r5j_journal *log = ctx;
	struct page *page = virt_to_page(buf);

	if (!r5j_range_ok(sector, R5J_BLOCK_SECTORS, log->rdev->sectors))
		return -ERANGE;
	if (!sync_page_io(log->rdev, sector, PAGE_SIZE, page, REQ_OP_READ,
			  false))
		return -EIO;
	return 0;
}

/*
 * A replayed write to @rdev failed.  As at run time (r5j_handle.c
 * write_failed()): a member with a bad block log keeps working with the
 * stripe recorded, its block rebuilt from the others (the replay writes
 * the stripe's parity too); a member without one, or whose log is full,
 * and a replacement are failed.  new_log() writes the superblocks before
 * the log that holds the block is dropped.
 */
static void replay_write_failed(struct r5j_conf *conf, struct md_rdev *rdev,
				sector_t sector, bool replacement)
{
	pr_err("md/raid:%s: journal replay: write to %pg failed\n",
	       mdname(conf->mddev), rdev->bdev);
	if (!replacement) {
		set_bit(WriteErrorSeen, &rdev->flags);
		if (!test_and_set_bit(WantReplacement, &rdev->flags))
			set_bit(MD_RECOVERY_NEEDED, &conf->mddev->recovery);
		if (rdev_set_badblocks(rdev, sector, R5J_STRIPE_SECTORS, 0))
			return;
	}
	md_error(conf->mddev, rdev);
}

/*
 * A replayed write over a recorded bad range succeeded: the block is good
 * again (as at run time, r5j_handle.c clear_made_good()); sync_members()
 * writes the superblocks before the log that holds the block goes.
 */
static void clear_written_range(struct r5j_conf *conf, struct md_rdev *rdev,
				sector_t sector)
{
	sector_t first_bad;
	int bad_sectors;

	if (!is_badblock(rdev, sector, R5J_STRIPE_SECTORS, &first_bad,
			 &bad_sectors) ||
	    rdev_clear_badblocks(rdev, sector, R5J_STRIPE_SECTORS, 0))
		return;
	set_mask_bits(&conf->mddev->sb_flags, 0, BIT(MD_SB_CHANGE_PENDING));
}

/*
 * Write @page as @member's block of stripe @sector, replacement too, at
 * the members' data offset, or at new_data_offset for a stripe of the
 * next geometry of a reshape (@next).  Not sync_page_io(): mid-reshape
 * it would pick the offset by comparing a member sector with the array
 * position.
 */
static void write_page(struct rec_ctx *rc, sector_t sector, int member,
		       struct page *page, bool next)
{
	struct r5j_conf *conf = rc->conf;
	struct mutex *held = &conf->mddev->reconfig_mutex;
	struct md_rdev *rdev;
	struct bio_vec bvec;
	struct bio bio;
	int i, err;

	for (i = member; i < conf->raid_disks * 2; i += conf->raid_disks) {
		/* the member, then its replacement (mid `mdadm --replace`) */
		rdev = rcu_dereference_protected(*r5j_dev_slot(conf, i),
						 lockdep_is_held(held));
		if (!r5j_rdev_usable(rdev))
			continue;	/* parity carries it */
		bio_init(&bio, rdev->bdev, &bvec, 1, REQ_OP_WRITE | REQ_SYNC);
		bio.bi_iter.bi_sector = sector + (next ? rdev->new_data_offset :
						  rdev->data_offset);
		__bio_add_page(&bio, page, PAGE_SIZE, 0);
		err = submit_bio_wait(&bio);
		bio_uninit(&bio);
		if (err) {
			replay_write_failed(conf, rdev, sector,
					    i >= conf->raid_disks);
			continue;
		}
		rc->blocks++;
		if (!next)
			clear_written_range(conf, rdev, sector);
	}
}

static struct hlist_head *rec_bucket(struct rec_ctx *rc, sector_t sector)
{
	return &rc->hash[hash_64(sector >> R5J_STRIPE_SHIFT, rc->hash_bits)];
}

static void free_rec_stripe(struct rec_ctx *rc, struct rec_stripe *rs)
{
	if (rc->ordered)
		list_del(&rs->order);
	else
		hlist_del(&rs->node);
	kfree(rs);
	rc->nr_pending--;
}

/*
 * Data-only stripes a recovery of a @ring_sectors journal can track
 * (recovery_mem_kb); the write-back cache keeps its dirty stripes below
 * it (journal.md section 15, "Run time").  Sized by the journal: each such
 * stripe has a block in the ring, and the cache's check adds the stripe
 * cache to its dirty count.
 */
unsigned int r5j_recovery_max_stripes(struct r5j_conf *conf, u64 ring_sectors)
{
	size_t entry = struct_size_t(struct rec_stripe, blocks,
				     conf->raid_disks);
	unsigned int kb = r5j_recovery_mem_kb();

	if (!kb)
		return min_t(u64, ring_sectors / R5J_BLOCK_SECTORS +
			     R5J_MAX_STRIPES + 1, UINT_MAX);
	return clamp_t(u64, div_u64((u64)kb * 1024, entry), 1, UINT_MAX);
}

static struct rec_stripe *find_rec_stripe(struct rec_ctx *rc, sector_t sector,
					  bool create)
{
	struct hlist_head *head = rec_bucket(rc, sector);
	struct rec_stripe *rs;

	hlist_for_each_entry(rs, head, node)
		if (rs->sector == sector)
			return rs;
	if (!create)
		return NULL;
	if (rc->nr_pending >= rc->max_pending) {
		pr_err("md/raid:%s: journal holds more than %u stripes with data but no parity yet, more than recovery_mem_kb=%u allows: refused, nothing written\n",
		       mdname(rc->conf->mddev), rc->max_pending,
		       r5j_recovery_mem_kb());
		return ERR_PTR(-E2BIG);
	}
	rs = kzalloc(struct_size(rs, blocks, rc->conf->raid_disks),
		     GFP_KERNEL);
	if (!rs)
		return ERR_PTR(-ENOMEM);
	rs->sector = sector;
	hlist_add_head(&rs->node, head);
	rc->nr_pending++;
	return rs;
}

/* Read the page logged at ring sector @pos into @page, check it again. */
static int load_page(struct rec_ctx *rc, u64 pos, u32 csum, struct page *page)
{
	struct r5j_journal *log = rc->log;
	void *buf = page_address(page);

	if (read_log_block(log, pos, buf) ||
	    r5j_page_csum(log->fmt.seed, buf) != csum) {
		pr_err("md/raid:%s: journal: block at %llu changed or unreadable during recovery\n",
		       mdname(log->mddev), (unsigned long long)pos);
		return -EIO;
	}
	return 0;
}

static int load_block(struct rec_ctx *rc, u64 pos, u32 csum)
{
	return load_page(rc, pos, csum, rc->buf);
}

/*
 * A stripe's parity arrived: in the replay pass write its remembered data
 * blocks, then the parity pages of @p, one block at a time.  @next: a
 * stripe of a reshape's next geometry (R11).
 */
static int replay_stripe(struct rec_ctx *rc, struct rec_stripe *rs,
			 const struct r5j_payload *p,
			 const struct r5j_stripe_map *map, bool next)
{
	struct r5j_conf *conf = rc->conf;
	unsigned int i;
	int member, err;

	if (!rc->replay)
		return 0;
	for (member = 0; member < conf->raid_disks; member++) {
		struct rec_block *b = &rs->blocks[member];

		if (!b->pos || member == map->pd_idx || member == map->qd_idx)
			continue;
		err = load_block(rc, b->pos - 1, b->csum);
		if (err)
			return err;
		write_page(rc, rs->sector, member, rc->buf, next);
	}
	for (i = 0; i < p->pages && i < R5J_MAX_PARITY_PAGES; i++) {
		member = i ? map->qd_idx : map->pd_idx;
		if (member < 0)
			break;
		err = load_block(rc, r5j_payload_page_pos(&rc->log->fmt, p, i),
				 r5j_payload_csum(p, i));
		if (err)
			return err;
		write_page(rc, rs->sector, member, rc->buf, next);
	}
	rc->stripes++;
	return 0;
}

static int bad_location(struct rec_ctx *rc, const struct r5j_txn *t,
			const struct r5j_payload *p, enum r5j_reason why)
{
	pr_err("md/raid:%s: journal: %s payload in seq %llu at %llu: location %llu %s (array %llu sectors, members %llu): refused, nothing written\n",
	       mdname(rc->conf->mddev),
	       p->type == R5LOG_PAYLOAD_DATA ? "DATA" : "PARITY",
	       (unsigned long long)t->seq, (unsigned long long)t->pos,
	       (unsigned long long)p->location, r5j_reason_name(why),
	       (unsigned long long)rc->bounds.array_sectors,
	       (unsigned long long)rc->bounds.dev_sectors);
	return -EINVAL;
}

static int rs_corrupt(struct rec_ctx *rc, const struct r5j_txn *t,
		      const struct r5j_payload *p, const char *why)
{
	pr_err("md/raid:%s: journal: %s payload in seq %llu at %llu: location %llu %s (reshape position %llu): corrupt log, refused, nothing written\n",
	       mdname(rc->conf->mddev),
	       p->type == R5LOG_PAYLOAD_DATA ? "DATA" : "PARITY",
	       (unsigned long long)t->seq, (unsigned long long)t->pos,
	       (unsigned long long)p->location, why,
	       (unsigned long long)rc->rs_pos);
	return -EINVAL;
}

/*
 * A stripe's PARITY after its DATA payloads (rc->rs_data, rc->rs_n):
 * classify (R11), bounds-check against the chosen geometry, replay.
 */
static int rs_stripe(struct rec_ctx *rc, const struct r5j_txn *t,
		     const struct r5j_payload *p)
{
	const struct r5j_reshape *r = rc->rs;
	const struct r5j_bounds *b;
	const struct r5j_geom *g;
	struct r5j_stripe_map map;
	struct r5j_payload d;
	struct rec_stripe *rs;
	enum r5j_reason why;
	int i, dd_idx, err;
	u64 stripe;

	if (!rc->rs_n)
		return 0;	/* parity alone: nothing to replay */
	g = r5j_reshape_log_geom(r, rc->rs_pos, rc->rs_data, rc->rs_n,
				 p->location);
	if (!g)
		return rs_corrupt(rc, t, p,
				  "not the row of its data in the geometry of their side, or the data on both sides");
	b = g == &r->prev ? &rc->bounds_prev : &rc->bounds;
	why = r5j_payload_target(b, p, &stripe, &dd_idx, &map);
	if (why != R5J_OK)
		return bad_location(rc, t, p, why);
	rs = find_rec_stripe(rc, stripe, true);
	if (IS_ERR(rs))
		return PTR_ERR(rs);
	for (i = 0; i < rc->rs_n; i++) {
		d = *p;
		d.type = R5LOG_PAYLOAD_DATA;
		d.location = rc->rs_data[i];
		why = r5j_payload_target(b, &d, &stripe, &dd_idx, &map);
		if (why != R5J_OK) {
			free_rec_stripe(rc, rs);
			return bad_location(rc, t, &d, why);
		}
		rs->blocks[dd_idx].pos = rc->rs_log[i].pos;
		rs->blocks[dd_idx].csum = rc->rs_log[i].csum;
	}
	/* the map of the PARITY payload (the DATA ones filled dd_idx) */
	r5j_stripe_parity(g, rs->sector, &map);
	err = replay_stripe(rc, rs, p, &map, g != &r->prev);
	free_rec_stripe(rc, rs);
	rc->rs_n = 0;
	return err;
}

/*
 * recover_txn() with a reshape position on disk (R11).  raid5j logs a
 * write-through stripe as its DATA payloads then its PARITY, in one meta
 * block, in the geometry it was written in (R9), and the log holds
 * nothing of the previous geometry behind the position (R10).  The
 * geometry of each stripe is r5j_reshape_log_geom()'s
 * (drivers/shared/reshape.c, test_log_geom): that of its data's side of
 * the position, the PARITY location their row in it.  Anything else (data
 * on both sides, parity of another row, data left without parity, i.e.
 * write-back, refused during a reshape: R13) is a corrupt log, refused
 * before the first write (pass 1 finds it).
 */
static int recover_txn_reshape(struct rec_ctx *rc, const struct r5j_txn *t)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	int err;

	rc->rs_n = 0;
	r5j_payload_iter_init(&it, &rc->log->fmt, t->meta, t->pos);
	while (r5j_payload_next(&it, &p)) {
		if (p.type == R5LOG_PAYLOAD_DATA) {
			if (rc->rs_n == R5J_MAX_DISKS)
				return rs_corrupt(rc, t, &p,
						  "one DATA too many before a PARITY");
			rc->rs_data[rc->rs_n] = p.location;
			rc->rs_log[rc->rs_n].pos = p.log_pos + 1;
			rc->rs_log[rc->rs_n].csum = r5j_payload_csum(&p, 0);
			rc->rs_n++;
			continue;
		}
		if (p.type == R5LOG_PAYLOAD_PARITY) {
			err = rs_stripe(rc, t, &p);
			if (err)
				return err;
			continue;
		}
		/* FLUSH: write-back only */
		return rs_corrupt(rc, t, &p, "a FLUSH payload (write-back)");
	}
	if (rc->rs_n)
		return rs_corrupt(rc, t, &p, "data without parity (write-back)");
	rc->txns++;
	return 0;
}

static int recover_txn(struct rec_ctx *rc, const struct r5j_txn *t)
{
	struct r5j_journal *log = rc->log;
	struct r5j_payload_iter it;
	struct r5j_stripe_map map;
	struct r5j_payload p;
	struct rec_stripe *rs;
	enum r5j_reason why;
	unsigned int i;
	int dd_idx, err;
	u64 stripe;

	if (rc->rs)
		return recover_txn_reshape(rc, t);
	r5j_payload_iter_init(&it, &log->fmt, t->meta, t->pos);
	while (r5j_payload_next(&it, &p)) {
		if (p.type == R5LOG_PAYLOAD_FLUSH) {
			/* lookups only: a flood of them allocates nothing */
			for (i = 0; i < p.nr_stripes; i++) {
				rs = find_rec_stripe(rc,
						     r5j_payload_stripe(&p, i),
						     false);
				if (rs)
					free_rec_stripe(rc, rs);
			}
			continue;
		}
		why = r5j_payload_target(&rc->bounds, &p, &stripe, &dd_idx,
					 &map);
		if (why != R5J_OK)
			return bad_location(rc, t, &p, why);
		if (p.type == R5LOG_PAYLOAD_DATA) {
			rs = find_rec_stripe(rc, stripe, true);
			if (IS_ERR(rs))
				return PTR_ERR(rs);
			rs->blocks[dd_idx].pos = p.log_pos + 1;
			rs->blocks[dd_idx].csum = r5j_payload_csum(&p, 0);
			rs->blocks[dd_idx].back =
				r5j_ring_distance(&log->fmt, t->pos, p.log_pos);
			continue;
		}
		rs = find_rec_stripe(rc, stripe, false);
		if (!rs)
			continue;	/* parity alone: nothing to replay */
		err = replay_stripe(rc, rs, &p, &map, false);
		if (err)
			return err;
		free_rec_stripe(rc, rs);
	}
	rc->txns++;
	return 0;
}

/*
 * Read @member's block of stripe @sector from a device holding it.  A
 * member whose read fails is noted in rc->rerr[] for fix_read_error(); a
 * replacement is failed, as at run time (r5j_handle.c read_failed()).
 */
static bool read_member(struct rec_ctx *rc, sector_t sector, int member,
			struct page *page)
{
	struct r5j_conf *conf = rc->conf;
	struct mutex *held = &conf->mddev->reconfig_mutex;
	struct md_rdev *rdev;
	int i;

	for (i = member; i < conf->raid_disks * 2; i += conf->raid_disks) {
		rdev = rcu_dereference_protected(*r5j_dev_slot(conf, i),
						 lockdep_is_held(held));
		if (!r5j_rdev_usable(rdev) ||
		    !(test_bit(In_sync, &rdev->flags) ||
		      sector + R5J_STRIPE_SECTORS <= rdev->recovery_offset))
			continue;
		if (sync_page_io(rdev, sector, PAGE_SIZE, page, REQ_OP_READ,
				 false))
			return true;
		pr_warn("md/raid:%s: journal recovery: read error on %pg (sector %llu)\n",
			mdname(conf->mddev), rdev->bdev,
			(unsigned long long)(sector + rdev->data_offset));
		if (i < conf->raid_disks)
			rc->rerr[member] = rdev;
		else
			md_error(conf->mddev, rdev);
	}
	return false;
}

/*
 * The destage of stripe @sector rebuilt @rdev's unreadable block into
 * @page (or wrote the logged data or parity there: @written).  As at run
 * time (r5j_handle.c fix_read_errors(), read_done()): write it back, read
 * it back; good, the error is corrected and the member stays; a failed
 * rewrite is a write error (replay_write_failed()), a failed read-back
 * records the stripe in the member's bad block log (or fails the member).
 * After the stripe's parity is in the log: the rewrite is idempotent.
 */
static void fix_read_error(struct rec_ctx *rc, struct md_rdev *rdev,
			   sector_t sector, struct page *page, bool written)
{
	struct mddev *mddev = rc->conf->mddev;
	unsigned long long s = sector + rdev->data_offset;

	if (test_bit(Faulty, &rdev->flags))
		return;		/* the destage's own write failed it */
	if (!written && !sync_page_io(rdev, sector, PAGE_SIZE, page,
				      REQ_OP_WRITE, false)) {
		pr_warn("md/raid:%s: read error NOT corrected!! (sector %llu on %pg).\n",
			mdname(mddev), s, rdev->bdev);
		replay_write_failed(rc->conf, rdev, sector, false);
		return;
	}
	if (sync_page_io(rdev, sector, PAGE_SIZE, rc->buf, REQ_OP_READ,
			 false)) {
		pr_info("md/raid:%s: read error corrected (%d sectors at %llu on %pg)\n",
			mdname(mddev), R5J_STRIPE_SECTORS, s, rdev->bdev);
		atomic_add(R5J_STRIPE_SECTORS, &rdev->corrected_errors);
		return;
	}
	pr_warn("md/raid:%s: read error NOT corrected!! (sector %llu on %pg).\n",
		mdname(mddev), s, rdev->bdev);
	if (!rdev_set_badblocks(rdev, sector, R5J_STRIPE_SECTORS, 0))
		md_error(mddev, rdev);
}

/*
 * Is @m's block of the stripe unknown or stale after destage_lost()
 * writes only the logged data: a block no device could give, or parity
 * (not computed)?
 */
static bool lost_block(struct rec_ctx *rc, struct rec_stripe *rs,
		       const struct r5j_stripe_map *map, int m)
{
	if (m == map->pd_idx || m == map->qd_idx)
		return true;
	return !rs->blocks[m].pos && test_bit(m, rc->unknown);
}

/*
 * A write-back stripe with more blocks unknown than the parity covers
 * (members missing or unreadable): its parity cannot be computed.  As a
 * read error in a stripe that cannot be rebuilt at run time (r5j_handle.c
 * uncorrectable_read_errors()): the logged data is written, and each
 * device of a block that is unknown or stale (unreadable clean data, the
 * parity) gets the stripe in its bad block log, so that no read rebuilds
 * anything from it: such blocks read as errors, never as wrong data.  If
 * one of those devices has no log (or a full one), recovery fails as
 * before: array read-only, journal left as it was.
 */
static int destage_lost(struct rec_ctx *rc, struct rec_stripe *rs,
			const struct r5j_stripe_map *map)
{
	struct r5j_conf *conf = rc->conf;
	struct mutex *held = &conf->mddev->reconfig_mutex;
	sector_t sector = rs->sector;
	struct md_rdev *rdev;
	int m, i;

	for (i = 0; i < conf->raid_disks * 2; i++) {
		rdev = rcu_dereference_protected(*r5j_dev_slot(conf, i),
						 lockdep_is_held(held));
		if (r5j_rdev_usable(rdev) &&
		    lost_block(rc, rs, map, i % conf->raid_disks) &&
		    rdev->badblocks.shift < 0) {
			pr_err("md/raid:%s: journal: write-back stripe %llu: too many members unreadable to destage it, and %pg has no bad block log\n",
			       mdname(conf->mddev), (unsigned long long)sector,
			       rdev->bdev);
			return -EIO;
		}
	}
	pr_warn("md/raid:%s: journal: write-back stripe %llu: too many members unreadable to compute its parity: logged data written, the rest recorded as bad blocks\n",
		mdname(conf->mddev), (unsigned long long)sector);
	for (m = 0; m < conf->raid_disks; m++) {
		if (!lost_block(rc, rs, map, m)) {
			if (!rs->blocks[m].pos)
				continue;	/* clean and readable */
			write_page(rc, sector, m, rc->pages[m], false);
			if (rc->rerr[m])
				fix_read_error(rc, rc->rerr[m], sector,
					       rc->pages[m], true);
			continue;
		}
		for (i = m; i < conf->raid_disks * 2; i += conf->raid_disks) {
			rdev = rcu_dereference_protected(*r5j_dev_slot(conf, i),
							 lockdep_is_held(held));
			if (!r5j_rdev_usable(rdev))
				continue;
			if (rdev == rc->rerr[m])
				pr_warn("md/raid:%s: read error not correctable (sector %llu on %pg).\n",
					mdname(conf->mddev),
					(unsigned long long)(sector +
							     rdev->data_offset),
					rdev->bdev);
			if (!rdev_set_badblocks(rdev, sector,
						R5J_STRIPE_SECTORS, 0))
				md_error(conf->mddev, rdev);
		}
	}
	rc->wb_stripes++;
	return 0;
}

/*
 * Seal the batch: its meta block (FUA) after its parity pages makes one
 * PARITY-only transaction; then, and only then, each stripe's logged data
 * and parity go to the members, read back from the log.
 */
static int flush_batch(struct rec_ctx *rc)
{
	struct r5j_conf *conf = rc->conf;
	struct r5j_journal *log = rc->log;
	int p = conf->max_degraded, m, err = 0;
	unsigned int i, n = rc->nbatch;
	struct r5j_stripe_map map;

	if (!n)
		return 0;
	r5j_meta_init(page_address(rc->meta), rc->wb_pos, rc->wb_seq);
	for (i = 0; i < n; i++)
		r5j_meta_add_parity(page_address(rc->meta),
				    rc->batch[i].rs->sector, rc->batch[i].csum,
				    p);
	r5j_meta_set_writeback(page_address(rc->meta), conf->writeback);
	r5j_meta_seal(page_address(rc->meta), log->fmt.seed);
	if (!sync_page_io(log->rdev, rc->wb_pos, PAGE_SIZE, rc->meta,
			  REQ_OP_WRITE | REQ_FUA | REQ_SYNC, false))
		return -EIO;
	rc->wb_pos = r5j_ring_add(&log->fmt, rc->wb_pos,
				  (1 + (u64)n * p) * R5J_BLOCK_SECTORS);
	rc->wb_seq++;
	rc->nbatch = 0;

	for (i = 0; i < n; i++) {
		struct rec_stripe *rs = rc->batch[i].rs;
		struct md_rdev **rerr = rc->batch_rerr + i * conf->raid_disks;

		r5j_stripe_parity(&conf->geom, rs->sector, &map);
		for (m = 0; m < conf->raid_disks && !err; m++) {
			if (m == map.pd_idx || m == map.qd_idx)
				err = load_page(rc, rc->batch[i].pos[m ==
						map.qd_idx], rc->batch[i].csum[m ==
						map.qd_idx], rc->pages[m]);
			else if (rs->blocks[m].pos)
				err = load_page(rc, rs->blocks[m].pos - 1,
						rs->blocks[m].csum,
						rc->pages[m]);
			else
				continue;	/* clean: the members have it */
			if (err)
				break;
			write_page(rc, rs->sector, m, rc->pages[m], false);
			if (rerr[m])
				fix_read_error(rc, rerr[m], rs->sector,
					       rc->pages[m], true);
		}
		if (err) {
			/* the rest stay in the table, freed with it */
			return err;
		}
		rc->wb_stripes++;
		free_rec_stripe(rc, rs);
	}
	return 0;
}

/*
 * Write-back: a stripe whose data is logged without parity (nothing after
 * it says it reached the members).  The members still hold the stripe as
 * it was before that data, consistent, since a destage logs its parity
 * before it writes a member.  So: rebuild what a missing member held from
 * the members alone, put the logged data over it, compute parity, write
 * the parity pages right after the log; flush_batch() logs the meta block
 * of a batch of such stripes (stable before any member is touched: a
 * crash from then on replays them as write-through stripes), then writes
 * their logged data and parity.  1: @rs is the batch's (freed by it).
 */
static int destage_rec_stripe(struct rec_ctx *rc, struct rec_stripe *rs)
{
	struct r5j_conf *conf = rc->conf;
	struct r5j_journal *log = rc->log;
	int failed[2], nfailed = 0, old_failed[2], nold = 0, i, m, err;
	void **blocks = conf->blocks, **old = conf->rmw_data;
	struct r5j_stripe_map map;
	bool need_old = false, written;
	struct md_rdev **rerr;
	struct rec_batch *be;
	u64 pos;

	memset(rc->rerr, 0, conf->raid_disks * sizeof(*rc->rerr));
	bitmap_zero(rc->unknown, conf->raid_disks);
	r5j_stripe_parity(&conf->geom, rs->sector, &map);
	for (m = 0; m < conf->raid_disks; m++) {
		bool logged = rs->blocks[m].pos && m != map.pd_idx &&
			      m != map.qd_idx;

		blocks[m] = page_address(rc->pages[m]);
		old[m] = blocks[m];
		if (logged) {
			err = load_page(rc, rs->blocks[m].pos - 1,
					rs->blocks[m].csum, rc->pages[m]);
			if (err)
				return err;
			old[m] = page_address(rc->old[m]);
			continue;
		}
		if (read_member(rc, rs->sector, m, rc->pages[m]))
			continue;
		/* every member read first: destage_lost() needs them all */
		__set_bit(m, rc->unknown);
		if (nfailed < conf->max_degraded)
			failed[nfailed] = m;
		nfailed++;
		if (m != map.pd_idx && m != map.qd_idx)
			need_old = true;
	}
	if (nfailed > conf->max_degraded)
		goto lost;
	if (need_old) {
		/* a clean data block is lost: rebuild it from the old stripe */
		for (m = 0; m < conf->raid_disks; m++) {
			if (old[m] == blocks[m])
				continue;
			if (!read_member(rc, rs->sector, m, rc->old[m])) {
				if (nold + nfailed == conf->max_degraded)
					goto lost;
				old_failed[nold++] = m;
			}
		}
		for (i = 0; i < nfailed; i++)
			old_failed[nold++] = failed[i];
		if (r5j_recover(&conf->geom, &map, old, old_failed, nold,
				&rc->pw))
			goto lost;
	}
	r5j_compute_parity(&conf->geom, &map, blocks, &rc->pw);

	/* the parity pages after those of the batch so far, each FUA */
	be = &rc->batch[rc->nbatch];
	rerr = rc->batch_rerr + rc->nbatch * conf->raid_disks;
	pos = r5j_ring_add(&log->fmt, rc->wb_pos, (1 + (u64)rc->nbatch *
			   conf->max_degraded) * R5J_BLOCK_SECTORS);
	for (i = 0; i < conf->max_degraded; i++) {
		m = i ? map.qd_idx : map.pd_idx;
		be->csum[i] = r5j_page_csum(log->fmt.seed, blocks[m]);
		be->pos[i] = r5j_ring_add(&log->fmt, pos,
					  (u64)i * R5J_BLOCK_SECTORS);
		if (!sync_page_io(log->rdev, be->pos[i], PAGE_SIZE,
				  rc->pages[m],
				  REQ_OP_WRITE | REQ_FUA | REQ_SYNC, false))
			return -EIO;
	}
	for (m = 0; m < conf->raid_disks; m++) {
		written = m == map.pd_idx || m == map.qd_idx ||
			  old[m] != blocks[m];
		rerr[m] = written ? rc->rerr[m] : NULL;
		/*
		 * A clean block rebuilt from the old stripe: writing it back
		 * now changes nothing the members hold (L10).
		 */
		if (!written && rc->rerr[m])
			fix_read_error(rc, rc->rerr[m], rs->sector,
				       rc->pages[m], false);
	}
	be->rs = rs;
	if (++rc->nbatch == r5j_parity_batch(conf->max_degraded)) {
		err = flush_batch(rc);
		if (err)
			return err;
	}
	return 1;
lost:
	return destage_lost(rc, rs, &map);
}

/* Ring sectors the parity of @n data-only stripes takes, meta blocks too. */
static u64 parity_sectors(struct r5j_conf *conf, u64 n)
{
	return (n * conf->max_degraded +
		DIV_ROUND_UP_ULL(n, r5j_parity_batch(conf->max_degraded))) *
	       R5J_BLOCK_SECTORS;
}

/*
 * The members' writes so far durable, and what a replay recorded on disk
 * (a member failed, a bad block range), before journal_tail moves past the
 * log that holds them: the tail-only write would not carry those.
 */
static void sync_members(struct r5j_journal *log)
{
	struct mddev *mddev = log->mddev;

	r5j_flush_members(log->conf);
	if (mddev->sb_flags & (BIT(MD_SB_CHANGE_DEVS) |
			       BIT(MD_SB_CHANGE_PENDING)))
		md_update_sb(mddev, 1);
}

/*
 * Unit by unit (journal.md section 15, "Recovery of data-only stripes",
 * ring").  A data-only stripe pins the unit of its oldest logged block:
 * journal_tail may move past that unit once the stripe is on the members.
 * Its log offset (sectors from the scan's start) orders the stripes, and
 * *@pos gets the unit's ring sector, a meta block of this log.
 */
static u64 rec_pin(struct rec_ctx *rc, const struct rec_stripe *rs, u64 *pos)
{
	const struct r5j_log *fmt = &rc->log->fmt;
	u64 best = U64_MAX, meta, off;
	int m;

	for (m = 0; m < rc->conf->raid_disks; m++) {
		const struct rec_block *b = &rs->blocks[m];

		if (!b->pos)
			continue;
		meta = r5j_ring_add(fmt, b->pos - 1, fmt->ring_sectors - b->back);
		off = r5j_ring_distance(fmt, rc->start, meta);
		if (off < best) {
			best = off;
			if (pos)
				*pos = meta;
		}
	}
	return best;
}

static int cmp_pin(void *priv, const struct list_head *a,
		   const struct list_head *b)
{
	struct rec_ctx *rc = priv;
	u64 pa = rec_pin(rc, list_entry(a, struct rec_stripe, order), NULL);
	u64 pb = rec_pin(rc, list_entry(b, struct rec_stripe, order), NULL);

	return pa < pb ? -1 : pa > pb;
}

/* Move the table's stripes to rc->order, oldest pinned unit first. */
static void order_pending(struct rec_ctx *rc)
{
	struct rec_stripe *rs;
	struct hlist_node *tmp;
	unsigned int b;

	INIT_LIST_HEAD(&rc->order);
	for (b = 0; b < (1U << rc->hash_bits); b++) {
		hlist_for_each_entry_safe(rs, tmp, &rc->hash[b], node) {
			hlist_del(&rs->node);
			list_add_tail(&rs->order, &rc->order);
		}
	}
	rc->ordered = true;
	list_sort(rc, &rc->order, cmp_pin);
}

/*
 * Destage the ordered stripes one unit at a time: the stripes pinning the
 * oldest unit get their parity logged after the log (one transaction per
 * r5j_parity_batch() of them), are written to the members, and before the
 * next unit's transaction journal_tail moves to that unit if the
 * transaction would not fit otherwise (or always, rc->unit_by_unit),
 * members flushed first.  A crash in between leaves a shorter log, which
 * the next recovery destages the same way; a stripe already on the
 * members is destaged again from the same blocks, or replayed with the
 * parity logged here.  @apply false: only check that every transaction
 * fits (the room is counted as if every stripe's parity were logged), and
 * count the units and tail moves; true: do it, with the same decisions.
 */
static int destage_units(struct rec_ctx *rc, bool apply)
{
	struct r5j_conf *conf = rc->conf;
	struct r5j_journal *log = rc->log;
	u64 ring = log->fmt.ring_sectors, used = rc->walked, tail = 0;
	unsigned int n, i;
	bool eager = rc->unit_by_unit && md_is_rdwr(conf->mddev);
	struct rec_stripe *rs, *next;
	u64 pin, pin_pos = 0, need;
	int err;

	rc->units = 0;
	rc->tail_moves = 0;
	rs = list_first_entry(&rc->order, struct rec_stripe, order);
	while (&rs->order != &rc->order) {
		pin = rec_pin(rc, rs, &pin_pos);
		n = 0;
		for (next = rs; &next->order != &rc->order &&
		     rec_pin(rc, next, NULL) == pin;
		     next = list_next_entry(next, order))
			n++;
		/* its parity transactions and, always, the final empty unit */
		need = parity_sectors(conf, n);
		/* a read-only array cannot move it: the check below refuses */
		if (pin > tail && md_is_rdwr(conf->mddev) &&
		    (eager || used + need + R5J_BLOCK_SECTORS > ring)) {
			if (apply) {
				sync_members(log);
				err = r5j_journal_set_tail(log, pin_pos);
				if (err) {
					pr_err("md/raid:%s: journal recovery: journal_tail could not move to %llu (%d)\n",
					       mdname(conf->mddev),
					       (unsigned long long)pin_pos,
					       err);
					return err;
				}
				if (!rc->tail_moves)
					pr_info("md/raid:%s: journal recovery: journal_tail moved to %llu, unit %llu\n",
						mdname(conf->mddev),
						(unsigned long long)pin_pos,
						rc->units + 1);
			}
			used -= pin - tail;
			tail = pin;
			rc->tail_moves++;
		}
		if (used + need + R5J_BLOCK_SECTORS > ring) {
			pr_err("md/raid:%s: journal holds %u write-back stripes without parity and no room after the log for their parity, even unit by unit (%u stripes pin the unit at sector %llu%s): refused, nothing written\n",
			       mdname(conf->mddev), rc->nr_pending, n,
			       (unsigned long long)pin_pos,
			       md_is_rdwr(conf->mddev) ? "" :
			       "; read-only: journal_tail cannot move");
			return -ENOSPC;
		}
		used += need;
		rc->units++;
		for (i = 0; apply && i < n; i++, rs = next) {
			next = list_next_entry(rs, order);
			cond_resched();
			err = destage_rec_stripe(rc, rs);
			if (err < 0)
				return err;
			if (!err)
				free_rec_stripe(rc, rs);
		}
		if (apply) {
			err = flush_batch(rc);
			if (err)
				return err;
		} else {
			rs = next;
		}
	}
	return 0;
}

/* After the replay: destage every data-only stripe left (write-back). */
static int destage_pending(struct rec_ctx *rc)
{
	struct r5j_conf *conf = rc->conf;
	struct rec_stripe *rs;
	struct hlist_node *tmp;
	unsigned int b;
	int err, i;

	rc->pages = kcalloc(conf->raid_disks, sizeof(*rc->pages), GFP_KERNEL);
	rc->old = kcalloc(conf->raid_disks, sizeof(*rc->old), GFP_KERNEL);
	rc->rerr = kcalloc(conf->raid_disks, sizeof(*rc->rerr), GFP_KERNEL);
	rc->unknown = bitmap_zalloc(conf->raid_disks, GFP_KERNEL);
	rc->pw.slots = kcalloc(R5J_PARITY_SLOTS(conf->raid_disks),
			       sizeof(void *), GFP_KERNEL);
	rc->meta = alloc_page(GFP_KERNEL);
	b = r5j_parity_batch(conf->max_degraded);
	rc->batch = kcalloc(b, sizeof(*rc->batch), GFP_KERNEL);
	rc->batch_rerr = kcalloc(b * conf->raid_disks,
				 sizeof(*rc->batch_rerr), GFP_KERNEL);
	rc->nbatch = 0;
	err = -ENOMEM;
	if (!rc->pages || !rc->old || !rc->rerr || !rc->unknown ||
	    !rc->pw.slots || !rc->meta || !rc->batch || !rc->batch_rerr)
		goto out;
	for (i = 0; i < conf->raid_disks; i++) {
		rc->pages[i] = alloc_page(GFP_KERNEL);
		rc->old[i] = alloc_page(GFP_KERNEL);
		if (!rc->pages[i] || !rc->old[i])
			goto out;
	}
	/* the daemon's scratch: no stripe is handled before start ends */
	rc->pw.zero = conf->pw.zero;
	rc->pw.spare[0] = conf->pw.spare[0];
	rc->pw.spare[1] = conf->pw.spare[1];
	if (rc->by_unit) {
		order_pending(rc);
		err = destage_units(rc, true);
		goto out;
	}
	err = 0;
	for (b = 0; b < (1U << rc->hash_bits) && !err; b++) {
		hlist_for_each_entry_safe(rs, tmp, &rc->hash[b], node) {
			cond_resched();
			err = destage_rec_stripe(rc, rs);
			if (err < 0)
				break;
			if (!err)
				free_rec_stripe(rc, rs);
			err = 0;	/* 1: the batch has it */
		}
	}
	if (!err)
		err = flush_batch(rc);
out:
	for (i = 0; rc->pages && i < conf->raid_disks; i++)
		if (rc->pages[i])
			put_page(rc->pages[i]);
	for (i = 0; rc->old && i < conf->raid_disks; i++)
		if (rc->old[i])
			put_page(rc->old[i]);
	kfree(rc->pages);
	kfree(rc->old);
	kfree(rc->rerr);
	bitmap_free(rc->unknown);
	kfree(rc->pw.slots);
	kfree(rc->batch);
	kfree(rc->batch_rerr);
	if (rc->meta)
		put_page(rc->meta);
	return err;
}

static void drop_pending(struct rec_ctx *rc)
{
	struct rec_stripe *rs, *rn;
	struct hlist_node *tmp;
	unsigned int b;

	if (rc->ordered) {
		list_for_each_entry_safe(rs, rn, &rc->order, order)
			free_rec_stripe(rc, rs);
		rc->ordered = false;
	}
	if (!rc->hash)
		return;
	for (b = 0; b < (1U << rc->hash_bits); b++)
		hlist_for_each_entry_safe(rs, tmp, &rc->hash[b], node)
			free_rec_stripe(rc, rs);
}

/*
 * The array starts in the journal mode the log's newest meta block
 * records (journal.md, section 15): every meta block raid5j writes says
 * whether it ran in write-back, and a mode switch writes one.  raid456 and
 * mdadm write 0 there, so their logs, a new journal and a log that did not
 * check out start in write-through.  Before any write of this recovery, so
 * the blocks it writes record the mode the array runs in.
 */
static void set_mode(struct rec_ctx *rc)
{
	struct mddev *mddev = rc->log->mddev;

	if (!rc->wb_mode)
		return;
	if (rc->rs) {
		/* R13 (reshape.md section 4) */
		pr_warn("md/raid:%s: journal: the log says write-back, but a reshape is in progress: starting in write-through\n",
			mdname(mddev));
		return;
	}
	if (!r5j_writeback_allowed()) {
		pr_warn("md/raid:%s: journal: the log says write-back, but the module parameter writeback is 0: starting in write-through\n",
			mdname(mddev));
		return;
	}
	WRITE_ONCE(rc->conf->writeback, true);
	pr_info("md/raid:%s: journal mode write-back (recorded in the journal)\n",
		mdname(mddev));
}

/* Start an empty log at @pos with @seq: the one block at journal_tail. */
static int new_log(struct r5j_journal *log, u64 pos, u64 seq)
{
	int err;

	sync_members(log);
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

/*
 * One pass over the log from journal_tail.  Returns 0 with *scan at the
 * log's end, 1 if there is no log (scan->stop says why), or an errno.
 */
static int recover_pass(struct rec_ctx *rc, struct r5j_scan *scan)
{
	struct mddev *mddev = rc->log->mddev;
	struct r5j_txn t;
	int err, n;

	rc->txns = 0;
	err = r5j_scan_start(scan, rc->log->rdev->journal_tail);
	if (err == -ENOENT)
		return 1;
	if (err) {
		pr_err("md/raid:%s: journal: cannot read the log (%d)\n",
		       mdname(mddev), err);
		return err;
	}
	while ((n = r5j_scan_next(scan, &t)) > 0) {
		cond_resched();
		/* a skipped unit's header checked out too: its mode counts */
		rc->wb_mode = r5j_meta_writeback(t.meta);
		if (t.verdict != R5J_OK) {
			if (!rc->replay)
				pr_warn("md/raid:%s: journal: transaction seq %llu at %llu skipped: %s\n",
					mdname(mddev), (unsigned long long)t.seq,
					(unsigned long long)t.pos,
					r5j_reason_name(t.verdict));
			continue;
		}
		err = recover_txn(rc, &t);
		if (err)
			return err;
	}
	if (n < 0) {
		pr_err("md/raid:%s: journal: read error while scanning at %llu\n",
		       mdname(mddev), (unsigned long long)scan->pos);
		return n;
	}
	return 0;
}

int r5j_journal_recover(struct r5j_journal *log)
{
	struct mddev *mddev = log->mddev;
	struct rec_ctx rc = { .log = log, .conf = log->conf };
	struct page *meta_page = NULL, *scratch = NULL;
	struct r5j_scan scan;
	u64 end_pos, end_seq;
	int err;

	rc.unit_by_unit = READ_ONCE(r5j_hook_recovery_unit_by_unit);
	r5j_bounds_init(&rc.bounds, &rc.conf->geom, mddev->dev_sectors);
	if (rc.conf->reshaping) {
		/* R11: conf->geom is the next geometry */
		rc.rs = &rc.conf->rs;
		rc.rs_pos = rc.conf->reshape_safe;
		r5j_bounds_init(&rc.bounds_prev, &rc.conf->rs.prev,
				mddev->dev_sectors);
		rc.rs_data = kcalloc(R5J_MAX_DISKS, sizeof(*rc.rs_data),
				     GFP_KERNEL);
		rc.rs_log = kcalloc(R5J_MAX_DISKS, sizeof(*rc.rs_log),
				    GFP_KERNEL);
		if (!rc.rs_data || !rc.rs_log) {
			err = -ENOMEM;
			goto out;
		}
	}
	rc.max_pending = r5j_recovery_max_stripes(rc.conf, log->fmt.ring_sectors);
	/* about four stripes a bucket at the most the journal can hold */
	rc.hash_bits = clamp_t(int, ilog2(rc.max_pending) - 2,
			       REC_HASH_BITS_MIN, REC_HASH_BITS_MAX);
	rc.hash = kvcalloc(1U << rc.hash_bits, sizeof(*rc.hash), GFP_KERNEL);
	meta_page = alloc_page(GFP_KERNEL);
	scratch = alloc_page(GFP_KERNEL);
	rc.buf = alloc_page(GFP_KERNEL);
	if (!rc.hash || !meta_page || !scratch || !rc.buf) {
		err = -ENOMEM;
		goto out;
	}
	r5j_scan_init(&scan, &log->fmt, read_log_block, log,
		      page_address(meta_page), page_address(scratch));

	/* pass 1: check everything, write nothing */
	err = recover_pass(&rc, &scan);
	if (scan.tail_reset)
		pr_warn("md/raid:%s: journal: journal_tail %llu is past the journal or unaligned; scanning from 0\n",
			mdname(mddev),
			(unsigned long long)log->rdev->journal_tail);
	if (err == 1) {
		pr_info("md/raid:%s: journal: no valid log at sector %llu (%s): starting a new log\n",
			mdname(mddev), (unsigned long long)scan.pos,
			r5j_reason_name(scan.stop));
		err = new_log(log, 0, get_random_u32());
		goto out;
	}
	if (err)
		goto out;
	if (rc.rs && rc.nr_pending) {
		/* write-back stripes: refused with a reshape (R13) */
		pr_err("md/raid:%s: journal holds %u stripes with data but no parity while a reshape is in progress (write-back is refused during a reshape): corrupt log, refused, nothing written\n",
		       mdname(mddev), rc.nr_pending);
		err = -EINVAL;
		goto out;
	}
	rc.start = scan.start_pos;
	rc.walked = scan.walked;
	/*
	 * Batched, each write-back stripe's parity pages go after the log, a
	 * meta block per batch, then the new empty unit: the room L11
	 * keeps at run time.  Without that room (L12, or forced), unit
	 * by unit, checked here before anything is written.
	 */
	rc.by_unit = rc.nr_pending && (rc.unit_by_unit ||
		parity_sectors(rc.conf, rc.nr_pending) + R5J_BLOCK_SECTORS +
		scan.walked > log->fmt.ring_sectors);
	if (rc.by_unit) {
		order_pending(&rc);
		err = destage_units(&rc, false);
		if (err)
			goto out;
	}
	end_pos = scan.pos;
	end_seq = scan.seq;

	/*
	 * pass 2: the same walk, writing, from an empty table: an entry
	 * left by pass 1 (a write-back stripe at the log's end) would be
	 * replayed with an earlier PARITY of its stripe
	 */
	drop_pending(&rc);
	rc.replay = true;
	err = recover_pass(&rc, &scan);
	if (!err && (scan.pos != end_pos || scan.seq != end_seq)) {
		pr_err("md/raid:%s: journal changed during recovery (end %llu seq %llu, then %llu seq %llu)\n",
		       mdname(mddev), (unsigned long long)end_pos,
		       (unsigned long long)end_seq,
		       (unsigned long long)scan.pos,
		       (unsigned long long)scan.seq);
		err = -EIO;
	}
	if (err) {
		if (err == 1)
			err = -EIO;
		goto out;
	}
	rc.wb_pos = scan.pos;
	rc.wb_seq = scan.seq;
	set_mode(&rc);
	if (rc.nr_pending) {
		err = destage_pending(&rc);
		if (err)
			goto out;
		pr_info("md/raid:%s: journal: destaged %llu write-back stripes (data without parity)\n",
			mdname(mddev), rc.wb_stripes);
		if (rc.by_unit)
			pr_info("md/raid:%s: journal recovery: %llu units, %llu tail moves\n",
				mdname(mddev), rc.units, rc.tail_moves);
		log->stats.recovered_wb_stripes = rc.wb_stripes;
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
	err = new_log(log, rc.wb_pos, scan.tail_reset ? get_random_u32() :
		      rc.wb_seq + R5J_SEQ_JUMP);
out:
	drop_pending(&rc);
	kfree(rc.rs_data);
	kfree(rc.rs_log);
	kvfree(rc.hash);
	if (rc.buf)
		put_page(rc.buf);
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
		WRITE_ONCE(conf->writeback, false);	/* set_mode()'s */
		r5j_set_readonly(mddev);
		pr_crit("md/raid:%s: journal recovery failed (%d): array is read-only, the journal is left as it was\n",
			mdname(mddev), err);
	}
	return err;
}
