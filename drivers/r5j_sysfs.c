// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j array attributes in /sys/block/mdX/md/: the raid456 names users
 * and mdadm know, plus raid5j_stats for what the engine did.
 */
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include <linux/raid/pq.h>
#include "r5j.h"
#include "r5j_sysfs.h"
#include "r5j_params.h"
#include "r5j_journal.h"

static ssize_t stripe_cache_size_show(struct mddev *mddev, char *page)
{
	struct r5j_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf)
		ret = sysfs_emit(page, "%d\n", conf->max_nr_stripes);
	spin_unlock(&mddev->lock);
	return ret;
}

/*
 * Set stripe_cache_size, reconfig_mutex held: the attribute and dm-raid's
 * stripe_cache table argument.
 */
int r5j_stripe_cache_set(struct mddev *mddev, unsigned long size)
{
	struct r5j_conf *conf = mddev->private;

	if (!conf)
		return -ENODEV;
	if (size < R5J_MIN_STRIPES || size > R5J_MAX_STRIPES)
		return -EINVAL;
	md_allow_write(mddev);
	return r5j_cache_resize(conf, size);
}

static ssize_t stripe_cache_size_store(struct mddev *mddev, const char *page,
				       size_t len)
{
	unsigned long size;
	int err;

	if (len >= PAGE_SIZE)
		return -EINVAL;
	if (kstrtoul(page, 10, &size))
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	err = r5j_stripe_cache_set(mddev, size);
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5j_stripe_cache_size =
	__ATTR(stripe_cache_size, 0644, stripe_cache_size_show,
	       stripe_cache_size_store);

static ssize_t stripe_cache_active_show(struct mddev *mddev, char *page)
{
	struct r5j_conf *conf = mddev->private;

	if (!conf)
		return 0;
	return sysfs_emit(page, "%d\n", r5j_active_stripes(conf));
}

static struct md_sysfs_entry r5j_stripe_cache_active =
	__ATTR_RO(stripe_cache_active);

/*
 * Write-back percentages (journal.md section 15): writeback_dirty_high
 * and _low, of stripe_cache_size ("Destage policy": above the high mark
 * dirty stripes a batch of the oldest partial ones is destaged, down to
 * the low one; low <= high <= R5J_DIRTY_MAX, a tenth of the cache always
 * stays for stripes in use), and writeback_log_high, of the ring ("Part
 * 2": above it the stripes pinning the oldest units are destaged).
 */
enum r5j_wb_pct { R5J_WB_DIRTY_HIGH, R5J_WB_DIRTY_LOW, R5J_WB_LOG_HIGH };

static const struct {
	size_t field;			/* offsetof(struct r5j_conf, ...) */
	unsigned int min, max;
} wb_pct[] = {
	[R5J_WB_DIRTY_HIGH] = { offsetof(struct r5j_conf, dirty_high),
				1, R5J_DIRTY_MAX },
	[R5J_WB_DIRTY_LOW] = { offsetof(struct r5j_conf, dirty_low),
			       1, R5J_DIRTY_MAX },
	[R5J_WB_LOG_HIGH] = { offsetof(struct r5j_conf, log_high), 10, 90 },
};

static int *wb_pct_field(struct r5j_conf *conf, enum r5j_wb_pct which)
{
	return (int *)((char *)conf + wb_pct[which].field);
}

static ssize_t wb_pct_show(struct mddev *mddev, char *page,
			   enum r5j_wb_pct which)
{
	struct r5j_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf)
		ret = sysfs_emit(page, "%d\n",
				 READ_ONCE(*wb_pct_field(conf, which)));
	spin_unlock(&mddev->lock);
	return ret;
}

