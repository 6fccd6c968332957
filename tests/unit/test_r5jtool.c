// SPDX-License-Identifier: GPL-2.0
/*
 * r5jtool end to end on image files: arrays with md v1.2 superblocks and a
 * journal are built here (superblocks with tools/mdsb.c, the log with the
 * encoder, parity with drivers/shared/parity.c), the tool binary is run on
 * them, and the images after replay are compared byte for byte with a
 * model that applies mainline's recovery rules independently.
 *
 * The tool is tools/r5jtool (built here with make -C tools), or $R5JTOOL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/journal.h"
#include "raid5j/layout.h"
#include "raid5j/parity.h"
#include "raid5j/mdsb.h"
#include "../../tools/mdsb.c"

#define DOFF		2048	/* data_offset of every device, sectors */
#define MSECTORS	1024	/* member data size: 128 blocks */
#define JRING		512	/* journal data size: 64 blocks */
#define MAXD		6
#define EVENTS		42

static char tool[4096], dir[256];

struct arr {
	struct r5j_geom g;
	int n;
	u8 uuid[16];
	u8 *m[MAXD];		/* member data areas (model) */
	u8 *jimg;		/* whole journal image */
	u64 jsectors;		/* journal image size */
	struct r5j_log log;
	u64 pos, seq;		/* next transaction */
	u8 meta[R5J_BLOCK_SIZE];
	u8 pages[64][R5J_BLOCK_SIZE];
	unsigned int npages;
	char mpath[MAXD][300], jpath[300];
};

static u8 *blk(u8 *area, u64 sector)
{
	return area + sector * 512;
}

static void fill(u8 *b, unsigned int seed)
{
	unsigned int i;
	u32 x = seed * 2654435761u + 1;

	for (i = 0; i < R5J_BLOCK_SIZE; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = (u8)(x >> 16);
	}
}

/* Recompute the parity of the stripe at dev sector s in member areas m. */
static void stripe_parity(struct arr *a, u8 **m, u64 s)
{
	struct r5j_stripe_map map;
	void *blocks[MAXD], *slots[MAXD + 2];
	static u8 zero[R5J_BLOCK_SIZE], spare[2][R5J_BLOCK_SIZE];
	struct r5j_parity_work w;
	int i;

	memset(&w, 0, sizeof(w));
	w.slots = slots;
	w.zero = zero;
	w.spare[0] = spare[0];
	w.spare[1] = spare[1];
	r5j_stripe_parity(&a->g, s, &map);
	for (i = 0; i < a->n; i++)
		blocks[i] = blk(m[i], s);
	r5j_compute_parity(&a->g, &map, blocks, &w);
}

static void sb_make(struct arr *a, struct mdsb *s, int dev_number,
		    u64 data_size, u64 tail, u64 dev_sectors)
{
	struct mdp_superblock_1 *sb = &s->sb;
	int i;

	memset(s, 0, sizeof(*s));
	s->minor = 2;
	s->sb_sector = 8;
	s->dev_sectors = dev_sectors;
	sb->magic = cpu_to_le32(MD_SB_MAGIC);
	sb->major_version = cpu_to_le32(1);
	sb->feature_map = cpu_to_le32(MD_FEATURE_JOURNAL);
	memcpy(sb->set_uuid, a->uuid, 16);
	strcpy(sb->set_name, "r5jtest:0");
	sb->level = cpu_to_le32((u32)a->g.level);
	sb->layout = cpu_to_le32((u32)a->g.layout);
	sb->size = cpu_to_le64(MSECTORS);
	sb->chunksize = cpu_to_le32(a->g.chunk_sectors);
	sb->raid_disks = cpu_to_le32((u32)a->n);
	sb->data_offset = cpu_to_le64(DOFF);
	sb->data_size = cpu_to_le64(data_size);
	sb->super_offset = cpu_to_le64(8);
	sb->journal_tail = cpu_to_le64(tail);
	sb->dev_number = cpu_to_le32((u32)dev_number);
	sb->device_uuid[0] = (u8)dev_number;
	sb->events = cpu_to_le64(EVENTS);
	sb->resync_offset = cpu_to_le64(~0ull);
	sb->max_dev = cpu_to_le32((u32)a->n + 1);
	for (i = 0; i < a->n; i++)
		sb->dev_roles[i] = cpu_to_le16((u16)i);
	sb->dev_roles[a->n] = cpu_to_le16(MD_DISK_ROLE_JOURNAL);
	sb->sb_csum = mdsb_csum(sb);
}

static void arr_init(struct arr *a, int level, int layout, int n)
{
	u64 s;
	int i;

	memset(a, 0, sizeof(*a));
	a->g.level = level;
	a->g.layout = layout;
	a->g.raid_disks = n;
	a->g.chunk_sectors = 16;
	a->n = n;
	for (i = 0; i < 16; i++)
		a->uuid[i] = (u8)(0xa0 + i);
	for (i = 0; i < n; i++) {
		a->m[i] = calloc(MSECTORS, 512);
		for (s = 0; s < MSECTORS; s += 8)
			fill(blk(a->m[i], s), (unsigned int)(i * 100000 + s));
	}
	for (s = 0; s < MSECTORS; s += 8)
		stripe_parity(a, a->m, s);
	a->jsectors = DOFF + JRING;
	a->jimg = calloc(a->jsectors, 512);
	r5j_log_init(&a->log, a->uuid, JRING, level);
	a->seq = 7000;
	for (i = 0; i < n; i++)
		snprintf(a->mpath[i], sizeof(a->mpath[i]), "%s/m%d.img", dir, i);
	snprintf(a->jpath, sizeof(a->jpath), "%s/j.img", dir);
}

