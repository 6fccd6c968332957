// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j write-back: evicted dirty stripes, the journal as the cache
 * (Documentation/journal.md section 15, "Run time", L15-L18).
 *
 * An idle dirty stripe whose head is wanted is evicted: an entry keeps
 * its dirty pages (a RAM copy, which a shrinker drops under memory
 * pressure), where the journal holds each dirty block (ring position,
 * checksum) and the unit the stripe pins.  Getting the stripe again
 * attaches the entry to a new head: the RAM copy if it is still there,
 * else the daemon reads the blocks back from the journal before it does
 * anything else with it.  A journal that dies loses only blocks whose
 * RAM copy was dropped.
 * Entries are destaged, reloaded in free stripe heads, when the journal
 * passes writeback_log_high (oldest pinned first), when they age, and on
 * quiesce, mode switch and journal failure.
 */
#include <linux/rbtree.h>
#include <linux/slab.h>
#include "r5j.h"
#include "r5j_journal_int.h"
#include "r5j_trace.h"

/* reloads queued per call, so the daemon handles them in between */
#define R5J_WB_RELOAD_BATCH	32

struct r5j_wb_block {
	u64 pos;			/* ring sector of the logged copy */
	u32 csum;			/* its checksum (its DATA payload's) */
	u16 idx;			/* device index in the stripe */
	struct page *page;		/* RAM copy; NULL: only in the journal */
};

struct r5j_wb_entry {
	struct rb_node by_sector;	/* wbc->sectors: (sector, prev) */
	struct rb_node by_pin;		/* wbc->pins: (pin seq, sector, prev) */
	struct list_head in_ram;	/* wbc->in_ram while it has RAM copies */
	sector_t sector;
	struct r5j_log_unit *dirty_unit;	/* pinned (L9) */
	unsigned int dirty_tick;
	bool prev;
	bool reading;			/* daemon: journal reads submitted */
	bool hot;			/* R5J_STRIPE_HOT */
	u16 nr;
	atomic_t errors;		/* journal reads that failed */
	struct r5j_wb_block blk[];
};

struct r5j_wbcache {
	struct rb_root sectors;		/* conf->lock */
	struct rb_root pins;		/* conf->lock */
	unsigned int evicted;		/* entries (conf->lock) */
	struct list_head in_ram;	/* entries with RAM copies, oldest first */
	u64 shrunk;			/* entries whose RAM copy went (conf->lock) */
	atomic64_t ram_pages;		/* pages of RAM copies */
	struct shrinker *shrinker;
	u64 evictions;			/* conf->lock */
	bool aging;			/* daemon: aged entries left to reload */
	atomic64_t journal_reads;	/* blocks read back */
	atomic64_t read_failures;	/* blocks that did not check out */
	atomic64_t lost_blocks;		/* recorded bad: destage_lost() */
	atomic64_t dirty_blocks;	/* R5J_DIRTY, in memory or evicted */
	/* where write-back's p99 latency comes from (Documentation/lab/notes-p99.md, section 4) */
	atomic64_t destage_submits;	/* destages' member writes queued */
	atomic64_t destage_deep;	/* of those, behind a deep queue */
	atomic64_t member_queue_max;	/* deepest queue a destage met */
	atomic64_t write_waits;		/* writes to a row in destage */
};

/* Drop @e's RAM copies (conf->lock held): the journal has the blocks. */
static unsigned long drop_ram(struct r5j_wbcache *wbc, struct r5j_wb_entry *e)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < e->nr; i++) {
		if (!e->blk[i].page)
			continue;
		put_page(e->blk[i].page);
		e->blk[i].page = NULL;
		n++;
	}
	list_del_init(&e->in_ram);
	atomic64_sub(n, &wbc->ram_pages);
	return n;
}

static unsigned long shrink_count(struct shrinker *s,
				  struct shrink_control *sc)
{
	struct r5j_conf *conf = r5j_shrinker_priv(s);
	s64 n = atomic64_read(&conf->wbc->ram_pages);

	return n > 0 ? n : SHRINK_EMPTY;
}

