// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j reshape engine (Documentation/reshape.md, sections 3 and 5):
 * check_reshape, start_reshape, the reshape branch of sync_request and
 * finish_reshape.  So far: reshapes within a level that add, remove or
 * keep members (chunk size, layout), forwards or backwards, with a
 * write-through journal or none (on by default; the module parameter
 * reshape=0 vetoes it);
 * everything else is refused with the reason (an interrupted reshape of
 * another kind runs held, section 5.1).
 *
 * One step per sync_request() call, synchronously in md's sync thread:
 * close the step's array range to requests, read it through
 * previous-geometry stripes (rebuilt if degraded), write it through
 * next-geometry stripes (whole rows: full-stripe writes at
 * new_data_offset), move reshape_progress, open the range.  Every step
 * before reshape_progress is on the members whenever no step runs, so a
 * checkpoint may write reshape_progress at any time between steps (R2).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/completion.h>
#include <linux/lcm.h>
#include <linux/raid/md_p.h>
#include "r5j.h"
#include "r5j_params.h"

/* Largest step buffer: one bio_kmalloc() bio (UIO_MAXIOV pages). */
#define R5J_RESHAPE_MAX_PAGES	1024

/*
 * Why the engine cannot run @rs (NULL: it can): a change within the level,
 * either direction (the direction and the data_offset move are checked by
 * r5j_reshape_check()).
 */
static const char *unsupported(struct r5j_conf *conf,
			       const struct r5j_reshape *rs)
{
	u64 step = (u64)r5j_reshape_unit(rs) * r5j_geom_data_disks(&rs->next);

	if (rs->next.level != rs->prev.level)
		return "a reshape keeps the level (level changes are takeovers)";
	if (step / R5J_STRIPE_SECTORS > R5J_RESHAPE_MAX_PAGES)
		return "chunk too large for a reshape step";
	return NULL;
}

/* under reconfig_mutex, as r5j_hot_add() */
static bool has_empty_slot(struct r5j_conf *conf)
{
	int i;

	for (i = 0; i < conf->raid_disks; i++)
		if (!rcu_access_pointer(conf->disks[i].rdev))
			return true;
	return false;
}

/*
 * The member with the least room, as raid456's min_offset_diff: the
 * largest new_data_offset - data_offset forwards, the smallest backwards.
 */
static s64 least_offset_diff(struct mddev *mddev, bool backwards)
{
	struct md_rdev *rdev;
	bool first = true;
	s64 d = 0;

	rdev_for_each(rdev, mddev) {
		s64 diff = (s64)rdev->new_data_offset - (s64)rdev->data_offset;

		if (rdev->raid_disk < 0 || test_bit(Journal, &rdev->flags))
			continue;
		if (first || (backwards ? diff < d : diff > d))
			d = diff;
		first = false;
	}
	return d;
}

/*
 * ... or why it will not start or continue it.  The veto is read only
 * here: a reshape running when it is set finishes (the sync thread never
 * looks at it, so it cannot leave steps behind an unwritten position with
 * requests waiting for it); frozen or interrupted, it stays held.
 */
static const char *cannot_run(struct r5j_conf *conf,
			      const struct r5j_reshape *rs)
{
	if (!r5j_reshape_allowed())
		return "reshape is off: module parameter reshape=0";
	/* R13: cached data would have to be re-laid while in the log */
	if (conf->log && READ_ONCE(conf->writeback))
		return "reshape of an array in write-back journal mode not supported";
	return unsupported(conf, rs);
}

/*
 * R7: a step that overwrites its own sources (BACKUP) runs only below a
 * sync_max user space wrote after backing its rows up.  mdadm 4.2 writes
 * "max" before starting, so a same-count in-place reshape would run ahead
 * of its backup windows, and a restart from the backup file would find
 * the on-disk position past them (Documentation/lab/notes-backup-restart.md).  Hold at the
 * position instead; mdadm's monitor raises sync_max window by window, as
 * before 4.2.  A number user space wrote is kept.  Member-count changes
 * are left to mdadm's monitor as they are (their windows: reshape.md R7).
 */
static bool keeps_count(const struct r5j_reshape *rs)
{
	return rs->prev.raid_disks == rs->next.raid_disks;
}