static void arr_free(struct arr *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		free(a->m[i]);
	free(a->jimg);
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static u8 *read_file(const char *path, size_t len)
{
	u8 *buf = calloc(1, len + 1);
	FILE *f = fopen(path, "rb");

	if (!f || fread(buf, 1, len + 1, f) != len) {
		fprintf(stderr, "%s: wrong size\n", path);
		memset(buf, 0xee, len);
	}
	if (f)
		fclose(f);
	return buf;
}

/* A whole member image: superblock + data area m. */
static u8 *member_image(struct arr *a, int i, u8 *m)
{
	u8 *img = calloc(DOFF + MSECTORS, 512);
	struct mdsb s;

	sb_make(a, &s, i, MSECTORS, 0, DOFF + MSECTORS);
	memcpy(img + 8 * 512, s.raw, 4096);
	memcpy(img + DOFF * 512, m, MSECTORS * 512);
	return img;
}

static void journal_sb(struct arr *a, u64 tail)
{
	struct mdsb s;

	sb_make(a, &s, a->n, JRING, tail, a->jsectors);
	memcpy(a->jimg + 8 * 512, s.raw, 4096);
}

static void write_images(struct arr *a, u64 tail)
{
	int i;
	u8 *img;

	for (i = 0; i < a->n; i++) {
		img = member_image(a, i, a->m[i]);
		write_file(a->mpath[i], img, (DOFF + MSECTORS) * 512);
		free(img);
	}
	journal_sb(a, tail);
	write_file(a->jpath, a->jimg, a->jsectors * 512);
}

/* ---- log building ---- */

static void t_begin(struct arr *a)
{
	r5j_meta_init(a->meta, a->pos, a->seq);
	a->npages = 0;
}

static void t_data(struct arr *a, u64 array_sector, const u8 *page)
{
	memcpy(a->pages[a->npages++], page, R5J_BLOCK_SIZE);
	r5j_meta_add_data(a->meta, array_sector, r5j_page_csum(a->log.seed, page));
}

static void t_parity(struct arr *a, u64 stripe, const u8 *p, const u8 *q)
{
	u32 cs[2];

	memcpy(a->pages[a->npages++], p, R5J_BLOCK_SIZE);
	cs[0] = r5j_page_csum(a->log.seed, p);
	if (q) {
		memcpy(a->pages[a->npages++], q, R5J_BLOCK_SIZE);
		cs[1] = r5j_page_csum(a->log.seed, q);
	}
	r5j_meta_add_parity(a->meta, stripe, cs, q ? 2 : 1);
}

static void t_flush(struct arr *a, u64 stripe)
{
	r5j_meta_add_flush(a->meta, &stripe, 1);
}

static u64 t_commit(struct arr *a)
{
	u64 at = a->pos, p;
	unsigned int i;

	r5j_meta_seal(a->meta, a->log.seed);
	memcpy(a->jimg + (DOFF + at) * 512, a->meta, R5J_BLOCK_SIZE);
	p = r5j_ring_add(&a->log, at, R5J_BLOCK_SECTORS);
	for (i = 0; i < a->npages; i++) {
		memcpy(a->jimg + (DOFF + p) * 512, a->pages[i], R5J_BLOCK_SIZE);
		p = r5j_ring_add(&a->log, p, R5J_BLOCK_SECTORS);
	}
	a->pos = p;
	a->seq++;
	return at;
}

/*
 * Write new data at array sector as into model e (and recompute its
 * parity); returns the stripe's dev sector; *dd the member.
 */
static u64 update(struct arr *a, u8 **e, u64 as, unsigned int seed, int *dd)
{
	struct r5j_stripe_map map;
	u64 s = r5j_map_array_sector(&a->g, as, dd, &map);

	fill(blk(e[*dd], s), seed);
	stripe_parity(a, e, s);
	return s;
}

static void parity_of(struct arr *a, u8 **e, u64 s, const u8 **p, const u8 **q)
{
	struct r5j_stripe_map map;

	r5j_stripe_parity(&a->g, s, &map);
	*p = blk(e[map.pd_idx], s);
	*q = map.qd_idx >= 0 ? blk(e[map.qd_idx], s) : NULL;
}

/* ---- running the tool ---- */

static int run(const char *args, const char *out)
{
	static char cmd[16384];
	int st;

	if (snprintf(cmd, sizeof(cmd), "%s %s > %s/%s 2>&1", tool, args, dir,
		     out ? out : "out.txt") >= (int)sizeof(cmd))
		return -1;
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static char *slurp(const char *name)
{
	static char buf[1 << 20];
	char path[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return strcpy(buf, "");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static bool has(const char *name, const char *needle)
{
	char *s = slurp(name);

	if (strstr(s, needle))
		return true;
	fprintf(stderr, "---- %s lacks \"%s\":\n%s----\n", name, needle, s);
	return false;
}

static char *members_args(struct arr *a, int skip)
{
	static char buf[4096];
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < a->n; i++)
		if (i != skip)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %s",
					      a->mpath[i]);
	return buf;
}

/* Compare every image on disk with member models e and journal jexp. */
static bool images_equal(struct arr *a, u8 **e, const u8 *jexp)
{
	bool ok = true;
	u8 *want, *got;
	int i;

	for (i = 0; i < a->n; i++) {
		want = member_image(a, i, e[i]);
		got = read_file(a->mpath[i], (DOFF + MSECTORS) * 512);
		if (memcmp(want, got, (DOFF + MSECTORS) * 512)) {
			fprintf(stderr, "member %d differs from the model\n", i);
			ok = false;
		}
		free(want);
		free(got);
	}
	got = read_file(a->jpath, a->jsectors * 512);
	if (memcmp(jexp, got, a->jsectors * 512)) {
		fprintf(stderr, "journal differs from the model\n");
		ok = false;
	}
	free(got);
	return ok;
}

/* ---- scenarios ---- */

/*
 * The full mix, starting the log at start: write-through stripes,
 * write-back data-only stripes, parity-only, flushed, data after a
 * complete stripe, and a torn last transaction.  Expected images are
 * computed by applying mainline's rules to a model (e).
 */
static void mixed(int level, int layout, int n, u64 start)
{
	struct arr a;
	u8 *e[MAXD], *tmp[MAXD], *jexp;
	const u8 *p, *q;
	u64 s, end_pos, end_seq;
	u8 junk[R5J_BLOCK_SIZE];
	int i, dd, dd2;
	char args[4096];
	int dsz = n - (level == 6 ? 2 : 1);

	arr_init(&a, level, layout, n);
	for (i = 0; i < n; i++) {
		e[i] = malloc(MSECTORS * 512);
		memcpy(e[i], a.m[i], MSECTORS * 512);
		tmp[i] = malloc(MSECTORS * 512);
		memcpy(tmp[i], a.m[i], MSECTORS * 512);
	}
	a.pos = start;

	t_begin(&a);				/* as mdadm/kernel leave it */
	t_commit(&a);

	/* write-through: one block */
	s = update(&a, e, 8 * 3, 11, &dd);
	t_begin(&a);
	t_data(&a, 8 * 3, blk(e[dd], s));
	parity_of(&a, e, s, &p, &q);
	t_parity(&a, s, p, q);
	t_commit(&a);

	/* write-through: two blocks of one stripe (full chunk row) */
	t_begin(&a);
	s = update(&a, e, 16 * dsz * 2, 12, &dd);
	t_data(&a, 16 * dsz * 2, blk(e[dd], s));
	s = update(&a, e, 16 * dsz * 2 + 16, 13, &dd);
	t_data(&a, 16 * dsz * 2 + 16, blk(e[dd], s));
	parity_of(&a, e, s, &p, &q);
	t_parity(&a, s, p, q);
	t_commit(&a);

	/* write-back: data only */
	s = update(&a, e, 16 * dsz * 5 + 8, 14, &dd);
	t_begin(&a);
	t_data(&a, 16 * dsz * 5 + 8, blk(e[dd], s));
	t_commit(&a);

	/* parity only: ignored */
	fill(junk, 15);
	t_begin(&a);
	t_parity(&a, 16 * 7, junk, level == 6 ? junk : NULL);
	t_commit(&a);

	/* complete, then flushed: not written */
	s = update(&a, tmp, 16 * dsz * 9, 16, &dd);
	t_begin(&a);
	t_data(&a, 16 * dsz * 9, blk(tmp[dd], s));
	parity_of(&a, tmp, s, &p, &q);
	t_parity(&a, s, p, q);
	t_commit(&a);
	t_begin(&a);
	t_flush(&a, s);
	t_commit(&a);

	/* complete, then new data for another member (write-back) */
	s = update(&a, e, 16 * dsz * 11, 17, &dd);
	t_begin(&a);
	t_data(&a, 16 * dsz * 11, blk(e[dd], s));
	parity_of(&a, e, s, &p, &q);
	t_parity(&a, s, p, q);
	t_commit(&a);
	s = update(&a, e, 16 * dsz * 11 + 16, 18, &dd2);
	t_begin(&a);
	t_data(&a, 16 * dsz * 11 + 16, blk(e[dd2], s));
	t_commit(&a);

	/* torn: the meta block made it, its first page did not */
	s = update(&a, tmp, 16 * dsz * 13, 19, &dd);
	t_begin(&a);
	t_data(&a, 16 * dsz * 13, blk(tmp[dd], s));
	parity_of(&a, tmp, s, &p, &q);
	t_parity(&a, s, p, q);
	end_pos = r5j_ring_add(&a.log, t_commit(&a), R5J_BLOCK_SECTORS);
	end_seq = a.seq;
	fill(a.jimg + (DOFF + end_pos) * 512, 20);

	write_images(&a, start);

	TEST_NOTE("raid%d layout %d disks %d start %llu", level, layout, n,
		  (unsigned long long)start);
	snprintf(args, sizeof(args), "dump %s", a.jpath);
	CHECK_EQ(run(args, "dump.txt"), 0);
	{
		char want[128];

		snprintf(want, sizeof(want), "end pos %llu seq %llu reason bad-magic\n",
			 (unsigned long long)end_pos, (unsigned long long)end_seq);
		CHECK(has("dump.txt", want));
		CHECK(has("dump.txt", " bad-page-checksum\n"));
	}
	snprintf(args, sizeof(args), "dump %s --json --all", a.jpath);
	CHECK_EQ(run(args, "dump.json"), 0);
	snprintf(args, sizeof(args),
		 "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s/dump.json",
		 dir);
	CHECK_EQ(system(args), 0);

	/* verify before: not on the members */
	snprintf(args, sizeof(args), "verify %s%s", a.jpath, members_args(&a, -1));
	CHECK_EQ(run(args, "verify1.txt"), 1);

	/* dry run changes nothing */
	jexp = malloc(a.jsectors * 512);
	memcpy(jexp, a.jimg, a.jsectors * 512);
	snprintf(args, sizeof(args), "replay %s%s --dry-run", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "dry.txt"), 0);
	CHECK(has("dry.txt", "would set journal_tail"));
	CHECK(images_equal(&a, a.m, jexp));

	/* replay */
	snprintf(args, sizeof(args), "replay %s%s", a.jpath, members_args(&a, -1));
	CHECK_EQ(run(args, "replay.txt"), 0);
	CHECK(has("replay.txt", "3 data-parity stripes, 2 data-only stripes"));
	r5j_meta_init(jexp + (DOFF + end_pos) * 512, end_pos, end_seq + R5J_SEQ_JUMP);
	r5j_meta_seal(jexp + (DOFF + end_pos) * 512, a.log.seed);
	memcpy(a.jimg, jexp, a.jsectors * 512);
	journal_sb(&a, end_pos);
	CHECK(images_equal(&a, e, a.jimg));

	/* verify after: everything is on the members */
	snprintf(args, sizeof(args), "verify %s%s", a.jpath, members_args(&a, -1));
	CHECK_EQ(run(args, "verify2.txt"), 0);
	/* the new log is empty: nothing more to write to the members */
	snprintf(args, sizeof(args), "replay %s%s", a.jpath, members_args(&a, -1));
	CHECK_EQ(run(args, "replay2.txt"), 0);
	CHECK(has("replay2.txt", "0 data-parity stripes, 0 data-only stripes"));

	for (i = 0; i < n; i++) {
		free(e[i]);
		free(tmp[i]);
	}
	free(jexp);
	arr_free(&a);
}

static void test_replay_raid5(void)
{
	mixed(5, R5J_ALG_LEFT_SYMMETRIC, 4, 0);
}

static void test_replay_raid5_wrap(void)
{
	mixed(5, R5J_ALG_RIGHT_ASYMMETRIC, 5, JRING - 24);
}

static void test_replay_raid4(void)
{
	mixed(4, 0, 3, 64);
}

static void test_replay_raid6(void)
{
	mixed(6, R5J_ALG_LEFT_SYMMETRIC, 5, 0);
}

static void test_replay_raid6_wrap(void)
{
	mixed(6, R5J_ALG_ROTATING_N_CONTINUE, 6, JRING - 40);
}

/* Exact dump output of a small log. */
static void test_dump_text(void)
{
	struct arr a;
	u8 d[R5J_BLOCK_SIZE], p[R5J_BLOCK_SIZE];
	char args[1024], want[4096];
	u32 cd, cp;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 3);
	t_begin(&a);
	t_commit(&a);
	fill(d, 1);
	fill(p, 2);
	cd = r5j_page_csum(a.log.seed, d);
	cp = r5j_page_csum(a.log.seed, p);
	t_begin(&a);
	t_data(&a, 64, d);
	t_parity(&a, 32, p, NULL);
	t_flush(&a, 16);
	t_commit(&a);
	write_images(&a, 0);
	snprintf(args, sizeof(args), "dump %s", a.jpath);
	CHECK_EQ(run(args, "dump.txt"), 0);
	snprintf(want, sizeof(want),
		 "journal %s: md v1.2 superblock at sector 8\n"
		 "  array a0a1a2a3:a4a5a6a7:a8a9aaab:acadaeaf raid5 layout 2 chunk 16 raid_disks 3\n"
		 "  data_offset 2048 data_size 512 ring 512 journal_tail 0\n"
		 "log start 0 seq 7000\n"
		 "txn seq 7000 pos 0 sectors 8 pages 0 ok\n"
		 "txn seq 7001 pos 8 sectors 24 pages 2 ok\n"
		 "  data   array 64 page 16 csum %#010x ok\n"
		 "  parity stripe 32 P page 24 csum %#010x ok\n"
		 "  flush  16\n"
		 "end pos 32 seq 7002 reason bad-magic\n",
		 a.jpath, cd, cp);
	CHECK(!strcmp(slurp("dump.txt"), want));
	if (strcmp(slurp("dump.txt"), want))
		fprintf(stderr, "got:\n%swant:\n%s", slurp("dump.txt"), want);

	/* --from, and a journal_tail past the end */
	snprintf(args, sizeof(args), "dump %s --from 8", a.jpath);
	CHECK_EQ(run(args, "from.txt"), 0);
	CHECK(has("from.txt", "log start 8 seq 7001\n"));
	journal_sb(&a, 4096);
	write_file(a.jpath, a.jimg, a.jsectors * 512);
	snprintf(args, sizeof(args), "dump %s", a.jpath);
	CHECK_EQ(run(args, "tail.txt"), 0);
	CHECK(has("tail.txt", "journal_tail 4096 is past the ring or unaligned: using 0\n"));
	CHECK(has("tail.txt", "end pos 32 seq 7002"));

	/* --all shows a stale transaction beyond the end */
	a.pos = 200;
	a.seq = 5;
	t_begin(&a);
	t_data(&a, 0, d);
	t_commit(&a);
	write_images(&a, 0);
	snprintf(args, sizeof(args), "dump %s --all", a.jpath);
	CHECK_EQ(run(args, "all.txt"), 0);
	CHECK(has("all.txt", "stale seq 5 pos 200 sectors 16 pages 1 ok\n"));
	arr_free(&a);
}

