/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid5j: in-memory types of the stripe engine.
 *
 * A stripe is one 4 KiB row across all members (see include/raid5j/layout.h).
 * Each cached stripe owns one page per member.  All stripe work runs in one
 * thread, the array's md thread (r5j_daemon), so the state machine in
 * r5j_handle.c never races with itself; other contexts only attach bios to a
 * stripe (under sh->lock) or complete member I/O, and then hand the stripe to
 * the daemon by releasing it with R5J_STRIPE_HANDLE set.
 *
 * Stripe life cycle (all list moves under conf->lock):
 *
 *          get (make_request, sync_request, daemon)
 *   inactive ----------------------------------------> in use (count > 0)
 *      ^                                                   |
 *      |  release, nothing to do            release with  |
 *      +------------------------------------ HANDLE set    v
 *      |                                             handle_list
 *      |                                                   |
 *      +---- daemon: r5j_handle_stripe(), release <--------+
 *
 * An inactive stripe keeps its pages as a read cache until it is reused for
 * another sector (least recently used first).
 */
#ifndef RAID5J_R5J_H
#define RAID5J_R5J_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/mempool.h>
#include <linux/percpu-refcount.h>
#include <linux/workqueue.h>
#include "md.h"
#include "r5j_compat.h"
#include "raid5j/layout.h"
#include "raid5j/parity.h"
#include "raid5j/reshape.h"

#define R5J_NAME "raid5j"

/* Tunables */
#define R5J_DEFAULT_STRIPES	256	/* stripe_cache_size at start, as raid456 */
#define R5J_MIN_STRIPES		17	/* as raid456 */
#define R5J_MAX_STRIPES		32768
/* growing back what the shrinker took: stripes a daemon pass, and pause */
#define R5J_REGROW_BATCH	16
#define R5J_REGROW_DELAY	HZ
#define R5J_R5CONF_HASH_LOCKS	8	/* raid456's NR_STRIPE_HASH_LOCKS */
#define R5J_HASH_SHIFT		10
#define R5J_MAX_REQ_STRIPES	256	/* largest bio, in stripes (1 MiB) */
#define R5J_PENDING_MAX		1024	/* member bios held by one daemon pass */
/* read and write queue per device slot: members, then replacements */
#define R5J_PENDING_QUEUES(conf)	(4 * (conf)->raid_disks)

/* dev->flags */
enum r5j_dev_flag {
	R5J_UPTODATE,	/* page holds the block as on disk (or as to be written) */
	R5J_LOCKED,	/* member I/O in flight on this page */
	R5J_READ_ERROR,	/* a read of this block failed in this stripe */
	R5J_WRITE_ERROR,/* the last write of this block failed */
	R5J_READ_RETRY,	/* a read failed once: read again, unmerged */
	R5J_REWRITE,	/* read error: block rewritten, read it back */
	R5J_DIRTY,	/* write-back: page newer than the member, logged */
	R5J_ORIG_UPTODATE,	/* write-back: orig holds the member's block */
	R5J_MADE_GOOD,	/* written over a recorded bad range: clear it */
	R5J_MADE_GOOD_REPL,	/* the same, on the replacement */
	R5J_LOST,	/* write-back: not read back from the journal */
	R5J_DIRTY_NEW,	/* write-back: made dirty by the logging in progress */
};

/* sh->state */
enum r5j_stripe_flag {
	R5J_STRIPE_HANDLE,	/* needs the daemon */
	R5J_STRIPE_SYNC,	/* sync_request asked for this stripe */
	R5J_STRIPE_SYNC_STARTED,/* cache dropped, members being read */
	R5J_STRIPE_SYNC_IO,	/* sync writes in flight */
	R5J_STRIPE_DEGRADED,	/* a write skipped a member: keep bitmap bit */
	R5J_STRIPE_FUA,		/* a bio being written asked for FUA */
	R5J_STRIPE_ON_LIST,	/* on conf->handle_list (conf->lock) */
	R5J_STRIPE_WB_LOG,	/* write-back: this logging is data only */
	R5J_STRIPE_DIRTY,	/* write-back: blocks the members lack */
	R5J_STRIPE_DESTAGE,	/* write-back: put the dirty blocks on members */
	R5J_STRIPE_STUCK,	/* write-back: destage impossible (degraded) */
	R5J_STRIPE_HOT,		/* write-back: a dirty block was rewritten */
};