/*
 * Memory pressure: the oldest entries' RAM copies go, their blocks stay in
 * the journal (what a reload then reads).  Any context the shrinkers run
 * in; conf->lock is never held across an allocation that reclaims.
 */
static unsigned long shrink_scan(struct shrinker *s,
				 struct shrink_control *sc)
{
	struct r5j_conf *conf = r5j_shrinker_priv(s);
	struct r5j_wbcache *wbc = conf->wbc;
	unsigned long freed = 0;

	spin_lock_irq(&conf->lock);
	while (freed < sc->nr_to_scan && !list_empty(&wbc->in_ram)) {
		freed += drop_ram(wbc, list_first_entry(&wbc->in_ram,
							struct r5j_wb_entry,
							in_ram));
		wbc->shrunk++;
	}
	spin_unlock_irq(&conf->lock);
	return freed ? freed : SHRINK_STOP;
}

int r5j_wbcache_init(struct r5j_conf *conf)
{
	char name[48];

	conf->wbc = kzalloc(sizeof(*conf->wbc), GFP_KERNEL);
	if (!conf->wbc)
		return -ENOMEM;
	conf->wbc->sectors = RB_ROOT;
	conf->wbc->pins = RB_ROOT;
	INIT_LIST_HEAD(&conf->wbc->in_ram);
	conf->log_high = R5J_LOG_HIGH;
	/* without it, entries keep no RAM copy (journal only) */
	snprintf(name, sizeof(name), "raid5j-%s", mdname(conf->mddev));
	conf->wbc->shrinker = r5j_shrinker_create(conf, name, shrink_count,
						  shrink_scan);
	return 0;
}

/* Stop: entries left are in the journal, which recovery reads. */
void r5j_wbcache_free(struct r5j_conf *conf)
{
	struct r5j_wb_entry *e, *n;

	if (!conf->wbc)
		return;
	r5j_shrinker_destroy(conf->wbc->shrinker);
	rbtree_postorder_for_each_entry_safe(e, n, &conf->wbc->sectors,
					     by_sector) {
		drop_ram(conf->wbc, e);
		kfree(e);
	}
	kfree(conf->wbc);
	conf->wbc = NULL;
}

void r5j_wbcache_count(struct r5j_conf *conf, int blocks)
{
	if (conf->wbc)
		atomic64_add(blocks, &conf->wbc->dirty_blocks);
}

/* Dirty blocks lost and recorded as bad blocks (destage_lost()). */
void r5j_wbcache_count_lost(struct r5j_conf *conf, int blocks)
{
	if (conf->wbc)
		atomic64_add(blocks, &conf->wbc->lost_blocks);
}

/* Dirty blocks, in memory or evicted (what raid456 would rewrite). */
u64 r5j_wbcache_dirty_blocks(struct r5j_conf *conf)
{
	s64 d = conf->wbc ? atomic64_read(&conf->wbc->dirty_blocks) : 0;

	return d > 0 ? d : 0;
}

static int key_cmp(sector_t s1, bool p1, sector_t s2, bool p2)
{
	if (s1 != s2)
		return s1 < s2 ? -1 : 1;
	return (int)p1 - (int)p2;
}

static int pin_cmp(const struct r5j_wb_entry *a, const struct r5j_wb_entry *b)
{
	if (a->dirty_unit->seq != b->dirty_unit->seq)
		return a->dirty_unit->seq < b->dirty_unit->seq ? -1 : 1;
	return key_cmp(a->sector, a->prev, b->sector, b->prev);
}

static struct r5j_wb_entry *find(struct r5j_wbcache *wbc, sector_t sector,
				 bool prev)
{
	struct rb_node *node = wbc->sectors.rb_node;

	while (node) {
		struct r5j_wb_entry *e = rb_entry(node, struct r5j_wb_entry,
						  by_sector);
		int c = key_cmp(sector, prev, e->sector, e->prev);

		if (!c)
			return e;
		node = c < 0 ? node->rb_left : node->rb_right;
	}
	return NULL;
}