/*
 * writeback-check: a log of data-parity stripes only is clean (exit 0),
 * one with a data-only stripe is reported (exit 1) with its count, a
 * member or a missing device is an error (exit 2), and a data-only log
 * wins over an error among several devices.
 */
static void test_writeback_check(void)
{
	struct arr a;
	u8 d[R5J_BLOCK_SIZE], p[R5J_BLOCK_SIZE];
	char args[1024];

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 3);
	fill(d, 3);
	fill(p, 4);
	t_begin(&a);
	t_data(&a, 64, d);
	t_parity(&a, 32, p, NULL);
	t_commit(&a);
	write_images(&a, 0);
	snprintf(args, sizeof(args), "writeback-check %s", a.jpath);
	CHECK_EQ(run(args, "wbc0.txt"), 0);
	CHECK(has("wbc0.txt", ": no data-only stripes in the log\n"));

	t_begin(&a);
	t_data(&a, 128, d);
	t_commit(&a);
	write_images(&a, 0);
	CHECK_EQ(run(args, "wbc1.txt"), 1);
	CHECK(has("wbc1.txt", ": 1 data-only stripes in the log"));

	snprintf(args, sizeof(args), "writeback-check %s", a.mpath[0]);
	CHECK_EQ(run(args, NULL), 2);
	snprintf(args, sizeof(args), "writeback-check /nonexistent %s",
		 a.jpath);
	CHECK_EQ(run(args, NULL), 1);
	arr_free(&a);
}

