// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: meta block checks, the payload iterator and the log
 * scanner over an arbitrary journal image.
 *
 * Input: byte 0 picks the RAID level (4/5/6) and whether the scan starts
 * with r5j_scan_start() (journal_tail from bytes 1..2) or mid-ring; the
 * rest is the ring (whole 4 KiB blocks, at most 16 of them; a short last
 * block is "past the device end").  The seed uuid is fixed; seeds in
 * corpus/ are journals made with the encoder (see gen_seeds.c).
 *
 * Invariants checked beyond memory safety:
 *   - every payload returned lies inside meta_size, its pages inside the
 *     ring, and the iterator's page count matches the sum;
 *   - the scanner never consumes more than one lap, positions stay
 *     8-aligned inside the ring, seq rises by one per transaction;
 *   - every transaction the scanner accepts re-validates on its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include "raid5j/types.h"
#include "raid5j/journal.h"

#define MAX_BLOCKS 16

static const u8 uuid[16] = "r5j-fuzz-uuid-01";

struct img {
	const u8 *data;
	size_t len;
};

static int img_read(void *ctx, u64 sector, void *buf)
{
	struct img *im = ctx;
	u64 off = sector * 512;

	if (sector % 8)
		abort();
	if (off + R5J_BLOCK_SIZE > im->len)
		return -ERANGE;
	memcpy(buf, im->data + off, R5J_BLOCK_SIZE);
	return 0;
}

static void check_payloads(const struct r5j_log *log, const void *meta,
			   u64 pos)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	u32 pages = 0, total;
	unsigned int i;

	r5j_payload_iter_init(&it, log, meta, pos);
	while (r5j_payload_next(&it, &p)) {
		if (p.offset < R5J_META_HDR_SIZE || p.offset >= it.meta_size)
			abort();
		if (p.offset > it.offset)
			abort();
		if (p.log_pos >= log->ring_sectors || p.log_pos % 8)
			abort();
		for (i = 0; i < p.pages; i++) {
			u64 at = r5j_payload_page_pos(log, &p, i);

			if (at >= log->ring_sectors)
				abort();
			(void)r5j_payload_csum(&p, i);
		}
		for (i = 0; i < p.nr_stripes; i++)
			(void)r5j_payload_stripe(&p, i);
		if (it.offset > it.meta_size)
			abort();
		pages += p.pages;
	}
	if (it.pages != pages)
		abort();
	if (r5j_meta_pages(log, meta, &total) != it.err)
		abort();
	if (!it.err && total != pages)
		abort();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static u8 meta[R5J_BLOCK_SIZE], page[R5J_BLOCK_SIZE];
	struct r5j_log log;
	struct r5j_scan s;
	struct r5j_txn t;
	struct img im;
	size_t blocks;
	u64 seq, last_seq = 0, walked = 0;
	int level, ret, n = 0;
	bool first = true;

	if (size < 3)
		return 0;
	level = 4 + data[0] % 3;
	im.data = data + 3;
	im.len = size - 3;
	blocks = (im.len + R5J_BLOCK_SIZE - 1) / R5J_BLOCK_SIZE;
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	if (blocks < 2)
		blocks = 2;
	if (r5j_log_init(&log, uuid, blocks * R5J_BLOCK_SECTORS, level))
		abort();

	/* every full block through the header check and the iterator */
	for (size_t b = 0; (b + 1) * R5J_BLOCK_SIZE <= im.len && b < blocks; b++) {
		const u8 *blk = im.data + b * R5J_BLOCK_SIZE;

		memcpy(meta, blk, R5J_BLOCK_SIZE);
		(void)r5j_meta_check(&log, meta, b * 8, NULL);
		check_payloads(&log, meta, b * 8);
	}

	r5j_scan_init(&s, &log, img_read, &im, meta, page);
	if (data[0] & 0x80) {
		/* mid-ring, expecting the seq of the block found there */
		u64 pos = (u64)(data[1] % blocks) * R5J_BLOCK_SECTORS;

		if (img_read(&im, pos, meta))
			memset(meta, 0, sizeof(meta));
		r5j_scan_start_at(&s, pos, r5j_meta_seq(meta) + (data[2] & 1));
	} else if (r5j_scan_start(&s, (u64)data[1] << 8 | data[2])) {
		return 0;
	}
	seq = s.seq;
	while ((ret = r5j_scan_next(&s, &t)) == 1) {
		if (t.seq != seq || (!first && t.seq != last_seq + 1))
			abort();
		if (t.pos % 8 || t.pos >= log.ring_sectors)
			abort();
		if (t.sectors < 8 || t.sectors % 8)
			abort();
		walked += t.sectors;
		if (walked > log.ring_sectors || walked != s.walked)
			abort();
		if (t.verdict == R5J_OK) {
			u64 sq = t.seq;

			if (r5j_meta_check(&log, t.meta, t.pos, &sq) != R5J_OK)
				abort();
			if (t.sectors != 8 * (1 + t.pages))
				abort();
			check_payloads(&log, t.meta, t.pos);
		} else if (t.verdict != R5J_BAD_PAYLOAD &&
			   t.verdict != R5J_BAD_PAGE_CSUM) {
			abort();
		}
		last_seq = t.seq;
		seq++;
		first = false;
		if (++n > 10000)
			abort();
	}
	if (ret != 0 || s.stop == R5J_OK || s.stop >= R5J_NR_REASONS)
		abort();
	if (s.pos % 8 || s.pos >= log.ring_sectors)
		abort();
	return 0;
}