static void insert(struct r5j_wbcache *wbc, struct r5j_wb_entry *e)
{
	struct rb_node **link = &wbc->sectors.rb_node, *parent = NULL;

	while (*link) {
		struct r5j_wb_entry *o = rb_entry(*link, struct r5j_wb_entry,
						  by_sector);

		parent = *link;
		link = key_cmp(e->sector, e->prev, o->sector, o->prev) < 0 ?
			&parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&e->by_sector, parent, link);
	rb_insert_color(&e->by_sector, &wbc->sectors);
	wbc->evicted++;

	link = &wbc->pins.rb_node;
	parent = NULL;
	while (*link) {
		struct r5j_wb_entry *o = rb_entry(*link, struct r5j_wb_entry,
						  by_pin);

		parent = *link;
		link = pin_cmp(e, o) < 0 ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&e->by_pin, parent, link);
	rb_insert_color(&e->by_pin, &wbc->pins);
}

static void erase(struct r5j_wbcache *wbc, struct r5j_wb_entry *e)
{
	rb_erase(&e->by_sector, &wbc->sectors);
	rb_erase(&e->by_pin, &wbc->pins);
	wbc->evicted--;
}

/* conf->lock held: dirty stripes evicted (in dirty_stripes too) */
unsigned int r5j_wbcache_evicted(struct r5j_conf *conf)
{
	return conf->wbc ? conf->wbc->evicted : 0;
}

