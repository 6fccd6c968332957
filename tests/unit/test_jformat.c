// SPDX-License-Identifier: GPL-2.0
/*
 * Journal format library: crc32c, seed, meta block encoder and checks,
 * payload iterator bounds.  Known answers were computed with an
 * independent bit-by-bit CRC32C (Python) over blocks laid out by hand
 * from <linux/raid/md_p.h>, the way mdadm 4.2 writes its first block
 * (super1.c write_empty_r5l_meta_block: crc32c_le(~0, set_uuid) as seed,
 * then crc32c_le(seed, block with checksum 0), stored in host order).
 */
#include <stdio.h>
#include <stdlib.h>
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/crc32c.h"
#include "raid5j/journal.h"

static u8 uuid[16];
static struct r5j_log log5, log6;

static void put32(u8 *b, unsigned int off, u32 v)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		b[off + i] = (u8)(v >> (8 * i));
}

static void put64(u8 *b, unsigned int off, u64 v)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		b[off + i] = (u8)(v >> (8 * i));
}

/* Independent oracle: bitwise raw CRC32C. */
static u32 crc_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0x82f63b78u : 0);
	}
	return crc;
}

static void test_crc(void)
{
	static u8 buf[10000];
	unsigned int i;

	CHECK_EQ(r5j_crc32c(~0u, "123456789", 9) ^ ~0u, 0xe3069283);
	CHECK_EQ(r5j_crc32c(0, "", 0), 0);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (u8)(i * 2654435761u >> 13);
	CHECK_EQ(r5j_crc32c(0x1234, buf, sizeof(buf)),
		 crc_bitwise(0x1234, buf, sizeof(buf)));
	/* chaining */
	CHECK_EQ(r5j_crc32c(r5j_crc32c(7, buf, 100), buf + 100, 900),
		 r5j_crc32c(7, buf, 1000));
}

/* mdadm's first block, laid out by hand; known answer from the oracle. */
static void test_mdadm_block(void)
{
	static u8 mb[R5J_BLOCK_SIZE], page[R5J_BLOCK_SIZE];
	u64 seq = 0x2545f491;
	unsigned int i;

	CHECK_EQ(r5j_log_seed(uuid), 0x58f0a594);
	put32(mb, 0, 0x6433c509);
	mb[8] = 1;
	put32(mb, 12, 32);
	put64(mb, 16, seq);
	CHECK_EQ(crc_bitwise(r5j_log_seed(uuid), mb, sizeof(mb)), 0xc1a5d967);
	put32(mb, 4, 0xc1a5d967);
	CHECK_EQ(r5j_meta_csum(log5.seed, mb), 0xc1a5d967);
	CHECK_EQ(r5j_meta_check(&log5, mb, 0, &seq), R5J_OK);
	CHECK_EQ(r5j_meta_check(&log5, mb, 0, NULL), R5J_OK);

	/* the encoder writes the very same bytes */
	{
		static u8 enc[R5J_BLOCK_SIZE];

		r5j_meta_init(enc, 0, seq);
		r5j_meta_seal(enc, log5.seed);
		CHECK_EQ(memcmp(enc, mb, sizeof(mb)), 0);
	}

	for (i = 0; i < R5J_BLOCK_SIZE; i++)
		page[i] = (u8)(i * 37 + 11);
	CHECK_EQ(r5j_page_csum(log5.seed, page), 0xdcbb22dc);
}

static void test_check_order(void)
{
	static u8 mb[R5J_BLOCK_SIZE];
	struct r5l_meta_block *m = (void *)mb;
	u64 seq = 5, other = 6;

	r5j_meta_init(mb, 16, seq);
	r5j_meta_seal(mb, log5.seed);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_OK);
	CHECK_EQ(r5j_meta_check(&log5, mb, 24, &seq), R5J_BAD_POSITION);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &other), R5J_BAD_SEQ);
	CHECK_EQ(r5j_meta_seq(mb), 5);
	CHECK_EQ(r5j_meta_position(mb), 16);
	CHECK_EQ(r5j_meta_size(mb), 32);
	/* bytes past meta_size still count in the checksum */
	mb[4095] = 1;
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_BAD_META_CSUM);
	r5j_meta_seal(mb, log5.seed);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_OK);
	/* padding is not checked (mainline does not) */
	m->__zero_pading_1 = 3;
	r5j_meta_seal(mb, log5.seed);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_OK);
	m->version = 0;
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_BAD_VERSION);
	m->magic = 0;
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_BAD_MAGIC);
	m->magic = cpu_to_le32(R5LOG_MAGIC);
	m->version = 1;
	m->meta_size = cpu_to_le32(4097);
	r5j_meta_seal(mb, log5.seed);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_BAD_META_SIZE);
	m->meta_size = cpu_to_le32(4096);
	r5j_meta_seal(mb, log5.seed);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_OK);
	CHECK_EQ(r5j_meta_check(&log6, mb, 16, &seq), R5J_OK);
}

/*
 * The journal mode record (journal.md, section 15): byte 9 bit 0 only, in
 * the checksum, invisible to mainline's checks, 0 in mdadm's blocks.
 */
