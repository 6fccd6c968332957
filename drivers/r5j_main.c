// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j: RAID4/5/6 md personality.  This file holds what md core calls:
 * registration, array start and stop, member changes, /proc/mdstat.
 * The stripe engine lives in r5j_stripe.c, r5j_handle.c, r5j_request.c.
 */
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/raid/md_p.h>
#include <linux/raid/pq.h>
#include "r5j.h"
#include "r5j_dm.h"
#include "r5j_sysfs.h"
#include "r5j_journal.h"

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

bool r5j_has_failed(struct r5j_conf *conf)
{
	return conf->mddev->degraded > conf->max_degraded;
}

/*
 * Write-back: idle dirty stripes are evicted or go to the members once
 * the cache holds too many (or a writer waits for a free stripe); they go
 * to the members once dirty for a full period of the reclaim thread
 * (5-10 s), when the journal passes writeback_log_high or failed, on
 * quiesce and when write-back is switched off (r5j_wbcache_destage_idle()).
 * Full stripes do not wait here (finish_cached_write()).
 */
static bool destage_more(struct r5j_conf *conf)
{
	bool all, aged;

	if (!atomic_read(&conf->dirty_stripes))
		return false;
	aged = xchg(&conf->destage_aged, false);
	all = conf->quiesce || !READ_ONCE(conf->writeback) || !conf->log ||
	      r5j_journal_failed(conf->log);
	return r5j_wbcache_destage_idle(conf, all, aged);
}

static void r5j_daemon(struct md_thread *thread)
{
	struct mddev *mddev = thread->mddev;
	struct r5j_conf *conf = mddev->private;
	struct r5j_stripe *sh;
	struct blk_plug plug;
	int handled = 0;

	/* md core may wait for our member I/O: send what a past pass held */
	if (mddev->sb_flags || test_bit(MD_RECOVERY_NEEDED, &mddev->recovery) ||
	    test_bit(MD_RECOVERY_DONE, &mddev->recovery))
		r5j_submit_pending(conf);
	md_check_recovery(mddev);

	blk_start_plug(&plug);
	for (;;) {
		sh = r5j_next_handle(conf);
		if (!sh) {
			if (!list_empty_careful(&conf->bitmap_list)) {
				r5j_flush_bitmap_list(conf);
				continue;
			}
			if (destage_more(conf))
				continue;
			/* batch what this pass logged into one unit */
			if (conf->log)
				r5j_journal_submit(conf->log);
			if (list_empty_careful(&conf->handle_list))
				break;
			continue;
		}
		r5j_handle_stripe(sh);
		r5j_release_stripe(sh);
		/* a long pass must not leave the members idle meanwhile */
		if (conf->nr_pending >= R5J_PENDING_MAX ||
		    (conf->nr_pending &&
		     atomic_read(&conf->member_inflight) < conf->raid_disks))
			r5j_submit_pending(conf);
		if (++handled % 64 == 0) {
			if (mddev->sb_flags & ~BIT(MD_SB_CHANGE_PENDING)) {
				r5j_submit_pending(conf);
				md_check_recovery(mddev);
			}
			cond_resched();
		}
	}
	r5j_end_pass(conf);
	blk_finish_plug(&plug);
	r5j_return_held_bios(conf);
	r5j_cache_trim(conf);

	/* held completions need another look once the superblock is out */
	if (!r5j_blist_empty(&conf->held))
		thread->timeout = HZ / 20;
	else if (mddev->bitmap)
		/* md core's bitmap daemon runs from md_check_recovery() */
		thread->timeout = mddev->bitmap_info.daemon_sleep;
	else
		thread->timeout = MAX_SCHEDULE_TIMEOUT;
	if (conf->quiesce)
		wake_up(&conf->wait_quiesce);
}

static void free_conf(struct r5j_conf *conf)
{
	int i;

	if (!conf)
		return;
	/* a takeover md core refused after all: the daemon never ran */
	if (r5j_thread(&conf->thread))
		r5j_unregister_thread(conf->mddev, &conf->thread);
	if (r5j_thread(&conf->log_reclaim))
		r5j_unregister_thread(conf->mddev, &conf->log_reclaim);
	cancel_work_sync(&conf->retry_work);
	/* every retry was drained by the quiesce before (aligned_reads) */
	WARN_ON_ONCE(!bio_list_empty(&conf->retry_reads));
	r5j_end_held_bios(conf);
	r5j_reshape_free(conf);
	r5j_cache_free(conf);
	bioset_exit(&conf->bio_split);
	bioset_exit(&conf->bio_clone);
	mempool_exit(&conf->bref_pool);
	percpu_ref_exit(&conf->geom_users);
	for (i = 0; i < ARRAY_SIZE(conf->spare_page); i++)
		if (conf->spare_page[i])
			put_page(conf->spare_page[i]);
	if (conf->zero_page)
		put_page(conf->zero_page);
	kfree(conf->blocks);
	kfree(conf->rmw_data);
	kfree(conf->pending);
	kfree(conf->pw.slots);
	kfree(conf->disks);
	kfree(conf);
}

static struct kmem_cache *r5j_bref_cache;
static struct md_rdev *journal_member(struct mddev *mddev);
static void r5j_free(struct mddev *mddev, void *priv);

