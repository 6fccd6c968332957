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
#include "r5j.h"
#include "r5j_dm.h"
#include "r5j_sysfs.h"
#include "r5j_journal.h"

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
		conf = r5j_setup_conf(mddev, false);
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
	r5j_free_conf(conf);
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
	struct md_rdev *jdev = r5j_journal_member(mddev);
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
