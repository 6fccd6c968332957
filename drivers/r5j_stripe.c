// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j stripe cache: allocation, lookup by dev sector, reference counting
 * and the lists a stripe moves between (see the diagram in r5j.h).
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include "r5j.h"
#include "r5j_trace.h"

/* write-back: percent of the cache free before waiting writers go on */
#define R5J_FREE_SHARE	25

static struct hlist_head *stripe_hash(struct r5j_conf *conf, sector_t sector)
{
	return &conf->hash[hash_64(sector >> R5J_STRIPE_SHIFT, R5J_HASH_SHIFT)];
}

static void free_stripe(struct r5j_stripe *sh, int disks)
{
	int i;

	for (i = 0; i < disks; i++) {
		if (sh->dev[i].page)
			put_page(sh->dev[i].page);
		if (sh->dev[i].orig)
			put_page(sh->dev[i].orig);
		kfree(sh->dev[i].io);
		kfree(sh->dev[i].rio);
	}
	kfree(sh->wb_entry);	/* never reloaded: the journal has it */
	kfree(sh);
}

static struct r5j_stripe *alloc_stripe(struct r5j_conf *conf, gfp_t gfp)
{
	struct r5j_stripe *sh;
	int i;

	sh = kzalloc(struct_size(sh, dev, conf->pool_disks), gfp);
	if (!sh)
		return NULL;
	for (i = 0; i < conf->pool_disks; i++) {
		sh->dev[i].page = alloc_page(gfp);
		sh->dev[i].io = kzalloc(sizeof(*sh->dev[i].io), gfp);
		sh->dev[i].rio = kzalloc(sizeof(*sh->dev[i].rio), gfp);
		if (!sh->dev[i].page || !sh->dev[i].io || !sh->dev[i].rio) {
			free_stripe(sh, conf->pool_disks);
			return NULL;
		}
		sh->dev[i].io->sh = sh;
		sh->dev[i].io->idx = i;
		sh->dev[i].rio->sh = sh;
		sh->dev[i].rio->idx = i;
		sh->dev[i].rio->replacement = true;
		r5j_blist_init(&sh->dev[i].toread);
		r5j_blist_init(&sh->dev[i].towrite);
		r5j_blist_init(&sh->dev[i].written);
	}
	sh->conf = conf;
	spin_lock_init(&sh->lock);
	INIT_HLIST_NODE(&sh->hash);
	INIT_LIST_HEAD(&sh->lru);
	INIT_LIST_HEAD(&sh->log_list);
	atomic_set(&sh->count, 0);
	atomic_set(&sh->io_pending, 0);
	return sh;
}

/* Point an idle stripe at a new sector; its pages no longer mean anything. */
static void init_stripe(struct r5j_conf *conf, struct r5j_stripe *sh,
			sector_t sector, bool prev)
{
	int i;

	sh->sector = sector;
	sh->prev = prev;
	sh->geom = prev ? &conf->rs.prev : &conf->geom;
	sh->disks = sh->geom->raid_disks;
	sh->new_offset = conf->reshaping && !prev;
	sh->state = 0;
	sh->bm_seq = 0;
	sh->failed_io = 0;
	sh->write_stage = R5J_W_IDLE;
	sh->unit = NULL;
	sh->dirty_unit = NULL;
	sh->wb_entry = NULL;
	r5j_stripe_parity(sh->geom, sector, &sh->map);
	for (i = 0; i < conf->pool_disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		dev->flags = 0;
		dev->towrite_mask = 0;
		/* a logged copy of the previous use is not this block's */
		dev->log_pos = R5J_NO_LOG_POS;
		dev->log_csum = 0;
		dev->array_sector = i >= sh->disks || r5j_is_parity(sh, i) ?
			0 : r5j_array_sector_of(sh->geom, sector, i);
	}
}