/* What raid5j cannot run yet: say so and touch nothing. */
static int refuse_unsupported(struct mddev *mddev)
{
	struct md_rdev *rdev;

	if (test_bit(MD_HAS_JOURNAL, &mddev->flags) &&
	    (mddev->bitmap_info.offset || mddev->bitmap_info.file)) {
		pr_notice("md/raid:%s: array cannot have both journal and bitmap\n",
			  mdname(mddev));
		return -EINVAL;
	}

	/* a reshape position is for reshape_setup(); a change without one is not */
	if (mddev->reshape_position == MaxSector &&
	    (mddev->new_level != mddev->level ||
	    mddev->new_layout != mddev->layout ||
	    mddev->new_chunk_sectors != mddev->chunk_sectors ||
	    mddev->delta_disks)) {
		pr_err("md/raid:%s: reshape pending without a position: not supported by raid5j; use raid456 to finish it\n",
		       mdname(mddev));
		return -EINVAL;
	}
	if (test_bit(MD_HAS_PPL, &mddev->flags)) {
		pr_err("md/raid:%s: partial parity log (PPL) not supported by raid5j\n",
		       mdname(mddev));
		return -EINVAL;
	}
	rdev_for_each(rdev, mddev) {
		if (test_bit(Journal, &rdev->flags) &&
		    (mddev->bitmap_info.offset || mddev->bitmap_info.file)) {
			pr_notice("md/raid:%s: array cannot have both journal and bitmap\n",
				  mdname(mddev));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A superblock is untrusted input (Documentation/reshape.md section 4,
 * "Crafted reshape fields").  md core only checks that new_data_offset
 * clears the superblock's own sectors, yet the reshape and the journal's
 * replay write next-geometry stripes at [new_data_offset, + dev_sectors)
 * of each member: that range must lie on the device, clear of the
 * superblock, the bad block log and the start of a bitmap.  The bitmap's
 * length is not known before md core loads it; a journaled array has
 * none.  An offset md core did not move is its checked data area.
 */
static const char *reshape_offset_bad(struct mddev *mddev,
				      struct md_rdev *rdev)
{
	const struct mdp_superblock_1 *sb;
	sector_t dev = bdev_nr_sectors(rdev->bdev);
	sector_t start = rdev->new_data_offset, end, lo;
	u32 fm;
	u16 bbs;

	if (start == rdev->data_offset)
		return NULL;
	if (start > dev || dev - start < mddev->dev_sectors)
		return "past the end of the device";
	end = start + mddev->dev_sectors;
	if (!mddev->persistent || mddev->external ||
	    mddev->major_version != 1 || !rdev->sb_page)
		return NULL;
	sb = page_address(rdev->sb_page);
	/* the superblock's 4 KiB block, as mdadm reserves it */
	if (start < rdev->sb_start + 8 && end > rdev->sb_start)
		return "over the superblock";
	bbs = le16_to_cpu(sb->bblog_size);
	if (bbs && sb->bblog_offset) {
		lo = rdev->sb_start + (s32)le32_to_cpu(sb->bblog_offset);
		if (start < lo + bbs && end > lo)
			return "over the bad block log";
	}
	fm = le32_to_cpu(sb->feature_map);
	if (fm & MD_FEATURE_BITMAP_OFFSET) {
		lo = rdev->sb_start + (s32)le32_to_cpu(sb->bitmap_offset);
		if (start < lo + 8 && end > lo)
			return "over the bitmap";
	}
	return NULL;
}

/*
 * An array a reshape was interrupted on (by raid456 or mdadm): the
 * geometries from the superblock fields md core loaded
 * (Documentation/reshape.md, section 1), accepted exactly when raid456
 * would resume it without userspace help (r5j_reshape_resume_ok()).
 * raid5j serves I/O through both geometries; r5j_check_reshape() then
 * decides whether the reshape continues (r5j_reshape.c) or, for a kind
 * it does not run, is held where it is.
 */
static int reshape_setup(struct mddev *mddev, struct r5j_reshape *rs)
{
	struct md_rdev *rdev;
	const char *why = NULL;
	bool first = true;

	memset(rs, 0, sizeof(*rs));
	if (mddev->reshape_position == MaxSector)
		return 0;
	r5j_journal_offset_fixed(mddev);
	rs->prev.level = mddev->level;
	rs->prev.layout = mddev->layout;
	rs->prev.raid_disks = mddev->raid_disks - mddev->delta_disks;
	rs->prev.chunk_sectors = mddev->chunk_sectors;
	rs->next.level = mddev->new_level;
	rs->next.layout = mddev->new_layout;
	rs->next.raid_disks = mddev->raid_disks;
	rs->next.chunk_sectors = mddev->new_chunk_sectors;
	rs->dev_sectors = mddev->dev_sectors;
	rs->backwards = mddev->reshape_backwards;
	/* the member with the least room, as raid456's min_offset_diff */
	rdev_for_each(rdev, mddev) {
		s64 diff = (s64)rdev->new_data_offset - (s64)rdev->data_offset;

		if (rdev->raid_disk < 0 || test_bit(Journal, &rdev->flags))
			continue;
		if (first || (rs->backwards ? diff < rs->offset_diff :
			      diff > rs->offset_diff))
			rs->offset_diff = diff;
		first = false;
	}
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0 || test_bit(Journal, &rdev->flags))
			continue;
		why = reshape_offset_bad(mddev, rdev);
		if (why) {
			pr_err("md/raid:%s: reshape at %llu not resumable: new_offset of %pg puts its data at %llu, %s\n",
			       mdname(mddev),
			       (unsigned long long)mddev->reshape_position,
			       rdev->bdev,
			       (unsigned long long)rdev->new_data_offset, why);
			return -EINVAL;
		}
	}
	if (rs->prev.raid_disks < 1 || rs->prev.raid_disks > R5J_MAX_DISKS)
		why = "bad device count change";
	else if (!is_power_of_2(rs->prev.chunk_sectors) ||
		 !is_power_of_2(rs->next.chunk_sectors))
		why = "chunk size must be a power of two";
	else if (r5j_reshape_check(rs, &why))
		;
	else if (mddev->reshape_position > r5j_reshape_end(rs))
		why = "reshape_position past the end of the reshape";
	else if (!r5j_reshape_pos_valid(rs, mddev->reshape_position))
		why = "reshape_position not on a reshape step boundary";
	else if (!r5j_reshape_resume_ok(rs, mddev->reshape_position,
					mddev->ro))
		why = "position too early for auto-recovery (as raid456)";
	if (why) {
		pr_err("md/raid:%s: reshape at %llu not resumable: %s\n",
		       mdname(mddev),
		       (unsigned long long)mddev->reshape_position, why);
		return -EINVAL;
	}
	return 1;
}

/*
 * @takeover: the geometry is md core's new_* (a level change, see
 * r5j_takeover()), the array still runs under the old personality.
 */
static struct r5j_conf *setup_conf(struct mddev *mddev, bool takeover)
{
	struct r5j_conf *conf;
	struct r5j_disk *disk;
	struct md_rdev *rdev;
	const char *why = NULL;
	char pers_name[6];
	int err = -ENOMEM;
	int i;

	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return ERR_PTR(-ENOMEM);
	conf->mddev = mddev;
	err = reshape_setup(mddev, &conf->rs);
	if (err < 0) {
		kfree(conf);
		return ERR_PTR(err);
	}
	conf->reshaping = err;
	err = -ENOMEM;
	conf->geom.level = mddev->level;
	conf->geom.layout = mddev->layout;
	conf->geom.raid_disks = mddev->raid_disks;
	conf->geom.chunk_sectors = mddev->chunk_sectors;
	conf->raid_disks = mddev->raid_disks;
	if (takeover) {
		conf->geom.level = mddev->new_level;
		conf->geom.layout = mddev->new_layout;
		conf->geom.chunk_sectors = mddev->new_chunk_sectors;
	}
	if (conf->reshaping) {
		conf->geom = conf->rs.next;
		conf->raid_disks = max(conf->rs.prev.raid_disks,
				       conf->rs.next.raid_disks);
		conf->reshape_progress = mddev->reshape_position;
		conf->reshape_safe = mddev->reshape_position;
	}
	if (r5j_geom_check(&conf->geom, &why) ||
	    !is_power_of_2(conf->geom.chunk_sectors)) {
		pr_err("md/raid:%s: unsupported geometry (level %d, layout %d, %d devices, %dk chunk): %s\n",
		       mdname(mddev), conf->geom.level, conf->geom.layout,
		       conf->geom.raid_disks, conf->geom.chunk_sectors / 2,
		       why ? why : "chunk size must be a power of two");
		kfree(conf);
		return ERR_PTR(-EINVAL);
	}
	conf->max_degraded = r5j_geom_parity_disks(&conf->geom);
	conf->data_disks = r5j_geom_data_disks(&conf->geom);

	spin_lock_init(&conf->lock);
	INIT_LIST_HEAD(&conf->inactive);
	INIT_LIST_HEAD(&conf->handle_list);
	INIT_LIST_HEAD(&conf->dirty_list);
	conf->dirty_high = R5J_DIRTY_HIGH;
	conf->dirty_low = R5J_DIRTY_LOW;
	INIT_LIST_HEAD(&conf->bitmap_list);
	bio_list_init(&conf->retry_reads);
	r5j_blist_init(&conf->held);
	init_waitqueue_head(&conf->wait_for_stripe);
	init_waitqueue_head(&conf->wait_quiesce);
	init_waitqueue_head(&conf->wait_reshape);
	atomic_set(&conf->aligned_reads, 0);
	atomic64_set(&conf->bm_write_seq, 0);
	INIT_WORK(&conf->retry_work, r5j_retry_reads_work);
	conf->recovery_disabled = mddev->recovery_disabled - 1;
	if (r5j_geom_users_init(conf))
		goto abort;

	/* room for every member count a reshape may grow to */
	conf->pool_disks = conf->raid_disks;
	conf->disks = kcalloc(R5J_MAX_DISKS, sizeof(*conf->disks), GFP_KERNEL);
	if (!conf->disks)
		goto abort;
	rdev_for_each(rdev, mddev) {
		/* the journal carries raid_disk 0 too, but is not a member */
		if (test_bit(Journal, &rdev->flags) ||
		    rdev->raid_disk < 0 || rdev->raid_disk >= conf->raid_disks)
			continue;
		disk = &conf->disks[rdev->raid_disk];
		if (test_bit(Replacement, &rdev->flags)) {
			if (rcu_access_pointer(disk->replacement))
				goto bad_slot;
			RCU_INIT_POINTER(disk->replacement, rdev);
			pr_info("md/raid:%s: device %pg replacing raid disk %d\n",
				mdname(mddev), rdev->bdev, rdev->raid_disk);
			conf->fullsync = true;
			continue;
		}
		if (rcu_access_pointer(disk->rdev))
			goto bad_slot;
		RCU_INIT_POINTER(disk->rdev, rdev);
		if (test_bit(In_sync, &rdev->flags))
			pr_info("md/raid:%s: device %pg operational as raid disk %d\n",
				mdname(mddev), rdev->bdev, rdev->raid_disk);
		else if (rdev->saved_raid_disk != rdev->raid_disk)
			conf->fullsync = true;	/* not a re-add: rebuild all */
	}

	for (i = 0; i < conf->raid_disks; i++) {
		struct md_rdev *repl = r5j_repl_locked(conf, i);

		/* a replacement whose member is gone takes the slot */
		if (repl && !r5j_rdev_locked(conf, i)) {
			RCU_INIT_POINTER(conf->disks[i].rdev, repl);
			RCU_INIT_POINTER(conf->disks[i].replacement, NULL);
			clear_bit(Replacement, &repl->flags);
		}
	}

	for (i = 0; i < ARRAY_SIZE(conf->spare_page); i++) {
		conf->spare_page[i] = alloc_page(GFP_KERNEL);
		if (!conf->spare_page[i])
			goto abort;
	}
	conf->blocks = kcalloc(R5J_MAX_DISKS, sizeof(void *), GFP_KERNEL);
	conf->rmw_data = kcalloc(R5J_MAX_DISKS, sizeof(void *), GFP_KERNEL);
	conf->pending = kcalloc(4 * R5J_MAX_DISKS, sizeof(*conf->pending),
				GFP_KERNEL);
	conf->pw.slots = kcalloc(R5J_PARITY_SLOTS(R5J_MAX_DISKS),
				 sizeof(void *), GFP_KERNEL);
	conf->zero_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!conf->blocks || !conf->rmw_data || !conf->pending ||
	    !conf->pw.slots || !conf->zero_page)
		goto abort;
	conf->pw.zero = page_address(conf->zero_page);
	conf->pw.spare[0] = page_address(conf->spare_page[0]);
	conf->pw.spare[1] = page_address(conf->spare_page[1]);
	/* RAID6 rmw needs the library's partial syndrome update */
	conf->rmw_level = (conf->max_degraded == 1 || raid6_call.xor_syndrome) ?
			  R5J_RMW_CHEAPER : R5J_RMW_NEVER;
	conf->bypass_threshold = R5J_BYPASS_THRESHOLD;
	if (bioset_init(&conf->bio_split, BIO_POOL_SIZE, 0, 0))
		goto abort;
	if (bioset_init(&conf->bio_clone, BIO_POOL_SIZE,
			offsetof(struct r5j_aligned_read, clone), 0))
		goto abort;
	if (mempool_init_slab_pool(&conf->bref_pool, R5J_MAX_REQ_STRIPES,
				   r5j_bref_cache))
		goto abort;
	err = r5j_cache_init(conf);
	if (err)
		goto abort;

	snprintf(pers_name, sizeof(pers_name), "raid%d", conf->geom.level);
	r5j_thread_set(&conf->thread,
		       md_register_thread(r5j_daemon, mddev, pers_name));
	if (!r5j_thread(&conf->thread)) {
		err = -ENOMEM;
		goto abort;
	}
	return conf;

bad_slot:
	pr_err("md/raid:%s: %pg and another device both claim raid disk %d\n",
	       mdname(mddev), rdev->bdev, rdev->raid_disk);
	free_conf(conf);
	return ERR_PTR(-EINVAL);

abort:
	pr_err("md/raid:%s: couldn't allocate %dkB for buffers\n",
	       mdname(mddev), R5J_DEFAULT_STRIPES * conf->raid_disks * 4);
	free_conf(conf);
	return ERR_PTR(err);
}

