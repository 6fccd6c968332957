// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j's per-array state: the conf built from md core's fields
 * (r5j_setup_conf(), at run and at takeover) and freed (r5j_free(), the
 * personality's free op), and the daemon thread every conf runs, which
 * hands stripes to the state machine (r5j_handle.c).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/raid/pq.h>
#include "r5j.h"
#include "r5j_sysfs.h"
#include "r5j_journal.h"

struct kmem_cache *r5j_bref_cache;

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
	r5j_cache_adjust(conf);

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

void r5j_free_conf(struct r5j_conf *conf)
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

/*
 * @takeover: the geometry is md core's new_* (a level change, see
 * r5j_takeover()), the array still runs under the old personality.
 */
struct r5j_conf *r5j_setup_conf(struct mddev *mddev, bool takeover)
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
	err = r5j_reshape_setup(mddev, &conf->rs);
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
	r5j_free_conf(conf);
	return ERR_PTR(-EINVAL);

abort:
	pr_err("md/raid:%s: couldn't allocate %dkB for buffers\n",
	       mdname(mddev), R5J_DEFAULT_STRIPES * conf->raid_disks * 4);
	r5j_free_conf(conf);
	return ERR_PTR(err);
}

/* The journal device, if the array has one. */
struct md_rdev *r5j_journal_member(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags))
			return rdev;
	return NULL;
}

void r5j_free(struct mddev *mddev, void *priv)
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
	r5j_free_conf(priv);
	r5j_sysfs_unregister(mddev);
}