static void test_mode_flag(void)
{
	static u8 mb[R5J_BLOCK_SIZE], ref[R5J_BLOCK_SIZE];
	u64 seq = 9;

	r5j_meta_init(ref, 16, seq);
	r5j_meta_init(mb, 16, seq);
	CHECK(!r5j_meta_writeback(mb));
	r5j_meta_set_writeback(mb, true);
	CHECK(r5j_meta_writeback(mb));
	CHECK_EQ(mb[9], R5J_META_FLAG_WRITEBACK);
	mb[9] = 0;
	CHECK_EQ(memcmp(mb, ref, sizeof(mb)), 0);	/* nothing else moved */
	r5j_meta_set_writeback(mb, true);
	r5j_meta_seal(mb, log5.seed);
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_OK);
	/* mainline's own check: crc over the page, checksum field 0 */
	{
		static u8 z[R5J_BLOCK_SIZE];
		u32 stored = le32_to_cpu(((struct r5l_meta_block *)mb)->checksum);

		memcpy(z, mb, sizeof(z));
		put32(z, 4, 0);
		CHECK_EQ(crc_bitwise(log5.seed, z, sizeof(z)), stored);
	}
	/* the checksum covers it: a flipped mode does not check out */
	mb[9] = 0;
	CHECK_EQ(r5j_meta_check(&log5, mb, 16, &seq), R5J_BAD_META_CSUM);
	/* unknown bits of the byte are kept and do not mean write-back */
	mb[9] = 0x82;
	CHECK(!r5j_meta_writeback(mb));
	r5j_meta_set_writeback(mb, true);
	CHECK_EQ(mb[9], 0x83);
	r5j_meta_set_writeback(mb, false);
	CHECK_EQ(mb[9], 0x82);
}

static void test_encoder_capacity(void)
{
	static u8 mb[R5J_BLOCK_SIZE];
	u64 stripes[600];
	u32 cs[3] = { 1, 2, 3 };
	unsigned int n = 0;
	u32 pages;

	r5j_meta_init(mb, 0, 1);
	while (r5j_meta_add_data(mb, 8 * n, n) == 0)
		n++;
	CHECK_EQ(n, 203);		/* (4096 - 32) / 20 */
	CHECK_EQ(r5j_meta_size(mb), 32 + 203 * 20);
	CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_OK);
	CHECK_EQ(pages, 203);

	r5j_meta_init(mb, 0, 1);
	CHECK_EQ(r5j_meta_add_parity(mb, 0, cs, 3), -EINVAL);
	CHECK_EQ(r5j_meta_add_parity(mb, 0, cs, 0), -EINVAL);
	memset(stripes, 0, sizeof(stripes));
	CHECK_EQ(r5j_meta_add_flush(mb, stripes, 600), -ENOSPC);
	CHECK_EQ(r5j_meta_add_flush(mb, stripes, 507), 0);	/* 8 + 4056 */
	CHECK_EQ(r5j_meta_size(mb), 4096);
	CHECK_EQ(r5j_meta_add_flush(mb, stripes, 0), -ENOSPC);
}