/* conf->lock held: is a stripe of [lo, hi) (current geometry) evicted? */
bool r5j_wbcache_has_range(struct r5j_conf *conf, sector_t lo, sector_t hi)
{
	struct rb_node *node, *ge = NULL;

	if (!conf->wbc || !conf->wbc->evicted)
		return false;
	/* the first entry at or after (lo, current) */
	node = conf->wbc->sectors.rb_node;
	while (node) {
		struct r5j_wb_entry *e = rb_entry(node, struct r5j_wb_entry,
						  by_sector);

		if (key_cmp(e->sector, e->prev, lo, false) >= 0) {
			ge = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	for (; ge; ge = rb_next(ge)) {
		struct r5j_wb_entry *e = rb_entry(ge, struct r5j_wb_entry,
						  by_sector);

		if (e->sector >= hi)
			return false;
		if (!e->prev)
			return true;
	}
	return false;
}

/*
 * conf->lock held, @sh just set up for its sector and in the hash: if the
 * stripe was evicted, the new head takes the entry over (L16).  Its
 * dirty blocks are not up to date until r5j_wbcache_reload().
 */
void r5j_wbcache_attach(struct r5j_conf *conf, struct r5j_stripe *sh)
{
	struct r5j_wbcache *wbc = conf->wbc;
	struct r5j_wb_entry *e;
	bool ram = true;
	int i;

	if (!wbc || !wbc->evicted)
		return;
	e = find(wbc, sh->sector, sh->prev);
	if (!e)
		return;
	erase(wbc, e);
	sh->dirty_unit = e->dirty_unit;
	sh->dirty_tick = e->dirty_tick;
	for (i = 0; i < e->nr; i++) {
		struct r5j_wb_block *b = &e->blk[i];
		struct r5j_dev *dev = &sh->dev[b->idx];

		dev->log_pos = b->pos;
		dev->log_csum = b->csum;
		set_bit(R5J_DIRTY, &dev->flags);
		if (!b->page) {
			ram = false;
			continue;
		}
		/* the RAM copy becomes the page: up to date, no journal read */
		swap(dev->page, b->page);
		set_bit(R5J_UPTODATE, &dev->flags);
	}
	drop_ram(wbc, e);	/* the head's former pages */
	set_bit(R5J_STRIPE_DIRTY, &sh->state);
	if (e->hot)
		set_bit(R5J_STRIPE_HOT, &sh->state);
	if (ram)
		kfree(e);
	else
		sh->wb_entry = e;
	/* the daemon reads the blocks back whoever got the stripe */
	set_bit(R5J_STRIPE_HANDLE, &sh->state);
}

/*
 * conf->lock held, @sh idle on dirty_list.  1: evicted, the head is free;
 * 0: not now (L15); -ENOMEM: destage it instead.
 */
static int evict(struct r5j_conf *conf, struct r5j_stripe *sh)
{
	struct r5j_wbcache *wbc = conf->wbc;
	struct r5j_wb_entry *e;
	bool ram = false;
	int i, n = 0;

	if (test_bit(R5J_STRIPE_DESTAGE, &sh->state) ||
	    test_bit(R5J_STRIPE_STUCK, &sh->state) ||
	    test_bit(R5J_STRIPE_SYNC, &sh->state) ||
	    !test_bit(R5J_STRIPE_DIRTY, &sh->state) ||
	    sh->write_stage != R5J_W_IDLE || sh->wb_entry || sh->unit ||
	    !sh->dirty_unit || atomic_read(&sh->count) ||
	    atomic_read(&sh->io_pending))
		return 0;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		if (!r5j_blist_empty(&dev->toread) ||
		    !r5j_blist_empty(&dev->towrite) ||
		    !r5j_blist_empty(&dev->written))
			return 0;
		if (!test_bit(R5J_DIRTY, &dev->flags))
			continue;
		if (!test_bit(R5J_UPTODATE, &dev->flags))
			return 0;
		n++;
	}
	if (!n)
		return 0;
	e = kmalloc(struct_size(e, blk, n), GFP_NOWAIT | __GFP_NOWARN);
	if (!e)
		return -ENOMEM;
	e->sector = sh->sector;
	e->prev = sh->prev;
	e->dirty_unit = sh->dirty_unit;
	e->dirty_tick = sh->dirty_tick;
	e->reading = false;
	e->hot = test_bit(R5J_STRIPE_HOT, &sh->state);
	e->nr = n;
	atomic_set(&e->errors, 0);
	INIT_LIST_HEAD(&e->in_ram);
	n = 0;
	for (i = 0; i < sh->disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];
		struct page *page = NULL;

		if (!test_bit(R5J_DIRTY, &dev->flags))
			continue;
		e->blk[n].pos = dev->log_pos;
		e->blk[n].csum = dev->log_csum;
		e->blk[n].idx = i;
		/* the dirty page stays as the RAM copy, the head gets a new one */
		if (wbc->shrinker)
			page = alloc_page(GFP_NOWAIT | __GFP_NOWARN);
		e->blk[n].page = NULL;
		if (page) {
			e->blk[n].page = dev->page;
			dev->page = page;
			atomic64_inc(&wbc->ram_pages);
			ram = true;
		}
		n++;
	}
	if (ram)
		list_add_tail(&e->in_ram, &wbc->in_ram);
	list_del_init(&sh->lru);
	hlist_del_init(&sh->hash);
	insert(wbc, e);
	wbc->evictions++;
	trace_r5j_wb_evict(sh);
	/* a free head now: its pages mean nothing */
	for (i = 0; i < conf->pool_disks; i++) {
		struct r5j_dev *dev = &sh->dev[i];

		dev->flags = 0;
		if (dev->orig) {
			put_page(dev->orig);
			dev->orig = NULL;
		}
	}
	sh->state = 0;
	sh->dirty_unit = NULL;
	sh->sector = MaxSector;
	list_add_tail(&sh->lru, &conf->inactive);	/* reused first */
	conf->nr_free++;
	return 1;
}

static void reload_end_io(struct bio *bio)
{
	struct r5j_io *io = container_of(bio, struct r5j_io, bio);
	struct r5j_stripe *sh = io->sh;

	if (bio->bi_status)
		atomic_inc(&sh->wb_entry->errors);
	bio_uninit(bio);
	rdev_dec_pending(io->rdev, sh->conf->mddev);
	set_bit(R5J_STRIPE_HANDLE, &sh->state);
	atomic_dec(&sh->io_pending);
	r5j_release_stripe(sh);
}

