/* SPDX-License-Identifier: GPL-2.0 */
/* raid5j journal internals shared by r5j_journal.c and r5j_recovery.c. */
#ifndef RAID5J_JOURNAL_INT_H
#define RAID5J_JOURNAL_INT_H

#include "raid5j/journal.h"
#include "raid5j/wbreserve.h"
#include "r5j_journal.h"

#define R5J_UNIT_MAX_PAGES	(BIO_MAX_VECS - 1)	/* meta + pages: one bio */
/* members whose payloads fit one meta block: (4096 - 32) / 20 */
#define R5J_MAX_JOURNAL_DISKS	203
/* data payloads in one meta block: at most so many stripes pin a unit */
#define R5J_UNIT_MAX_PINS	((R5J_BLOCK_SIZE - R5J_META_HDR_SIZE) / \
				 (R5J_DATA_PAYLOAD_SIZE + 4))
#define R5J_RECLAIM_DIVISOR	4	/* reclaim once 1/4 of the ring is done */
#define R5J_RECLAIM_PERIOD	(5 * HZ)	/* and at least this often */

enum r5j_unit_state {
	R5J_UNIT_OPEN,		/* collecting stripes (daemon) */
	R5J_UNIT_IO,		/* written to the journal, not yet complete */
	R5J_UNIT_WRITTEN,	/* write complete, in the journal's cache */
	R5J_UNIT_FLUSHING,	/* a flush sent after the write is in flight */
	R5J_UNIT_STABLE,	/* durable on the journal (L4) */
	R5J_UNIT_RELEASED,	/* its stripes went on to the members */
	R5J_UNIT_DONE,		/* the members have all of it */
};

struct r5j_log_unit {
	struct list_head list;		/* log->units, oldest first */
	struct r5j_journal *log;
	struct page *meta;
	struct bio *bio;
	u64 seq;
	u64 pos;			/* ring sector of the meta block */
	u64 lsn;			/* log->lsn when opened */
	u32 sectors;			/* meta block + pages */
	u32 pages;
	int stripes_pending;		/* not yet on the members */
	u32 pinners;			/* stripes that became dirty in it */
	u32 wb_left;			/* of those, parity not logged yet */
	/* destages' parity in it, by raid456 hash list (log->wb_lists) */
	u16 wb_parity[R5J_RAID456_HASH_LISTS];
	enum r5j_unit_state state;
	bool volatile_cache;		/* the journal had one at submit */
	bool fua;			/* written FUA: stable on completion */
	blk_status_t status;
	struct list_head flush_list;	/* log->unflushed or log->flushing */
	atomic_t io_pending;
	struct list_head stripes;	/* waiting for the unit to be stable */
};

struct r5j_journal_stats {
	u64 units;
	u64 log_flushes;	/* journal flushes that made units stable */
	u64 empty_units;
	u64 stripes;
	u64 data_pages;
	u64 parity_pages;
	u64 meta_bytes;
	u64 reclaims;
	u64 space_waits;
	u64 tail_writes;	/* journal_tail moved, journal sb alone */
	u64 full_sb_updates;	/* journal_tail moved by md_update_sb() */
	u64 recovered_txns;
	u64 replayed_stripes;
	u64 replayed_blocks;
	u64 cached_writes;	/* write-back: stripes logged data only */
	u64 cached_blocks;
	u64 destaged_full;	/* destages that read no member */
	u64 destaged_partial;
	u64 destage_reads;	/* member blocks read by destages */
	u64 recovered_wb_stripes;	/* data-only stripes destaged at assembly */
	u64 destaged_rmw;	/* of destaged_partial: rmw */
	u64 destage_reads_saved;	/* member reads rmw saved over rcw */
	u64 parity_waits;	/* destage parity parked for space */
	u64 room_short;		/* recovery room below L11's bound */
	u64 x_units;		/* L12: parity units of an oldest unit */
};

struct r5j_journal {
	struct r5j_conf *conf;
	struct mddev *mddev;
	struct md_rdev *rdev;
	struct r5j_log fmt;

	spinlock_t lock;		/* all below */
	u64 head;			/* ring sector of the next block */
	u64 seq;			/* seq of the next unit */
	u64 tail;			/* journal_tail as on disk */
	u64 used;			/* sectors reserved from tail to head */
	u64 lsn;			/* sectors logged since the start */
	struct list_head units;
	struct r5j_log_unit *open;	/* daemon only */
	struct list_head parked;	/* stripes waiting for space */
	struct list_head parked_wb;	/* destage parity waiting for space */
	struct list_head unflushed;	/* WRITTEN units, log order */
	struct list_head flushing;	/* units flush_bio covers */
	bool flush_busy;		/* flush_bio in flight */
	int units_in_io;		/* submitted, write not complete */
	bool failed;
	bool failed_flushed;		/* reclaim thread: members flushed */
	u64 wb_stripes;			/* dirty stripes, parity not logged */
	u32 pin_cap;			/* stripes a unit may pin (L11) */
	bool fixed;			/* L12: recoverable_by raid5j */
	bool raid456_room;		/* recoverable_by raid456 */
	u32 raid456_stripes;		/* raid456's limit (test hook) */
	/*
	 * Stripes raid456's recovery would find data-only, by its stripe
	 * hash list: dirty ones whose parity is not logged, and destages
	 * whose parity unit is not stable yet (raid456's stripe limit).
	 */
	u32 wb_lists[R5J_RAID456_HASH_LISTS];
	struct list_head x_wait;	/* L12: parity for the X unit */
	u32 x_count;			/* stripes on x_wait */
	bool wb_logged;			/* mode the newest meta block records */
	struct r5j_journal_stats stats;

	R5J_MD_THREAD(reclaim_thread);
	unsigned long tick_at;		/* jiffies of conf->dirty_tick's last step */
	struct bio_set bs;
	struct bio flush_bio;		/* one flush in flight (L4) */
	mempool_t unit_pool;
	mempool_t meta_pool;
	struct page *empty_page;	/* r5j_journal_write_empty() */
};

/*
 * Stripes whose parity one PARITY-only transaction carries: one meta
 * block's payloads, and pages within one unit (journal.md L11).
 */
static inline unsigned int r5j_parity_batch(int max_degraded)
{
	return min_t(unsigned int, (R5J_BLOCK_SIZE - R5J_META_HDR_SIZE) /
		     (R5J_DATA_PAYLOAD_SIZE + 4 * max_degraded),
		     R5J_UNIT_MAX_PAGES / max_degraded);
}

u64 r5j_journal_wb_kept(struct r5j_journal *log, u64 stripes);
bool r5j_journal_x_oldest(struct r5j_journal *log, u64 *lsn, bool *waiting);
int r5j_journal_recover(struct r5j_journal *log);
unsigned int r5j_recovery_max_stripes(struct r5j_conf *conf, u64 ring_sectors);
int r5j_journal_write_empty(struct r5j_journal *log, u64 pos, u64 seq);
int r5j_journal_set_tail(struct r5j_journal *log, u64 tail);
int r5j_flush_members(struct r5j_conf *conf);

#endif /* RAID5J_JOURNAL_INT_H */