/* Cases where replay must refuse and leave every image as it was. */
/* Member @i's image, its superblock naming another array. */
static void foreign_member(struct arr *a, int i)
{
	u8 *img = member_image(a, i, a->m[i]);
	struct mdsb s;

	memcpy(s.raw, img + 8 * 512, 4096);
	s.sb.set_uuid[3] ^= 1;
	s.sb.sb_csum = mdsb_csum(&s.sb);
	memcpy(img + 8 * 512, s.raw, 4096);
	write_file(a->mpath[i], img, (DOFF + MSECTORS) * 512);
	free(img);
}

static void refuse_case(const char *what, int mode)
{
	struct arr a;
	u8 *jexp, d[R5J_BLOCK_SIZE];
	char args[4096];
	struct mdsb s;
	int dd, skip = -1, want = 2;
	u64 st;
	struct r5j_stripe_map map;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	t_begin(&a);
	fill(d, 3);
	t_data(&a, 0, d);			/* data-only stripe 0 */
	t_commit(&a);
	write_images(&a, 0);
	TEST_NOTE("%s", what);
	st = r5j_map_array_sector(&a.g, 0, &dd, &map);
	(void)st;

	switch (mode) {
	case 0:	/* a member of another array */
		foreign_member(&a, 1);
		break;
	case 1:	/* two members missing from RAID5 */
		snprintf(args, sizeof(args), "replay %s %s %s", a.jpath,
			 a.mpath[0], a.mpath[1]);
		break;
	case 2:	/* journal_tail at a meta block of unknown version */
		a.jimg[(DOFF + 0) * 512 + 8] = 2;
		r5j_meta_seal(a.jimg + DOFF * 512, a.log.seed);
		write_file(a.jpath, a.jimg, a.jsectors * 512);
		break;
	case 3:	/* data-only stripe needs the missing member */
		skip = (dd + 1) % 4;
		if (skip == map.pd_idx)
			skip = (skip + 1) % 4;
		break;
	case 4:	/* stale member */
		sb_make(&a, &s, 2, MSECTORS, 0, DOFF + MSECTORS);
		s.sb.events = cpu_to_le64(EVENTS - 1);
		s.sb.sb_csum = mdsb_csum(&s.sb);
		{
			u8 *img = member_image(&a, 2, a.m[2]);

			memcpy(img + 8 * 512, s.raw, 4096);
			write_file(a.mpath[2], img, (DOFF + MSECTORS) * 512);
			free(img);
		}
		break;
	case 5:	/* a journal of another array: no log of ours, nothing written */
		a.jimg[DOFF * 512 + 100] ^= 1;
		write_file(a.jpath, a.jimg, a.jsectors * 512);
		break;
	}
	if (mode != 1)
		snprintf(args, sizeof(args), "replay %s%s", a.jpath,
			 members_args(&a, skip));
	jexp = read_file(a.jpath, a.jsectors * 512);
	{
		u8 *before[MAXD];
		int i;

		for (i = 0; i < a.n; i++)
			before[i] = read_file(a.mpath[i], (DOFF + MSECTORS) * 512);
		CHECK_EQ(run(args, "refuse.txt"), want);
		CHECK(has("refuse.txt", "refusing"));
		for (i = 0; i < a.n; i++) {
			u8 *now = read_file(a.mpath[i], (DOFF + MSECTORS) * 512);

			CHECK(!memcmp(now, before[i], (DOFF + MSECTORS) * 512));
			free(now);
			free(before[i]);
		}
		{
			u8 *now = read_file(a.jpath, a.jsectors * 512);

			CHECK(!memcmp(now, jexp, a.jsectors * 512));
			free(now);
		}
	}
	free(jexp);
	arr_free(&a);
}

