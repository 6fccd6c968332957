// SPDX-License-Identifier: GPL-2.0
/*
 * Log scanner on synthetic journals built with the encoder: every way a
 * log can end, wrap-around, skipped transactions, device end, I/O errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/journal.h"

static const u8 uuid_a[16] = "raid5j-array-AAA";
static const u8 uuid_b[16] = "raid5j-array-BBB";

/* An in-memory journal device: ring sector 0 at byte 0. */
struct img {
	u8 *buf;
	u64 dev_sectors;	/* readable sectors (device end) */
	u64 fail_sector;	/* this read returns -EIO (if fail) */
	bool fail;
	unsigned int reads;
};

static int img_read(void *ctx, u64 sector, void *buf)
{
	struct img *im = ctx;

	im->reads++;
	if (im->fail && sector == im->fail_sector)
		return -EIO;
	if (sector + R5J_BLOCK_SECTORS > im->dev_sectors)
		return -ERANGE;
	memcpy(buf, im->buf + sector * 512, R5J_BLOCK_SIZE);
	return 0;
}

/* Journal builder: appends transactions at pos with seq. */
struct jb {
	struct img *im;
	const struct r5j_log *log;
	u32 seed;		/* may differ from log->seed (other array) */
	u64 pos, seq;
	u8 meta[R5J_BLOCK_SIZE];
	u8 pages[64][R5J_BLOCK_SIZE];
	unsigned int npages;
};

static void jb_begin(struct jb *b)
{
	r5j_meta_init(b->meta, b->pos, b->seq);
	b->npages = 0;
}

static void fill(u8 *page, unsigned int pattern)
{
	unsigned int i;

	for (i = 0; i < R5J_BLOCK_SIZE; i++)
		page[i] = (u8)(pattern * 131 + i * 7 + (i >> 8));
}

static void jb_data(struct jb *b, u64 array_sector, unsigned int pattern)
{
	u8 *pg = b->pages[b->npages++];

	fill(pg, pattern);
	CHECK_EQ(r5j_meta_add_data(b->meta, array_sector,
				   r5j_page_csum(b->seed, pg)), 0);
}

static void jb_parity(struct jb *b, u64 stripe, unsigned int pattern)
{
	u32 csum[2];
	unsigned int i;

	for (i = 0; i < b->log->parity_pages; i++) {
		u8 *pg = b->pages[b->npages++];

		fill(pg, pattern + 1000 * i);
		csum[i] = r5j_page_csum(b->seed, pg);
	}
	CHECK_EQ(r5j_meta_add_parity(b->meta, stripe, csum,
				     b->log->parity_pages), 0);
}

static void jb_flush(struct jb *b, u64 stripe)
{
	CHECK_EQ(r5j_meta_add_flush(b->meta, &stripe, 1), 0);
}

static void put_block(struct jb *b, u64 pos, const void *blk)
{
	memcpy(b->im->buf + pos * 512, blk, R5J_BLOCK_SIZE);
}

/* Seal and write the transaction; returns its meta position. */
static u64 jb_commit(struct jb *b)
{
	u64 at = b->pos, p;
	unsigned int i;

	r5j_meta_seal(b->meta, b->seed);
	put_block(b, at, b->meta);
	p = r5j_ring_add(b->log, at, R5J_BLOCK_SECTORS);
	for (i = 0; i < b->npages; i++) {
		put_block(b, p, b->pages[i]);
		p = r5j_ring_add(b->log, p, R5J_BLOCK_SECTORS);
	}
	b->pos = p;
	b->seq++;
	return at;
}

static void setup(struct img *im, struct r5j_log *log, struct jb *b,
		  u64 ring_sectors, int level)
{
	memset(im, 0, sizeof(*im));
	im->dev_sectors = ring_sectors;
	im->buf = calloc(ring_sectors, 512);
	CHECK_EQ(r5j_log_init(log, uuid_a, ring_sectors, level), 0);
	memset(b, 0, sizeof(*b));
	b->im = im;
	b->log = log;
	b->seed = log->seed;
	b->seq = 1000;
}

struct scan_result {
	unsigned int txns, skipped, pages;
	u64 last_pos;
	enum r5j_reason last_verdict;
	int ret;
};

