// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j's side of dm-raid (Documentation/design.md, "dm-raid (LVM
 * RAID)").  The two functions dm-raid imports from raid456 live in
 * raid5j_dmraid.ko, not here: depmod hands dm-raid to whichever module
 * exports them, and only `make install-boot` installs that one.
 */
#include <linux/module.h>
#include "md.h"
#include "r5j.h"
#include "r5j_sysfs.h"
#include "r5j_dm.h"

static bool r5j_dm_linked;

/*
 * While raid5j_dmraid.ko is loaded raid456 cannot be (the kernel refuses
 * a second module exporting the same symbols), so a loaded dm-raid is
 * linked against it and calls us.  It cannot go away while dm-raid holds
 * it, nor dm-raid while a set exists.
 */
void r5j_dm_link(bool linked)
{
	WRITE_ONCE(r5j_dm_linked, linked);
}
EXPORT_SYMBOL_GPL(r5j_dm_link);

/*
 * Without raid5j_dmraid.ko, dm-raid is linked against raid456, whose
 * functions would take our conf for a struct r5conf: its sets are not
 * ours to run.
 */
bool r5j_dm_may_run(struct mddev *mddev)
{
	if (mddev->gendisk || READ_ONCE(r5j_dm_linked))
		return true;
	pr_err("md/raid:%s: a dm-raid set, but dm-raid is linked against raid456 (raid5j_dmraid is not loaded; make install-boot installs it): not run by raid5j\n",
	       mdname(mddev));
	return false;
}

static bool r5j_runs(struct mddev *mddev)
{
	return mddev->pers && mddev->pers->owner == THIS_MODULE &&
	       mddev->private;
}

/* dm-raid: the stripe_cache table argument */
int r5j_dm_set_cache_size(struct mddev *mddev, int size)
{
	if (!r5j_runs(mddev))
		return -ENODEV;
	if (size <= 0)
		return -EINVAL;
	return r5j_stripe_cache_set(mddev, size);
}
EXPORT_SYMBOL_GPL(r5j_dm_set_cache_size);

/* dm-raid: the journal_mode table argument, just after md_start() */
int r5j_dm_journal_mode_set(struct mddev *mddev, bool wb)
{
	if (!r5j_runs(mddev))
		return -ENODEV;
	return r5j_journal_mode_set(mddev, wb);
}
EXPORT_SYMBOL_GPL(r5j_dm_journal_mode_set);