static void test_iterator(void)
{
	static u8 mb[R5J_BLOCK_SIZE];
	struct r5j_payload_iter it;
	struct r5j_payload p;
	u32 cs[2] = { 0xaaaa, 0xbbbb };
	u64 st[3] = { 8, 16, 24 };
	u32 pages;

	/* RAID6: data, parity (P+Q), flush; the meta block at ring end */
	r5j_meta_init(mb, 1016, 9);
	CHECK_EQ(r5j_meta_add_data(mb, 12345 * 8, 0x11), 0);
	CHECK_EQ(r5j_meta_add_parity(mb, 4096, cs, 2), 0);
	CHECK_EQ(r5j_meta_add_flush(mb, st, 3), 0);
	r5j_payload_iter_init(&it, &log6, mb, 1016);
	CHECK_EQ(r5j_payload_next(&it, &p), true);
	CHECK_EQ(p.type, R5LOG_PAYLOAD_DATA);
	CHECK_EQ(p.location, 12345 * 8);
	CHECK_EQ(p.pages, 1);
	CHECK_EQ(p.log_pos, 0);		/* wrapped */
	CHECK_EQ(r5j_payload_csum(&p, 0), 0x11);
	CHECK_EQ(r5j_payload_csum(&p, 1), 0);	/* out of range */
	CHECK_EQ(r5j_payload_next(&it, &p), true);
	CHECK_EQ(p.type, R5LOG_PAYLOAD_PARITY);
	CHECK_EQ(p.offset, 52);
	CHECK_EQ(p.pages, 2);
	CHECK_EQ(p.log_pos, 8);
	CHECK_EQ(r5j_payload_page_pos(&log6, &p, 1), 16);
	CHECK_EQ(r5j_payload_csum(&p, 1), 0xbbbb);
	CHECK_EQ(r5j_payload_next(&it, &p), true);
	CHECK_EQ(p.type, R5LOG_PAYLOAD_FLUSH);
	CHECK_EQ(p.nr_stripes, 3);
	CHECK_EQ(p.pages, 0);
	CHECK_EQ(r5j_payload_stripe(&p, 2), 24);
	CHECK_EQ(r5j_payload_stripe(&p, 3), 0);
	CHECK_EQ(r5j_payload_next(&it, &p), false);
	CHECK_EQ(it.err, R5J_OK);
	CHECK_EQ(it.pages, 3);
	CHECK_EQ(it.log_pos, 24);
	/* the same block read as RAID5: parity size 16 is bad */
	CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_BAD_PAYLOAD);

	/* every cut of meta_size inside a payload is a bad payload */
	{
		u32 full = r5j_meta_size(mb), cut;
		struct r5l_meta_block *m = (void *)mb;
		unsigned int bad = 0, good = 0;

		for (cut = 32; cut <= full; cut++) {
			m->meta_size = cpu_to_le32(cut);
			if (r5j_meta_pages(&log6, mb, &pages) == R5J_OK)
				good++;
			else
				bad++;
		}
		/* good: 32, 52 (after DATA), 76 (after PARITY), full */
		CHECK_EQ(good, 4);
		CHECK_EQ(bad, full - 32 + 1 - 4);
		m->meta_size = cpu_to_le32(8000);
		r5j_payload_iter_init(&it, &log6, mb, 0);
		CHECK_EQ(r5j_payload_next(&it, &p), false);
		CHECK_EQ(it.err, R5J_BAD_META_SIZE);
		/* meta_size below the header: no payloads, as mainline */
		m->meta_size = cpu_to_le32(8);
		CHECK_EQ(r5j_meta_pages(&log6, mb, &pages), R5J_OK);
		CHECK_EQ(pages, 0);
	}

	/* malformed sizes and types */
	{
		struct r5l_payload_data_parity *dp;

		r5j_meta_init(mb, 0, 1);
		r5j_meta_add_data(mb, 0, 0);
		dp = (void *)(mb + 32);
		dp->size = cpu_to_le32(16);
		CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_BAD_PAYLOAD);
		dp->size = cpu_to_le32(8);
		CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_OK);
		dp->header.type = cpu_to_le16(3);
		CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_BAD_PAYLOAD);
		r5j_meta_init(mb, 0, 1);
		r5j_meta_add_flush(mb, st, 1);
		dp = (void *)(mb + 32);
		dp->size = cpu_to_le32(12);
		CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_BAD_PAYLOAD);
		dp->size = cpu_to_le32(0xfffffff8u);
		CHECK_EQ(r5j_meta_pages(&log5, mb, &pages), R5J_BAD_PAYLOAD);
	}
}

static void test_ring(void)
{
	struct r5j_log l;

	CHECK_EQ(r5j_log_init(&l, uuid, 1000, 5), 0);
	CHECK_EQ(l.ring_sectors, 1000);
	CHECK_EQ(r5j_log_init(&l, uuid, 1007, 6), 0);
	CHECK_EQ(l.ring_sectors, 1000);
	CHECK_EQ(l.parity_pages, 2);
	CHECK_EQ(r5j_ring_add(&l, 992, 8), 0);
	CHECK_EQ(r5j_ring_add(&l, 992, 16), 8);
	CHECK_EQ(r5j_ring_distance(&l, 992, 8), 16);
	CHECK_EQ(r5j_ring_distance(&l, 8, 992), 984);
	CHECK_EQ(r5j_ring_sanitize(&l, 1000), 0);
	CHECK_EQ(r5j_ring_sanitize(&l, 996), 0);
	CHECK_EQ(r5j_ring_sanitize(&l, 992), 992);
	CHECK_EQ(r5j_log_init(&l, uuid, 15, 5), -EINVAL);
	CHECK_EQ(r5j_log_init(&l, uuid, 1000, 1), -EINVAL);
	CHECK_EQ(r5j_log_init(&l, uuid, 1000, 0), -EINVAL);
	CHECK_EQ(strcmp(r5j_reason_name(R5J_BAD_SEQ), "seq-mismatch"), 0);
	CHECK_EQ(strcmp(r5j_reason_name(R5J_NR_REASONS), "unknown"), 0);
	CHECK_EQ(strcmp(r5j_reason_name(R5J_OK), "ok"), 0);
	CHECK_EQ(strcmp(r5j_reason_name(R5J_IO_ERROR), "io-error"), 0);
	CHECK_EQ(strcmp(r5j_reason_name(R5J_WRAPPED), "wrapped"), 0);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		uuid[i] = (u8)(0x10 + i);
	r5j_log_init(&log5, uuid, 1024, 5);
	r5j_log_init(&log6, uuid, 1024, 6);
	RUN_TEST(test_crc);
	RUN_TEST(test_mdadm_block);
	RUN_TEST(test_check_order);
	RUN_TEST(test_mode_flag);
	RUN_TEST(test_encoder_capacity);
	RUN_TEST(test_iterator);
	RUN_TEST(test_ring);
	return TEST_DONE();
}