static struct scan_result scan_all(struct r5j_scan *s)
{
	struct scan_result r = { 0 };
	struct r5j_txn t;

	while ((r.ret = r5j_scan_next(s, &t)) == 1) {
		r.txns++;
		if (t.verdict != R5J_OK)
			r.skipped++;
		r.pages += t.pages;
		r.last_pos = t.pos;
		r.last_verdict = t.verdict;
	}
	return r;
}

static u8 mbuf[R5J_BLOCK_SIZE], pbuf[R5J_BLOCK_SIZE];

static void test_zero_device(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;

	setup(&im, &log, &b, 1024, 5);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), -ENOENT);
	CHECK_EQ(s.stop, R5J_BAD_MAGIC);
	free(im.buf);
}

static void test_empty_log(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;

	/* as mdadm --create writes it: one empty meta block at 0 */
	setup(&im, &log, &b, 1024, 5);
	jb_begin(&b);
	jb_commit(&b);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	CHECK_EQ(s.seq, 1000);
	r = scan_all(&s);
	CHECK_EQ(r.ret, 0);
	CHECK_EQ(r.txns, 1);
	CHECK_EQ(r.pages, 0);
	CHECK_EQ(s.pos, 8);
	CHECK_EQ(s.seq, 1001);
	CHECK_EQ(s.stop, R5J_BAD_MAGIC);
	/* once stopped, it stays stopped */
	CHECK_EQ(r5j_scan_next(&s, NULL), 0);
	free(im.buf);
}

static void test_one_txn(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct r5j_txn t;
	struct r5j_payload_iter it;
	struct r5j_payload p;
	unsigned int n = 0;

	setup(&im, &log, &b, 1024, 6);
	b.pos = 64;
	jb_begin(&b);
	jb_data(&b, 4096, 1);
	jb_data(&b, 4104, 2);
	jb_parity(&b, 2048, 3);
	jb_commit(&b);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 64), 0);
	CHECK_EQ(r5j_scan_next(&s, &t), 1);
	CHECK_EQ(t.pos, 64);
	CHECK_EQ(t.seq, 1000);
	CHECK_EQ(t.pages, 4);
	CHECK_EQ(t.sectors, 40);
	CHECK_EQ(t.verdict, R5J_OK);
	r5j_payload_iter_init(&it, &log, t.meta, t.pos);
	while (r5j_payload_next(&it, &p)) {
		if (n == 0) {
			CHECK_EQ(p.type, R5LOG_PAYLOAD_DATA);
			CHECK_EQ(p.location, 4096);
			CHECK_EQ(p.log_pos, 72);
		} else if (n == 2) {
			CHECK_EQ(p.type, R5LOG_PAYLOAD_PARITY);
			CHECK_EQ(p.pages, 2);
			CHECK_EQ(p.location, 2048);
			CHECK_EQ(r5j_payload_page_pos(&log, &p, 1), 96);
		}
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK_EQ(it.err, R5J_OK);
	CHECK_EQ(r5j_scan_next(&s, &t), 0);
	CHECK_EQ(s.pos, 104);
	CHECK_EQ(s.seq, 1001);
	CHECK_EQ(s.stop, R5J_BAD_MAGIC);
	free(im.buf);
}

static void test_many(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	unsigned int i, j, pages = 0;

	setup(&im, &log, &b, 8192, 5);
	for (i = 0; i < 60; i++) {
		jb_begin(&b);
		for (j = 0; j < i % 5; j++) {
			jb_data(&b, 8 * (i * 10 + j), i + j);
			pages++;
		}
		if (i % 5) {
			jb_parity(&b, 8 * i, i);
			pages++;
		}
		if (i % 7 == 3)
			jb_flush(&b, 8 * (i - 3));
		jb_commit(&b);
	}
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 60);
	CHECK_EQ(r.skipped, 0);
	CHECK_EQ(r.pages, pages);
	CHECK_EQ(s.pos, b.pos);
	CHECK_EQ(s.seq, 1060);
	CHECK_EQ(s.walked, b.pos);
	free(im.buf);
}