/* Slots below @slots with no working, in-sync member. */
static int takeover_missing(struct mddev *mddev, int slots)
{
	DECLARE_BITMAP(present, R5J_MAX_DISKS + 1) = { };
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 && rdev->raid_disk < slots &&
		    !test_bit(Journal, &rdev->flags) &&
		    !test_bit(Replacement, &rdev->flags) &&
		    !test_bit(Faulty, &rdev->flags) &&
		    test_bit(In_sync, &rdev->flags))
			__set_bit(rdev->raid_disk, present);
	return slots - bitmap_weight(present, slots);
}

/*
 * RAID0 of one zone (every member the same size in whole chunks, as
 * raid0's create_strip_zones() makes one zone): its member size, else 0.
 */
static sector_t raid0_one_zone(struct mddev *mddev)
{
	struct md_rdev *rdev;
	sector_t size = 0;

	rdev_for_each(rdev, mddev) {
		sector_t s;

		if (rdev->raid_disk < 0 || test_bit(Journal, &rdev->flags))
			continue;
		s = rdev->sectors & ~((sector_t)mddev->chunk_sectors - 1);
		if (size && s != size)
			return 0;
		size = s;
	}
	return size;
}

/* RAID5 layout -> the RAID6 layout with Q on a new last member; -1: none */
static int layout_5_to_6(int layout)
{
	switch (layout) {
	case R5J_ALG_LEFT_ASYMMETRIC:
	case R5J_ALG_RIGHT_ASYMMETRIC:
	case R5J_ALG_LEFT_SYMMETRIC:
	case R5J_ALG_RIGHT_SYMMETRIC:
	case R5J_ALG_PARITY_0:
		return layout + R5J_ALG_LEFT_ASYMMETRIC_6;
	case R5J_ALG_PARITY_N:
		return R5J_ALG_PARITY_N;
	}
	return -1;
}