/*
 * One bio's share of one block.  A bio spans many stripes and so sits on
 * many lists at once: bi_next cannot chain it, a small ref does.
 */
struct r5j_bref {
	struct r5j_bref *next;
	struct bio *bio;
};

struct r5j_blist {
	struct r5j_bref *head;
	struct r5j_bref **tail;
};

/*
 * A block's member I/O, allocated with the stripe.  Kept out of r5j_dev
 * because struct bio ends in a flexible array: dev[] could not hold it.
 */
struct r5j_io {
	struct r5j_stripe *sh;
	struct md_rdev *rdev;	/* member of the I/O in flight */
	int idx;
	bool replacement;	/* to the member's replacement */
	bool to_orig;		/* a read into dev->orig (degraded destage) */
	struct bio_vec vec;
	struct bio bio;		/* last */
};

struct r5j_dev {
	struct page *page;
	struct r5j_blist toread;	/* waiting reads (sh->lock) */
	struct r5j_blist towrite;	/* waiting writes, arrival order */
	struct r5j_blist written;	/* copied into page, on their way */
	sector_t array_sector;	/* array sector of this block (data only) */
	unsigned long flags;
	u8 towrite_mask;	/* sectors of the block covered by towrite */
	unsigned int read_error_gen;	/* slot's gen when R5J_READ_ERROR was set */
	unsigned int made_good_gen;	/* slot's gen when R5J_MADE_GOOD* was set */
	struct r5j_io *io;	/* member I/O for this block */
	struct r5j_io *rio;	/* its copy to the member's replacement */
	u64 log_pos;		/* R5J_DIRTY: ring sector of its logged copy */
	u32 log_csum;		/* R5J_DIRTY: checksum of that copy */
	struct page *orig;	/* R5J_DIRTY: the member's older block */
};

/* dev->log_pos of a block with no logged copy in this use of the stripe */
#define R5J_NO_LOG_POS		U64_MAX

struct r5j_conf;
struct r5j_log_unit;
struct r5j_wb_entry;
struct r5j_wbcache;

/* Where a stripe's drained writes are (sh->write_stage, daemon only). */
enum r5j_write_stage {
	R5J_W_IDLE,		/* nothing drained */
	R5J_W_LOGGING,		/* in a journal unit that is not yet stable */
	R5J_W_PARKED,		/* waiting for journal space */
	R5J_W_TO_MEMBERS,	/* journal has it: write the members */
	R5J_W_LOG_FAILED,	/* the journal could not take it: fail bios */
	R5J_W_MEMBERS,		/* member writes in flight */
};

struct r5j_stripe {
	struct hlist_node hash;
	struct list_head lru;		/* inactive or handle list */
	struct r5j_conf *conf;
	sector_t sector;		/* dev sector, multiple of 8 */
	/*
	 * Geometry of the stripe: conf->geom, or during a reshape the one
	 * not yet reshaped (prev).  (sector, prev) is the cache key: the
	 * same dev sector in both geometries is two stripes.
	 */
	const struct r5j_geom *geom;
	int disks;			/* geom->raid_disks */
	bool prev;
	bool new_offset;		/* members at new_data_offset */
	struct r5j_stripe_map map;
	unsigned long state;
	atomic_t count;			/* references; 0 = on a list */
	atomic_t io_pending;		/* member I/Os in flight */
	int failed_io;			/* member I/Os that failed (daemon) */
	u64 bm_seq;			/* bitmap writes this stripe depends on */
	enum r5j_write_stage write_stage;	/* daemon; journal I/O completion */
	struct list_head log_list;	/* unit's or parked list (log lock) */
	struct r5j_log_unit *unit;	/* unit holding its logged blocks */
	struct r5j_log_unit *dirty_unit;	/* oldest unit with dirty data */
	unsigned int dirty_tick;	/* conf->dirty_tick when it got dirty */
	struct r5j_wb_entry *wb_entry;	/* evicted blocks to read back */
	spinlock_t lock;		/* bio lists of dev[] */
	struct r5j_dev dev[];
};