/* Read one evicted block from the journal into its page. */
static void submit_reload(struct r5j_stripe *sh, struct r5j_journal *log,
			  const struct r5j_wb_block *b)
{
	struct r5j_dev *dev = &sh->dev[b->idx];
	struct r5j_io *io = dev->io;
	struct md_rdev *rdev = log->rdev;

	io->rdev = rdev;
	bio_init(&io->bio, rdev->bdev, &io->vec, 1, REQ_OP_READ);
	io->bio.bi_iter.bi_sector = rdev->data_offset + b->pos;
	__bio_add_page(&io->bio, dev->page, PAGE_SIZE, 0);
	io->bio.bi_end_io = reload_end_io;
	atomic_inc(&sh->io_pending);
	atomic_inc(&sh->count);		/* off every list until read (L17) */
	atomic_inc(&rdev->nr_pending);
	submit_bio_noacct(&io->bio);
}

/*
 * Daemon, first thing for a stripe with an entry (L17): read its
 * dirty blocks back from the journal, then check them.  true: reads in
 * flight.  A block that does not check out is R5J_LOST: the stripe's
 * next step is destage_lost() (r5j_handle.c), nothing reads the page.
 */
bool r5j_wbcache_reload(struct r5j_stripe *sh)
{
	struct r5j_conf *conf = sh->conf;
	struct r5j_wb_entry *e = sh->wb_entry;
	struct r5j_journal *log = conf->log;
	int i, bad = 0;

	if (!e->reading) {
		trace_r5j_wb_reload(sh);
		e->reading = true;
		if (log) {
			for (i = 0; i < e->nr; i++) {
				if (test_bit(R5J_UPTODATE,
					     &sh->dev[e->blk[i].idx].flags) ||
				    e->blk[i].pos + R5J_BLOCK_SECTORS >
				    log->fmt.ring_sectors)
					continue;
				submit_reload(sh, log, &e->blk[i]);
				atomic64_inc(&conf->wbc->journal_reads);
			}
			if (atomic_read(&sh->io_pending))
				return true;
		}
	}
	for (i = 0; i < e->nr; i++) {
		const struct r5j_wb_block *b = &e->blk[i];
		struct r5j_dev *dev = &sh->dev[b->idx];

		if (test_bit(R5J_UPTODATE, &dev->flags))
			continue;	/* its RAM copy (r5j_wbcache_attach()) */
		if (log && b->pos + R5J_BLOCK_SECTORS <= log->fmt.ring_sectors &&
		    r5j_page_csum(log->fmt.seed, page_address(dev->page)) ==
		    b->csum) {
			set_bit(R5J_UPTODATE, &dev->flags);
			continue;
		}
		bad++;
		set_bit(R5J_LOST, &dev->flags);
		pr_err_ratelimited("md/raid:%s: write-back stripe %llu: block %d could not be read back from the journal (%s at ring sector %llu)\n",
				   mdname(conf->mddev),
				   (unsigned long long)sh->sector, b->idx,
				   atomic_read(&e->errors) ? "read error" :
				   "bad checksum", (unsigned long long)b->pos);
	}
	sh->wb_entry = NULL;
	kfree(e);
	if (bad)
		atomic64_add(bad, &conf->wbc->read_failures);
	return false;
}

/*
 * Member I/Os in flight or queued at which a destage's writes count as
 * queued deep: twice the partial-destage cap's share per member, the
 * depth Documentation/lab/notes-p99.md's proposal 1 would pace full-row destages at.
 */
static int deep_queue(struct r5j_conf *conf)
{
	return 2 * R5J_DESTAGE_PER_MEMBER * conf->raid_disks;
}

/*
 * A write was added to a stripe in destage: it waits for the member
 * writes (handle_writeback()).  Statistics only, any context.
 */
void r5j_wbcache_count_write_wait(struct r5j_conf *conf)
{
	atomic64_inc(&conf->wbc->write_waits);
}

/*
 * A destage's member writes are being queued (daemon) with @queued member
 * I/Os already in flight or queued: are destages sent in bursts?
 */
