/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RAID4/5/6 write journal: on-disk format and log scanner.
 *
 * The format is mainline md's (struct r5l_meta_block and payloads in
 * <linux/raid/md_p.h>), so a journal moves between raid456, raid5j and
 * r5jtool.  This header is the only API to it: the kernel module and the
 * userspace tools compile the same drivers/shared/jformat.c and
 * drivers/shared/logscan.c.
 *
 * Format
 *   The log is a ring of 4 KiB blocks over the journal device's data area:
 *   ring sector 0 is the device's data_offset, the ring size is data_size
 *   rounded down to 8 sectors.  Every position below is a ring sector.
 *
 *   A transaction ("log unit") is one meta block followed by its pages:
 *
 *     | meta | page | page | ... |  next meta ...
 *
 *   meta block (little endian, 4096 bytes, bytes past meta_size are ignored)
 *     @0  magic 0x6433c509   @4  checksum        @8  version 1
 *     @9  raid5j: bit 0 = journal mode write-back (mainline: zero padding)
 *     @12 meta_size (bytes in use, 32..4096)     @16 seq
 *     @24 position (ring sector of this block)   @32 payloads
 *
 *   payloads, packed, in log order of their pages:
 *     DATA    {type 0, flags, size 8,  location = array sector, csum[1]}
 *     PARITY  {type 1, flags, size 8 * parity pages, location = stripe
 *              (dev) sector, csum[1 or 2]: P page, then Q page for RAID6}
 *     FLUSH   {type 2, flags, size = bytes of the list, le64 stripe sectors}
 *
 *   Checksums are r5j_crc32c() (raw register) seeded with the array's
 *   seed = r5j_crc32c(~0, set_uuid, 16): the meta block over all 4096
 *   bytes with its checksum field zero, every page over its 4096 bytes.
 *
 * Validity (mainline recovery, raid5-cache.c, 6.1)
 *   The log starts at the journal device's journal_tail (reset to 0 if it
 *   is past the ring or unaligned).  If the block there is not a meta block
 *   of this array (magic, version, checksum, position) there is no log.
 *   Otherwise its seq starts the chain and each following meta block counts
 *   only if magic, version, checksum, position == where it is expected,
 *   seq == previous + 1 and meta_size <= 4096 all hold.  A meta block whose
 *   payloads are malformed or whose pages fail their checksum is skipped
 *   whole (flushes included) and the scan goes on one block later with the
 *   next seq, exactly as mainline does; practically this ends the log at
 *   the block after it.  The first block that does not count is the end.
 *
 *   Stricter than mainline, where mainline's own behaviour is incoherent
 *   and which mainline never writes: DATA size must be 8, PARITY size must
 *   be 8 * parity pages, FLUSH size a multiple of 8, every payload must lie
 *   inside meta_size (mainline may read past it), a transaction longer than
 *   the rest of one lap of the ring ends the scan (R5J_WRAPPED), and read
 *   errors are reported to the caller instead of ending the log silently.
 *
 * After recovery a new log starts at the end position with seq + 10000
 * (R5J_SEQ_JUMP), so stale blocks beyond the end can never chain on.
 */
#ifndef RAID5J_JOURNAL_H
#define RAID5J_JOURNAL_H

#include "types.h"
#include <linux/raid/md_p.h>

#define R5J_BLOCK_SIZE		4096
#define R5J_BLOCK_SECTORS	8
#define R5J_META_HDR_SIZE	32	/* sizeof(struct r5l_meta_block) */
#define R5J_DATA_PAYLOAD_SIZE	16	/* struct r5l_payload_data_parity, no csum */
#define R5J_FLUSH_PAYLOAD_SIZE	8	/* struct r5l_payload_flush, no stripes */
#define R5J_MAX_PARITY_PAGES	2
#define R5J_SEQ_JUMP		10000	/* seq step after recovery */

/*
 * Verdicts on a block, a transaction or a whole scan.  X-macro: value,
 * name (stable, used in r5jtool's output and JSON).
 */
#define R5J_REASONS(X)					\
	X(R5J_OK,		0,  "ok")			\
	X(R5J_BAD_MAGIC,	1,  "bad-magic")		\
	X(R5J_BAD_VERSION,	2,  "bad-version")		\
	X(R5J_BAD_META_CSUM,	3,  "bad-meta-checksum")	\
	X(R5J_BAD_POSITION,	4,  "position-mismatch")	\
	X(R5J_BAD_SEQ,		5,  "seq-mismatch")		\
	X(R5J_BAD_META_SIZE,	6,  "bad-meta-size")		\
	X(R5J_BAD_PAYLOAD,	7,  "bad-payload")		\
	X(R5J_BAD_PAGE_CSUM,	8,  "bad-page-checksum")	\
	X(R5J_DEVICE_END,	9,  "device-end")		\
	X(R5J_WRAPPED,		10, "wrapped")			\
	X(R5J_IO_ERROR,		11, "io-error")			\
	X(R5J_BAD_LOCATION,	12, "location-out-of-range")	\
	X(R5J_UNALIGNED,	13, "location-unaligned")