static int grow_one(struct r5j_conf *conf, gfp_t gfp)
{
	struct r5j_stripe *sh = alloc_stripe(conf, gfp);

	if (!sh)
		return -ENOMEM;
	sh->sector = MaxSector;
	spin_lock_irq(&conf->lock);
	list_add_tail(&sh->lru, &conf->inactive);
	conf->nr_free++;
	conf->nr_stripes++;
	spin_unlock_irq(&conf->lock);
	wake_up(&conf->wait_for_stripe);
	return 0;
}

/*
 * Free idle stripes, least recently used first, while more than @floor
 * are allocated; at most @max of them.  Returns how many went.
 */
static unsigned long drop_idle(struct r5j_conf *conf, int floor,
			       unsigned long max)
{
	struct r5j_stripe *sh;
	unsigned long n = 0;

	while (n < max) {
		spin_lock_irq(&conf->lock);
		if (conf->nr_stripes <= floor || list_empty(&conf->inactive)) {
			spin_unlock_irq(&conf->lock);
			break;
		}
		sh = list_last_entry(&conf->inactive, struct r5j_stripe, lru);
		list_del_init(&sh->lru);
		hlist_del_init(&sh->hash);
		conf->nr_free--;
		conf->nr_stripes--;
		spin_unlock_irq(&conf->lock);
		free_stripe(sh, conf->pool_disks);
		n++;
	}
	return n;
}

/* Free idle stripes until at most @size remain; true when done. */
static bool shrink_to(struct r5j_conf *conf, int size)
{
	drop_idle(conf, size, ULONG_MAX);
	return READ_ONCE(conf->nr_stripes) <= size;
}

/*
 * Change stripe_cache_size.  Growing allocates now; shrinking frees idle
 * stripes now and the daemon frees the rest as they go idle (waiting here,
 * under reconfig_mutex, could wait for a journal reclaim that needs it).
 */
int r5j_cache_resize(struct r5j_conf *conf, int size)
{
	int err = 0;

	if (size < R5J_MIN_STRIPES || size > R5J_MAX_STRIPES)
		return -EINVAL;
	mutex_lock(&conf->cache_mutex);
	conf->max_nr_stripes = size;
	while (conf->nr_stripes < size && !err)
		err = grow_one(conf, GFP_KERNEL);
	shrink_to(conf, size);
	mutex_unlock(&conf->cache_mutex);
	return err;
}

/*
 * Stripes the cache works with: stripe_cache_size, or fewer while the
 * shrinker has taken some and the daemon has not grown them back.  The
 * write-back shares (free_enough(), r5j_dirty_mark()) are taken of it,
 * so that a shrunk cache makes progress as a small one does.
 */
static int cache_size(struct r5j_conf *conf)
{
	return max(min(READ_ONCE(conf->nr_stripes),
		       READ_ONCE(conf->max_nr_stripes)), R5J_MIN_STRIPES);
}

/*
 * Daemon: free idle stripes beyond stripe_cache_size (extra ones, or
 * after the size went down), and grow back what the shrinker took, a
 * batch a pass and not within R5J_REGROW_DELAY of its last scan.  The
 * daemon writes what reclaim waits for: it never waits for the mutex,
 * and its allocations neither do I/O nor retry.
 */
void r5j_cache_adjust(struct r5j_conf *conf)
{
	int n = READ_ONCE(conf->nr_stripes), max = READ_ONCE(conf->max_nr_stripes);
	int batch = R5J_REGROW_BATCH;

	if (n == max || (n < max && time_before(jiffies, READ_ONCE(conf->shrunk_at) +
						R5J_REGROW_DELAY)) ||
	    !mutex_trylock(&conf->cache_mutex))
		return;
	if (n > max)
		shrink_to(conf, max);
	while (conf->nr_stripes < conf->max_nr_stripes && batch-- &&
	       !grow_one(conf, GFP_NOIO | __GFP_NOWARN | __GFP_NORETRY))
		;
	mutex_unlock(&conf->cache_mutex);
}