/*
 * A member slot.  During `mdadm --replace` the slot has two devices: the
 * member, still read and written, and its replacement, written as well and
 * filled by recovery; once it is in sync it takes over the slot.
 */
struct r5j_disk {
	struct md_rdev __rcu *rdev;
	struct md_rdev __rcu *replacement;
	/*
	 * Bumped when a device enters the slot: a cached stripe's read error
	 * belongs to the device that had it and lapses with it.
	 */
	unsigned int gen;
};

struct r5j_stats {
	atomic64_t stripes_handled;
	atomic64_t rmw;
	atomic64_t rcw;
	atomic64_t full_stripe_writes;
	atomic64_t member_reads;
	atomic64_t member_writes;
	atomic64_t aligned_reads;
	atomic64_t degraded_reads;
	atomic64_t bitmap_waits;
	atomic64_t stripe_waits;
	atomic64_t stripe_unblocked;	/* not a write, taken past stripes_blocked */
	atomic64_t member_batches;	/* r5j_submit_pending() runs with bios */
	atomic64_t member_runs;		/* write runs they held, per device */
	atomic64_t member_submit_us_max; /* longest r5j_submit_pending() */
	atomic64_t member_submit_slow;	/* of them, >= R5J_SUBMIT_SLOW_MS */
	atomic64_t member_holds;	/* r5j_end_pass() kept bios queued */
	atomic64_t stripes_shrunk;	/* idle stripes the shrinker freed */
};

struct r5j_conf {
	/*
	 * dm-raid reads raid456's struct r5conf through mddev->private:
	 * its max_nr_stripes (stripes allocated) and min_nr_stripes
	 * (stripe_cache_size).  This prefix mirrors r5conf's up to them,
	 * so nr_stripes and max_nr_stripes are where dm-raid reads those
	 * (dmraid/r5j_dmraid.c checks it against the kernel's raid5.h).  The
	 * r5conf_ fields are never used.
	 */
	struct {
		void *r5conf_stripe_hashtbl;
		spinlock_t r5conf_hash_locks[R5J_R5CONF_HASH_LOCKS];	/* unused */
		struct mddev *mddev;
		int r5conf_geometry[6];
		int nr_stripes;		/* allocated (conf->lock) */
		int max_nr_stripes;	/* stripe_cache_size */
	};
	/*
	 * The daemon, from setup_conf() until run() hands it to
	 * mddev->thread: a takeover builds the conf while the old
	 * personality's thread still runs the array.
	 */
	R5J_MD_THREAD(thread);
	struct r5j_geom geom;		/* during a reshape: the next geometry */
	int raid_disks;			/* slots: the larger of prev and next */
	/*
	 * Reshape (Documentation/reshape.md): array sectors on the done side
	 * of reshape_progress map through rs.next (conf->geom), the others
	 * through rs.prev.  reshape_safe is the position on disk.  run() sets
	 * both from the superblock; the reshape engine (r5j_reshape.c) moves
	 * them as it continues the reshape, unless check_reshape() refuses
	 * the kind, and then the reshape is held where it is.
	 */
	bool reshaping;
	bool reshape_warned;		/* check_reshape said why, once */
	struct r5j_reshape rs;
	sector_t reshape_progress;	/* conf->lock */
	sector_t reshape_safe;
	/*
	 * The running reshape (r5j_reshape.c): the
	 * step's array range [win_lo, win_hi), where requests wait, and
	 * requests between their window check and their last share.
	 */
	sector_t reshape_win_lo, reshape_win_hi;	/* conf->lock */
	int reshape_users;				/* conf->lock */
	/*
	 * Requests mapping sectors through conf->geom (make_request past
	 * md_write_start(), retried reads) hold a reference; start_reshape
	 * kills it and waits for zero before the geometry switches
	 * (r5j_geom_freeze(), Documentation/reshape.md 5.2).  Per-CPU: no
	 * shared atomic per bio.
	 */
	struct percpu_ref geom_users;
	wait_queue_head_t wait_geom;
	/*
	 * Next-geometry rows the step is writing: not logged (R12), a
	 * resume rewrites them from their intact sources.
	 */
	sector_t reshape_dst_lo, reshape_dst_hi;
	bool reshape_backup_step;	/* a BACKUP step since the checkpoint */
	bool reshape_retire;		/* finish_reshape: R10, then position */
	wait_queue_head_t wait_reshape;
	unsigned long reshape_checkpoint;	/* jiffies of the last one */
	struct page **reshape_pages;		/* sync thread: one step */
	int reshape_nr_pages;
	int pool_disks;			/* pages per stripe: >= raid_disks */
	int max_degraded;
	int data_disks;
	struct r5j_disk *disks;