#define R5J_REASON_ENUM(sym, val, name) sym = val,
enum r5j_reason {
	R5J_REASONS(R5J_REASON_ENUM)
	R5J_NR_REASONS
};
#undef R5J_REASON_ENUM

/* Stable short name of a reason ("bad-magic"); "unknown" if out of range. */
const char *r5j_reason_name(enum r5j_reason r);

/* One journal: what every check needs besides the blocks themselves. */
struct r5j_log {
	u32 seed;			/* r5j_log_seed(set_uuid) */
	u64 ring_sectors;		/* data_size rounded down to 8 */
	unsigned int parity_pages;	/* pages per PARITY payload: 1 or 2 */
};

/*
 * Fill *log for an array with set_uuid, a journal of data_sectors (the
 * journal device's data_size) and RAID level 4, 5 or 6.  -EINVAL if the
 * level is not one of these or the ring holds fewer than 2 blocks.
 */
int r5j_log_init(struct r5j_log *log, const u8 uuid[16], u64 data_sectors,
		 int level);

/* Checksums. */
u32 r5j_log_seed(const u8 uuid[16]);
u32 r5j_page_csum(u32 seed, const void *page);
/* Meta block checksum, its checksum field counted as zero (block unchanged). */
u32 r5j_meta_csum(u32 seed, const void *meta);

/* Ring arithmetic; pos < ring_sectors, sectors <= ring_sectors. */
u64 r5j_ring_add(const struct r5j_log *log, u64 pos, u64 sectors);
u64 r5j_ring_distance(const struct r5j_log *log, u64 from, u64 to);
/* journal_tail as mainline loads it: past the ring or unaligned -> 0. */
u64 r5j_ring_sanitize(const struct r5j_log *log, u64 tail);

/*
 * Meta block encoder.  r5j_meta_init() clears the 4 KiB block and writes an
 * empty header (meta_size 32); r5j_meta_add_*() append a payload and
 * return 0 or -ENOSPC; r5j_meta_seal() stores the checksum and must come
 * last.  The caller writes the pages in the order of the payloads.
 */
void r5j_meta_init(void *meta, u64 pos, u64 seq);
int r5j_meta_add_data(void *meta, u64 array_sector, u32 csum);
int r5j_meta_add_parity(void *meta, u64 stripe_sector, const u32 *csums,
			unsigned int pages);
int r5j_meta_add_flush(void *meta, const u64 *stripes, unsigned int n);
void r5j_meta_seal(void *meta, u32 seed);

/*
 * raid5j's journal mode record: bit 0 of the header byte @9 (mainline's
 * __zero_pading_1, which raid456 and mdadm write as 0 and never check; the
 * checksum covers it).  Set = the array ran in write-back when the block
 * was written.  It chooses the mode the next assembly starts in
 * (Documentation/journal.md, section 15), nothing else: recovery reads
 * every log the same way whatever it says.  Set before r5j_meta_seal().
 */
#define R5J_META_FLAG_WRITEBACK	0x01
void r5j_meta_set_writeback(void *meta, bool wb);

/* Header accessors (no validation). */
u64 r5j_meta_seq(const void *meta);
u64 r5j_meta_position(const void *meta);
u32 r5j_meta_size(const void *meta);
bool r5j_meta_writeback(const void *meta);

/*
 * Check a meta block's header read at ring sector pos: magic, version,
 * checksum, position == pos, then seq == *seq unless seq is NULL, then
 * meta_size <= 4096.  Returns the first failing check or R5J_OK.  Payloads
 * and pages are not looked at.
 */
enum r5j_reason r5j_meta_check(const struct r5j_log *log, const void *meta,
			       u64 pos, const u64 *seq);

/*
 * Payload iterator: the one bounds-checked reader of a meta block's
 * payloads.  Every payload it returns lies inside meta_size and has a
 * known type and a valid size; pages are numbered in log order.
 *
 *	r5j_payload_iter_init(&it, log, meta, pos);
 *	while (r5j_payload_next(&it, &p))
 *		use(&p);
 *	if (it.err)
 *		malformed, it.offset is the bad payload's byte offset;
 *	else
 *		it.pages pages follow the meta block, it.log_pos is the
 *		ring sector after the transaction.
 */
struct r5j_payload {
	u16 type;		/* R5LOG_PAYLOAD_DATA, _PARITY or _FLUSH */
	u16 flags;
	u32 offset;		/* byte offset in the meta block */
	u64 location;		/* DATA: array sector, PARITY: stripe sector */
	unsigned int pages;	/* pages in the log: 1, parity_pages or 0 */
	unsigned int nr_stripes;	/* FLUSH: stripe sectors listed */
	u64 log_pos;		/* ring sector of the first page */
	const u8 *raw;		/* the payload inside the meta block */
};

