// SPDX-License-Identifier: GPL-2.0
/*
 * Takeover (md core's level_store()): raid0, raid1, raid4, raid5 and
 * raid6 arrays become raid4/5/6 under raid5j, keeping every block where
 * it is (Documentation/reshape.md, section 8).
 */
#include <linux/bitmap.h>
#include "r5j.h"
#include "r5j_journal.h"

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
	if (!old->log || !r5j_journal_member(mddev) ||
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

	if (test_bit(MD_HAS_JOURNAL, &mddev->flags) || r5j_journal_member(mddev)) {
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
		layout = r5j_layout_5_to_6(mddev->layout);
		if (layout < 0)
			return "RAID5 layout has no RAID6 counterpart";
		if (mddev->raid_disks < 3 || mddev->raid_disks >= R5J_MAX_DISKS)
			return "RAID5 must have 3 to 255 members";
		mddev->new_layout = layout;
		mddev->raid_disks += 1;
		mddev->delta_disks = 1;
	} else if (from == 6 && level == 5) {
		layout = r5j_layout_6_to_5(mddev->layout);
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
	conf = r5j_setup_conf(mddev, true);
	if (IS_ERR(conf))
		return conf;
	if (r5j_journal_member(mddev)) {
		/* run() cannot open a log: r5j_free() hands the old one over */
		if (r5j_journal_takeover_prepare(conf)) {
			r5j_free_conf(conf);
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

void *r5j_takeover4(struct mddev *mddev)
{
	return r5j_takeover(mddev, 4);
}

void *r5j_takeover5(struct mddev *mddev)
{
	return r5j_takeover(mddev, 5);
}

void *r5j_takeover6(struct mddev *mddev)
{
	return r5j_takeover(mddev, 6);
}