static unsigned long cache_count(struct shrinker *s, struct shrink_control *sc)
{
	struct r5j_conf *conf = r5j_shrinker_priv(s);
	int n = min(READ_ONCE(conf->nr_free),
		    READ_ONCE(conf->nr_stripes) - R5J_MIN_STRIPES);

	return n > 0 ? n : SHRINK_EMPTY;
}

/*
 * Memory pressure: idle stripes go (their pages are only a read cache),
 * down to R5J_MIN_STRIPES; stripes in use or dirty stay.  A resize or
 * repool under way owns the pool: skip this round rather than wait.
 */
static unsigned long cache_scan(struct shrinker *s, struct shrink_control *sc)
{
	struct r5j_conf *conf = r5j_shrinker_priv(s);
	unsigned long n;

	if (!mutex_trylock(&conf->cache_mutex))
		return SHRINK_STOP;
	n = drop_idle(conf, R5J_MIN_STRIPES, sc->nr_to_scan);
	WRITE_ONCE(conf->shrunk_at, jiffies);
	mutex_unlock(&conf->cache_mutex);
	atomic64_add(n, &conf->stats.stripes_shrunk);
	return n ? n : SHRINK_STOP;
}

int r5j_cache_init(struct r5j_conf *conf)
{
	char name[48];
	int i, err;

	conf->hash = kcalloc(1 << R5J_HASH_SHIFT, sizeof(*conf->hash),
			     GFP_KERNEL);
	if (!conf->hash)
		return -ENOMEM;
	for (i = 0; i < (1 << R5J_HASH_SHIFT); i++)
		INIT_HLIST_HEAD(&conf->hash[i]);
	mutex_init(&conf->cache_mutex);
	if (r5j_wbcache_init(conf))
		return -ENOMEM;
	err = r5j_cache_resize(conf, R5J_DEFAULT_STRIPES);
	if (err)
		return err;
	/* without it the cache keeps its size under memory pressure */
	snprintf(name, sizeof(name), "raid5j-stripes-%s", mdname(conf->mddev));
	conf->cache_shrinker = r5j_shrinker_create(conf, name, cache_count,
						   cache_scan);
	return 0;
}

void r5j_cache_free(struct r5j_conf *conf)
{
	struct list_head *l;

	if (conf->cache_shrinker)
		r5j_shrinker_destroy(conf->cache_shrinker);
	conf->cache_shrinker = NULL;
	/* stripes a destage could not finish: the journal still has them */
	spin_lock_irq(&conf->lock);
	list_for_each(l, &conf->dirty_list)
		conf->nr_free++;
	list_splice_init(&conf->dirty_list, &conf->inactive);
	spin_unlock_irq(&conf->lock);
	if (conf->hash)
		WARN_ON(!shrink_to(conf, 0) || conf->nr_free);
	kfree(conf->hash);
	conf->hash = NULL;
	r5j_wbcache_free(conf);
}

static struct r5j_stripe *lookup(struct r5j_conf *conf, sector_t sector,
				 bool prev)
{
	struct r5j_stripe *sh;

	hlist_for_each_entry(sh, stripe_hash(conf, sector), hash)
		if (sh->sector == sector && sh->prev == prev)
			return sh;
	return NULL;
}

/*
 * Reshape: is a stripe of rows [lo, hi) of one geometry in use (or
 * waiting for the daemon)?  Idle ones may keep their pages.
 */
bool r5j_stripes_busy(struct r5j_conf *conf, sector_t lo, sector_t hi,
		      bool prev)
{
	struct r5j_stripe *sh;
	bool busy = false;
	sector_t s;

	spin_lock_irq(&conf->lock);
	for (s = lo; s < hi && !busy; s += R5J_STRIPE_SECTORS) {
		sh = lookup(conf, s, prev);
		busy = sh && (atomic_read(&sh->count) ||
			      test_bit(R5J_STRIPE_ON_LIST, &sh->state));
	}
	spin_unlock_irq(&conf->lock);
	return busy;
}