void r5j_wbcache_count_destage_submit(struct r5j_conf *conf, int queued)
{
	struct r5j_wbcache *wbc = conf->wbc;
	s64 max = atomic64_read(&wbc->member_queue_max);

	atomic64_inc(&wbc->destage_submits);
	if (queued >= deep_queue(conf))
		atomic64_inc(&wbc->destage_deep);
	while (queued > max &&
	       !atomic64_try_cmpxchg(&wbc->member_queue_max, &max, queued))
		;
}

/* conf->lock held: hand an idle dirty stripe to the daemon for destage. */
static void queue_destage(struct r5j_conf *conf, struct r5j_stripe *sh)
{
	list_del_init(&sh->lru);
	set_bit(R5J_STRIPE_DESTAGE, &sh->state);
	set_bit(R5J_STRIPE_HANDLE, &sh->state);
	set_bit(R5J_STRIPE_ON_LIST, &sh->state);
	list_add_tail(&sh->lru, &conf->handle_list);
}

/*
 * Daemon: reload evicted stripes for destage, oldest pinned first: all
 * of them (@all), those pinning units up to @limit (@over_log), those
 * dirty since before the reclaim thread's last period (@aged).  A quarter
 * of the cache stays free for writers unless @all; for @all and @over_log
 * a head beyond the cache is taken when none is free (L18).  Under
 * L12 (@x), the stripes pinning the oldest unit (lsn <= @x_lsn) may
 * also take X's pool of R5J_WB_X_HEADS heads: X waits for all of them,
 * and parked stripes may hold every other head.  Aged ones, and with
 * @paced the @over_log ones too: at most @budget (destage_budget()).
 */
static bool reload_entries(struct r5j_conf *conf, bool all, bool aged,
			   bool over_log, bool paced, u64 limit, bool x,
			   u64 x_lsn, int budget)
{
	struct r5j_wbcache *wbc = conf->wbc;
	unsigned int tick = READ_ONCE(conf->dirty_tick);
	int n, reserve = all ? 0 : READ_ONCE(conf->max_nr_stripes) / 4;

	for (n = 0; n < R5J_WB_RELOAD_BATCH; n++) {
		struct r5j_stripe *sh = NULL;
		struct r5j_wb_entry *e;
		struct rb_node *node;
		sector_t sector;
		bool prev, want, oldest, must;
		int free;

		spin_lock_irq(&conf->lock);
		node = rb_first(&wbc->pins);
		if (!node) {
			spin_unlock_irq(&conf->lock);
			wbc->aging = false;
			break;
		}
		e = rb_entry(node, struct r5j_wb_entry, by_pin);
		must = all || (over_log && e->dirty_unit->lsn < limit);
		want = must || (aged && tick - e->dirty_tick >= 2);
		sector = e->sector;
		prev = e->prev;
		oldest = x && e->dirty_unit->lsn <= x_lsn;
		free = conf->nr_stripes - conf->active_stripes -
			(atomic_read(&conf->dirty_stripes) - wbc->evicted);
		spin_unlock_irq(&conf->lock);
		if (!want) {
			if (aged)
				wbc->aging = false;	/* the aged ones are done */
			break;
		}
		if ((!must || paced) && budget-- <= 0)
			break;
		if (free > reserve)
			sh = r5j_get_stripe_geom(conf, sector, prev,
						 R5J_GET_NOBLOCK |
						 R5J_GET_NOQUIESCE);
		if (!sh && (all || over_log))
			sh = r5j_get_stripe_extra(conf, sector, prev,
						  R5J_WB_EXTRA_STRIPES +
						  (oldest ? R5J_WB_X_HEADS : 0));
		if (!sh)
			break;
		set_bit(R5J_STRIPE_DESTAGE, &sh->state);
		set_bit(R5J_STRIPE_HANDLE, &sh->state);
		r5j_release_stripe(sh);
	}
	return n > 0;
}