static void test_wrap(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	struct r5j_txn t;

	/* 12 blocks; log starts at block 9, wraps twice over sector 0 */
	setup(&im, &log, &b, 96, 5);
	b.pos = 72;
	jb_begin(&b);			/* 72: meta, 80, 88: pages */
	jb_data(&b, 0, 1);
	jb_parity(&b, 0, 2);
	jb_commit(&b);
	CHECK_EQ(b.pos, 0);
	jb_begin(&b);			/* 0 */
	jb_commit(&b);
	jb_begin(&b);			/* 8: meta, 16.. */
	jb_data(&b, 64, 3);
	jb_commit(&b);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 72), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 3);
	CHECK_EQ(s.pos, 24);
	CHECK_EQ(s.stop, R5J_BAD_MAGIC);

	/* pages themselves wrapping past the device end */
	free(im.buf);
	setup(&im, &log, &b, 96, 5);
	b.pos = 80;
	jb_begin(&b);			/* 80: meta, 88, 0, 8: pages */
	jb_data(&b, 0, 1);
	jb_data(&b, 8, 2);
	jb_parity(&b, 0, 3);
	jb_commit(&b);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 80), 0);
	CHECK_EQ(r5j_scan_next(&s, &t), 1);
	CHECK_EQ(t.verdict, R5J_OK);
	CHECK_EQ(t.sectors, 32);
	CHECK_EQ(r5j_scan_next(&s, &t), 0);
	CHECK_EQ(s.pos, 16);
	free(im.buf);
}

static void test_stale_lap(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	unsigned int i;

	/* a full ring of empty meta blocks: the chain stops at the oldest */
	setup(&im, &log, &b, 64, 5);
	for (i = 0; i < 8; i++) {
		jb_begin(&b);
		jb_commit(&b);
	}
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 16), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 6);		/* 16..56; 0 holds 1000, not 1008 */
	CHECK_EQ(s.pos, 0);
	CHECK_EQ(s.stop, R5J_BAD_SEQ);
	free(im.buf);

	/* a transaction longer than the ring */
	setup(&im, &log, &b, 32, 5);
	jb_begin(&b);
	for (i = 0; i < 4; i++)
		jb_data(&b, 8 * i, i);
	r5j_meta_seal(b.meta, b.seed);
	put_block(&b, 0, b.meta);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 0);
	CHECK_EQ(s.stop, R5J_WRAPPED);
	free(im.buf);
}

/*
 * Build three transactions, damage the second with mutate(), return the
 * scan's verdict.  *txns receives the number of transactions returned.
 */
typedef void (*mutate_fn)(struct jb *b, u64 pos2);

static enum r5j_reason corrupt_second(mutate_fn mutate, unsigned int *txns,
				      u64 *end, unsigned int *skipped)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	u64 pos2;

	setup(&im, &log, &b, 1024, 5);
	jb_begin(&b);
	jb_data(&b, 0, 1);
	jb_parity(&b, 0, 2);
	jb_commit(&b);
	pos2 = b.pos;
	jb_begin(&b);
	jb_data(&b, 8, 3);
	jb_parity(&b, 8, 4);
	jb_commit(&b);
	jb_begin(&b);
	jb_data(&b, 16, 5);
	jb_parity(&b, 16, 6);
	jb_commit(&b);
	mutate(&b, pos2);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.ret, 0);
	*txns = r.txns;
	*end = s.pos;
	*skipped = r.skipped;
	free(im.buf);
	return s.stop;
}

static struct r5l_meta_block *mb_at(struct jb *b, u64 pos)
{
	return (struct r5l_meta_block *)(b->im->buf + pos * 512);
}

static void reseal(struct jb *b, u64 pos)
{
	r5j_meta_seal(mb_at(b, pos), b->seed);
}