/*
 * Reallocate every stripe with @disks pages (a reshape adding members).
 * The array is quiesced: every stripe is idle (no journal: none dirty).
 */
int r5j_cache_repool(struct r5j_conf *conf, int disks)
{
	if (disks <= conf->pool_disks)
		return 0;
	/* no stripe of the old pool size may be freed or added meanwhile */
	mutex_lock(&conf->cache_mutex);
	if (!shrink_to(conf, 0)) {
		mutex_unlock(&conf->cache_mutex);
		return -EBUSY;
	}
	conf->pool_disks = disks;
	mutex_unlock(&conf->cache_mutex);
	return r5j_cache_resize(conf, conf->max_nr_stripes);
}

/*
 * Drop every idle stripe from the lookup (a reshape starts): cached pages
 * hold the old geometry, and the (sector, prev) key now names others.
 * The array is suspended and has no journal: no stripe is in use.
 */
int r5j_cache_forget(struct r5j_conf *conf)
{
	struct r5j_stripe *sh;
	int err = 0;

	spin_lock_irq(&conf->lock);
	list_for_each_entry(sh, &conf->inactive, lru) {
		hlist_del_init(&sh->hash);
		sh->sector = MaxSector;
	}
	if (conf->nr_free != conf->nr_stripes)
		err = -EBUSY;
	spin_unlock_irq(&conf->lock);
	return err;
}

/*
 * Write-back: once a request has found no free stripe, later ones wait
 * too until R5J_FREE_SHARE percent of the cache is free again (the
 * destage batch goes on meanwhile), then all go.  Handing each freed
 * stripe to the next waiter instead makes every write wait for a
 * destage; this way most go straight through and a few wait a batch
 * (Documentation/journal.md section 15, "Destage policy").  Capped by
 * what a batch leaves free (dirty_low, stuck stripes), so that a wait
 * never depends on the age limit.
 */
static bool free_enough(struct r5j_conf *conf)
{
	int max = cache_size(conf);
	int keep = max(r5j_dirty_mark(conf, READ_ONCE(conf->dirty_low)),
		       atomic_read(&conf->stuck_stripes));
	int want = min(max * R5J_FREE_SHARE / 100, max - keep);

	return conf->nr_free >= max(want, 1);
}

/* Only user writes (R5J_GET_WRITE) wait for the share; see above. */
static bool may_take_free(struct r5j_conf *conf, int flags)
{
	return !list_empty(&conf->inactive) &&
	       (!(flags & R5J_GET_WRITE) || !conf->stripes_blocked ||
		free_enough(conf));
}

/*
 * Take a reference on the stripe for @sector, reusing the least recently
 * used idle stripe if it is not cached.  Sleeps for a free stripe unless
 * R5J_GET_NOBLOCK; sleeps while the array is quiesced unless
 * R5J_GET_NOQUIESCE.  R5J_GET_WRITE: a user write, which the writers'
 * hysteresis (free_enough()) applies to; the daemon's getters (reload of
 * evicted stripes), resync/check and reads take any free stripe, so
 * that the destage which frees the share is never held up by it.
 */
struct r5j_stripe *r5j_get_stripe(struct r5j_conf *conf, sector_t sector,
				  int flags)
{
	return r5j_get_stripe_geom(conf, sector, false, flags);
}