static ssize_t wb_pct_store(struct mddev *mddev, const char *page,
			    size_t len, enum r5j_wb_pct which)
{
	struct r5j_conf *conf;
	unsigned int pct;
	int err;

	if (kstrtouint(page, 10, &pct) || pct < wb_pct[which].min ||
	    pct > wb_pct[which].max)
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (!conf)
		err = -ENODEV;
	else if ((which == R5J_WB_DIRTY_HIGH && pct < conf->dirty_low) ||
		 (which == R5J_WB_DIRTY_LOW && pct > conf->dirty_high))
		err = -EINVAL;		/* the marks must not cross */
	else
		WRITE_ONCE(*wb_pct_field(conf, which), pct);
	if (!err)
		md_wakeup_thread(mddev->thread);
	mddev_unlock(mddev);
	return err ?: len;
}

#define R5J_WB_PCT_ATTR(_name, _which)					\
static const enum r5j_wb_pct _name##_which = _which;			\
static ssize_t _name##_show(struct mddev *mddev, char *page)		\
{									\
	return wb_pct_show(mddev, page, _name##_which);			\
}									\
static ssize_t _name##_store(struct mddev *mddev, const char *page,	\
			     size_t len)				\
{									\
	return wb_pct_store(mddev, page, len, _name##_which);		\
}									\
static struct md_sysfs_entry r5j_##_name =				\
	__ATTR(_name, 0644, _name##_show, _name##_store)

R5J_WB_PCT_ATTR(writeback_dirty_high, R5J_WB_DIRTY_HIGH);
R5J_WB_PCT_ATTR(writeback_dirty_low, R5J_WB_DIRTY_LOW);
R5J_WB_PCT_ATTR(writeback_log_high, R5J_WB_LOG_HIGH);

/*
 * raid456's tuning knobs (design.md section 12), with its names, formats,
 * accepted values and errors.  rmw_level steers the write method;
 * preread_bypass_threshold, skip_copy and ppl_write_hint are kept (or
 * refused) as raid456 does, and change nothing: raid5j has no delayed
 * list, always copies, and runs no PPL.
 */
/* An int of the conf at @offset, as raid456 shows its own (mddev->lock) */
static ssize_t conf_int_show(struct mddev *mddev, char *page, size_t offset)
{
	struct r5j_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf)
		ret = sysfs_emit(page, "%d\n",
				 READ_ONCE(*(int *)((char *)conf + offset)));
	spin_unlock(&mddev->lock);
	return ret;
}

static ssize_t rmw_level_show(struct mddev *mddev, char *page)
{
	return conf_int_show(mddev, page, offsetof(struct r5j_conf, rmw_level));
}

static ssize_t rmw_level_store(struct mddev *mddev, const char *page,
			       size_t len)
{
	struct r5j_conf *conf;
	unsigned long level;
	int err;

	if (len >= PAGE_SIZE || kstrtoul(page, 10, &level))
		return -EINVAL;
	/*
	 * As raid456: rmw refused at every level when the raid6 library
	 * has no partial syndrome update (RAID6 needs it for rmw).
	 */
	if (level != R5J_RMW_NEVER && !raid6_call.xor_syndrome)
		return -EINVAL;
	if (level != R5J_RMW_NEVER && level != R5J_RMW_CHEAPER &&
	    level != R5J_RMW_PREFER)
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (conf)
		WRITE_ONCE(conf->rmw_level, level);	/* the next plan */
	else
		err = -ENODEV;
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5j_rmw_level =
	__ATTR(rmw_level, 0644, rmw_level_show, rmw_level_store);

static ssize_t preread_bypass_threshold_show(struct mddev *mddev, char *page)
{
	return conf_int_show(mddev, page,
			     offsetof(struct r5j_conf, bypass_threshold));
}

/* 0 .. stripe_cache_size, checked when written only (as raid456) */
static ssize_t preread_bypass_threshold_store(struct mddev *mddev,
					      const char *page, size_t len)
{
	struct r5j_conf *conf;
	unsigned long threshold;
	int err;

	if (len >= PAGE_SIZE || kstrtoul(page, 10, &threshold))
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (!conf)
		err = -ENODEV;
	else if (threshold > conf->max_nr_stripes)
		err = -EINVAL;
	else
		WRITE_ONCE(conf->bypass_threshold, threshold);
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5j_preread_bypass_threshold =
	__ATTR(preread_bypass_threshold, 0644, preread_bypass_threshold_show,
	       preread_bypass_threshold_store);

static ssize_t skip_copy_show(struct mddev *mddev, char *page)
{
	return conf_int_show(mddev, page, offsetof(struct r5j_conf, skip_copy));
}

/*
 * Any number, non-zero read as 1; the array is suspended around the
 * change, as raid456 does.  raid456's skip_copy also marks the queue as
 * needing stable pages, for the bio pages it writes from; raid5j writes
 * from its own pages only, so it leaves the queue as it is.
 */
static ssize_t skip_copy_store(struct mddev *mddev, const char *page,
			       size_t len)
{
	struct r5j_conf *conf;
	unsigned long skip;
	int err;

	if (len >= PAGE_SIZE || kstrtoul(page, 10, &skip))
		return -EINVAL;
	err = r5j_suspend_and_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (conf)
		WRITE_ONCE(conf->skip_copy, !!skip);
	else
		err = -ENODEV;
	r5j_unlock_and_resume(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5j_skip_copy =
	__ATTR(skip_copy, 0644, skip_copy_show, skip_copy_store);

/* raid456 shows 0 and takes a hint only on an array with a PPL */
static ssize_t ppl_write_hint_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n", 0);
}

static ssize_t ppl_write_hint_store(struct mddev *mddev, const char *page,
				    size_t len)
{
	u16 hint;
	int err;

	if (len >= PAGE_SIZE || kstrtou16(page, 10, &hint))
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	err = mddev->private ? -EINVAL : -ENODEV;	/* no PPL (design.md 11) */
	mddev_unlock(mddev);
	return err;
}

static struct md_sysfs_entry r5j_ppl_write_hint =
	__ATTR(ppl_write_hint, 0644, ppl_write_hint_show, ppl_write_hint_store);

static ssize_t stripe_size_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%lu\n", PAGE_SIZE);
}

static struct md_sysfs_entry r5j_stripe_size = __ATTR_RO(stripe_size);

static ssize_t raid5j_stats_show(struct mddev *mddev, char *page)
{
	struct r5j_conf *conf;
	struct r5j_stats *st;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf) {
		st = &conf->stats;
		ret = sysfs_emit(page,
				 "stripes_handled %lld\nrmw %lld\nrcw %lld\n"
				 "full_stripe_writes %lld\n"
				 "member_reads %lld\nmember_writes %lld\n"
				 "aligned_reads %lld\ndegraded_reads %lld\n"
				 "bitmap_waits %lld\nstripe_waits %lld\n"
				 "stripe_unblocked %lld\n"
				 "member_batches %lld\nmember_runs %lld\n"
				 "member_submit_us_max %lld\n"
				 "member_submit_slow %lld\nmember_holds %lld\n"
				 "stripes_allocated %d\nstripes_shrunk %lld\n",
				 atomic64_read(&st->stripes_handled),
				 atomic64_read(&st->rmw),
				 atomic64_read(&st->rcw),
				 atomic64_read(&st->full_stripe_writes),
				 atomic64_read(&st->member_reads),
				 atomic64_read(&st->member_writes),
				 atomic64_read(&st->aligned_reads),
				 atomic64_read(&st->degraded_reads),
				 atomic64_read(&st->bitmap_waits),
				 atomic64_read(&st->stripe_waits),
				 atomic64_read(&st->stripe_unblocked),
				 atomic64_read(&st->member_batches),
				 atomic64_read(&st->member_runs),
				 atomic64_read(&st->member_submit_us_max),
				 atomic64_read(&st->member_submit_slow),
				 atomic64_read(&st->member_holds),
				 READ_ONCE(conf->nr_stripes),
				 atomic64_read(&st->stripes_shrunk));
	}
	spin_unlock(&mddev->lock);
	return ret;
}

static struct md_sysfs_entry r5j_raid5j_stats = __ATTR_RO(raid5j_stats);

static ssize_t journal_mode_show(struct mddev *mddev, char *page)
{
	struct r5j_conf *conf;
	ssize_t ret = 0;

	spin_lock(&mddev->lock);
	conf = mddev->private;
	if (conf && conf->log)
		ret = sysfs_emit(page, READ_ONCE(conf->writeback) ?
				 "write-through [write-back]\n" :
				 "[write-through] write-back\n");
	spin_unlock(&mddev->lock);
	return ret;
}

/*
 * Switch the journal mode (wb: write-back), reconfig_mutex held: the
 * journal_mode attribute and dm-raid's journal_mode table argument.
 */
int r5j_journal_mode_set(struct mddev *mddev, bool wb)
{
	struct r5j_conf *conf = mddev->private;

	if (!conf || !conf->log)
		return -ENODEV;
	if (wb && !r5j_writeback_allowed()) {
		pr_warn("md/raid:%s: write-back journal mode is off: the module parameter writeback is 0\n",
			mdname(mddev));
		return -EOPNOTSUPP;
	}
	if (wb && conf->reshaping) {
		/* R13 (reshape.md): cached data would need re-laying */
		pr_warn("md/raid:%s: write-back journal mode refused: a reshape is in progress (write-through until it ends)\n",
			mdname(mddev));
		return -EBUSY;
	}
	if (wb && !conf->writeback && !md_is_rdwr(mddev) && !mddev->gendisk &&
	    !r5j_journal_failed(conf->log)) {
		/*
		 * dm-raid sets its table's journal_mode before the resume
		 * that makes the set read-write.  Nothing is dirty in
		 * write-through and nothing is written while read-only; the
		 * first unit written records the mode.
		 */
		WRITE_ONCE(conf->writeback, true);
		pr_info("md/raid:%s: journal mode write-back\n", mdname(mddev));
		return 0;
	}
	if (wb && (r5j_journal_failed(conf->log) || !md_is_rdwr(mddev))) {
		pr_warn("md/raid:%s: write-back needs a read-write array and a working journal\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (wb != READ_ONCE(conf->writeback)) {
		WRITE_ONCE(conf->writeback, wb);
		/*
		 * The quiesce destages every dirty stripe and waits for it
		 * (to write-through), and leaves an empty unit recording the
		 * mode: the next assembly starts in it (journal.md, 15).
		 */
		r5j_quiesce_cycle(mddev);
		pr_info("md/raid:%s: journal mode %s\n", mdname(mddev),
			wb ? "write-back" : "write-through");
	}
	return 0;
}

static ssize_t journal_mode_store(struct mddev *mddev, const char *page,
				  size_t len)
{
	bool wb;
	int err;

	if (sysfs_streq(page, "write-through"))
		wb = false;
	else if (sysfs_streq(page, "write-back"))
		wb = true;
	else
		return -EINVAL;
	err = mddev_lock(mddev);
	if (err)
		return err;
	err = r5j_journal_mode_set(mddev, wb);
	mddev_unlock(mddev);
	return err ?: len;
}

static struct md_sysfs_entry r5j_journal_mode =
	__ATTR(journal_mode, 0644, journal_mode_show, journal_mode_store);

static ssize_t journal_stats_show(struct mddev *mddev, char *page)
{
	struct r5j_conf *conf;
	ssize_t ret;

	ret = mddev_lock(mddev);
	if (ret)
		return ret;
	conf = mddev->private;
	if (conf && conf->log) {
		ret = r5j_journal_stats_show(conf->log, page);
		ret += r5j_wbcache_stats(conf, page, ret);
	}
	mddev_unlock(mddev);
	return ret;
}

static struct md_sysfs_entry r5j_journal_stats = __ATTR_RO(journal_stats);

/*
 * consistency_policy changes (md core's attribute calls this).  As
 * raid456: "resync" drops a journal that failed or went missing, once the
 * failed device is out of the array, so that the array takes writes again
 * without one; "ppl" is for RAID5 without a journal.  Only the superblock
 * changes.  Write-back data is never dropped: a failed journal device
 * leaves the array only after every dirty stripe reached the members
 * (r5j_hot_remove()), and a journal missing at assembly was already left
 * behind by the forced assembly.  The array stays read-only if it was.
 */
int r5j_change_consistency_policy(struct mddev *mddev, const char *buf)
{
	struct r5j_conf *conf;
	struct md_rdev *rdev;
	int err;

	err = mddev_lock(mddev);
	if (err)
		return err;
	conf = mddev->private;
	if (!conf || !mddev->pers) {
		err = -ENODEV;
	} else if (sysfs_streq(buf, "ppl")) {
		if (mddev->level != 5 ||
		    test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
			pr_warn("md/raid:%s: consistency policy ppl needs RAID5 without a journal\n",
				mdname(mddev));
			err = -EINVAL;
		} else {
			pr_warn("md/raid:%s: consistency policy ppl: partial parity log (PPL) not supported by raid5j\n",
				mdname(mddev));
			err = -EOPNOTSUPP;
		}
	} else if (!sysfs_streq(buf, "resync")) {
		err = -EINVAL;
	} else if (!test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
		err = -EINVAL;		/* already resync (or bitmap) */
	} else if (conf->log && !r5j_journal_failed(conf->log)) {
		pr_warn("md/raid:%s: consistency policy resync refused: the journal works (only a failed or missing journal can be dropped)\n",
			mdname(mddev));
		err = -EINVAL;
	} else {
		bool present = !!conf->log;

		rdev_for_each(rdev, mddev)
			present |= test_bit(Journal, &rdev->flags);
		if (present) {
			pr_warn("md/raid:%s: consistency policy resync refused: remove the failed journal device first (mdadm --remove)\n",
				mdname(mddev));
			err = -EBUSY;
		} else if (atomic_read(&conf->dirty_stripes)) {
			pr_warn("md/raid:%s: consistency policy resync refused: write-back data not yet on the members\n",
				mdname(mddev));
			err = -EBUSY;
		}
	}
	if (!err && test_bit(MD_HAS_JOURNAL, &mddev->flags)) {
		clear_bit(MD_HAS_JOURNAL, &mddev->flags);
		/* nothing closes the write hole now: the superblock says dirty */
		clear_bit(MD_JOURNAL_CLEAN, &mddev->flags);
		md_update_sb(mddev, 1);
		pr_info("md/raid:%s: consistency policy resync: journal dropped%s\n",
			mdname(mddev), md_is_rdwr(mddev) ? "" :
			" (array still read-only: mdadm --readwrite)");
	}
	mddev_unlock(mddev);
	return err;
}

static struct attribute *r5j_attrs[] = {
	&r5j_journal_mode.attr,
	&r5j_journal_stats.attr,
	&r5j_stripe_cache_size.attr,
	&r5j_stripe_cache_active.attr,
	&r5j_preread_bypass_threshold.attr,
	&r5j_skip_copy.attr,
	&r5j_rmw_level.attr,
	&r5j_stripe_size.attr,
	&r5j_ppl_write_hint.attr,
	&r5j_raid5j_stats.attr,
	&r5j_writeback_dirty_high.attr,
	&r5j_writeback_dirty_low.attr,
	&r5j_writeback_log_high.attr,
	NULL,
};

static const struct attribute_group r5j_attrs_group = {
	.name = NULL,
	.attrs = r5j_attrs,
};

void r5j_sysfs_register(struct mddev *mddev)
{
	/* md core removes a stopped array's group lazily via to_remove */
	if (mddev->to_remove == &r5j_attrs_group)
		mddev->to_remove = NULL;
	else if (mddev->kobj.sd &&
		 sysfs_create_group(&mddev->kobj, &r5j_attrs_group))
		pr_warn("md/raid:%s: failed to create sysfs attributes\n",
			mdname(mddev));
}

void r5j_sysfs_unregister(struct mddev *mddev)
{
	mddev->to_remove = &r5j_attrs_group;
}