static int layout_6_to_5(int layout)
{
	if (layout >= R5J_ALG_LEFT_ASYMMETRIC_6 &&
	    layout <= R5J_ALG_PARITY_0_6)
		return layout - R5J_ALG_LEFT_ASYMMETRIC_6;
	return layout == R5J_ALG_PARITY_N ? R5J_ALG_PARITY_N : -1;
}

/*
 * A journal survives a takeover only between RAID4 and RAID5 parity-N,
 * whose logged blocks mean the same under both levels, and only in
 * write-through: the new conf takes over the old conf's drained log
 * (Documentation/reshape.md 8.1).  NULL, or why not.
 */
static const char *takeover_journal(struct mddev *mddev, int level)
{
	struct r5j_conf *old = mddev->private;

	if (!((mddev->level == 4 && level == 5) ||
	      (mddev->level == 5 && level == 4)))
		return "array has a journal (only RAID4 <-> RAID5 keeps it)";
	/* the log object to hand over is raid5j's own */
	if (mddev->pers->free != r5j_free)
		return "array has a journal run by another personality";
	if (!old->log || !journal_member(mddev) ||
	    r5j_journal_failed(old->log))
		return "journal failed or missing";
	if (READ_ONCE(old->writeback))
		return "journal in write-back mode: switch to write-through first";
	return NULL;
}

/*
 * Set md core's new_* (and raid_disks/delta_disks) for a takeover of the
 * running array by raid@level, keeping every block where it is
 * (Documentation/reshape.md, section 8); NULL, or why not.  md core
 * undoes these fields itself when the takeover fails.
 */
static const char *takeover_geometry(struct mddev *mddev, int level)
{
	int from = mddev->level, layout = -1, chunk, missing;
	sector_t size;

	if (test_bit(MD_HAS_JOURNAL, &mddev->flags) || journal_member(mddev)) {
		const char *why = takeover_journal(mddev, level);

		if (why)
			return why;
	}
	if (test_bit(MD_HAS_PPL, &mddev->flags))
		return "array has a partial parity log";
	if (mddev->reshape_position != MaxSector)
		return "a reshape is in progress";

	if (from == 0 && (level == 4 || level == 5)) {
		/* raid0's chunks are parity-N's data members: parity added */
		size = raid0_one_zone(mddev);
		if (!size)
			return "RAID0 with more than one zone (members of different sizes)";
		mddev->dev_sectors = size;
		mddev->new_layout = R5J_ALG_PARITY_N;
		mddev->new_chunk_sectors = mddev->chunk_sectors;
		mddev->raid_disks += 1;
		mddev->delta_disks = 1;
		/* the parity member is missing, not out of sync: no resync */
		r5j_resync_offset(mddev) = MaxSector;
	} else if (from == 1 && level == 5) {
		/* RAID5 of 2 members: the parity block is the data block */
		if (mddev->raid_disks != 2)
			return "RAID1 must have 2 members";
		chunk = 64 * 2;	/* as raid456: 64 KiB, or what divides the size */
		while (chunk && (mddev->array_sectors & (chunk - 1)))
			chunk >>= 1;
		if (chunk < R5J_STRIPE_SECTORS)
			return "array size not a multiple of 4 KiB";
		mddev->new_layout = R5J_ALG_LEFT_SYMMETRIC;
		mddev->new_chunk_sectors = chunk;
	} else if (from == 4 && level == 5) {
		mddev->new_layout = R5J_ALG_PARITY_N;
	} else if (from == 5 && level == 4) {
		if (mddev->layout != R5J_ALG_PARITY_N)
			return "RAID5 layout must be parity-last (parity-N)";
		mddev->new_layout = 0;
	} else if (from == 5 && level == 6) {
		layout = layout_5_to_6(mddev->layout);
		if (layout < 0)
			return "RAID5 layout has no RAID6 counterpart";
		if (mddev->raid_disks < 3 || mddev->raid_disks >= R5J_MAX_DISKS)
			return "RAID5 must have 3 to 255 members";
		mddev->new_layout = layout;
		mddev->raid_disks += 1;
		mddev->delta_disks = 1;
	} else if (from == 6 && level == 5) {
		layout = layout_6_to_5(mddev->layout);
		if (layout < 0)
			return "RAID6 layout not *_6 or parity-N: reshape first";
		mddev->new_layout = layout;
		mddev->raid_disks -= 1;
		mddev->delta_disks = -1;
	} else {
		return "not a level change raid456 offers";
	}
	if (from != 1)
		mddev->new_chunk_sectors = mddev->chunk_sectors;
	mddev->new_level = level;
	/* the new personality must be able to run: as r5j_has_failed() */
	if (mddev->raid_disks > R5J_MAX_DISKS)
		return "too many members";
	missing = takeover_missing(mddev, mddev->raid_disks);
	if (missing > (level == 6 ? 2 : 1))
		return "too many members missing";
	/* as run(): a dirty array cannot also lose a member */
	if (missing && r5j_resync_offset(mddev) != MaxSector)
		return "resync not complete";
	return NULL;
}

/*
 * md core's level_store(): the new conf, built while the old personality
 * (raid0, raid1 or raid5j itself) still runs the array; md core then
 * suspends the array, frees the old conf and calls run() with ours.
 * run()'s result is not looked at, so everything that can fail is here.
 */