/* The same for the stripe at @sector of the previous geometry (@prev). */
struct r5j_stripe *r5j_get_stripe_geom(struct r5j_conf *conf, sector_t sector,
				       bool prev, int flags)
{
	struct r5j_stripe *sh;

	spin_lock_irq(&conf->lock);
	for (;;) {
		if (!(flags & R5J_GET_NOQUIESCE))
			wait_event_lock_irq(conf->wait_quiesce, !conf->quiesce,
					    conf->lock);
		sh = lookup(conf, sector, prev);
		if (sh) {
			if (atomic_inc_return(&sh->count) == 1) {
				/* idle: inactive, dirty_list or handle_list */
				if (!test_bit(R5J_STRIPE_ON_LIST, &sh->state) &&
				    !test_bit(R5J_STRIPE_DIRTY, &sh->state))
					conf->nr_free--;
				list_del_init(&sh->lru);
				clear_bit(R5J_STRIPE_ON_LIST, &sh->state);
				conf->active_stripes++;
			}
			break;
		}
		if (!list_empty(&conf->inactive) &&
		    (!(flags & R5J_GET_WRITE) || !conf->stripes_blocked)) {
			if (conf->stripes_blocked && !free_enough(conf))
				atomic64_inc(&conf->stats.stripe_unblocked);
			sh = list_last_entry(&conf->inactive, struct r5j_stripe,
					     lru);
			list_del_init(&sh->lru);
			hlist_del_init(&sh->hash);
			conf->nr_free--;
			init_stripe(conf, sh, sector, prev);
			hlist_add_head(&sh->hash, stripe_hash(conf, sector));
			r5j_wbcache_attach(conf, sh);	/* evicted: reload */
			atomic_set(&sh->count, 1);
			conf->active_stripes++;
			break;
		}
		if (flags & R5J_GET_NOBLOCK) {
			sh = NULL;
			break;
		}
		atomic64_inc(&conf->stats.stripe_waits);
		md_wakeup_thread(conf->mddev->thread);
		if ((flags & R5J_GET_WRITE) && READ_ONCE(conf->writeback))
			conf->stripes_blocked = true;
		wait_event_lock_irq(conf->wait_for_stripe,
				    may_take_free(conf, flags) ||
				    (conf->quiesce && !(flags & R5J_GET_NOQUIESCE)),
				    conf->lock);
		if (flags & R5J_GET_WRITE)
			conf->stripes_blocked = false;
	}
	spin_unlock_irq(&conf->lock);
	if (sh)
		trace_r5j_stripe_get(sh);
	return sh;
}

/*
 * Drop a reference.  Callable from bio completion (any context).  The last
 * reference hands the stripe to the daemon if it has work, else makes it
 * idle.
 */
void r5j_release_stripe(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	unsigned long flags;
	bool wake_daemon = false;

	if (atomic_add_unless(&sh->count, -1, 1))
		return;

	spin_lock_irqsave(&conf->lock, flags);
	if (atomic_dec_and_test(&sh->count)) {
		trace_r5j_stripe_release(sh);
		conf->active_stripes--;
		if (test_bit(R5J_STRIPE_HANDLE, &sh->state)) {
			list_add_tail(&sh->lru, &conf->handle_list);
			set_bit(R5J_STRIPE_ON_LIST, &sh->state);
			wake_daemon = true;
		} else if (test_bit(R5J_STRIPE_DIRTY, &sh->state)) {
			/* not reusable before its destage */
			list_add_tail(&sh->lru, &conf->dirty_list);
			if (conf->quiesce)
				wake_up(&conf->wait_quiesce);
		} else {
			list_add(&sh->lru, &conf->inactive);
			conf->nr_free++;
			wake_up(&conf->wait_for_stripe);
			if (conf->quiesce)
				wake_up(&conf->wait_quiesce);
		}
	}
	spin_unlock_irqrestore(&conf->lock, flags);
	if (wake_daemon)
		md_wakeup_thread(conf->mddev->thread);
}

/*
 * Daemon, write-back cache: a stripe head beyond stripe_cache_size for
 * the evicted stripe at @sector when none is free (journal.md L18),
 * at most @extra of them (R5J_WB_EXTRA_STRIPES, plus L12 X pool);
 * r5j_cache_adjust() frees it once idle.  NULL: at the limit or no memory.
 */