static void test_refuse_other_array(void) { refuse_case("other array", 0); }
static void test_refuse_missing(void) { refuse_case("missing members", 1); }
static void test_refuse_version(void) { refuse_case("unknown version", 2); }
static void test_refuse_data_only_degraded(void) { refuse_case("data-only degraded", 3); }
static void test_refuse_stale_member(void) { refuse_case("stale member", 4); }
static void test_refuse_other_log(void) { refuse_case("log of another array", 5); }

/* The superblocks we write are what mdadm reads (independent checksum). */
static void test_mdadm_examine(void)
{
	struct arr a;
	char args[1024];

	if (system("command -v mdadm >/dev/null 2>&1")) {
		printf("skip: no mdadm\n");
		return;
	}
	arr_init(&a, 6, R5J_ALG_LEFT_SYMMETRIC, 4);
	t_begin(&a);
	t_commit(&a);
	write_images(&a, 0);
	snprintf(args, sizeof(args), "mdadm --examine %s > %s/ex.txt 2>&1",
		 a.jpath, dir);
	CHECK_EQ(system(args), 0);
	CHECK(has("ex.txt", "- correct"));
	CHECK(has("ex.txt", "Journal"));
	snprintf(args, sizeof(args), "replay %s%s", a.jpath, members_args(&a, -1));
	CHECK_EQ(run(args, NULL), 0);
	snprintf(args, sizeof(args), "mdadm --examine %s > %s/ex.txt 2>&1",
		 a.jpath, dir);
	CHECK_EQ(system(args), 0);
	CHECK(has("ex.txt", "- correct"));
	arr_free(&a);
}

/* ---- untrusted journals ---- */

/* Every image file of a, read whole (members then journal). */
static u8 *snapshot(struct arr *a, int extra, u8 **files)
{
	int i;

	for (i = 0; i < a->n + extra; i++)
		files[i] = read_file(i < a->n ? a->mpath[i] : a->jpath,
				     i < a->n ? (DOFF + MSECTORS) * 512 :
				     a->jsectors * 512);
	return files[0];
}

/* The images are as in before (freed). */
static bool unchanged(struct arr *a, u8 **before)
{
	bool ok = true;
	u8 *now[MAXD + 1];
	int i;

	snapshot(a, 1, now);
	for (i = 0; i <= a->n; i++) {
		size_t len = i < a->n ? (DOFF + MSECTORS) * 512 :
			     a->jsectors * 512;

		if (memcmp(now[i], before[i], len)) {
			fprintf(stderr, "%s changed\n",
				i < a->n ? a->mpath[i] : a->jpath);
			ok = false;
		}
		free(now[i]);
		free(before[i]);
	}
	return ok;
}

/*
 * A log with one stripe whose DATA (dloc, an array sector) or PARITY
 * (ploc, a stripe sector) location is crafted: replay, verify and dump
 * refuse naming reason, and nothing is written.  On 2 members an array
 * sector maps to the same member sector, so 0xfffffffffffffff8 is 8
 * sectors below data_offset once added: the wrap of the old checks.
 */
