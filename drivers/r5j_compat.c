// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j: the out-of-line half of r5j_compat.h (queue limits and the
 * personality operations whose prototypes differ between 6.1 and 6.12).
 */
#include <linux/slab.h>
#include "r5j.h"

#ifdef R5J_HAVE_ATOMIC_LIMITS
/* 6.12: limits are built apart and committed at once (queue frozen). */
int r5j_set_queue_limits(struct mddev *mddev, unsigned int io_min,
			 unsigned int io_opt, unsigned int max_hw_sectors)
{
	struct queue_limits lim;
	int err;

	if (mddev_is_dm(mddev))
		return 0;
	md_init_stacking_limits(&lim);
	lim.io_min = io_min;
	lim.io_opt = io_opt;
	lim.features |= BLK_FEAT_RAID_PARTIAL_STRIPES_EXPENSIVE;
	err = mddev_stack_rdev_limits(mddev, &lim, 0);
	if (err)
		return err;
	/*
	 * Blocks must not change behind parity's back: no discard, write
	 * zeroes or secure erase, whatever the members offer (the stacking
	 * keeps any member's limit).
	 */
	lim.max_hw_discard_sectors = 0;
	lim.max_write_zeroes_sectors = 0;
	lim.max_secure_erase_sectors = 0;
	lim.max_hw_sectors = max_hw_sectors;
	lim.max_segments = USHRT_MAX;
	return queue_limits_set(mddev->gendisk->queue, &lim);
}
#else
int r5j_set_queue_limits(struct mddev *mddev, unsigned int io_min,
			 unsigned int io_opt, unsigned int max_hw_sectors)
{
	struct request_queue *q = mddev->queue;
	struct md_rdev *rdev;

	if (!q)
		return 0;
	blk_queue_io_min(q, io_min);
	blk_queue_io_opt(q, io_opt);
	q->limits.raid_partial_stripes_expensive = 1;
	rdev_for_each(rdev, mddev)
		disk_stack_limits(mddev->gendisk, rdev->bdev,
				  rdev->data_offset << 9);
	blk_queue_max_discard_sectors(q, 0);
	blk_queue_max_write_zeroes_sectors(q, 0);
	blk_queue_max_secure_erase_sectors(q, 0);
	blk_queue_max_hw_sectors(q, max_hw_sectors);
	blk_queue_max_segments(q, USHRT_MAX);
	return 0;
}
#endif

#ifdef R5J_HAVE_BITMAP_SECTOR
/*
 * md_account_bio() would count a write in the bitmap for its whole range;
 * the engine counts every stripe itself when the stripe takes the write
 * (r5j_request.c), so that bitmap flushes and quiesce stay ordered as on
 * 6.1.  An empty range makes md core's count a no-op.
 */
void r5j_bitmap_sector(struct mddev *mddev, sector_t *offset,
		       unsigned long *sectors)
{
	*sectors = 0;
}
#endif

#ifdef R5J_HAVE_SHRINKER_ALLOC
/* 6.12: the kernel allocates the shrinker, private_data carries @priv. */
struct shrinker *r5j_shrinker_create(void *priv, const char *name,
				     unsigned long (*count)(struct shrinker *,
							    struct shrink_control *),
				     unsigned long (*scan)(struct shrinker *,
							   struct shrink_control *))
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	s->private_data = priv;
	shrinker_register(s);
	return s;
}

void r5j_shrinker_destroy(struct shrinker *s)
{
	if (s)
		shrinker_free(s);
}

void *r5j_shrinker_priv(struct shrinker *s)
{
	return s->private_data;
}
#else
/* 6.1: the caller's struct shrinker, @priv beside it. */
struct r5j_shrinker {
	struct shrinker s;
	void *priv;
};

struct shrinker *r5j_shrinker_create(void *priv, const char *name,
				     unsigned long (*count)(struct shrinker *,
							    struct shrink_control *),
				     unsigned long (*scan)(struct shrinker *,
							   struct shrink_control *))
{
	struct r5j_shrinker *rs = kzalloc(sizeof(*rs), GFP_KERNEL);

	if (!rs)
		return NULL;
	rs->s.count_objects = count;
	rs->s.scan_objects = scan;
	rs->s.seeks = DEFAULT_SEEKS;
	rs->priv = priv;
	if (register_shrinker(&rs->s, "%s", name)) {
		kfree(rs);
		return NULL;
	}
	return &rs->s;
}

void r5j_shrinker_destroy(struct shrinker *s)
{
	if (!s)
		return;
	unregister_shrinker(s);
	kfree(container_of(s, struct r5j_shrinker, s));
}

void *r5j_shrinker_priv(struct shrinker *s)
{
	return container_of(s, struct r5j_shrinker, s)->priv;
}
#endif