static void *r5j_takeover(struct mddev *mddev, int level)
{
	const char *why = takeover_geometry(mddev, level);
	struct r5j_conf *conf;

	if (why) {
		pr_err("md/raid:%s: raid5j: takeover from raid%d to raid%d refused: %s; array unchanged\n",
		       mdname(mddev), mddev->level, level, why);
		return ERR_PTR(-EINVAL);
	}
	conf = setup_conf(mddev, true);
	if (IS_ERR(conf))
		return conf;
	if (journal_member(mddev)) {
		/* run() cannot open a log: r5j_free() hands the old one over */
		if (r5j_journal_takeover_prepare(conf)) {
			free_conf(conf);
			return ERR_PTR(-ENOMEM);
		}
		conf->log_from = mddev->private;
	}
	/*
	 * Aligned reads (and their retries) are not md core's requests to
	 * drain: the old conf is freed next.
	 */
	if (mddev->pers->free == r5j_free)
		r5j_takeover_drain(mddev);
	/* raid1's failfast metadata writes are not ours */
	clear_bit(MD_FAILFAST_SUPPORTED, &mddev->flags);
	pr_info("md/raid:%s: raid5j: takeover from raid%d (layout %d, %d devices) to raid%d (layout %d, %d devices)\n",
		mdname(mddev), mddev->level, mddev->layout,
		mddev->raid_disks - mddev->delta_disks, level,
		mddev->new_layout, mddev->raid_disks);
	return conf;
}

static void *r5j_takeover4(struct mddev *mddev)
{
	return r5j_takeover(mddev, 4);
}

static void *r5j_takeover5(struct mddev *mddev)
{
	return r5j_takeover(mddev, 5);
}

static void *r5j_takeover6(struct mddev *mddev)
{
	return r5j_takeover(mddev, 6);
}

static sector_t r5j_size(struct mddev *mddev, sector_t sectors, int raid_disks)
{
	int parity = mddev->level == 6 ? 2 : 1;
	bool reshaping = mddev->reshape_position != MaxSector;

	if (!sectors)
		sectors = mddev->dev_sectors;
	/* mid-reshape: the smaller of the two geometries, as raid456 */
	if (!raid_disks)
		raid_disks = reshaping ?
			min(mddev->raid_disks,
			    mddev->raid_disks - mddev->delta_disks) :
			mddev->raid_disks;
	sectors &= ~((sector_t)mddev->chunk_sectors - 1);
	if (reshaping && mddev->new_chunk_sectors)
		sectors &= ~((sector_t)mddev->new_chunk_sectors - 1);
	return sectors * (raid_disks - parity);
}

/*
 * No discard or write-zeroes: blocks must not change behind parity's back.
 * io_min is a chunk, io_opt a row of data chunks; a size the unsigned
 * int limit cannot hold (huge chunks, many members) is not advertised
 * (0) rather than wrapped to a wrong one.
 */
static int set_queue_limits(struct mddev *mddev, struct r5j_conf *conf)
{
	u64 chunk_bytes = (u64)(u32)mddev->chunk_sectors << SECTOR_SHIFT;
	u64 row_bytes = chunk_bytes * conf->data_disks;

	return r5j_set_queue_limits(mddev,
				    chunk_bytes <= UINT_MAX ? chunk_bytes : 0,
				    row_bytes <= UINT_MAX ? row_bytes : 0,
				    R5J_MAX_REQ_STRIPES * R5J_STRIPE_SECTORS);
}

static int r5j_run(struct mddev *mddev)
{
	struct md_rdev *rdev, *journal_dev = NULL;
	struct r5j_conf *conf;
	int err;

	if (!r5j_dm_may_run(mddev))
		return -EINVAL;
	if (r5j_init_writes_pending(mddev) < 0)
		return -ENOMEM;
	/* after a takeover the conf is r5j_takeover()'s, checked there */
	if (!mddev->private) {
		err = refuse_unsupported(mddev);
		if (err)
			return err;
	}

	if (r5j_resync_offset(mddev) != MaxSector)
		pr_notice("md/raid:%s: not clean -- starting background reconstruction\n",
			  mdname(mddev));

	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags))
			journal_dev = rdev;

	conf = mddev->private;
	if (!conf) {
		conf = setup_conf(mddev, false);
		if (IS_ERR(conf))
			return PTR_ERR(conf);
		mddev->private = conf;
	}
	/* md core stopped the old personality's thread (level_store()) */
	r5j_thread_set(&mddev->thread, r5j_thread(&conf->thread));
	r5j_thread_set(&conf->thread, NULL);

	mddev->degraded = r5j_calc_degraded(conf);
	if (r5j_has_failed(conf)) {
		pr_crit("md/raid:%s: not enough operational devices (%d/%d failed)\n",
			mdname(mddev), mddev->degraded, conf->raid_disks);
		goto abort;
	}
	mddev->dev_sectors &= ~((sector_t)mddev->chunk_sectors - 1);
	mddev->resync_max_sectors = mddev->dev_sectors;

	if (mddev->degraded > 0 && r5j_resync_offset(mddev) != MaxSector) {
		if (mddev->ok_start_degraded) {
			pr_crit("md/raid:%s: starting dirty degraded array - data corruption possible.\n",
				mdname(mddev));
		} else {
			pr_crit("md/raid:%s: cannot start dirty degraded array.\n",
				mdname(mddev));
			goto abort;
		}
	}

	if (journal_dev && conf->log_from) {
		/* a takeover: r5j_free() handed the drained log over (8.1) */
		conf->log_from = NULL;
		if (!conf->log) {
			pr_err("md/raid:%s: journal not handed over at the takeover (failed): array read-only\n",
			       mdname(mddev));
			r5j_set_readonly(mddev);
		}
		if (r5j_resync_offset(mddev) == MaxSector)
			set_bit(MD_JOURNAL_CLEAN, &mddev->flags);
	} else if (journal_dev) {
		err = r5j_journal_init(conf, journal_dev);
		if (err)
			goto abort;
		if (r5j_resync_offset(mddev) == MaxSector)
			set_bit(MD_JOURNAL_CLEAN, &mddev->flags);
	} else if (test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
		pr_warn("md/raid:%s: journal disk is missing, force array readonly\n",
			mdname(mddev));
		r5j_set_readonly(mddev);
	}

	err = set_queue_limits(mddev, conf);
	if (err)
		goto abort;

	pr_info("md/raid:%s: raid level %d active with %d out of %d devices, algorithm %d\n",
		mdname(mddev), mddev->level, mddev->raid_disks - mddev->degraded,
		mddev->raid_disks, mddev->layout);

	if (conf->reshaping)
		pr_info("md/raid:%s: reshape interrupted at %llu (%d to %d devices, layout %d to %d, %uk to %uk chunk): I/O through both geometries\n",
			mdname(mddev),
			(unsigned long long)conf->reshape_safe,
			conf->rs.prev.raid_disks, conf->rs.next.raid_disks,
			conf->rs.prev.layout, conf->rs.next.layout,
			conf->rs.prev.chunk_sectors / 2,
			conf->rs.next.chunk_sectors / 2);

	r5j_sysfs_register(mddev);
	md_set_array_sectors(mddev, r5j_size(mddev, 0, 0));
	return 0;