	spinlock_t lock;		/* lists, hash, counters below */
	struct hlist_head *hash;
	struct list_head inactive;	/* LRU: head = most recent */
	struct list_head handle_list;
	struct list_head bitmap_list;	/* waiting for md_bitmap_unplug() */
	struct bio_list retry_reads;	/* failed aligned reads (lock) */
	struct r5j_blist held;		/* write shares held for sb update */
	int active_stripes;		/* count > 0 */
	int nr_free;			/* on inactive */
	/* resize, repool and the shrinker: who changes the pool */
	struct mutex cache_mutex;
	struct shrinker *cache_shrinker;
	unsigned long shrunk_at;	/* jiffies of the last shrinker scan */
	bool stripes_blocked;		/* write-back: see r5j_get_stripe() */
	wait_queue_head_t wait_for_stripe;
	wait_queue_head_t wait_quiesce;
	int quiesce;			/* 1: no new requests */
	atomic_t aligned_reads;		/* bypass reads in flight */

	atomic64_t bm_write_seq;	/* bitmap startwrite calls */
	u64 bm_flush_seq;		/* covered by the last unplug */

	int recovery_disabled;
	bool fullsync;

	struct page *spare_page[2];	/* daemon only: parity check scratch */
	struct page *zero_page;		/* daemon only: zero block */
	void **blocks;			/* daemon only: raid_disks pointers */
	void **rmw_data;		/* daemon only: raid_disks pointers */
	/*
	 * daemon only: member bios of this pass, per device slot (see
	 * r5j_dev_slot()), reads then writes, submitted together so that
	 * consecutive rows merge into large requests on every member.
	 */
	struct bio_list *pending;	/* R5J_PENDING_QUEUES() lists */
	int nr_pending;
	int pending_joined;		/* queued bios that extend the one before */
	int pending_full;		/* queued writes of full dirty stripes */
	bool pending_unsorted;		/* a queue is not in sector order */
	int pass_submitted;		/* bios submitted since the last pass end */
	atomic_t member_inflight;	/* member bios submitted, not ended */
	struct r5j_parity_work pw;	/* daemon only */
	/*
	 * raid456's knobs in sysfs: rmw_level (R5J_RMW_*) steers
	 * r5j_rmw_wins(); preread_bypass_threshold and skip_copy are kept
	 * and shown only, raid5j has neither mechanism (design.md 12).
	 */
	int rmw_level;
	int bypass_threshold;
	int skip_copy;
	struct r5j_journal *log;	/* NULL: no journal */
	/*
	 * A journaled takeover (Documentation/reshape.md 8.1): the old
	 * conf whose drained log r5j_free() hands over (compared, never
	 * followed; cleared by run()), and the reclaim thread made for it.
	 */
	struct r5j_conf *log_from;
	R5J_MD_THREAD(log_reclaim);
	/*
	 * Write-back (Documentation/journal.md, section 15): idle stripes
	 * with dirty blocks wait on dirty_list (oldest first), never on
	 * inactive, so they are never reused before their destage.
	 */
	bool writeback;			/* journal_mode write-back */
	bool destage_aged;		/* daemon: destage stripes dirty for a tick */
	unsigned int dirty_tick;	/* reclaim thread's periods */
	struct list_head dirty_list;	/* conf->lock */
	atomic_t dirty_stripes;		/* with R5J_STRIPE_DIRTY */
	/* destage of partial stripes: percent of stripe_cache_size */
	int dirty_high;			/* above: destage a batch */
	int dirty_low;			/* ... down to this */
	atomic_t stuck_stripes;		/* with R5J_STRIPE_STUCK */
	/* write-back: evicted dirty stripes (r5j_wbcache.c) */
	struct r5j_wbcache *wbc;
	int log_high;			/* writeback_log_high, % of the ring */
	struct bio_set bio_split;
	struct bio_set bio_clone;	/* chunk-aligned reads */
	mempool_t bref_pool;
	struct work_struct retry_work;
	struct r5j_stats stats;
};