static void crafted_location(int n, u64 dloc, u64 ploc, const char *reason)
{
	struct arr a;
	u8 d[R5J_BLOCK_SIZE], *before[MAXD + 1];
	char args[4096], want[128];

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, n);
	t_begin(&a);
	t_commit(&a);
	t_begin(&a);
	fill(d, 77);
	t_data(&a, dloc, d);
	t_parity(&a, ploc, d, NULL);
	t_commit(&a);
	write_images(&a, 0);
	TEST_NOTE("%d members, DATA %#llx PARITY %#llx", n,
		  (unsigned long long)dloc, (unsigned long long)ploc);
	snprintf(want, sizeof(want), ": %s (", reason);
	snapshot(&a, 1, before);
	snprintf(args, sizeof(args), "replay %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "crafted.txt"), 2);
	CHECK(has("crafted.txt", "refusing"));
	CHECK(has("crafted.txt", want));
	snprintf(args, sizeof(args), "verify %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "crafted.txt"), 2);
	CHECK(has("crafted.txt", want));
	CHECK(unchanged(&a, before));
	arr_free(&a);
}

static void test_crafted_wrap_data(void)
{
	crafted_location(2, ~7ull, ~7ull, "location-out-of-range");
}

static void test_crafted_wrap_parity(void)
{
	crafted_location(4, 0, ~7ull, "location-out-of-range");
}

static void test_crafted_past_array(void)
{
	/* 4 members of 1024 sectors: the array has 3072 */
	crafted_location(4, 3 * MSECTORS, 0, "location-out-of-range");
}

static void test_crafted_unaligned_data(void)
{
	crafted_location(2, 4, 4, "location-unaligned");
}

static void test_crafted_unaligned_parity(void)
{
	crafted_location(4, 0, 4, "location-unaligned");
}

/* Superblock offsets as super_1_load checks them; nothing written. */
static void bad_offsets(const char *what, int dev, u64 doff, u64 dsize,
			const char *reason)
{
	struct arr a;
	u8 d[R5J_BLOCK_SIZE], *before[MAXD + 1], *img;
	char args[4096];
	struct mdsb s;
	const char *path;
	u64 len;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	t_begin(&a);
	fill(d, 5);
	t_data(&a, 0, d);
	t_commit(&a);
	write_images(&a, 0);
	TEST_NOTE("%s", what);
	path = dev < a.n ? a.mpath[dev] : a.jpath;
	len = dev < a.n ? (DOFF + MSECTORS) * 512 : a.jsectors * 512;
	img = read_file(path, len);
	memcpy(s.raw, img + 8 * 512, 4096);
	s.sb.data_offset = cpu_to_le64(doff);
	s.sb.data_size = cpu_to_le64(dsize);
	s.sb.sb_csum = mdsb_csum(&s.sb);
	memcpy(img + 8 * 512, s.raw, 4096);
	write_file(path, img, len);
	free(img);
	snapshot(&a, 1, before);
	snprintf(args, sizeof(args), "replay %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "offsets.txt"), 2);
	CHECK(has("offsets.txt", "refusing"));
	CHECK(has("offsets.txt", reason));
	CHECK(unchanged(&a, before));
	arr_free(&a);
}

static void test_bad_sb_offsets(void)
{
	bad_offsets("member data_offset inside its superblock", 1, 8, MSECTORS,
		    "data_offset inside or before the superblock");
	bad_offsets("member data area past the device end", 2, DOFF,
		    MSECTORS + 8, "data area past the end of the device");
	bad_offsets("member data_offset near 2^64", 0, ~7ull, MSECTORS,
		    "data area past the end of the device");
	bad_offsets("member data_size smaller than the array's", 3, DOFF,
		    MSECTORS - 8, "smaller than the array's member size");
	bad_offsets("journal data_size past the device end", 4, DOFF,
		    JRING + 8, "data area past the end of the device");
	bad_offsets("journal data_size 0", 4, DOFF, 0, "data_size too small");
}

/*
 * Set feature bits (and recovery_offset 0) in member i's superblock of
 * the image at path: a member being rebuilt or a replacement.
 */
static void mark_member(struct arr *a, const char *path, int i, u32 feat,
			const u8 *data)
{
	u8 *img = member_image(a, i, a->m[i]);
	struct mdsb s;

	memcpy(s.raw, img + 8 * 512, 4096);
	s.sb.feature_map = cpu_to_le32(le32_to_cpu(s.sb.feature_map) | feat);
	s.sb.recovery_offset = 0;
	if (feat & MD_FEATURE_REPLACEMENT)
		s.sb.device_uuid[1] = 0x77;
	s.sb.sb_csum = mdsb_csum(&s.sb);
	memcpy(img + 8 * 512, s.raw, 4096);
	if (data)
		memcpy(img + DOFF * 512, data, MSECTORS * 512);
	write_file(path, img, (DOFF + MSECTORS) * 512);
	free(img);
}

/*
 * A data-only stripe whose parity needs a member that is still being
 * rebuilt (recovery_offset 0, its blocks not written yet): the member's
 * stale blocks must not go into the parity.  Replay refuses as for a
 * missing member.
 */
static void test_rebuilding_member(void)
{
	struct arr a;
	u8 d[R5J_BLOCK_SIZE], *junk, *before[MAXD + 1];
	struct r5j_stripe_map map;
	char args[4096];
	int dd, other;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	t_begin(&a);
	fill(d, 9);
	t_data(&a, 0, d);			/* data-only stripe 0 */
	t_commit(&a);
	write_images(&a, 0);
	r5j_map_array_sector(&a.g, 0, &dd, &map);
	for (other = 0; other == dd || other == map.pd_idx; other++)
		;
	junk = malloc(MSECTORS * 512);
	memset(junk, 0x5a, MSECTORS * 512);	/* not rebuilt yet */
	mark_member(&a, a.mpath[other], other, MD_FEATURE_RECOVERY_OFFSET,
		    junk);
	free(junk);
	snapshot(&a, 1, before);
	snprintf(args, sizeof(args), "replay %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "rebuild.txt"), 2);
	CHECK(has("rebuild.txt", "needs missing or rebuilding member"));
	CHECK(unchanged(&a, before));
	arr_free(&a);
}

/*
 * Mid `mdadm --replace`: a replacement for member r (its blocks not
 * copied yet) is given with the others.  A data-only stripe's parity is
 * computed from the original, never the replacement; logged blocks are
 * written to both, as the kernel does.
 */
static void test_replacement_member(void)
{
	struct arr a;
	u8 d[R5J_BLOCK_SIZE], *junk, *e[MAXD], *got;
	struct r5j_stripe_map map;
	char args[4096], rpath[320];
	int dd, r, i;
	u64 s;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	for (i = 0; i < a.n; i++) {
		e[i] = malloc(MSECTORS * 512);
		memcpy(e[i], a.m[i], MSECTORS * 512);
	}
	t_begin(&a);
	t_commit(&a);
	t_begin(&a);
	s = update(&a, e, 0, 4242, &dd);	/* model: new data, parity */
	memcpy(d, blk(e[dd], s), R5J_BLOCK_SIZE);
	t_data(&a, 0, d);			/* data-only stripe 0 */
	t_commit(&a);
	write_images(&a, 0);
	r5j_stripe_parity(&a.g, s, &map);
	for (r = 0; r == dd || r == map.pd_idx; r++)
		;
	snprintf(rpath, sizeof(rpath), "%s/rep.img", dir);
	junk = malloc(MSECTORS * 512);
	memset(junk, 0xa5, MSECTORS * 512);
	mark_member(&a, rpath, r, MD_FEATURE_REPLACEMENT |
		    MD_FEATURE_RECOVERY_OFFSET, junk);
	snprintf(args, sizeof(args), "replay %s%s %s", a.jpath,
		 members_args(&a, -1), rpath);
	CHECK_EQ(run(args, "replace.txt"), 0);
	for (i = 0; i < a.n; i++) {
		got = read_file(a.mpath[i], (DOFF + MSECTORS) * 512);
		CHECK(!memcmp(got + DOFF * 512, e[i], MSECTORS * 512));
		free(got);
		free(e[i]);
	}
	/* the replacement got no read and no write: r is neither logged nor P */
	got = read_file(rpath, (DOFF + MSECTORS) * 512);
	CHECK(!memcmp(got + DOFF * 512, junk, MSECTORS * 512));
	free(got);
	free(junk);
	arr_free(&a);
}

/* ---- big sparse journals: memory and time ---- */

/*
 * Run the tool under /usr/bin/time: its peak RSS (KiB) and CPU seconds in
 * *rss, *cpu (the tool's own, not this ASan-built program's).  -2 if
 * there is no /usr/bin/time.
 */
static int run_measured(const char *args, const char *out, long *rss,
			double *cpu)
{
	static char cmd[16384];
	double u = 0, sy = 0;
	char path[512];
	FILE *f;
	int st;

	if (access("/usr/bin/time", X_OK))
		return -2;
	snprintf(path, sizeof(path), "%s/time.txt", dir);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/time -f '%%M %%U %%S' -o %s %s %s > %s/%s 2>&1",
		 path, tool, args, dir, out);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	*rss = -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* "Command exited with non-zero status N" may come first */
	while (fscanf(f, "%ld %lf %lf", rss, &u, &sy) != 3)
		if (fscanf(f, "%*[^\n]\n") == EOF)
			break;
	fclose(f);
	*cpu = u + sy;
	return WEXITSTATUS(st);
}

/* The last 4 KiB of out contain needle. */
static bool tail_has(const char *name, const char *needle)
{
	char path[512], buf[4097];
	FILE *f;
	size_t n;
	long sz;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, sz > 4096 ? sz - 4096 : 0, SEEK_SET);
	n = fread(buf, 1, 4096, f);
	buf[n] = 0;
	fclose(f);
	if (strstr(buf, needle))
		return true;
	fprintf(stderr, "---- end of %s lacks \"%s\":\n%s----\n", name,
		needle, buf);
	return false;
}

/*
 * A sparse journal of ring sectors for a's array, members of msectors:
 * the superblock and an empty first block; pages are holes (zero pages,
 * their checksum zcsum).
 */
static int big_journal(struct arr *a, u64 ring, u64 msectors, u32 *zcsum)
{
	static const u8 zero[R5J_BLOCK_SIZE];
	struct mdsb s;
	int fd;

	r5j_log_init(&a->log, a->uuid, ring, a->g.level);
	a->jsectors = DOFF + ring;
	fd = open(a->jpath, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(a->jsectors * 512)))
		return -1;
	sb_make(a, &s, a->n, ring, 0, a->jsectors);
	s.sb.size = cpu_to_le64(msectors);
	s.sb.sb_csum = mdsb_csum(&s.sb);
	if (pwrite(fd, s.raw, 4096, 8 * 512) != 4096)
		return -1;
	*zcsum = r5j_page_csum(a->log.seed, zero);
	a->pos = 0;
	t_begin(a);
	return fd;
}

