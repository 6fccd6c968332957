// SPDX-License-Identifier: GPL-2.0
/*
 * Seed corpora made with the encoder: small synthetic journals for
 * fuzz_journal (gen_seeds DIR) and for fuzz_replay (gen_seeds --replay
 * DIR); the input formats are described in those files.
 */
#include <stdio.h>
#include <stdlib.h>
#include "raid5j/types.h"
#include "raid5j/journal.h"

static const u8 uuid[16] = "r5j-fuzz-uuid-01";
static u8 img[8 + 32 * R5J_BLOCK_SIZE];
static size_t hdr = 3;		/* header bytes before the ring */
static struct r5j_log log;
static u64 pos, seq;
static u8 meta[R5J_BLOCK_SIZE];
static u8 pages[16][R5J_BLOCK_SIZE];
static unsigned int npages;

static u8 *at(u64 sector)
{
	return img + hdr + sector * 512;
}

static void begin(void)
{
	r5j_meta_init(meta, pos, seq);
	npages = 0;
}

static void data(u64 sector, int v)
{
	memset(pages[npages], v, R5J_BLOCK_SIZE);
	r5j_meta_add_data(meta, sector, r5j_page_csum(log.seed, pages[npages]));
	npages++;
}

static void parity(u64 stripe, int v)
{
	u32 cs[2];
	unsigned int i;

	for (i = 0; i < log.parity_pages; i++) {
		memset(pages[npages], v + (int)i, R5J_BLOCK_SIZE);
		cs[i] = r5j_page_csum(log.seed, pages[npages++]);
	}
	r5j_meta_add_parity(meta, stripe, cs, log.parity_pages);
}

static void commit(void)
{
	unsigned int i;
	u64 p;

	r5j_meta_seal(meta, log.seed);
	memcpy(at(pos), meta, R5J_BLOCK_SIZE);
	if (hdr == 8)
		at(pos)[5] |= 1;	/* fuzz_replay: fix this block up */
	p = r5j_ring_add(&log, pos, 8);
	for (i = 0; i < npages; i++) {
		memcpy(at(p), pages[i], R5J_BLOCK_SIZE);
		p = r5j_ring_add(&log, p, 8);
	}
	pos = p;
	seq++;
}

static void save(const char *dir, const char *name, size_t blocks)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(img, 1, hdr + blocks * R5J_BLOCK_SIZE, f) !=
	    hdr + blocks * R5J_BLOCK_SIZE || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void reset(int level, size_t blocks, u64 start)
{
	memset(img, 0, sizeof(img));
	img[0] = (u8)(level - 4);
	img[1] = (u8)(start >> 8);
	img[2] = (u8)start;
	r5j_log_init(&log, uuid, blocks * 8, level);
	pos = start;
	seq = 77;
}

/*
 * fuzz_replay header: level, layout index (2: left-symmetric), members,
 * chunk 16 sectors, members of 512 sectors, a ring of 16 blocks from
 * block 0, flags.
 */
static void reset_replay(int level, int members, u8 flags)
{
	static const u8 uuid2[16] = "r5j-fuzz-uuid-02";

	hdr = 8;
	memset(img, 0, sizeof(img));
	img[0] = (u8)(level - 4);
	img[1] = 2;
	img[2] = (u8)(members - 2);
	img[3] = 1;
	img[4] = 7;
	img[5] = 12;
	img[6] = 0;
	img[7] = flags;
	r5j_log_init(&log, uuid2, 16 * 8, level);
	pos = 0;
	seq = 1000;
}

static int replay_seeds(const char *dir)
{
	u64 st = 0;

	reset_replay(5, 4, 0);		/* write-through, data-only, flush */
	begin(); commit();
	begin(); data(0, 2); data(16, 4); parity(0, 6); commit();
	begin(); data(64, 8); commit();
	begin(); r5j_meta_add_flush(meta, &st, 1); commit();
	save(dir, "raid5", pos / 8);

	reset_replay(6, 5, 0);		/* RAID6, P and Q */
	begin(); data(0, 2); parity(0, 4); data(8, 8); commit();
	save(dir, "raid6", pos / 8);

	reset_replay(5, 2, 0);		/* the wrapping location */
	begin(); data(~7ull, 2); parity(~7ull, 2); commit();
	save(dir, "wrap", pos / 8);

	reset_replay(5, 4, 0);		/* unaligned */
	begin(); data(4, 2); parity(4, 4); commit();
	save(dir, "unaligned", pos / 8);

	reset_replay(4, 4, 2 | 4);	/* a member missing, one rebuilding */
	begin(); data(8, 2); commit();
	begin(); data(24, 4); parity(8, 6); commit();
	save(dir, "raid4-degraded", pos / 8);
	return 0;
}

int main(int argc, char **argv)
{
	u64 st = 16;

	if (argc == 3 && !strcmp(argv[1], "--replay"))
		return replay_seeds(argv[2]);
	if (argc != 2)
		return 2;
	/* empty log as mdadm creates it */
	reset(5, 4, 0);
	begin(); commit();
	save(argv[1], "empty", 4);

	/* write-through RAID5, several transactions */
	reset(5, 12, 0);
	begin(); commit();
	begin(); data(0, 1); data(8, 2); parity(0, 3); commit();
	begin(); data(64, 4); parity(32, 5); r5j_meta_add_flush(meta, &st, 1); commit();
	save(argv[1], "raid5", 12);

	/* RAID6, wrapping, then torn */
	reset(6, 8, 40);
	begin(); data(0, 1); parity(0, 2); commit();
	begin(); data(8, 3); parity(8, 4); commit();
	memset(at(r5j_ring_add(&log, pos, -(u64)16 + log.ring_sectors)), 0x5a, 64);
	save(argv[1], "raid6-wrap-torn", 8);

	/* RAID4 flush-only and data-only blocks */
	reset(4, 6, 8);
	begin(); r5j_meta_add_flush(meta, &st, 1); commit();
	begin(); data(128, 9); commit();
	save(argv[1], "raid4-flush", 6);
	return 0;
}