static void m_magic(struct jb *b, u64 p) { mb_at(b, p)->magic ^= 1; reseal(b, p); }
static void m_version(struct jb *b, u64 p) { mb_at(b, p)->version = 2; reseal(b, p); }
static void m_meta_crc(struct jb *b, u64 p) { b->im->buf[p * 512 + 4000] ^= 0x40; }
static void m_seq(struct jb *b, u64 p) { mb_at(b, p)->seq = cpu_to_le64(1002); reseal(b, p); }
static void m_position(struct jb *b, u64 p) { mb_at(b, p)->position = cpu_to_le64(p + 8); reseal(b, p); }
static void m_meta_size(struct jb *b, u64 p) { mb_at(b, p)->meta_size = cpu_to_le32(4100); reseal(b, p); }
static void m_page_crc(struct jb *b, u64 p) { b->im->buf[(p + 16) * 512 + 17] ^= 1; }
static void m_other_uuid(struct jb *b, u64 p)
{
	b->seed = r5j_log_seed(uuid_b);
	reseal(b, p);
}

static void m_overrun(struct jb *b, u64 p)
{
	/* meta_size cuts the PARITY payload (at 52, 20 bytes) short */
	mb_at(b, p)->meta_size = cpu_to_le32(32 + 20 + 12);
	reseal(b, p);
}

static void m_bad_type(struct jb *b, u64 p)
{
	b->im->buf[p * 512 + 32] = 7;
	reseal(b, p);
}

static void m_torn(struct jb *b, u64 p)
{
	/* the last transaction's pages never reached the disk */
	(void)p;
	memset(b->im->buf + (b->pos - 16) * 512, 0, 2 * R5J_BLOCK_SIZE);
}

static void test_corruptions(void)
{
	static const struct {
		const char *name;
		mutate_fn fn;
		enum r5j_reason stop;
		unsigned int txns, skipped;
		u64 end;
	} cases[] = {
		/* the end is the damaged block at 24 */
		{ "magic", m_magic, R5J_BAD_MAGIC, 1, 0, 24 },
		{ "version", m_version, R5J_BAD_VERSION, 1, 0, 24 },
		{ "meta crc", m_meta_crc, R5J_BAD_META_CSUM, 1, 0, 24 },
		{ "seq gap", m_seq, R5J_BAD_SEQ, 1, 0, 24 },
		{ "position", m_position, R5J_BAD_POSITION, 1, 0, 24 },
		{ "meta_size", m_meta_size, R5J_BAD_META_SIZE, 1, 0, 24 },
		{ "other array", m_other_uuid, R5J_BAD_META_CSUM, 1, 0, 24 },
		/* skipped whole; the next read (its data page at 32) ends it */
		{ "page crc", m_page_crc, R5J_BAD_MAGIC, 2, 1, 32 },
		{ "overrun", m_overrun, R5J_BAD_MAGIC, 2, 1, 32 },
		{ "bad type", m_bad_type, R5J_BAD_MAGIC, 2, 1, 32 },
		/* torn tail: third transaction skipped */
		{ "torn tail", m_torn, R5J_BAD_MAGIC, 3, 1, 56 },
	};
	unsigned int i, txns, skipped;
	enum r5j_reason why;
	u64 end;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why = corrupt_second(cases[i].fn, &txns, &end, &skipped);
		TEST_NOTE("corruption %s: stop %s txns %u skipped %u end %llu",
			  cases[i].name, r5j_reason_name(why), txns, skipped,
			  (unsigned long long)end);
		CHECK(why == cases[i].stop && txns == cases[i].txns &&
		      end == cases[i].end && skipped == cases[i].skipped);
	}
}

static void test_skip_then_continue(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	u64 p;

	/* a page-less block with a bad payload is skipped; the next chains */
	setup(&im, &log, &b, 1024, 5);
	jb_begin(&b);
	jb_commit(&b);
	jb_begin(&b);
	jb_flush(&b, 64);
	p = jb_commit(&b);
	mb_at(&b, p)->meta_size = cpu_to_le32(32 + 12);
	reseal(&b, p);
	jb_begin(&b);
	jb_data(&b, 0, 9);
	jb_commit(&b);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 3);
	CHECK_EQ(r.skipped, 1);
	CHECK_EQ(r.last_verdict, R5J_OK);
	CHECK_EQ(s.pos, 32);
	CHECK_EQ(s.seq, 1003);
	free(im.buf);
}