/*
 * Aged destages the policy may start now (conf->lock held), and the
 * high-water mark's while they are @paced (twice as many): a few per
 * member in flight (journal.md section 15, "Destage policy").  The
 * members' rate is fixed, so a deeper queue destages no more; it only
 * keeps each stripe longer, and every stripe it holds is a head writers
 * wait for and a row whose next write waits for the members.  In flight:
 * the @mem dirty stripes in memory less the @idle ones on dirty_list
 * (cached writes in progress and stripes parked for journal space count
 * too).  Never X's destages, nor the high-water mark's once anything
 * waits for ring space: only they free it.
 */
static int destage_budget(struct r5j_conf *conf, int mem, int idle,
			  bool paced)
{
	int per_member = R5J_DESTAGE_PER_MEMBER * (paced ? 2 : 1);

	return per_member * conf->raid_disks - (mem - idle);
}

/* Idle dirty stripes (conf->lock held): a walk, so once per pass. */
static int count_idle(struct r5j_conf *conf)
{
	struct r5j_stripe *sh;
	int idle = 0;

	list_for_each_entry(sh, &conf->dirty_list, lru)
		idle++;
	return idle;
}

/*
 * Daemon: the destage policy (journal.md section 15, "Run time").  Stripes
 * in memory: above writeback_dirty_high (or dirty_low while a writer
 * waits) the oldest idle ones are evicted down to dirty_low, or destaged
 * if they cannot be; destaged when @all, @aged, or pinning the oldest
 * units while the journal is above writeback_log_high.  Evicted ones: the
 * same three triggers.  L12: while stripes wait for X, every stripe
 * pinning the oldest unit is destaged too.  true: stripes were queued.
 */
bool r5j_wbcache_destage_idle(struct r5j_conf *conf, bool all, bool aged)
{
	struct r5j_wbcache *wbc = conf->wbc;
	unsigned int tick = READ_ONCE(conf->dirty_tick);
	int dirty = atomic_read(&conf->dirty_stripes);
	int high = r5j_dirty_mark(conf, READ_ONCE(conf->dirty_high));
	int low = r5j_dirty_mark(conf, READ_ONCE(conf->dirty_low));
	/* recovery must be able to track every dirty stripe of the log */
	bool room = conf->log && dirty + READ_ONCE(conf->max_nr_stripes) <
		r5j_recovery_max_stripes(conf, conf->log->fmt.ring_sectors);
	bool evict_ok = conf->log && !r5j_journal_failed(conf->log) && room;
	bool over_log = false, queued = false, freed = false, waiting;
	bool x = false, x_waiting = false, counted = all, left = false;
	bool paced;
	struct r5j_stripe *sh, *tmp;
	u64 limit = 0, x_lsn = 0;
	/* idle on dirty_list, less those taken off; < 0: not counted yet */
	int over = 0, mem, budget = INT_MAX, idle = -1;

	/* aged stripes left by the budget go on in the next passes */
	aged |= wbc->aging;
	if (!all && conf->log)
		over_log = r5j_journal_over_high(conf->log,
						 READ_ONCE(conf->log_high),
						 &limit);
	if (conf->log)
		x = r5j_journal_x_oldest(conf->log, &x_lsn, &x_waiting);
	if (!all && !over_log && x_waiting) {
		/* only the oldest unit's: X is built once all of them wait */
		over_log = true;
		limit = x_lsn + 1;
	}
	/*
	 * Pace the high-water mark's destages while nothing waits for ring
	 * space (journal.md "Destage policy"): the mark asks for a tenth of
	 * the ring at once, and queued all together they pinned the stripe
	 * cache for seconds behind the members (writers waited for a free
	 * stripe: the hot set's p99).  The members' rate is the same either
	 * way.  Once something waits for space, all of them go at once.
	 */
	paced = over_log && !all && !x_waiting &&
		!r5j_journal_space_waits(conf->log);
	spin_lock_irq(&conf->lock);
	mem = dirty - wbc->evicted;
	/* exact under conf->lock, which r5j_get_stripe() waits under */
	waiting = waitqueue_active(&conf->wait_for_stripe);
	if (!all && (mem > high || (mem > low && waiting))) {
		idle = count_idle(conf);
		over = idle - low;
	}
	if (paced) {
		if (idle < 0)
			idle = count_idle(conf);
		budget = destage_budget(conf, mem, idle, true);
		counted = true;
	}
	list_for_each_entry_safe(sh, tmp, &conf->dirty_list, lru) {
		int r;

		/* members missing: kept for the next assembly */
		if (test_bit(R5J_STRIPE_STUCK, &sh->state))
			continue;
		if (all || (over_log && sh->dirty_unit &&
			    sh->dirty_unit->lsn < limit)) {
			if (!paced || budget-- > 0) {
				queue_destage(conf, sh);
				queued = true;
				idle--;
				continue;
			}
			left = true;	/* paced: the next passes take it */
		}
		if (aged && tick - sh->dirty_tick >= 2) {
			/* counted once, and only here: a walk per pass costs */
			if (!counted) {
				if (idle < 0)
					idle = count_idle(conf);
				budget = destage_budget(conf, mem, idle, false);
				counted = true;
			}
			if (budget-- > 0) {
				queue_destage(conf, sh);
				queued = true;
				idle--;
				continue;
			}
			left = true;
		}
		if (over <= 0)
			continue;
		r = evict_ok ? evict(conf, sh) : -ENOMEM;
		if (r > 0) {
			freed = true;
			over--;
			idle--;
		} else if (r < 0) {
			queue_destage(conf, sh);
			queued = true;
			over--;
			idle--;
		}
	}
	/* one tick's aged stripes and entries may take several passes */
	wbc->aging = aged && (left || wbc->evicted);
	if (wbc->aging && wbc->evicted && !counted)
		budget = destage_budget(conf, mem,
					idle < 0 ? count_idle(conf) : idle,
					false);
	if (freed)
		wake_up(&conf->wait_for_stripe);
	spin_unlock_irq(&conf->lock);

	if ((all || wbc->aging || over_log) && READ_ONCE(wbc->evicted))
		queued |= reload_entries(conf, all, wbc->aging, over_log,
					 paced, limit, x, x_lsn, budget);
	return queued;
}