/* Seal a->meta with pages zero pages behind it; write the meta block. */
static bool big_commit(struct arr *a, int fd, unsigned int pages)
{
	r5j_meta_seal(a->meta, a->log.seed);
	if (pwrite(fd, a->meta, R5J_BLOCK_SIZE,
		   (off_t)((DOFF + a->pos) * 512)) != R5J_BLOCK_SIZE)
		return false;
	a->pos = r5j_ring_add(&a->log, a->pos,
			      (1 + (u64)pages) * R5J_BLOCK_SECTORS);
	a->seq++;
	return true;
}

/*
 * FLUSH floods: an 8 MiB journal of 2,000 meta blocks, each a FLUSH of
 * 507 stripes nothing was logged for (1,014,000 lookups).  A FLUSH only
 * looks stripes up: dump and replay stay within 16 MiB and 2 s of CPU
 * (before: every flushed stripe got a plan entry, 128 MiB and 10.5 s
 * here, more with more members), and replay writes only the new log.
 */
static void test_flush_flood(void)
{
	struct arr a;
	u64 fl[507];
	char args[4096];
	long rss;
	double cpu;
	u32 z;
	int fd, i, k;
	u8 *img;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	fd = big_journal(&a, 16384, MSECTORS, &z);
	REQUIRE(fd >= 0);
	REQUIRE(big_commit(&a, fd, 0));
	for (i = 0; i < 2000; i++) {
		t_begin(&a);
		for (k = 0; k < 507; k++)
			fl[k] = ((u64)i * 507 + (u64)k) * 8;
		REQUIRE(r5j_meta_add_flush(a.meta, fl, 507) == 0);
		REQUIRE(big_commit(&a, fd, 0));
	}
	close(fd);
	for (i = 0; i < a.n; i++) {
		img = member_image(&a, i, a.m[i]);
		write_file(a.mpath[i], img, (DOFF + MSECTORS) * 512);
		free(img);
	}
	snprintf(args, sizeof(args), "dump %s", a.jpath);
	CHECK_EQ(run_measured(args, "flood.txt", &rss, &cpu), 0);
	printf("flush flood: dump of 2000 FLUSH blocks (1014000 stripes): %ld KiB peak RSS, %.2f s CPU\n",
	       rss, cpu);
	CHECK(rss < 16 * 1024);
	CHECK(cpu < 2);
	CHECK(tail_has("flood.txt", "end pos 16008 seq 9001 reason bad-magic"));
	snprintf(args, sizeof(args), "replay %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run_measured(args, "flood.txt", &rss, &cpu), 0);
	printf("flush flood: replay: %ld KiB peak RSS, %.2f s CPU\n", rss, cpu);
	CHECK(rss < 16 * 1024);
	CHECK(cpu < 2);
	CHECK(tail_has("flood.txt", "0 data-parity stripes, 0 data-only stripes"));
	for (i = 0; i < a.n; i++) {
		img = read_file(a.mpath[i], (DOFF + MSECTORS) * 512);
		CHECK(!memcmp(img + DOFF * 512, a.m[i], MSECTORS * 512));
		free(img);
	}
	arr_free(&a);
}

/*
 * A write-back journal of n data-only stripes (all distinct, 200 per
 * transaction, zero pages as holes) for members of 2^21 sectors; dump
 * plans them all.  Returns the CPU seconds, *rss the peak RSS.
 */
static double data_only_dump(unsigned int n, long *rss)
{
	struct arr a;
	struct r5j_stripe_map map;
	char args[4096], end[128];
	double cpu = -1;
	unsigned int i;
	int fd, dd;
	u64 msectors = 1ull << 21, ring, s;
	u32 z;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	ring = ((u64)n + n / 200 + 16) * R5J_BLOCK_SECTORS;
	fd = big_journal(&a, ring, msectors, &z);
	if (fd < 0 || !big_commit(&a, fd, 0))
		goto out;
	for (i = 0; i < n; i++) {
		if (i % 200 == 0)
			t_begin(&a);
		s = (u64)i * R5J_BLOCK_SECTORS;
		r5j_stripe_parity(&a.g, s, &map);
		for (dd = 0; dd == map.pd_idx; dd++)
			;
		if (r5j_meta_add_data(a.meta, r5j_array_sector_of(&a.g, s, dd),
				      z))
			goto out;
		if (i % 200 == 199 || i == n - 1)
			if (!big_commit(&a, fd, i % 200 + 1))
				goto out;
	}
	close(fd);
	fd = -1;
	snprintf(args, sizeof(args), "dump %s", a.jpath);
	if (run_measured(args, "donly.txt", rss, &cpu) != 0)
		cpu = -1;
	snprintf(end, sizeof(end), "end pos %llu seq %llu reason bad-magic",
		 (unsigned long long)a.pos, (unsigned long long)a.seq);
	if (!tail_has("donly.txt", end))
		cpu = -1;
out:
	if (fd >= 0)
		close(fd);
	unlink(a.jpath);
	arr_free(&a);
	return cpu;
}

/*
 * Huge data-only journals: 10,000 and 160,000 stripes (40 and 630 MiB,
 * sparse).  Memory stays a small fraction of the journal (plan entries of
 * ~150 bytes per 4 KiB page: at most 64 MiB here) and time grows
 * linearly: 16x the stripes may take at most 26x the CPU time (the
 * quadratic "superseded" pass made it ~40x).
 */
static void test_huge_data_only(void)
{
	long rss_small = 0, rss_big = 0;
	double small, big;

	small = data_only_dump(10000, &rss_small);
	big = data_only_dump(160000, &rss_big);
	printf("data-only journals: 10000 stripes %.2f s CPU %ld KiB, 160000 stripes %.2f s CPU %ld KiB (ratio %.1f)\n",
	       small, rss_small, big, rss_big, big / (small > 0.01 ? small : 0.01));
	REQUIRE(small >= 0 && big >= 0);
	CHECK(big < 26 * (small > 0.05 ? small : 0.05));
	CHECK(rss_big < 64 * 1024);
}

static void test_usage(void)
{
	CHECK_EQ(run("--help", "help.txt"), 0);
	CHECK(has("help.txt", "usage: r5jtool dump"));
	CHECK_EQ(run("frobnicate x", NULL), 2);
	CHECK_EQ(run("dump", NULL), 2);
	CHECK_EQ(run("dump /nonexistent", NULL), 2);
}

/* ---- match-events (journal one event ahead after a power cut) ---- */

/* Rewrite the journal image's superblock with @events; checksum fixed. */
static void journal_events(struct arr *a, u64 events)
{
	struct mdsb s;

	memcpy(s.raw, a->jimg + 8 * 512, 4096);
	s.sb.events = cpu_to_le64(events);
	s.sb.sb_csum = mdsb_csum(&s.sb);
	memcpy(a->jimg + 8 * 512, s.raw, 4096);
	write_file(a->jpath, a->jimg, a->jsectors * 512);
}

/* The journal image's superblock events, -1 if it does not check out. */
static s64 journal_events_on_disk(struct arr *a)
{
	u8 *img = read_file(a->jpath, a->jsectors * 512);
	struct mdsb s;
	s64 ev = -1;

	memcpy(s.raw, img + 8 * 512, 4096);
	if (mdsb_csum(&s.sb) == s.sb.sb_csum)
		ev = (s64)le64_to_cpu(s.sb.events);
	free(img);
	return ev;
}

/*
 * Only a journal exactly one event ahead of the newest member is changed,
 * and only its event count; up to date (equal or one behind) is left as
 * is, and anything else is refused with nothing written.
 */
static void test_match_events(void)
{
	static const struct {
		s64 delta;
		int rc;
		const char *say;
	} cases[] = {
		{ 0, 0, "nothing to do" },
		{ -1, 0, "nothing to do" },
		{ -2, 2, "stale; refusing" },
		{ 2, 2, "2 events ahead" },
	};
	u8 d[R5J_BLOCK_SIZE], *before[MAXD + 1];
	char args[4096];
	struct arr a;
	unsigned int i;

	arr_init(&a, 5, R5J_ALG_LEFT_SYMMETRIC, 4);
	t_begin(&a);
	fill(d, 5);
	t_data(&a, 0, d);
	t_parity(&a, 0, d, NULL);
	t_commit(&a);
	write_images(&a, 0);
	snprintf(args, sizeof(args), "match-events %s%s", a.jpath,
		 members_args(&a, -1));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TEST_NOTE("journal %+lld events", (long long)cases[i].delta);
		journal_events(&a, (u64)(EVENTS + cases[i].delta));
		snapshot(&a, 1, before);
		CHECK_EQ(run(args, "events.txt"), cases[i].rc);
		CHECK(has("events.txt", cases[i].say));
		CHECK(unchanged(&a, before));
	}

	TEST_NOTE("journal one event ahead: dry run, then the repair");
	journal_events(&a, EVENTS + 1);
	snapshot(&a, 1, before);
	snprintf(args, sizeof(args), "match-events --dry-run %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "events.txt"), 0);
	CHECK(has("events.txt", "1 transactions from journal_tail"));
	CHECK(has("events.txt", "dry run"));
	CHECK(unchanged(&a, before));
	snprintf(args, sizeof(args), "match-events %s%s", a.jpath,
		 members_args(&a, 1));		/* degraded: one member away */
	CHECK_EQ(run(args, "events.txt"), 0);
	CHECK(has("events.txt", "events 43 -> 42"));
	CHECK_EQ(journal_events_on_disk(&a), EVENTS);
	CHECK_EQ(run(args, "events.txt"), 0);
	CHECK(has("events.txt", "nothing to do"));

	TEST_NOTE("a member of another array");
	journal_events(&a, EVENTS + 1);
	foreign_member(&a, 2);
	snapshot(&a, 1, before);
	snprintf(args, sizeof(args), "match-events %s%s", a.jpath,
		 members_args(&a, -1));
	CHECK_EQ(run(args, "events.txt"), 2);
	CHECK(has("events.txt", "not a member of the journal's array"));
	CHECK(unchanged(&a, before));
	arr_free(&a);
}

int main(void)
{
	const char *env = getenv("R5JTOOL");
	char src[4096], *slash, cmd[8192];


	if (env) {
		snprintf(tool, sizeof(tool), "%s", env);
	} else {
		/* tools/ next to this source file */
		snprintf(src, sizeof(src), "%s", __FILE__);
		slash = strrchr(src, '/');
		if (slash)
			*slash = 0;
		else
			strcpy(src, ".");
		snprintf(cmd, sizeof(cmd), "make -s -C %s/../../tools >&2", src);
		if (system(cmd)) {
			fprintf(stderr, "cannot build r5jtool\n");
			return 1;
		}
		if (snprintf(tool, sizeof(tool), "%s/../../tools/r5jtool",
			     src) >= (int)sizeof(tool))
			return 1;
	}
	snprintf(dir, sizeof(dir), "/tmp/r5jtool-test.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_usage);
	RUN_TEST(test_dump_text);
	RUN_TEST(test_replay_raid5);
	RUN_TEST(test_replay_raid5_wrap);
	RUN_TEST(test_replay_raid4);
	RUN_TEST(test_replay_raid6);
	RUN_TEST(test_replay_raid6_wrap);
	RUN_TEST(test_refuse_other_array);
	RUN_TEST(test_refuse_missing);
	RUN_TEST(test_refuse_version);
	RUN_TEST(test_refuse_data_only_degraded);
	RUN_TEST(test_refuse_stale_member);
	RUN_TEST(test_refuse_other_log);
	RUN_TEST(test_mdadm_examine);
	RUN_TEST(test_crafted_wrap_data);
	RUN_TEST(test_crafted_wrap_parity);
	RUN_TEST(test_crafted_past_array);
	RUN_TEST(test_crafted_unaligned_data);
	RUN_TEST(test_crafted_unaligned_parity);
	RUN_TEST(test_bad_sb_offsets);
	RUN_TEST(test_rebuilding_member);
	RUN_TEST(test_replacement_member);
	RUN_TEST(test_flush_flood);
	RUN_TEST(test_huge_data_only);
	RUN_TEST(test_match_events);
	RUN_TEST(test_writeback_check);
	if (!r5j_t.failed) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", dir);
	} else {
		fprintf(stderr, "images kept in %s\n", dir);
	}
	return TEST_DONE();
}