static void hold_for_backup(struct mddev *mddev, struct r5j_conf *conf)
{
	struct r5j_reshape *rs = &conf->rs;
	struct r5j_reshape_step st;
	sector_t at;
	bool held = false;

	if (!keeps_count(rs) ||
	    r5j_reshape_finished(rs, conf->reshape_progress) ||
	    r5j_reshape_step(rs, conf->reshape_progress, &st) ||
	    r5j_reshape_need(rs, &st, conf->reshape_safe) != R5J_RESHAPE_BACKUP)
		return;
	at = r5j_reshape_walked(rs, conf->reshape_progress);
	spin_lock(&mddev->lock);
	if (mddev->resync_max == MaxSector) {
		mddev->resync_max = at;
		held = true;
	}
	spin_unlock(&mddev->lock);
	if (held)
		pr_info("md/raid:%s: reshape held at %llu (sync_max): its steps overwrite their sources, mdadm's backup moves the hold\n",
			mdname(mddev), (unsigned long long)at);
}

/* md core: a change written to sysfs, or before continuing a reshape. */
int r5j_check_reshape(struct mddev *mddev)
{
	struct r5j_conf *conf = mddev->private;
	struct r5j_reshape rs = { };
	const char *why = NULL;
	int err;

	if (conf->reshaping) {
		why = cannot_run(conf, &conf->rs);
		if (!why) {
			hold_for_backup(mddev, conf);
			return 0;
		}
		if (!conf->reshape_warned)	/* reconfig_mutex held */
			pr_warn("md/raid:%s: reshape interrupted at %llu: raid5j serves I/O but does not continue it (%s); stop the array and assemble it under raid456 to finish\n",
				mdname(mddev),
				(unsigned long long)conf->reshape_safe, why);
		conf->reshape_warned = true;
		return -EINVAL;
	}
	if (mddev->new_level == mddev->level &&
	    mddev->new_layout == mddev->layout &&
	    mddev->new_chunk_sectors == mddev->chunk_sectors &&
	    !mddev->delta_disks)
		return 0;
	rs.prev = conf->geom;
	rs.next = conf->geom;
	rs.next.level = mddev->new_level;
	rs.next.layout = mddev->new_layout;
	rs.next.chunk_sectors = mddev->new_chunk_sectors;
	rs.next.raid_disks = mddev->raid_disks + mddev->delta_disks;
	rs.dev_sectors = mddev->dev_sectors;
	/* mdadm may set new_offset and the direction later: start checks them */
	rs.backwards = rs.next.raid_disks < rs.prev.raid_disks;
	why = cannot_run(conf, &rs);
	if (!why && !is_power_of_2(rs.next.chunk_sectors))
		why = "chunk size must be a power of two";
	/* as raid5_check_reshape(): the array must stay whole chunks */
	else if (!why && mddev->array_sectors & (rs.next.chunk_sectors - 1))
		why = "chunk size does not divide the array size";
	if (why || r5j_reshape_check(&rs, &why)) {
		pr_err("md/raid:%s: raid5j: %s: reshape refused, array unchanged\n",
		       mdname(mddev), why);
		return -EINVAL;
	}
	if (r5j_has_failed(conf))
		return -EINVAL;
	/* stripes with a page for every member of the grown array */
	if (conf->pool_disks >= rs.next.raid_disks)
		return 0;
	err = r5j_suspend(mddev);
	if (err)
		return err;
	err = r5j_cache_repool(conf, rs.next.raid_disks);
	r5j_resume(mddev);
	return err;
}

/*
 * dm-raid sets up a grow itself: the members it adds already have their
 * slots beyond the old count (raid_disk), not In_sync and not in the conf
 * yet.  They are what spares are to md core's grow.
 */
static bool dm_placed(struct r5j_conf *conf, struct md_rdev *rdev,
		      int prev_disks)
{
	return rdev->raid_disk >= prev_disks &&
	       rdev->raid_disk < R5J_MAX_DISKS &&
	       !test_bit(In_sync, &rdev->flags) &&
	       !test_bit(Faulty, &rdev->flags) &&
	       !test_bit(Journal, &rdev->flags) &&
	       !rcu_access_pointer(conf->disks[rdev->raid_disk].rdev);
}