abort:
	r5j_unregister_thread(mddev, &mddev->thread);
	r5j_journal_exit(conf);
	free_conf(conf);
	mddev->private = NULL;
	pr_warn("md/raid:%s: failed to run raid set.\n", mdname(mddev));
	return -EIO;
}

static int r5j_start(struct mddev *mddev)
{
	/*
	 * With a clean journal md core writes resync_offset = MaxSector
	 * whether the array is marked clean or dirty, so its clean<->dirty
	 * transitions change nothing on disk but the event count, and each
	 * one writes every superblock at once: a window for a journal one
	 * event ahead of the members (Documentation/journal.md, "Superblock
	 * updates").  Mark the array dirty in memory only, and never clean
	 * again while it runs: the only such update left is the clean stop.
	 */
	if (test_bit(MD_JOURNAL_CLEAN, &mddev->flags)) {
		spin_lock(&mddev->lock);
		mddev->in_sync = 0;
		mddev->safemode_delay = 0;
		spin_unlock(&mddev->lock);
	}
	return r5j_journal_start(mddev->private);
}

static void r5j_free(struct mddev *mddev, void *priv)
{
	struct r5j_conf *to = mddev->private;

	/*
	 * A journaled takeover: md core made the new conf the array's
	 * before freeing this one (reshape.md 8.1).  At a stop mddev->pers
	 * is NULL; raid0/raid1's conf is not ours.
	 */
	if (to && to != priv && mddev->pers && mddev->pers->free == r5j_free &&
	    to->log_from == priv && r5j_journal_hand_over(priv, to))
		pr_info("md/raid:%s: journal handed over to raid%d\n",
			mdname(mddev), mddev->level);
	r5j_journal_exit(priv);
	free_conf(priv);
	r5j_sysfs_unregister(mddev);
}

static void r5j_status(struct seq_file *seq, struct mddev *mddev)
{
	struct r5j_conf *conf = mddev->private;
	int i;

	seq_printf(seq, " level %d, %dk chunk, algorithm %d", mddev->level,
		   mddev->chunk_sectors / 2, mddev->layout);
	/* during a reshape the next count, as raid456 (a shrink's is smaller) */
	seq_printf(seq, " [%d/%d] [", conf->geom.raid_disks,
		   conf->geom.raid_disks - mddev->degraded);
	rcu_read_lock();
	for (i = 0; i < conf->geom.raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->disks[i].rdev);

		seq_puts(seq, rdev && test_bit(In_sync, &rdev->flags) ?
			 "U" : "_");
	}
	rcu_read_unlock();
	seq_puts(seq, "]");
}

static void r5j_error(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5j_conf *conf = mddev->private;
	unsigned long flags;

	if (test_bit(Journal, &rdev->flags)) {
		set_bit(Faulty, &rdev->flags);
		if (conf->log && r5j_journal_rdev(conf->log) == rdev)
			r5j_journal_error(conf->log);
		set_mask_bits(&mddev->sb_flags, 0, BIT(MD_SB_CHANGE_DEVS));
		return;
	}
	pr_crit("md/raid:%s: Disk failure on %pg, disabling device.\n",
		mdname(mddev), rdev->bdev);

	spin_lock_irqsave(&conf->lock, flags);
	set_bit(Faulty, &rdev->flags);
	clear_bit(In_sync, &rdev->flags);
	mddev->degraded = r5j_calc_degraded(conf);
	if (r5j_has_failed(conf)) {
		set_bit(MD_BROKEN, &mddev->flags);
		conf->recovery_disabled = mddev->recovery_disabled;
		pr_crit("md/raid:%s: Cannot continue operation (%d/%d failed).\n",
			mdname(mddev), mddev->degraded, conf->raid_disks);
	} else {
		pr_crit("md/raid:%s: Operation continuing on %d devices.\n",
			mdname(mddev), conf->raid_disks - mddev->degraded);
	}
	spin_unlock_irqrestore(&conf->lock, flags);

	set_bit(MD_RECOVERY_INTR, &mddev->recovery);
	set_bit(Blocked, &rdev->flags);
	/* writes that skipped this member complete after the sb says so */
	set_mask_bits(&mddev->sb_flags, 0,
		      BIT(MD_SB_CHANGE_DEVS) | BIT(MD_SB_CHANGE_PENDING));
}

static int r5j_hot_add(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5j_conf *conf = mddev->private;
	int first = 0, last = conf->raid_disks - 1;
	int disk;

	if (test_bit(Journal, &rdev->flags)) {
		rdev->raid_disk = 0;
		return r5j_journal_replace(conf, rdev);
	}
	if (test_bit(Replacement, &rdev->flags) ||
	    mddev->recovery_disabled == conf->recovery_disabled)
		return -EBUSY;
	if (rdev->saved_raid_disk < 0 && r5j_has_failed(conf))
		return -EINVAL;	/* nothing to rebuild from */
	if (rdev->raid_disk >= 0) {
		first = rdev->raid_disk;
		last = first;
	}
	/* a member coming back takes its old slot, so the bitmap can help */
	if (rdev->saved_raid_disk >= first && rdev->saved_raid_disk <= last &&
	    !rcu_access_pointer(conf->disks[rdev->saved_raid_disk].rdev))
		first = rdev->saved_raid_disk;

	for (disk = first; disk <= last; disk++) {
		if (rcu_access_pointer(conf->disks[disk].rdev))
			continue;
		clear_bit(In_sync, &rdev->flags);
		rdev->raid_disk = disk;
		if (rdev->saved_raid_disk != disk)
			conf->fullsync = true;
		r5j_slot_changed(conf, disk);
		rcu_assign_pointer(conf->disks[disk].rdev, rdev);
		return 0;
	}
	/* no slot empty: become the replacement of a member that wants one */
	for (disk = first; disk <= last; disk++) {
		struct md_rdev *member = r5j_rdev_locked(conf, disk);

		if (!member || !test_bit(WantReplacement, &member->flags) ||
		    r5j_repl_locked(conf, disk))
			continue;
		clear_bit(In_sync, &rdev->flags);
		set_bit(Replacement, &rdev->flags);
		rdev->raid_disk = disk;
		conf->fullsync = true;	/* copy everything, not the bitmap's */
		r5j_slot_changed(conf, disk);
		rcu_assign_pointer(conf->disks[disk].replacement, rdev);
		return 0;
	}
	return -EEXIST;
}