struct r5j_payload_iter {
	const struct r5j_log *log;
	const u8 *meta;
	u32 meta_size;		/* bytes in use, <= R5J_BLOCK_SIZE */
	u32 offset;		/* next payload; the bad one if err */
	u64 log_pos;		/* ring sector of the next page */
	u32 pages;		/* pages of the payloads returned so far */
	enum r5j_reason err;	/* R5J_OK, R5J_BAD_META_SIZE or R5J_BAD_PAYLOAD */
};

void r5j_payload_iter_init(struct r5j_payload_iter *it,
			   const struct r5j_log *log, const void *meta,
			   u64 meta_pos);
bool r5j_payload_next(struct r5j_payload_iter *it, struct r5j_payload *p);
/* Checksum of page i (< p->pages), flush stripe i (< p->nr_stripes). */
u32 r5j_payload_csum(const struct r5j_payload *p, unsigned int i);
u64 r5j_payload_stripe(const struct r5j_payload *p, unsigned int i);
/* Ring sector of page i of a payload. */
u64 r5j_payload_page_pos(const struct r5j_log *log,
			 const struct r5j_payload *p, unsigned int i);

/*
 * Count the pages behind a meta block into *pages: R5J_OK, or
 * R5J_BAD_META_SIZE / R5J_BAD_PAYLOAD if malformed.
 */
enum r5j_reason r5j_meta_pages(const struct r5j_log *log, const void *meta,
			       u32 *pages);

/*
 * Log scanner (drivers/shared/logscan.c).  It allocates nothing, never
 * recurses and reads only through the caller's callback:
 *
 * r5j_read_fn reads the 4 KiB block at ring sector (a multiple of 8 below
 * ring_sectors; the caller adds data_offset) into buf.  It returns 0,
 * -ERANGE if the block lies past the end of the device (the scan then ends
 * with R5J_DEVICE_END), or another negative errno (returned by the
 * scanner, which can be resumed by calling r5j_scan_next() again).
 */
typedef int (*r5j_read_fn)(void *ctx, u64 sector, void *buf);

struct r5j_scan {
	const struct r5j_log *log;
	r5j_read_fn read;
	void *ctx;
	void *meta;		/* caller's 4 KiB buffer: current meta block */
	void *page;		/* caller's 4 KiB buffer: page checksum scratch */
	u64 start_pos;		/* where the scan began */
	u64 pos;		/* next meta block expected here ... */
	u64 seq;		/* ... with this seq; the log end once stopped */
	u64 walked;		/* sectors consumed since start_pos */
	enum r5j_reason stop;	/* why the valid log ended (R5J_OK: not yet) */
	bool tail_reset;	/* r5j_scan_start() ignored a bad journal_tail */
};

/* A transaction returned by r5j_scan_next(). */
struct r5j_txn {
	u64 pos;		/* ring sector of its meta block */
	u64 seq;
	u32 sectors;		/* ring sectors consumed (8 if skipped) */
	u32 pages;		/* pages its payloads list (0 if BAD_PAYLOAD) */
	enum r5j_reason verdict;	/* R5J_OK; or skipped: BAD_PAYLOAD, BAD_PAGE_CSUM */
	u32 bad_offset;		/* BAD_PAYLOAD: byte offset of the payload */
	u64 bad_page;		/* BAD_PAGE_CSUM: ring sector of the first bad page */
	const void *meta;	/* the scanner's meta buffer, valid until next call */
};

void r5j_scan_init(struct r5j_scan *s, const struct r5j_log *log,
		   r5j_read_fn read, void *ctx, void *meta_buf, void *page_buf);

/*
 * Start as mainline loads a log: sanitize journal_tail, read the block
 * there; if magic, version, checksum and position hold, the scan starts
 * there with that block's seq and 0 is returned.  Otherwise -ENOENT (the
 * caller starts a new log; s->stop tells why) or the read's errno.
 */
int r5j_scan_start(struct r5j_scan *s, u64 journal_tail);

/* Start at pos expecting seq (no checks; for tools and tests). */
void r5j_scan_start_at(struct r5j_scan *s, u64 pos, u64 seq);

/*
 * Next transaction: 1 and *t filled (a skipped one too: its payloads must
 * be ignored, flushes included); 0 at the end of the valid log, then
 * s->pos and s->seq are the end and s->stop says why; or a negative errno
 * from the read callback (s->stop is R5J_IO_ERROR, nothing consumed).
 */
int r5j_scan_next(struct r5j_scan *s, struct r5j_txn *t);

#endif /* RAID5J_JOURNAL_H */