/* md core (sync_action=reshape), reconfig_mutex held. */
int r5j_start_reshape(struct mddev *mddev)
{
	struct r5j_conf *conf = mddev->private;
	struct r5j_reshape rs = { };
	struct md_rdev *rdev;
	const char *why = NULL;
	int spares = 0, i, err;
	bool fullsync = conf->fullsync;

	rs.prev = conf->geom;
	rs.next = conf->geom;
	rs.next.raid_disks = mddev->raid_disks + mddev->delta_disks;
	rs.next.layout = mddev->new_layout;
	rs.next.chunk_sectors = mddev->new_chunk_sectors;
	rs.next.level = mddev->new_level;
	rs.dev_sectors = mddev->dev_sectors;
	/* md core: new_offset and reshape_direction (section 1) */
	rs.backwards = mddev->reshape_backwards;
	rs.offset_diff = least_offset_diff(mddev, rs.backwards);
	rdev_for_each(rdev, mddev)
		if ((rdev->raid_disk < 0 && !test_bit(Faulty, &rdev->flags) &&
		     !test_bit(Journal, &rdev->flags)) ||
		    dm_placed(conf, rdev, rs.prev.raid_disks))
			spares++;
	for (i = 0; i < conf->raid_disks; i++)
		if (r5j_repl_locked(conf, i))
			why = "a replacement is running";
	if (!why && conf->reshaping)
		why = "a reshape is already set up";
	if (!why)
		why = cannot_run(conf, &rs);
	if (!why && !r5j_reshape_check(&rs, &why)) {
		if (spares < mddev->delta_disks)
			why = "not enough spares";
		else if (r5j_resync_offset(mddev) != MaxSector)
			why = "resync not complete";
		else if (r5j_has_failed(conf))
			why = "array failed";
		else if (conf->pool_disks < rs.next.raid_disks)
			why = "stripe cache not resized (check_reshape)";
		else if (r5j_reshape_end(&rs) < mddev->array_sectors)
			why = "the reshaped array would be smaller";
	}
	if (why) {
		pr_err("md/raid:%s: raid5j: reshape not started: %s\n", mdname(mddev),
		       why);
		return -EINVAL;
	}

	/*
	 * No request may map through the old geometry once it switches:
	 * drained by the personality (md core's suspend cannot be had here
	 * on 6.12, section 5.2), on either kernel.
	 */
	r5j_geom_freeze(mddev, conf);
	/* cached stripes are of the old geometry: none may be found again */
	err = r5j_cache_forget(conf);
	if (err) {
		r5j_geom_thaw(mddev, conf);
		pr_err("md/raid:%s: raid5j: reshape not started: stripe cache busy\n",
		       mdname(mddev));
		return err;
	}
	spin_lock_irq(&conf->lock);
	conf->rs = rs;
	conf->geom = rs.next;
	/* a shrink keeps the removed members' slots until the end */
	conf->raid_disks = max(rs.prev.raid_disks, rs.next.raid_disks);
	conf->data_disks = r5j_geom_data_disks(&rs.next);
	conf->reshape_progress = r5j_reshape_start_pos(&rs);
	conf->reshape_safe = conf->reshape_progress;
	conf->reshape_win_lo = 0;
	conf->reshape_win_hi = 0;
	conf->reshape_warned = false;
	conf->reshape_checkpoint = jiffies;
	conf->reshaping = true;
	spin_unlock_irq(&conf->lock);
	r5j_geom_thaw(mddev, conf);

	/*
	 * Members beyond the old count are written by the reshape: in sync.
	 * A spare taking an empty slot below it (a degraded grow, or Q after
	 * a RAID5 -> RAID6 takeover keeping the count) is written by every
	 * step and request, and end_reshape() marks it recovered, so no
	 * recovery follows the reshape, as under raid456: mdadm 4.2's backup
	 * monitor reads a following recovery as reshape progress and writes
	 * sync_max after it ends.  Shrinking, spares stay spares.
	 */
	rdev_for_each(rdev, mddev) {
		/* dm-raid's: hot_add takes the slot they name */
		if ((rdev->raid_disk >= 0 &&
		     !dm_placed(conf, rdev, rs.prev.raid_disks)) ||
		    test_bit(Faulty, &rdev->flags) ||
		    test_bit(Journal, &rdev->flags) || mddev->delta_disks < 0)
			continue;
		/* keeping the count: an empty slot only, never a replacement */
		if (mddev->delta_disks == 0 && !has_empty_slot(conf))
			continue;
		if (mddev->pers->hot_add_disk(mddev, rdev))
			continue;
		if (rdev->raid_disk >= rs.prev.raid_disks)
			set_bit(In_sync, &rdev->flags);
		else
			rdev->recovery_offset = 0;
		sysfs_link_rdev(mddev, rdev);
	}
	conf->fullsync = fullsync;
	r5j_journal_offset_fixed(mddev);
	/* with the members just added, as raid456's min_offset_diff */
	conf->rs.offset_diff = least_offset_diff(mddev, rs.backwards);
	spin_lock_irq(&conf->lock);
	mddev->degraded = r5j_calc_degraded(conf);
	spin_unlock_irq(&conf->lock);
	mddev->raid_disks = rs.next.raid_disks;
	mddev->reshape_position = conf->reshape_progress;
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	pr_info("md/raid:%s: reshape started: %d to %d devices, layout %d to %d, %uk to %uk chunk, %s\n",
		mdname(mddev), rs.prev.raid_disks, rs.next.raid_disks,
		rs.prev.layout, rs.next.layout, rs.prev.chunk_sectors / 2,
		rs.next.chunk_sectors / 2,
		rs.backwards ? "backwards" : "forwards");
	hold_for_backup(mddev, conf);
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
int r5j_reshape_setup(struct mddev *mddev, struct r5j_reshape *rs)
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
 * The journal's ring stays where it is: mdadm may give the journal device
 * a new_offset with the members', and md core would then address it
 * there (sync_page_io() compares ring sectors with the reshape position)
 * and move it there at the end (md_finish_reshape()).
 */
void r5j_journal_offset_fixed(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (test_bit(Journal, &rdev->flags) &&
		    rdev->new_data_offset != rdev->data_offset) {
			pr_info("md/raid:%s: journal %pg keeps its data offset %llu (new offset %llu ignored)\n",
				mdname(mddev), rdev->bdev,
				(unsigned long long)rdev->data_offset,
				(unsigned long long)rdev->new_data_offset);
			rdev->new_data_offset = rdev->data_offset;
		}
}

/*
 * R10 (Documentation/reshape.md section 4): before a new position is
 * written, every stripe logged so far is on the members, the members are
 * flushed and journal_tail is past them, so the log holds no transaction
 * of the previous geometry behind the new position.  The quiesce does all
 * of it (the log down to one empty unit, journal_tail moved by the
 * journal-only superblock write); it needs reconfig_mutex, which a stop
 * holds while it waits for this thread: try, and give up on an interrupt.
 */
static int retire_log(struct mddev *mddev, struct r5j_conf *conf)
{
	while (!mddev_trylock(mddev)) {
		if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
			return -EINTR;
		schedule_timeout_uninterruptible(HZ / 100);
	}
	mddev->pers->quiesce(mddev, 1);
	mddev->pers->quiesce(mddev, 0);
	mddev_unlock(mddev);
	return 0;
}

/*
 * R2: write reshape_progress as the position (every step before it is on
 * the members: steps are synchronous) and wait for md core's superblock
 * update; then requests waiting for it (R4) go on.  @backup: the step
 * is one mdadm's backup covers (R3 BACKUP).
 */
static int checkpoint(struct mddev *mddev, struct r5j_conf *conf,
		      sector_t done, bool backup)
{
	struct r5j_reshape *rs = &conf->rs;
	int nd = r5j_geom_data_disks(&rs->next);
	/* mdadm's critical section (its backup_blocks), in walked sectors */
	sector_t crit = lcm(rs->prev.chunk_sectors *
			    r5j_geom_data_disks(&rs->prev),
			    rs->next.chunk_sectors * nd) / nd;
	bool report;

	if (conf->reshape_safe == conf->reshape_progress)
		return 0;
	if (conf->log && retire_log(mddev, conf))
		return -EINTR;
	mddev->reshape_position = conf->reshape_progress;
	conf->reshape_backup_step = false;
	/*
	 * sync_completed moves only where raid456's does: where sync_max
	 * holds the reshape, or at a step mdadm's backup does not cover
	 * (not BACKUP, not in the critical section at the end of a
	 * shrink).  mdadm 4.2 starts the reshape with sync_max at max, so
	 * its backup monitor's sync_max writes (each time sync_completed
	 * wakes it past its window) are refused while the reshape runs,
	 * and it falls behind; a write landing after the end, once md core
	 * has reset sync_max and cleared MD_RECOVERY_RUNNING, sticks and
	 * the next check stops there for good.  Not woken, mdadm waits in
	 * its poll until sync_completed reads "none" and ends without
	 * another write.
	 */
	report = done >= mddev->resync_max ||
		 (!backup && done + crit < mddev->resync_max_sectors);
	/*
	 * R8: held by sync_max (R7), every BACKUP step's checkpoint is
	 * reported: mdadm backs up in two parts and forgets the older one
	 * once sync_completed passes it, then backs up the next window
	 * while the kernel runs through the newer part.  Reported only at
	 * sync_max, both parts would be forgotten at once and a cut before
	 * the next backup would find none (Documentation/lab/notes-backup-restart.md 3).
	 */
	if (backup && keeps_count(rs) && mddev->resync_max != MaxSector)
		report = true;
	if (report)
		mddev->curr_resync_completed = done;
	conf->reshape_checkpoint = jiffies;
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_wakeup_thread(mddev->thread);
	wait_event(mddev->sb_wait, mddev->sb_flags == 0 ||
		   test_bit(MD_RECOVERY_INTR, &mddev->recovery));
	if (test_bit(MD_RECOVERY_INTR, &mddev->recovery) && mddev->sb_flags)
		return -EINTR;
	spin_lock_irq(&conf->lock);
	conf->reshape_safe = mddev->reshape_position;
	spin_unlock_irq(&conf->lock);
	wake_up(&conf->wait_reshape);
	if (report)
		sysfs_notify_dirent_safe(mddev->sysfs_completed);
	return 0;
}

/*
 * Every step before reshape_progress is on the members: make it the
 * position md core writes next, and let the requests waiting for it go.
 * CHANGE_PENDING holds back every write completion until the superblock
 * is written (r5j_return_held_bios()).
 */
static void record_progress(struct mddev *mddev, struct r5j_conf *conf)
{
	mddev->reshape_position = conf->reshape_progress;
	set_mask_bits(&mddev->sb_flags, 0,
		      BIT(MD_SB_CHANGE_PENDING) | BIT(MD_SB_CHANGE_DEVS));
	spin_lock_irq(&conf->lock);
	conf->reshape_safe = conf->reshape_progress;
	spin_unlock_irq(&conf->lock);
	wake_up(&conf->wait_reshape);
}

/*
 * The sync thread stops (array stopped, member failed, frozen): a stop
 * holds reconfig_mutex until this thread ends, so the superblock cannot
 * be waited for here.  Every step is complete: record_progress(), and
 * md core writes the superblock before the array stops.
 */
static void interrupted(struct mddev *mddev, struct r5j_conf *conf)
{
	if (conf->reshape_safe == conf->reshape_progress)
		return;
	/*
	 * With a journal a new position needs the log retired first (R10),
	 * which needs reconfig_mutex.  Unless a checkpoint set it already
	 * (retired), go back to the position on disk instead: the steps
	 * since are redone from their sources, intact by R1, and requests
	 * in between waited (R4/R5).  Not after a step mdadm's backup
	 * covers (it overwrote its own sources): r5j_finish_reshape(),
	 * under reconfig_mutex before md core's superblock write, retires
	 * the log and records the progress; requests wait until then.
	 */
	if (conf->log && mddev->reshape_position != conf->reshape_progress) {
		if (conf->reshape_backup_step) {
			conf->reshape_retire = true;
			return;
		}
		pr_info("md/raid:%s: reshape stopped at %llu: back to the position on disk, %llu (journal)\n",
			mdname(mddev),
			(unsigned long long)conf->reshape_progress,
			(unsigned long long)conf->reshape_safe);
		spin_lock_irq(&conf->lock);
		conf->reshape_progress = conf->reshape_safe;
		spin_unlock_irq(&conf->lock);
		wake_up(&conf->wait_reshape);
		return;
	}
	record_progress(mddev, conf);
	md_wakeup_thread(mddev->thread);
}

void r5j_step_end_io(struct bio *bio)
{
	complete(bio->bi_private);
}

/* Read or write array sectors [lo, hi) of @g into or from the step pages. */
static int step_io(struct mddev *mddev, struct r5j_conf *conf,
		   const struct r5j_geom *g, u64 lo, u64 hi, blk_opf_t op)
{
	int n = (hi - lo) / R5J_STRIPE_SECTORS, i, err;
	DECLARE_COMPLETION_ONSTACK(done);
	struct bio *bio;

	if (!n)
		return 0;
	bio = bio_kmalloc(n, GFP_NOIO);
	if (!bio)
		return -ENOMEM;
	bio_init(bio, NULL, bio->bi_inline_vecs, n, op);
	for (i = 0; i < n; i++)
		__bio_add_page(bio, conf->reshape_pages[i], PAGE_SIZE, 0);
	bio->bi_iter.bi_sector = lo;
	bio->bi_private = &done;
	bio->bi_end_io = r5j_step_end_io;
	/*
	 * No md_write_start(): a step's writes leave the array clean, as
	 * raid456's; a torn step is redone from its intact sources when the
	 * reshape resumes from the on-disk position (R1), so no resync is
	 * needed, and a dirty mark would refuse a degraded restart.
	 */
	r5j_stripe_rows(conf, g, bio, lo, hi, 0);
	bio_endio(bio);		/* the submitter's reference */
	wait_for_completion_io(&done);
	err = blk_status_to_errno(bio->bi_status);
	bio_uninit(bio);
	kfree(bio);
	return err;
}

static int alloc_pages_for_step(struct r5j_conf *conf, int n)
{
	int i;

	if (conf->reshape_pages)
		return 0;
	conf->reshape_pages = kcalloc(n, sizeof(struct page *), GFP_NOIO);
	if (!conf->reshape_pages)
		return -ENOMEM;
	conf->reshape_nr_pages = n;
	for (i = 0; i < n; i++) {
		conf->reshape_pages[i] = alloc_page(GFP_NOIO);
		if (!conf->reshape_pages[i])
			return -ENOMEM;
	}
	return 0;
}

void r5j_reshape_free(struct r5j_conf *conf)
{
	int i;

	for (i = 0; conf->reshape_pages && i < conf->reshape_nr_pages; i++)
		if (conf->reshape_pages[i])
			put_page(conf->reshape_pages[i]);
	kfree(conf->reshape_pages);
	conf->reshape_pages = NULL;
	conf->reshape_nr_pages = 0;
}

/* One step: [st->array_lo, st->array_hi) moves to the next geometry. */
static int do_step(struct mddev *mddev, struct r5j_conf *conf,
		   const struct r5j_reshape_step *st)
{
	struct r5j_reshape *rs = &conf->rs;
	u64 prev_end = r5j_array_size(&rs->prev, rs->dev_sectors);
	u64 read_hi = min(st->array_hi, prev_end);
	int n = (st->array_hi - st->array_lo) / R5J_STRIPE_SECTORS;
	int i, err;

	err = alloc_pages_for_step(conf, n);
	if (err)
		return err;
	/* close the range; wait for requests already past the check */
	spin_lock_irq(&conf->lock);
	conf->reshape_win_lo = st->array_lo;
	conf->reshape_win_hi = st->array_hi;
	wait_event_lock_irq(conf->wait_reshape, !conf->reshape_users,
			    conf->lock);
	spin_unlock_irq(&conf->lock);
	/* and for their stripes, so no write is copied half done */
	while (r5j_stripes_busy(conf, st->src_lo, st->src_hi, true))
		schedule_timeout_uninterruptible(1);

	for (i = 0; i < n; i++)
		if (st->array_lo + (u64)i * R5J_STRIPE_SECTORS >= read_hi)
			clear_highpage(conf->reshape_pages[i]);
	err = step_io(mddev, conf, &rs->prev, st->array_lo,
		      max(read_hi, st->array_lo), REQ_OP_READ);
	if (!err) {
		WRITE_ONCE(conf->reshape_dst_lo, st->dst_lo);
		WRITE_ONCE(conf->reshape_dst_hi, st->dst_hi);
		err = step_io(mddev, conf, &conf->geom, st->array_lo,
			      st->array_hi, REQ_OP_WRITE);
		WRITE_ONCE(conf->reshape_dst_lo, 0);
		WRITE_ONCE(conf->reshape_dst_hi, 0);
	}

	spin_lock_irq(&conf->lock);
	if (!err)
		conf->reshape_progress = st->pos_after;
	conf->reshape_win_lo = 0;
	conf->reshape_win_hi = 0;
	spin_unlock_irq(&conf->lock);
	wake_up(&conf->wait_reshape);
	return err;
}

/*
 * The reshape is complete: the next geometry is the array's.  -EINTR:
 * interrupted waiting for reconfig_mutex (journal), nothing changed.
 */
static int end_reshape(struct mddev *mddev, struct r5j_conf *conf)
{
	struct md_rdev *rdev;

	/* the journal's quiesce moves journal_tail: under reconfig_mutex */
	while (conf->log && !mddev_trylock(mddev)) {
		if (test_bit(MD_RECOVERY_INTR, &mddev->recovery))
			return -EINTR;
		schedule_timeout_uninterruptible(HZ / 100);
	}
	/* no request may compute a member address while the offsets move */
	mddev->pers->quiesce(mddev, 1);
	spin_lock_irq(&conf->lock);
	md_finish_reshape(mddev);
	conf->reshaping = false;
	/*
	 * A shrink's removed members leave the array's slots; they stay in
	 * conf->disks until finish_reshape() takes them out of sync and md
	 * core removes them (r5j_hot_remove()): spares, as under raid456.
	 */
	conf->raid_disks = conf->geom.raid_disks;
	conf->reshape_progress = MaxSector;
	conf->reshape_safe = MaxSector;
	mddev->reshape_position = MaxSector;
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 && !test_bit(Journal, &rdev->flags) &&
		    !test_bit(In_sync, &rdev->flags))
			rdev->recovery_offset = MaxSector;
	spin_unlock_irq(&conf->lock);
	mddev->pers->quiesce(mddev, 0);
	if (conf->log)
		mddev_unlock(mddev);
	wake_up(&conf->wait_reshape);
	pr_info("md/raid:%s: reshape done: %d devices\n", mdname(mddev),
		conf->raid_disks);
	return 0;
}