struct r5j_stripe *r5j_get_stripe_extra(struct r5j_conf *conf,
					sector_t sector, bool prev, int extra)
{
	struct r5j_stripe *sh, *found;

	if (READ_ONCE(conf->nr_stripes) >=
	    READ_ONCE(conf->max_nr_stripes) + extra)
		return NULL;
	sh = alloc_stripe(conf, GFP_NOIO);
	if (!sh)
		return NULL;
	spin_lock_irq(&conf->lock);
	found = lookup(conf, sector, prev);
	if (found) {
		spin_unlock_irq(&conf->lock);
		free_stripe(sh, conf->pool_disks);
		return r5j_get_stripe_geom(conf, sector, prev,
					   R5J_GET_NOBLOCK | R5J_GET_NOQUIESCE);
	}
	conf->nr_stripes++;
	init_stripe(conf, sh, sector, prev);
	hlist_add_head(&sh->hash, stripe_hash(conf, sector));
	r5j_wbcache_attach(conf, sh);
	atomic_set(&sh->count, 1);
	conf->active_stripes++;
	spin_unlock_irq(&conf->lock);
	trace_r5j_stripe_get(sh);
	return sh;
}

/* Daemon: next stripe that needs handling, with a reference, or NULL. */
struct r5j_stripe *r5j_next_handle(struct r5j_conf *conf)
{
	struct r5j_stripe *sh = NULL;

	spin_lock_irq(&conf->lock);
	if (!list_empty(&conf->handle_list)) {
		sh = list_first_entry(&conf->handle_list, struct r5j_stripe,
				      lru);
		list_del_init(&sh->lru);
		clear_bit(R5J_STRIPE_ON_LIST, &sh->state);
		atomic_inc(&sh->count);
		conf->active_stripes++;
		clear_bit(R5J_STRIPE_HANDLE, &sh->state);
	}
	spin_unlock_irq(&conf->lock);
	return sh;
}

int r5j_active_stripes(struct r5j_conf *conf)
{
	return READ_ONCE(conf->active_stripes);
}

/*
 * Chunk-aligned reads: has a stripe of member range [sector, +sectors)
 * dirty blocks, cached or evicted?  One lock round for the whole read.
 */
bool r5j_range_dirty(struct r5j_conf *conf, sector_t sector,
		     unsigned int sectors)
{
	sector_t s = round_down(sector, R5J_STRIPE_SECTORS);
	struct r5j_stripe *sh;
	bool dirty;

	spin_lock_irq(&conf->lock);
	/* a stripe is cached or evicted, never both (L16) */
	dirty = r5j_wbcache_has_range(conf, s, sector + sectors);
	/* the cache is looked at only if some dirty stripe is in it */
	if (atomic_read(&conf->dirty_stripes) <= (int)r5j_wbcache_evicted(conf))
		s = sector + sectors;
	for (; !dirty && s < sector + sectors; s += R5J_STRIPE_SECTORS) {
		sh = lookup(conf, s, false);
		dirty = sh && test_bit(R5J_STRIPE_DIRTY, &sh->state);
	}
	spin_unlock_irq(&conf->lock);
	return dirty;
}

/*
 * REQ_NOWAIT: could @n stripes be taken now without sleeping (@flags as
 * for r5j_get_stripe())?  Only a hint, others may take them first: a
 * request can be refused before its first share is attached, not after.
 */
bool r5j_stripes_free_now(struct r5j_conf *conf, unsigned int n, int flags)
{
	bool ok;

	spin_lock_irq(&conf->lock);
	ok = !conf->quiesce && conf->nr_free >= n &&
	     (!(flags & R5J_GET_WRITE) || !conf->stripes_blocked);
	spin_unlock_irq(&conf->lock);
	return ok;
}

/* @percent of stripe_cache_size, in stripes */
int r5j_dirty_mark(struct r5j_conf *conf, int percent)
{
	return cache_size(conf) * percent / 100;
}