/* A chunk-aligned read sent straight to one member. */
struct r5j_aligned_read {
	struct r5j_conf *conf;
	struct md_rdev *rdev;
	struct bio *orig;
	unsigned long acct_start;	/* jiffies; 0: not accounted */
	struct bio clone;	/* must be last: bioset front_pad */
};

/*
 * rmw_level, with raid456's values.  NEVER is also the default of a RAID6
 * whose raid6 library lacks xor_syndrome (no partial syndrome update).
 */
enum r5j_rmw_level {
	R5J_RMW_NEVER,		/* reconstruct-write only */
	R5J_RMW_CHEAPER,	/* rmw when it reads fewer blocks (default) */
	R5J_RMW_PREFER,		/* rmw also when it reads as many */
};

#define R5J_BYPASS_THRESHOLD	1	/* preread_bypass_threshold, as raid456 */

/*
 * Read-modify-write rather than reconstruct-write, given the member reads
 * each needs.  As raid456: a tie goes to rmw only under PREFER, and only
 * when there is something to read (with all cached, rcw).
 */
static inline bool r5j_rmw_wins(const struct r5j_conf *conf, int rmw_reads,
				int rcw_reads)
{
	int level = READ_ONCE(conf->rmw_level);

	if (level == R5J_RMW_NEVER)
		return false;
	return rmw_reads < rcw_reads ||
	       (level == R5J_RMW_PREFER && rmw_reads == rcw_reads &&
		rmw_reads > 0);
}

/* r5j_stripe.c */
int r5j_cache_init(struct r5j_conf *conf);
void r5j_cache_free(struct r5j_conf *conf);
int r5j_cache_resize(struct r5j_conf *conf, int size);
void r5j_cache_adjust(struct r5j_conf *conf);
#define R5J_GET_NOBLOCK	1
#define R5J_GET_NOQUIESCE 2
#define R5J_GET_WRITE	4	/* a user write: may wait for the share */
struct r5j_stripe *r5j_get_stripe(struct r5j_conf *conf, sector_t sector,
				  int flags);
struct r5j_stripe *r5j_get_stripe_geom(struct r5j_conf *conf, sector_t sector,
				       bool prev, int flags);
void r5j_release_stripe(struct r5j_stripe *sh);
struct r5j_stripe *r5j_next_handle(struct r5j_conf *conf);
int r5j_active_stripes(struct r5j_conf *conf);
bool r5j_range_dirty(struct r5j_conf *conf, sector_t sector,
		     unsigned int sectors);
bool r5j_stripes_free_now(struct r5j_conf *conf, unsigned int n, int flags);
int r5j_dirty_mark(struct r5j_conf *conf, int percent);
#define R5J_DIRTY_HIGH		75	/* default percent of the cache */
#define R5J_DIRTY_LOW		50
#define R5J_DIRTY_MAX		90	/* idle dirty never fill the cache */

/* r5j_stripe.c, for the write-back cache */
struct r5j_stripe *r5j_get_stripe_extra(struct r5j_conf *conf,
					sector_t sector, bool prev, int extra);

/* r5j_wbcache.c (Documentation/journal.md section 15, "Run time") */
#define R5J_LOG_HIGH		70	/* writeback_log_high default, % */
/* write-back: partial-stripe destages in flight, per member (not @all) */
#define R5J_DESTAGE_PER_MEMBER	4
#define R5J_WB_EXTRA_STRIPES	8	/* heads beyond the cache for reload */
int r5j_wbcache_init(struct r5j_conf *conf);
void r5j_wbcache_free(struct r5j_conf *conf);
bool r5j_wbcache_has_range(struct r5j_conf *conf, sector_t lo, sector_t hi);
unsigned int r5j_wbcache_evicted(struct r5j_conf *conf);
void r5j_wbcache_attach(struct r5j_conf *conf, struct r5j_stripe *sh);
bool r5j_wbcache_reload(struct r5j_stripe *sh);
bool r5j_wbcache_destage_idle(struct r5j_conf *conf, bool all, bool aged);
void r5j_wbcache_count(struct r5j_conf *conf, int blocks);
void r5j_wbcache_count_lost(struct r5j_conf *conf, int blocks);
u64 r5j_wbcache_dirty_blocks(struct r5j_conf *conf);
void r5j_wbcache_count_write_wait(struct r5j_conf *conf);
void r5j_wbcache_count_destage_submit(struct r5j_conf *conf, int queued);
int r5j_wbcache_stats(struct r5j_conf *conf, char *page, int at);