/* Until sync_max reaches @end: false if the reshape is interrupted. */
static bool wait_backup_window(struct mddev *mddev, sector_t end)
{
	while (end > READ_ONCE(mddev->resync_max) &&
	       !test_bit(MD_RECOVERY_INTR, &mddev->recovery)) {
		/* user space controls it: as md_do_sync(), interruptible */
		flush_signals(current);
		wait_event_interruptible(mddev->recovery_wait,
					 end <= READ_ONCE(mddev->resync_max) ||
					 test_bit(MD_RECOVERY_INTR,
						  &mddev->recovery));
	}
	return !test_bit(MD_RECOVERY_INTR, &mddev->recovery);
}

/*
 * md_do_sync() with MD_RECOVERY_RESHAPE: @sector_nr counts next-geometry
 * dev sectors from 0; each call does one step and returns its unit.
 */
sector_t r5j_reshape_sync(struct mddev *mddev, sector_t sector_nr,
			  int *skipped)
{
	struct r5j_conf *conf = mddev->private;
	struct r5j_reshape *rs = &conf->rs;
	struct r5j_reshape_step st;
	u32 u = r5j_reshape_unit(rs);
	enum r5j_reshape_need need;
	sector_t done;

	if (!conf->reshaping || unsupported(conf, rs)) {
		*skipped = 1;
		return sector_nr < mddev->resync_max_sectors ?
		       mddev->resync_max_sectors - sector_nr : 0;
	}
	if (sector_nr >= mddev->resync_max_sectors ||
	    r5j_reshape_finished(rs, conf->reshape_progress)) {
		if (test_bit(MD_RECOVERY_INTR, &mddev->recovery) ||
		    !r5j_reshape_finished(rs, conf->reshape_progress) ||
		    checkpoint(mddev, conf, sector_nr, false) ||
		    end_reshape(mddev, conf))
			interrupted(mddev, conf);
		r5j_reshape_free(conf);
		if (sector_nr < mddev->resync_max_sectors) {
			*skipped = 1;
			return mddev->resync_max_sectors - sector_nr;
		}
		return 0;
	}
	/*
	 * After an assembly md core starts at 0: skip what is done.
	 * @sector_nr counts from the start of the walk: from the end
	 * backwards (raid456's reshape_request()).
	 */
	done = sector_nr ? 0 : r5j_reshape_walked(rs, conf->reshape_progress);
	if (done) {
		/* R8: mdadm's monitor, held or not, waits for this number */
		mddev->curr_resync_completed = done;
		sysfs_notify_dirent_safe(mddev->sysfs_completed);
		*skipped = 1;
		return done;
	}
	if (r5j_reshape_step(rs, conf->reshape_progress, &st))
		return 0;
	need = r5j_reshape_need(rs, &st, conf->reshape_safe);
	if (need != R5J_RESHAPE_GO ||
	    time_after(jiffies, conf->reshape_checkpoint + 10 * HZ)) {
		if (checkpoint(mddev, conf, sector_nr,
			       need == R5J_RESHAPE_BACKUP)) {
			interrupted(mddev, conf);
			return 0;
		}
	}
	/*
	 * BACKUP: mdadm's backup covers the step, sync_max holds us (R3).
	 * md core waits only while the step's start is at sync_max: not
	 * past it with the step's end either (R7).
	 */
	if (need == R5J_RESHAPE_BACKUP && !wait_backup_window(mddev, sector_nr + u)) {
		interrupted(mddev, conf);
		return 0;
	}
	if (do_step(mddev, conf, &st)) {
		pr_err("md/raid:%s: reshape step at %llu failed: interrupted\n",
		       mdname(mddev), (unsigned long long)st.pos);
		set_bit(MD_RECOVERY_INTR, &mddev->recovery);
		interrupted(mddev, conf);
		return 0;
	}
	/*
	 * mdadm waits for the position to reach sync_max.  With a journal a
	 * step that overwrote its own sources is checkpointed at once:
	 * interrupted() could not go back over it.
	 */
	if (need == R5J_RESHAPE_BACKUP)
		conf->reshape_backup_step = true;
	if (sector_nr + u >= mddev->resync_max ||
	    (conf->log && need == R5J_RESHAPE_BACKUP) ||
	    r5j_reshape_finished(rs, conf->reshape_progress))
		checkpoint(mddev, conf, sector_nr + u,
			   need == R5J_RESHAPE_BACKUP);
	/*
	 * md core counts the returned sectors as in flight until
	 * md_done_sync(); the step is complete already (the count dips
	 * below zero until md_do_sync() adds them, harmless).
	 */
	md_done_sync(mddev, u, 1);
	return u;
}