static int r5j_hot_remove(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5j_conf *conf = mddev->private;
	int number = rdev->raid_disk;
	struct md_rdev __rcu **slot;
	struct md_rdev *repl;
	struct r5j_disk *p;
	bool removed;

	if (test_bit(Journal, &rdev->flags)) {
		if (!conf->log || r5j_journal_rdev(conf->log) != rdev)
			return 0;
		if (!r5j_journal_failed(conf->log) || conf->active_stripes ||
		    atomic_read(&conf->dirty_stripes))
			return -EBUSY;
		r5j_journal_exit(conf);
		return 0;
	}
	if (number < 0 || number >= R5J_MAX_DISKS)
		return 0;
	/* past the count: a member a finished shrink removed (reshape.md 5.3) */
	removed = number >= conf->raid_disks;
	p = &conf->disks[number];
	if (rcu_access_pointer(p->rdev) == rdev)
		slot = &p->rdev;
	else if (rcu_access_pointer(p->replacement) == rdev)
		slot = &p->replacement;
	else
		return 0;
	if (test_bit(In_sync, &rdev->flags) || atomic_read(&rdev->nr_pending))
		return -EBUSY;
	/*
	 * A working device being rebuilt goes only if rebuild cannot work;
	 * a member whose replacement is there may go (the replacement then
	 * takes the slot and carries on).
	 */
	if (!removed && !test_bit(Faulty, &rdev->flags) &&
	    mddev->recovery_disabled != conf->recovery_disabled &&
	    !r5j_has_failed(conf) &&
	    (!rcu_access_pointer(p->replacement) ||
	     rcu_access_pointer(p->replacement) == rdev))
		return -EBUSY;
	RCU_INIT_POINTER(*slot, NULL);
	if (!r5j_remove_synchronized(rdev)) {
		synchronize_rcu();
		if (atomic_read(&rdev->nr_pending)) {
			/* lost a race with new I/O: try again later */
			rcu_assign_pointer(*slot, rdev);
			return -EBUSY;
		}
	}
	repl = rcu_access_pointer(p->replacement);
	if (repl && !removed) {
		/* the member is gone: its replacement is the member now */
		r5j_slot_changed(conf, number);
		rcu_assign_pointer(p->rdev, repl);
		clear_bit(Replacement, &repl->flags);
		/* readers see the same device twice, never neither */
		smp_mb();
		rcu_assign_pointer(p->replacement, NULL);
	}
	clear_bit(WantReplacement, &rdev->flags);
	return 0;
}

static int r5j_spare_active(struct mddev *mddev)
{
	struct r5j_conf *conf = mddev->private;
	unsigned long flags;
	int i, count = 0;

	for (i = 0; i < conf->raid_disks; i++) {
		struct md_rdev *rdev = r5j_rdev_locked(conf, i);
		struct md_rdev *repl = r5j_repl_locked(conf, i);

		if (repl && repl->recovery_offset == MaxSector &&
		    !test_bit(Faulty, &repl->flags) &&
		    !test_and_set_bit(In_sync, &repl->flags)) {
			/* the copy is complete: the member leaves the array */
			if (!rdev || !test_and_clear_bit(In_sync, &rdev->flags))
				count++;
			if (rdev) {
				set_bit(Faulty, &rdev->flags);
				sysfs_notify_dirent_safe(rdev->sysfs_state);
				pr_info("md/raid:%s: raid disk %d: %pg replaced by %pg\n",
					mdname(mddev), i, rdev->bdev,
					repl->bdev);
			}
			sysfs_notify_dirent_safe(repl->sysfs_state);
		} else if (rdev && rdev->recovery_offset == MaxSector &&
			   !test_bit(Faulty, &rdev->flags) &&
			   !test_and_set_bit(In_sync, &rdev->flags)) {
			count++;
			sysfs_notify_dirent_safe(rdev->sysfs_state);
		}
	}
	spin_lock_irqsave(&conf->lock, flags);
	mddev->degraded = r5j_calc_degraded(conf);
	spin_unlock_irqrestore(&conf->lock, flags);
	return count;
}

static struct md_rdev *journal_member(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags))
			return rdev;
	return NULL;
}

/*
 * Size changes with a journal (Documentation/journal.md, "Size changes").
 * md core's update_size() caps every request at the smallest device, the
 * journal included, and turns --size=max into that smallest size: a
 * request for exactly the journal's size may be "max", so it never
 * shrinks the array.  A shrink drains the log first (mddev_suspend()
 * quiesces: every stripe on the members, one empty unit at the tail), so
 * no log unit can hold a block past the new end.  The superblock gets the
 * new size before the block device does: a power cut never leaves logged
 * blocks past the size recovery reads.  Reconfig_mutex held.
 */
static int r5j_resize(struct mddev *mddev, sector_t sectors)
{
	struct r5j_conf *conf = mddev->private;
	bool journal = test_bit(MD_HAS_JOURNAL, &mddev->flags);
	struct md_rdev *jdev = journal_member(mddev);
	bool suspended = false;
	sector_t newsize;
	int err = 0;

	if (conf->reshaping)
		return -EBUSY;
	if (jdev && sectors == jdev->sectors && sectors < mddev->dev_sectors) {
		pr_err("md/raid:%s: not shrinking to %llu sectors per member: that is the journal's size, which md core also offers for --size=max; members cannot grow past it while the journal is present\n",
		       mdname(mddev), (unsigned long long)sectors);
		return -EINVAL;
	}
	sectors &= ~((sector_t)mddev->chunk_sectors - 1);
	newsize = r5j_size(mddev, sectors, mddev->raid_disks);
	if (mddev->external_size && mddev->array_sectors > newsize)
		return -EINVAL;
	if (journal && sectors < mddev->dev_sectors) {
		err = r5j_suspend(mddev);
		if (err) {
			pr_err("md/raid:%s: not shrinking: this kernel cannot quiesce the array from a component_size write; use mdadm --grow --size\n",
			       mdname(mddev));
			return err;
		}
		suspended = true;
		if (conf->log && !r5j_journal_empty(conf->log)) {
			pr_err("md/raid:%s: not shrinking: the journal still holds stripes\n",
			       mdname(mddev));
			err = -EBUSY;
			goto out;
		}
	}
	if (mddev->bitmap) {
		err = r5j_bitmap_resize(mddev, sectors);
		if (err)
			goto out;
	}
	md_set_array_sectors(mddev, newsize);
	if (sectors > mddev->dev_sectors &&
	    r5j_resync_offset(mddev) > mddev->dev_sectors) {
		r5j_resync_offset(mddev) = mddev->dev_sectors;
		set_bit(MD_RECOVERY_NEEDED, &mddev->recovery);
	}
	mddev->dev_sectors = sectors;
	mddev->resync_max_sectors = sectors;
	if (journal) {
		md_update_sb(mddev, 1);
		/* bios that waited out the suspend see the new end */
		if (mddev->gendisk)	/* dm-raid: dm sizes its device */
			set_capacity(mddev->gendisk, mddev->array_sectors);
	}
out:
	if (suspended)
		r5j_resume(mddev);
	return err;
}