/* r5j_handle.c */
void r5j_handle_stripe(struct r5j_stripe *sh);
void r5j_flush_bitmap_list(struct r5j_conf *conf);
void r5j_return_held_bios(struct r5j_conf *conf);
void r5j_end_held_bios(struct r5j_conf *conf);

/* r5j_memberio.c */
int r5j_calc_degraded(struct r5j_conf *conf);
bool r5j_has_badblock(struct md_rdev *rdev, sector_t sector);
bool r5j_holds_stripe(struct md_rdev *rdev, sector_t sector);
bool r5j_skips_write(struct md_rdev *rdev, sector_t sector);
bool r5j_can_rewrite(struct md_rdev *rdev, sector_t sector);
void r5j_record_bad(struct r5j_conf *conf, struct md_rdev *rdev,
		    sector_t sector);
#define R5J_IO_SYNC	1	/* resync/recovery I/O (accounted as such) */
#define R5J_IO_REPL	2	/* write the replacement only */
#define R5J_IO_ORIG	4	/* read into dev->orig, the page stays */
void r5j_submit_io(struct r5j_stripe *sh, struct r5j_io *io,
		   struct md_rdev *rdev, blk_opf_t opf, int flags);
int r5j_submit_block(struct r5j_stripe *sh, int i, blk_opf_t opf, int flags);
void r5j_submit_pending(struct r5j_conf *conf);
void r5j_end_pass(struct r5j_conf *conf);

/* A member count past what parity covers: the array has failed. */
static inline bool r5j_has_failed(struct r5j_conf *conf)
{
	return conf->mddev->degraded > conf->max_degraded;
}

/* r5j_reshape.c */
int r5j_check_reshape(struct mddev *mddev);
int r5j_start_reshape(struct mddev *mddev);
void r5j_finish_reshape(struct mddev *mddev);
sector_t r5j_reshape_sync(struct mddev *mddev, sector_t sector_nr,
			  int *skipped);
void r5j_reshape_free(struct r5j_conf *conf);
void r5j_step_end_io(struct bio *bio);

/* A reshape step's own bio: not a user write, md core is not told. */
static inline bool r5j_is_step_bio(struct bio *bio)
{
	return bio->bi_end_io == r5j_step_end_io;
}
void r5j_journal_offset_fixed(struct mddev *mddev);
int r5j_reshape_setup(struct mddev *mddev, struct r5j_reshape *rs);

/* r5j_stripe.c, for the reshape */
bool r5j_stripes_busy(struct r5j_conf *conf, sector_t lo, sector_t hi,
		      bool prev);
int r5j_cache_repool(struct r5j_conf *conf, int disks);
int r5j_cache_forget(struct r5j_conf *conf);

/* r5j_request.c */
void r5j_stripe_rows(struct r5j_conf *conf, const struct r5j_geom *g,
		     struct bio *bi, u64 first, u64 last, int flags);
bool r5j_make_request(struct mddev *mddev, struct bio *bi);
sector_t r5j_sync_request(struct mddev *mddev, sector_t sector_nr,
			  int *skipped);
void r5j_retry_reads_work(struct work_struct *work);
int r5j_geom_users_init(struct r5j_conf *conf);
void r5j_geom_freeze(struct mddev *mddev, struct r5j_conf *conf);
void r5j_geom_thaw(struct mddev *mddev, struct r5j_conf *conf);

/* r5j_conf.c */
extern struct kmem_cache *r5j_bref_cache;
struct r5j_conf *r5j_setup_conf(struct mddev *mddev, bool takeover);
void r5j_free_conf(struct r5j_conf *conf);
void r5j_free(struct mddev *mddev, void *priv);
struct md_rdev *r5j_journal_member(struct mddev *mddev);