/* md core, after the sync thread ended (reconfig_mutex held). */
void r5j_finish_reshape(struct mddev *mddev)
{
	struct r5j_conf *conf = mddev->private;
	int d;

	if (conf->reshape_retire) {
		/* interrupted() after a BACKUP step: R10, then the position */
		conf->reshape_retire = false;
		mddev->pers->quiesce(mddev, 1);
		mddev->pers->quiesce(mddev, 0);
		conf->reshape_backup_step = false;
		/* md core writes the superblock next */
		record_progress(mddev, conf);
	}
	/*
	 * 6.1's action_store() ("frozen", "idle") puts back the position it
	 * read before it interrupted the sync thread, after a checkpoint or
	 * interrupted() may have moved it on; requests behind reshape_safe
	 * already go through the next geometry.  Record reshape_safe (every
	 * step before it is on the members) so that the superblock md core
	 * writes next never goes back behind it: a resume from an older
	 * position would copy stale sources over those writes.
	 */
	spin_lock_irq(&conf->lock);
	if (conf->reshaping && mddev->reshape_position != conf->reshape_safe) {
		pr_info("md/raid:%s: reshape position %llu restored by md core: recording %llu\n",
			mdname(mddev),
			(unsigned long long)mddev->reshape_position,
			(unsigned long long)conf->reshape_safe);
		mddev->reshape_position = conf->reshape_safe;
		set_mask_bits(&mddev->sb_flags, 0,
			      BIT(MD_SB_CHANGE_PENDING) | BIT(MD_SB_CHANGE_DEVS));
	}
	spin_unlock_irq(&conf->lock);
	if (test_bit(MD_RECOVERY_INTR, &mddev->recovery) || conf->reshaping)
		return;
	/* a shrink: the members past the new count hold nothing of the array */
	for (d = conf->raid_disks; d < conf->rs.prev.raid_disks; d++) {
		struct md_rdev *rdev = r5j_rdev_locked(conf, d);
		struct md_rdev *repl = r5j_repl_locked(conf, d);

		if (rdev)
			clear_bit(In_sync, &rdev->flags);
		if (repl)
			clear_bit(In_sync, &repl->flags);
	}
	spin_lock_irq(&conf->lock);
	mddev->degraded = r5j_calc_degraded(conf);
	spin_unlock_irq(&conf->lock);
	mddev->layout = conf->geom.layout;
	mddev->chunk_sectors = conf->geom.chunk_sectors;
	mddev->reshape_position = MaxSector;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = 0;
}