static void test_start_rules(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	u64 p;

	setup(&im, &log, &b, 1024, 5);
	jb_begin(&b);
	jb_commit(&b);
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	/* past the device end, and unaligned: start at 0 as mainline */
	CHECK_EQ(r5j_scan_start(&s, 1024), 0);
	CHECK(s.tail_reset);
	CHECK_EQ(s.start_pos, 0);
	CHECK_EQ(r5j_scan_start(&s, 12), 0);
	CHECK(s.tail_reset);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	CHECK(!s.tail_reset);

	/* the start block ignores seq; a bad meta_size there ends at once */
	p = 0;
	mb_at(&b, p)->meta_size = cpu_to_le32(8192);
	reseal(&b, p);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 0);
	CHECK_EQ(s.stop, R5J_BAD_META_SIZE);
	CHECK_EQ(s.pos, 0);
	CHECK_EQ(s.seq, 1000);

	/* a start block of another array or at the wrong place: no log */
	b.seed = r5j_log_seed(uuid_b);
	reseal(&b, p);
	CHECK_EQ(r5j_scan_start(&s, 0), -ENOENT);
	CHECK_EQ(s.stop, R5J_BAD_META_CSUM);
	b.seed = log.seed;
	mb_at(&b, p)->meta_size = cpu_to_le32(32);
	mb_at(&b, p)->position = cpu_to_le64(8);
	reseal(&b, p);
	CHECK_EQ(r5j_scan_start(&s, 0), -ENOENT);
	CHECK_EQ(s.stop, R5J_BAD_POSITION);
	free(im.buf);
}

static void test_device_end_and_io(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	struct r5j_txn t;

	setup(&im, &log, &b, 1024, 5);
	jb_begin(&b);
	jb_data(&b, 0, 1);
	jb_parity(&b, 0, 2);
	jb_commit(&b);
	jb_begin(&b);
	jb_data(&b, 8, 1);
	jb_parity(&b, 8, 2);
	jb_commit(&b);

	/* image truncated inside the second transaction's pages */
	im.dev_sectors = 40;
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 1);
	CHECK_EQ(s.stop, R5J_DEVICE_END);
	CHECK_EQ(s.pos, 24);

	/* a failing read is returned, nothing consumed, and can be retried */
	im.dev_sectors = 1024;
	im.fail = true;
	im.fail_sector = 32;
	r5j_scan_init(&s, &log, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	CHECK_EQ(r5j_scan_next(&s, &t), 1);
	CHECK_EQ(r5j_scan_next(&s, &t), -EIO);
	CHECK_EQ(s.stop, R5J_IO_ERROR);
	CHECK_EQ(s.pos, 24);
	im.fail = false;
	CHECK_EQ(r5j_scan_next(&s, &t), 1);
	CHECK_EQ(t.pos, 24);
	CHECK_EQ(r5j_scan_next(&s, &t), 0);
	CHECK_EQ(s.pos, 48);
	free(im.buf);
}

static void test_raid4_parity_pages(void)
{
	struct img im; struct r5j_log log; struct jb b; struct r5j_scan s;
	struct scan_result r;
	struct r5j_log log6;

	/* a RAID6 log read as RAID5: parity size 16 is a bad payload */
	setup(&im, &log, &b, 1024, 6);
	jb_begin(&b);
	jb_data(&b, 0, 1);
	jb_parity(&b, 0, 2);
	jb_commit(&b);
	CHECK_EQ(r5j_log_init(&log6, uuid_a, 1024, 4), 0);
	r5j_scan_init(&s, &log6, img_read, &im, mbuf, pbuf);
	CHECK_EQ(r5j_scan_start(&s, 0), 0);
	r = scan_all(&s);
	CHECK_EQ(r.txns, 1);
	CHECK_EQ(r.skipped, 1);
	CHECK_EQ(s.pos, 8);
	free(im.buf);
}

int main(void)
{
	RUN_TEST(test_zero_device);
	RUN_TEST(test_empty_log);
	RUN_TEST(test_one_txn);
	RUN_TEST(test_many);
	RUN_TEST(test_wrap);
	RUN_TEST(test_stale_lap);
	RUN_TEST(test_corruptions);
	RUN_TEST(test_skip_then_continue);
	RUN_TEST(test_start_rules);
	RUN_TEST(test_device_end_and_io);
	RUN_TEST(test_raid4_parity_pages);
	return TEST_DONE();
}