/* aligned_reads counts failed ones until their retry is attached */
static bool quiesced(struct r5j_conf *conf)
{
	return conf->active_stripes == 0 && list_empty(&conf->handle_list) &&
	       atomic_read(&conf->aligned_reads) == 0 &&
	       atomic_read(&conf->dirty_stripes) ==
	       atomic_read(&conf->stuck_stripes);
}

static bool nothing_held(struct r5j_conf *conf)
{
	bool empty;

	spin_lock_irq(&conf->lock);
	empty = r5j_blist_empty(&conf->held);
	spin_unlock_irq(&conf->lock);
	return empty;
}

/*
 * Write completions held for a superblock update (r5j_return_held_bios())
 * are writes in flight too: a quiesce that md core may follow with a free
 * (6.1's level change: suspend, then free) waits for the daemon to return
 * them, where the superblock can be written meanwhile (see
 * r5j_sb_update_may_come()).  Elsewhere the quiescer may hold the mutex
 * the update needs; then free_conf() completes what is left, after the
 * update a stop makes.
 */
static void drain_held(struct mddev *mddev, struct r5j_conf *conf)
{
	if (!r5j_sb_update_may_come(mddev))
		return;
	while (!wait_event_timeout(conf->wait_quiesce, nothing_held(conf),
				   HZ / 10))
		md_wakeup_thread(mddev->thread);
}

/*
 * Quiesced, every write on the members and the log down to its empty unit:
 * the array is clean, so a stop that follows writes no superblocks.  The
 * update md would make there changes only the event count (a clean
 * journal keeps resync_offset at MaxSector) and writes every device at
 * once: a window for a journal one event ahead (Documentation/journal.md,
 * section 13).  A write after a quiesce that was no stop marks the array
 * dirty again the usual way.
 */
static void mark_clean(struct mddev *mddev, struct r5j_conf *conf)
{
	/*
	 * Not during a reshape: its checkpoints quiesce with writes between
	 * md_write_start() and their stripes (reshape.md R10), and md core
	 * would then find in_sync set under a write.
	 */
	if (conf->reshaping || !test_bit(MD_JOURNAL_CLEAN, &mddev->flags) ||
	    r5j_journal_failed(conf->log) || !r5j_journal_idle(conf->log))
		return;
	spin_lock(&mddev->lock);
	mddev->in_sync = 1;
	spin_unlock(&mddev->lock);
}

static void r5j_quiesce(struct mddev *mddev, int quiesce)
{
	struct r5j_conf *conf = mddev->private;

	spin_lock_irq(&conf->lock);
	if (quiesce) {
		conf->quiesce = 1;
		md_wakeup_thread(mddev->thread);
		/* stripes parked for journal space need the tail moved */
		while (!wait_event_lock_irq_timeout(conf->wait_quiesce,
						    quiesced(conf), conf->lock,
						    HZ / 10)) {
			if (!conf->log)
				continue;
			spin_unlock_irq(&conf->lock);
			r5j_journal_reclaim_locked(conf->log);
			spin_lock_irq(&conf->lock);
		}
		spin_unlock_irq(&conf->lock);
		drain_held(mddev, conf);
		if (conf->log) {
			r5j_journal_quiesce(conf->log);
			mark_clean(mddev, conf);
		}
		return;
	}
	conf->quiesce = 0;
	wake_up(&conf->wait_quiesce);
	wake_up(&conf->wait_for_stripe);
	spin_unlock_irq(&conf->lock);
}

#define R5J_PERSONALITY(lvl)					\
	{							\
		.name		= "raid" #lvl,			\
		.level		= lvl,				\
		.owner		= THIS_MODULE,			\
		.make_request	= r5j_make_request,		\
		.run		= r5j_run,			\
		.start		= r5j_start,			\
		.free		= r5j_free,			\
		.status		= r5j_status,			\
		.error_handler	= r5j_error,			\
		.hot_add_disk	= r5j_hot_add,			\
		.hot_remove_disk = r5j_hot_remove,		\
		.spare_active	= r5j_spare_active,		\
		R5J_COMPAT_OPS,					\
		.resize		= r5j_resize,			\
		.size		= r5j_size,			\
		.quiesce	= r5j_quiesce,			\
		.check_reshape	= r5j_check_reshape,		\
		.start_reshape	= r5j_start_reshape,		\
		.finish_reshape	= r5j_finish_reshape,		\
		.takeover	= r5j_takeover##lvl,		\
		.change_consistency_policy = r5j_change_consistency_policy, \
	}

/* md core names personalities by level; mdadm reads the name from sysfs. */
static struct md_personality r5j_personalities[] = {
	R5J_PERSONALITY(6),
	R5J_PERSONALITY(5),
	R5J_PERSONALITY(4),
};

/*
 * md core uses the first personality registered for a level, so with
 * raid456 loaded ours would silently never run.  md core exports no way
 * to ask, so look for the module in sysfs.
 */
static bool raid456_loaded(void)
{
	struct path path;

	if (kern_path("/sys/module/raid456", LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

static int __init r5j_init(void)
{
	int i, err;

	/*
	 * A stripe block is one page: alloc_page() per block, and member,
	 * journal, write-back cache and reshape bios of PAGE_SIZE.  With
	 * larger pages every block would cover the wrong sectors.
	 */
	BUILD_BUG_ON(PAGE_SIZE != R5J_BLOCK_SIZE);
	BUILD_BUG_ON(R5J_STRIPE_SECTORS << SECTOR_SHIFT != R5J_BLOCK_SIZE);

	if (raid456_loaded()) {
		pr_err("raid5j: raid456 is loaded and would keep handling RAID4/5/6 arrays; stop its arrays and 'rmmod raid456' first\n");
		return -EBUSY;
	}
	r5j_bref_cache = KMEM_CACHE(r5j_bref, 0);
	if (!r5j_bref_cache)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(r5j_personalities); i++) {
		err = register_md_personality(&r5j_personalities[i]);
		if (err)
			goto fail;
	}
	r5j_debugfs_init();
	pr_info("raid5j: RAID4/5/6 personality with write journal registered\n");
	return 0;
fail:
	while (--i >= 0)
		unregister_md_personality(&r5j_personalities[i]);
	kmem_cache_destroy(r5j_bref_cache);
	return err;
}

static void __exit r5j_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(r5j_personalities); i++)
		unregister_md_personality(&r5j_personalities[i]);
	r5j_debugfs_exit();
	kmem_cache_destroy(r5j_bref_cache);
}

module_init(r5j_init);
module_exit(r5j_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("RAID4/5/6 md personality with a write journal");
MODULE_AUTHOR("raid5j developers");
