/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid5j: the md core interfaces that differ between Debian's 6.1 and 6.12
 * kernels, behind one set of wrappers.  The engine calls only these.
 * Kbuild probes the md.h/md-bitmap.h the module is built against (they
 * come from the kernel's own linux-source) and defines, on 6.12:
 *
 *   R5J_HAVE_BITMAP_OPS	bitmap calls go through mddev->bitmap_ops and
 *				take the mddev
 *   R5J_HAVE_BITMAP_SECTOR	md_account_bio() also counts bitmap writes,
 *				at the offsets ->bitmap_sector() gives
 *   R5J_HAVE_RCU_MD_THREAD	md_thread pointers are __rcu, unregistering
 *				takes the mddev
 *   R5J_HAVE_SYNC_MAX_SECTOR	sync_request() is told the end of the pass
 *   R5J_HAVE_VOID_WRITE_START	md_write_start() cannot fail
 *   R5J_HAVE_SUSPEND_UNLOCKED	mddev_suspend() must not be called under
 *				reconfig_mutex and no longer quiesces the
 *				personality
 *   R5J_HAVE_ATOMIC_LIMITS	queue limits are built in a struct
 *				queue_limits and committed at once
 *   R5J_HAVE_RESYNC_OFFSET	mddev->recovery_cp is called resync_offset
 *   R5J_HAVE_SHRINKER_ALLOC	shrinkers are allocated by the kernel
 *				(shrinker_alloc()), with a private pointer
 * and on 6.1:
 *   R5J_HAVE_INIT_WRITES_PENDING  the personality sets up writes_pending
 *   R5J_HAVE_REMOVE_SYNCHRONIZED  md core may have waited for RCU readers
 *				of a member being removed
 *   R5J_HAVE_ALLOW_SB_UPDATE	the md thread writes the superblock for a
 *				suspender holding reconfig_mutex
 *
 * A probe, not the version number: stable kernels backport md changes.
 * README.md ("Kernel 6.1 and 6.12") lists what users see change.
 */
#ifndef RAID5J_R5J_COMPAT_H
#define RAID5J_R5J_COMPAT_H

#include <linux/shrinker.h>
#include "md.h"
#include "md-bitmap.h"

/*
 * A shrinker that hands @priv to its callbacks (r5j_shrinker_priv()),
 * registered under @name.  NULL if it could not be.
 */
struct shrinker *r5j_shrinker_create(void *priv, const char *name,
				     unsigned long (*count)(struct shrinker *,
							    struct shrink_control *),
				     unsigned long (*scan)(struct shrinker *,
							   struct shrink_control *));
void r5j_shrinker_destroy(struct shrinker *s);
void *r5j_shrinker_priv(struct shrinker *s);

/* Write-intent bitmap, in member sectors; no-ops without a bitmap. */
#ifdef R5J_HAVE_BITMAP_OPS
static inline void r5j_bitmap_startwrite(struct mddev *mddev, sector_t off,
					 unsigned long sectors)
{
	mddev->bitmap_ops->startwrite(mddev, off, sectors);
}

/*
 * 6.12 has no per-write success flag: md core marks the bits NEEDED
 * whenever the array is degraded, which a failed member write makes it
 * (r5j_error() before the stripe completes).
 */
static inline void r5j_bitmap_endwrite(struct mddev *mddev, sector_t off,
				       unsigned long sectors, bool success)
{
	mddev->bitmap_ops->endwrite(mddev, off, sectors);
}

static inline bool r5j_bitmap_start_sync(struct mddev *mddev, sector_t off,
					 sector_t *blocks, bool degraded)
{
	return mddev->bitmap_ops->start_sync(mddev, off, blocks, degraded);
}

/* always "aborted": the chunk stays NEEDED unless a later pass syncs it */
static inline void r5j_bitmap_end_sync(struct mddev *mddev, sector_t off,
				       sector_t *blocks)
{
	mddev->bitmap_ops->end_sync(mddev, off, blocks);
}

static inline void r5j_bitmap_cond_end_sync(struct mddev *mddev,
					    sector_t sector, bool force)
{
	mddev->bitmap_ops->cond_end_sync(mddev, sector, force);
}

static inline void r5j_bitmap_close_sync(struct mddev *mddev)
{
	mddev->bitmap_ops->close_sync(mddev);
}

/* synchronous: dirty bits are on disk when this returns */
static inline void r5j_bitmap_unplug(struct mddev *mddev)
{
	mddev->bitmap_ops->unplug(mddev, true);
}

static inline int r5j_bitmap_resize(struct mddev *mddev, sector_t sectors)
{
	return mddev->bitmap_ops->resize(mddev, sectors, 0, false);
}
#else
static inline void r5j_bitmap_startwrite(struct mddev *mddev, sector_t off,
					 unsigned long sectors)
{
	md_bitmap_startwrite(mddev->bitmap, off, sectors, 0);
}

static inline void r5j_bitmap_endwrite(struct mddev *mddev, sector_t off,
				       unsigned long sectors, bool success)
{
	md_bitmap_endwrite(mddev->bitmap, off, sectors, success, 0);
}

static inline bool r5j_bitmap_start_sync(struct mddev *mddev, sector_t off,
					 sector_t *blocks, bool degraded)
{
	return md_bitmap_start_sync(mddev->bitmap, off, blocks, degraded);
}

static inline void r5j_bitmap_end_sync(struct mddev *mddev, sector_t off,
				       sector_t *blocks)
{
	md_bitmap_end_sync(mddev->bitmap, off, blocks, 1);
}

static inline void r5j_bitmap_cond_end_sync(struct mddev *mddev,
					    sector_t sector, bool force)
{
	md_bitmap_cond_end_sync(mddev->bitmap, sector, force);
}

static inline void r5j_bitmap_close_sync(struct mddev *mddev)
{
	md_bitmap_close_sync(mddev->bitmap);
}

static inline void r5j_bitmap_unplug(struct mddev *mddev)
{
	md_bitmap_unplug(mddev->bitmap);
}

static inline int r5j_bitmap_resize(struct mddev *mddev, sector_t sectors)
{
	return md_bitmap_resize(mddev->bitmap, sectors, 0, 0);
}
#endif

/*
 * md threads: md_wakeup_thread() works unchanged on both; a thread
 * pointer of our own is declared with R5J_MD_THREAD(name).
 */
#ifdef R5J_HAVE_RCU_MD_THREAD
#define R5J_MD_THREAD(name) struct md_thread __rcu *(name)

static inline void r5j_thread_set(struct md_thread __rcu **p,
				  struct md_thread *t)
{
	rcu_assign_pointer(*p, t);
}

/* only the owner (setup, teardown, the thread itself) dereferences */
static inline struct md_thread *r5j_thread(struct md_thread __rcu **p)
{
	return rcu_dereference_protected(*p, true);
}

static inline void r5j_unregister_thread(struct mddev *mddev,
					 struct md_thread __rcu **p)
{
	md_unregister_thread(mddev, p);
}
#else
#define R5J_MD_THREAD(name) struct md_thread *(name)

static inline void r5j_thread_set(struct md_thread **p, struct md_thread *t)
{
	*p = t;
}

static inline struct md_thread *r5j_thread(struct md_thread **p)
{
	return *p;
}

static inline void r5j_unregister_thread(struct mddev *mddev,
					 struct md_thread **p)
{
	md_unregister_thread(p);
}
#endif

/*
 * False when 6.1's md_write_start() gave up because the array is being
 * suspended with a superblock update pending: the personality returns
 * false and md core resubmits the bio after the resume.
 */
static inline bool r5j_write_start(struct mddev *mddev, struct bio *bi)
{
#ifdef R5J_HAVE_VOID_WRITE_START
	md_write_start(mddev, bi);
	return true;
#else
	return md_write_start(mddev, bi);
#endif
}

/*
 * Stop and drain all array I/O from ->resize() (reconfig_mutex held) and
 * quiesce the personality.  6.1: mddev_suspend() does both.  6.12 only
 * lets a suspend happen outside reconfig_mutex (a write waiting for a
 * superblock update would never drain) and md core does it for
 * SET_ARRAY_INFO, mdadm's --grow --size, but not for a write to sysfs
 * component_size: there -EBUSY.  Its suspend does not quiesce.
 */
static inline int r5j_suspend(struct mddev *mddev)
{
#ifdef R5J_HAVE_SUSPEND_UNLOCKED
	if (!READ_ONCE(mddev->suspended))
		return -EBUSY;
	mddev->pers->quiesce(mddev, 1);
#else
	mddev_suspend(mddev);
#endif
	return 0;
}

static inline void r5j_resume(struct mddev *mddev)
{
#ifdef R5J_HAVE_SUSPEND_UNLOCKED
	mddev->pers->quiesce(mddev, 0);
#else
	mddev_resume(mddev);
#endif
}

/*
 * Take reconfig_mutex with all array I/O drained, for a setting raid456
 * changes only on a suspended array (skip_copy).  6.1 suspends under the
 * mutex (and quiesces the personality), 6.12 before taking it.
 */
static inline int r5j_suspend_and_lock(struct mddev *mddev)
{
#ifdef R5J_HAVE_SUSPEND_UNLOCKED
	return mddev_suspend_and_lock(mddev);
#else
	int err = mddev_lock(mddev);

	if (!err && mddev->pers)
		mddev_suspend(mddev);
	return err;
#endif
}

static inline void r5j_unlock_and_resume(struct mddev *mddev)
{
#ifdef R5J_HAVE_SUSPEND_UNLOCKED
	mddev_unlock_and_resume(mddev);
#else
	if (mddev->pers)	/* unchanged: the mutex was held throughout */
		mddev_resume(mddev);
	mddev_unlock(mddev);
#endif
}

/*
 * A quiesce inside 6.1's mddev_suspend(): the md thread may write the
 * superblock for the suspender meanwhile (MD_ALLOW_SB_UPDATE), so the
 * quiesce can wait for what waits on an update.  Other quiescers may hold
 * reconfig_mutex, which the md thread needs for it.  6.12's suspend
 * drains such writes itself: md_account_bio() holds active_io to their
 * end, and it suspends before it takes the mutex.
 */
static inline bool r5j_sb_update_may_come(struct mddev *mddev)
{
#ifdef R5J_HAVE_ALLOW_SB_UPDATE
	return test_bit(MD_ALLOW_SB_UPDATE, &mddev->flags);
#else
	return false;
#endif
}

#ifdef R5J_HAVE_RESYNC_OFFSET
#define r5j_resync_offset(mddev)	((mddev)->resync_offset)
#else
#define r5j_resync_offset(mddev)	((mddev)->recovery_cp)
#endif

static inline int r5j_init_writes_pending(struct mddev *mddev)
{
#ifdef R5J_HAVE_INIT_WRITES_PENDING
	return mddev_init_writes_pending(mddev);
#else
	return 0;	/* md core's mddev_init() did it */
#endif
}

/* false: the caller must synchronize_rcu() before freeing the slot */
static inline bool r5j_remove_synchronized(struct md_rdev *rdev)
{
#ifdef R5J_HAVE_REMOVE_SYNCHRONIZED
	return test_bit(RemoveSynchronized, &rdev->flags);
#else
	return false;
#endif
}

/*
 * Quiesce and restart the personality with reconfig_mutex held: every
 * stripe out and idle once.  6.1 does it through a suspend; 6.12 may not
 * suspend under reconfig_mutex, and its suspend would not quiesce.
 */
static inline void r5j_quiesce_cycle(struct mddev *mddev)
{
#ifdef R5J_HAVE_SUSPEND_UNLOCKED
	mddev->pers->quiesce(mddev, 1);
	mddev->pers->quiesce(mddev, 0);
#else
	mddev_suspend(mddev);
	mddev_resume(mddev);
#endif
}

/*
 * Drain the personality running the array before a takeover frees it and
 * moves its journal (Documentation/reshape.md 8.1): 6.1's mddev_suspend()
 * after ->takeover quiesces it; 6.12's level_store() has suspended the
 * array before ->takeover and never quiesces the old personality.
 */
static inline void r5j_takeover_drain(struct mddev *mddev)
{
#ifdef R5J_HAVE_SUSPEND_UNLOCKED
	mddev->pers->quiesce(mddev, 1);
	mddev->pers->quiesce(mddev, 0);
#endif
}

/* r5j_compat.c */
int r5j_set_queue_limits(struct mddev *mddev, unsigned int io_min,
			 unsigned int io_opt, unsigned int max_hw_sectors);

/* The personality operations whose prototypes differ: R5J_COMPAT_OPS. */
#ifdef R5J_HAVE_SYNC_MAX_SECTOR
/*
 * md core passes the end of the pass; it is dev_sectors for resync and
 * recovery alike (resync_max_sectors = dev_sectors), which @fn reads
 * itself.  Instantiated next to @fn (r5j_request.c), so that this layer
 * calls nothing above it.
 */
#define R5J_SYNC_REQUEST_OP(fn)						\
sector_t fn##_op(struct mddev *mddev, sector_t sector_nr,		\
		 sector_t max_sector, int *skipped)			\
{									\
	return fn(mddev, sector_nr, skipped);				\
}
sector_t r5j_sync_request_op(struct mddev *mddev, sector_t sector_nr,
			     sector_t max_sector, int *skipped);
#define R5J_OP_SYNC_REQUEST	r5j_sync_request_op
#else
#define R5J_SYNC_REQUEST_OP(fn)
#define R5J_OP_SYNC_REQUEST	r5j_sync_request
#endif
#ifdef R5J_HAVE_BITMAP_SECTOR
void r5j_bitmap_sector(struct mddev *mddev, sector_t *offset,
		       unsigned long *sectors);
#define R5J_COMPAT_OPS						\
	.sync_request	= R5J_OP_SYNC_REQUEST,			\
	.bitmap_sector	= r5j_bitmap_sector
#else
#define R5J_COMPAT_OPS						\
	.sync_request	= R5J_OP_SYNC_REQUEST
#endif

#endif