/* r5j_takeover.c: md core's takeover op of each personality */
void *r5j_takeover4(struct mddev *mddev);
void *r5j_takeover5(struct mddev *mddev);
void *r5j_takeover6(struct mddev *mddev);

/* r5j_debugfs.c: test hooks, read at assembly */
extern u32 r5j_hook_raid456_stripes;
extern bool r5j_hook_recovery_unit_by_unit;
void r5j_debugfs_init(void);
void r5j_debugfs_exit(void);

static inline void r5j_blist_init(struct r5j_blist *l)
{
	l->head = NULL;
	l->tail = &l->head;
}

static inline bool r5j_blist_empty(const struct r5j_blist *l)
{
	return !l->head;
}

static inline void r5j_blist_add(struct r5j_blist *l, struct r5j_bref *ref)
{
	ref->next = NULL;
	*l->tail = ref;
	l->tail = &ref->next;
}

/* Move all of @from to the end of @to. */
static inline void r5j_blist_splice(struct r5j_blist *to, struct r5j_blist *from)
{
	if (!from->head)
		return;
	*to->tail = from->head;
	to->tail = from->tail;
	r5j_blist_init(from);
}

static inline struct r5j_bref *r5j_blist_pop(struct r5j_blist *l)
{
	struct r5j_bref *ref = l->head;

	if (ref) {
		l->head = ref->next;
		if (!l->head)
			l->tail = &l->head;
	}
	return ref;
}

static inline bool r5j_rdev_usable(struct md_rdev *rdev)
{
	return rdev && !test_bit(Faulty, &rdev->flags);
}

/*
 * Device slot @i of 2 * raid_disks: members first, then their replacements
 * (for what every device must get: journal replay, flushes).
 */
static inline struct md_rdev __rcu **r5j_dev_slot(struct r5j_conf *conf, int i)
{
	struct r5j_disk *disk = &conf->disks[i % conf->raid_disks];

	return i < conf->raid_disks ? &disk->rdev : &disk->replacement;
}

/* A device enters slot @i (reconfig_mutex held): before it is published. */
static inline void r5j_slot_changed(struct r5j_conf *conf, int i)
{
	WRITE_ONCE(conf->disks[i].gen, conf->disks[i].gen + 1);
}

/* Member @i's replacement, with reconfig_mutex held. */
static inline struct md_rdev *r5j_repl_locked(struct r5j_conf *conf, int i)
{
	return rcu_dereference_protected(conf->disks[i].replacement,
			lockdep_is_held(&conf->mddev->reconfig_mutex));
}

/* Member @i's rdev, with reconfig_mutex held. */
static inline struct md_rdev *r5j_rdev_locked(struct r5j_conf *conf, int i)
{
	return rcu_dereference_protected(conf->disks[i].rdev,
			lockdep_is_held(&conf->mddev->reconfig_mutex));
}

/*
 * The stripe's dev sector on @rdev counted from rdev->data_offset (what
 * bad block lists, recovery_offset and data_offset-based I/O use): a
 * next-geometry stripe of a reshape lives at new_data_offset.
 */
static inline sector_t r5j_rsec(const struct r5j_stripe *sh,
				const struct md_rdev *rdev)
{
	if (!sh->new_offset || !rdev)
		return sh->sector;
	return sh->sector + rdev->new_data_offset - rdev->data_offset;
}

/*
 * A reshape step's own destination stripe (R12, Documentation/reshape.md
 * section 4): written to the members without the journal.  No user write
 * shares it: the step's range is closed to requests while it runs.
 */
static inline bool r5j_reshape_copy(const struct r5j_conf *conf,
				    const struct r5j_stripe *sh)
{
	return !sh->prev && sh->sector >= READ_ONCE(conf->reshape_dst_lo) &&
	       sh->sector < READ_ONCE(conf->reshape_dst_hi);
}

static inline int r5j_is_parity(struct r5j_stripe *sh, int i)
{
	return i == sh->map.pd_idx || i == sh->map.qd_idx;
}

/* Read-only from now on; a dm-raid set has no gendisk to mark. */
static inline void r5j_set_readonly(struct mddev *mddev)
{
	mddev->ro = 1;
	if (mddev->gendisk)
		set_disk_ro(mddev->gendisk, 1);
}

#endif /* RAID5J_R5J_H */