int r5j_wbcache_stats(struct r5j_conf *conf, char *page, int at)
{
	struct r5j_wbcache *wbc = conf->wbc;
	struct r5j_journal *log = conf->log;
	unsigned int evicted;
	u64 evictions, shrunk, use = 0;

	if (!wbc)
		return 0;
	if (log) {
		/* what writeback_log_high is compared with */
		spin_lock_irq(&log->lock);
		use = div64_u64((log->used +
				 r5j_journal_wb_kept(log, log->wb_stripes)) * 100,
				log->fmt.ring_sectors);
		spin_unlock_irq(&log->lock);
	}
	spin_lock_irq(&conf->lock);
	evicted = wbc->evicted;
	evictions = wbc->evictions;
	shrunk = wbc->shrunk;
	spin_unlock_irq(&conf->lock);
	return sysfs_emit_at(page, at,
			     "evicted_stripes %u\n"
			     "evictions %llu\njournal_reads %llu\n"
			     "journal_read_failures %llu\nlost_blocks %llu\n"
			     "ram_copy_bytes %llu\nshrunk_entries %llu\n"
			     "dirty_bytes %llu\n"
			     "log_high %d\nlog_use %llu\n"
			     "destage_submits %lld\ndestage_submits_deep %lld\n"
			     "deep_queue %d\nmember_queue_max %lld\n"
			     "destage_write_waits %lld\n",
			     evicted, evictions,
			     atomic64_read(&wbc->journal_reads),
			     atomic64_read(&wbc->read_failures),
			     atomic64_read(&wbc->lost_blocks),
			     atomic64_read(&wbc->ram_pages) * PAGE_SIZE, shrunk,
			     atomic64_read(&wbc->dirty_blocks) * R5J_BLOCK_SIZE,
			     READ_ONCE(conf->log_high), use,
			     atomic64_read(&wbc->destage_submits),
			     atomic64_read(&wbc->destage_deep),
			     deep_queue(conf),
			     atomic64_read(&wbc->member_queue_max),
			     atomic64_read(&wbc->write_waits));
}
