// SPDX-License-Identifier: GPL-2.0
/*
 * The crash-point tests' dm-log-writes replayer (tests/crashpoints/
 * lwreplay.c) on a synthetic log written here as the kernel target lays
 * it out: replay to every entry against a model, incremental replay,
 * discards, marks, the list of flush/FUA/mark entries, and the seeded
 * subsets of the crash mode.
 */
#define LWREPLAY_NO_MAIN
#include "../crashpoints/lwreplay.c"
#include "r5j_test.h"

#define SS	512		/* log sector size */
#define DEVS	64		/* device size, sectors */
#define MAXE	32

struct synth {
	char path[64];
	FILE *f;
	uint64_t n;
	/* the model: device contents after each entry */
	unsigned char img[MAXE][DEVS * SS];
	uint64_t flags[MAXE];
};

static void put_entry(struct synth *s, uint64_t sector, uint64_t nr,
		      uint64_t flags, const char *mark, unsigned char fill)
{
	unsigned char blk[SS] = { 0 };
	struct lw_entry_disk d = {
		.sector = htole64(sector), .nr_sectors = htole64(nr),
		.flags = htole64(flags),
		.data_len = htole64(mark ? strlen(mark) : 0),
	};
	uint64_t i;

	memcpy(blk, &d, sizeof(d));
	if (mark)
		memcpy(blk + sizeof(d), mark, strlen(mark));
	fwrite(blk, SS, 1, s->f);
	if (s->n)
		memcpy(s->img[s->n], s->img[s->n - 1], DEVS * SS);
	if (flags & LW_DISCARD)
		memset(s->img[s->n] + sector * SS, 0, nr * SS);
	if (!(flags & (LW_DISCARD | LW_MARK))) {
		for (i = 0; i < nr; i++) {
			memset(blk, fill + i, SS);
			fwrite(blk, SS, 1, s->f);
			memcpy(s->img[s->n] + (sector + i) * SS, blk, SS);
		}
	}
	s->flags[s->n] = flags;
	s->n++;
}

static void put_super(struct synth *s)
{
	unsigned char blk[SS] = { 0 };
	struct lw_super sb = {
		.magic = htole64(LW_MAGIC), .version = htole64(LW_VERSION),
		.nr_entries = htole64(s->n), .sectorsize = htole32(SS),
	};

	memcpy(blk, &sb, sizeof(sb));
	fseek(s->f, 0, SEEK_SET);
	fwrite(blk, SS, 1, s->f);
}

/*
 *  0 W 0+4 a     1 W 8+2 b    2 F          3 U 4+1 c    4 M one
 *  5 W 2+4 d     6 D 8+2      7 W 20+3 e   8 F          9 M two
 * 10 W 0+1 f    11 U 30+2 g  12 W 40+1 h  13 F
 */
static struct synth *make_log(void)
{
	static struct synth s;
	unsigned char zero[SS] = { 0 };

	memset(&s, 0, sizeof(s));
	strcpy(s.path, "/tmp/lwreplay-test.XXXXXX");
	close(mkstemp(s.path));
	s.f = fopen(s.path, "w+");
	fwrite(zero, SS, 1, s.f);	/* the super, written last */
	put_entry(&s, 0, 4, 0, NULL, 0x10);
	put_entry(&s, 8, 2, 0, NULL, 0x20);
	put_entry(&s, 0, 0, LW_FLUSH, NULL, 0);
	put_entry(&s, 4, 1, LW_FUA, NULL, 0x30);
	put_entry(&s, 0, 0, LW_MARK, "one", 0);
	put_entry(&s, 2, 4, 0, NULL, 0x40);
	put_entry(&s, 8, 2, LW_DISCARD, NULL, 0);
	put_entry(&s, 20, 3, 0, NULL, 0x50);
	put_entry(&s, 0, 0, LW_FLUSH, NULL, 0);
	put_entry(&s, 0, 0, LW_MARK, "two", 0);
	put_entry(&s, 0, 1, 0, NULL, 0x60);
	put_entry(&s, 30, 2, LW_FUA, NULL, 0x70);
	put_entry(&s, 40, 1, 0, NULL, 0x80);
	put_entry(&s, 0, 0, LW_FLUSH, NULL, 0);
	put_super(&s);
	fflush(s.f);
	return &s;
}

static int zero_dev(char *path)
{
	int fd;

	strcpy(path, "/tmp/lwreplay-dev.XXXXXX");
	fd = mkstemp(path);
	if (fd >= 0 && ftruncate(fd, DEVS * SS))
		return -1;
	return fd;
}

static void read_dev(int fd, unsigned char *out)
{
	if (pread(fd, out, DEVS * SS, 0) != DEVS * SS)
		memset(out, 0xee, DEVS * SS);
}

static void test_list(void)
{
	struct synth *s = make_log();
	struct lw_log log;
	char buf[512] = { 0 };
	FILE *out = fmemopen(buf, sizeof(buf) - 1, "w");

	REQUIRE(lw_open(&log, s->path) == 0);
	CHECK_EQ(log.nr_entries, 14);
	CHECK_EQ(log.sectorsize, SS);
	CHECK_EQ(lw_list(&log, out), 0);
	fclose(out);
	CHECK(!strcmp(buf, "2 F\n3 U\n4 M one\n8 F\n9 M two\n11 U\n13 F\n"));
	TEST_NOTE("list: %s", buf);
	close(log.fd);
	unlink(s->path);
}

static void test_replay_every_entry(void)
{
	static unsigned char got[DEVS * SS];
	struct synth *s = make_log();
	struct lw_log log;
	char dpath[64];
	uint64_t to;

	for (to = 0; to < s->n; to++) {
		int fd = zero_dev(dpath);

		REQUIRE(fd >= 0);
		REQUIRE(lw_open(&log, s->path) == 0);
		CHECK_EQ(lw_replay(&log, fd, 0, to), 0);
		read_dev(fd, got);
		TEST_NOTE("entry %llu", (unsigned long long)to);
		CHECK_MEM(got, s->img[to], DEVS * SS);
		close(log.fd);
		close(fd);
		unlink(dpath);
	}
	/* past the end */
	REQUIRE(lw_open(&log, s->path) == 0);
	CHECK_EQ(lw_replay(&log, -1, 0, s->n), -ERANGE);
	close(log.fd);
	unlink(s->path);
}

static void test_replay_incremental(void)
{
	static unsigned char got[DEVS * SS];
	struct synth *s = make_log();
	uint64_t cuts[] = { 2, 4, 8, 11, 13 }, from = 0;
	struct lw_log log;
	char dpath[64];
	unsigned int i;
	int fd = zero_dev(dpath);

	REQUIRE(fd >= 0);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		REQUIRE(lw_open(&log, s->path) == 0);
		CHECK_EQ(lw_replay(&log, fd, from, cuts[i]), 0);
		close(log.fd);
		read_dev(fd, got);
		TEST_NOTE("up to entry %llu", (unsigned long long)cuts[i]);
		CHECK_MEM(got, s->img[cuts[i]], DEVS * SS);
		from = cuts[i] + 1;
	}
	close(fd);
	unlink(dpath);
	unlink(s->path);
}

/* The crash before flush 13: entries 0..8 whole, FUA 11, a subset of 10, 12. */
static void test_crash_subsets(void)
{
	static unsigned char got[DEVS * SS], again[DEVS * SS];
	struct synth *s = make_log();
	uint64_t seed, kept, writes;
	int seen[4] = { 0 };
	struct lw_log log;
	char dpath[64];

	for (seed = 1; seed <= 64; seed++) {
		int fd = zero_dev(dpath), k10, k12, pass;

		REQUIRE(fd >= 0);
		for (pass = 0; pass < 2; pass++) {
			if (pass && ftruncate(fd, 0) + ftruncate(fd, DEVS * SS))
				break;
			REQUIRE(lw_open(&log, s->path) == 0);
			CHECK_EQ(lw_crash(&log, fd, 13, seed, 50, &kept, &writes), 0);
			close(log.fd);
			read_dev(fd, pass ? again : got);
		}
		TEST_NOTE("seed %llu", (unsigned long long)seed);
		CHECK_MEM(got, again, DEVS * SS);	/* reproducible */
		CHECK_EQ(writes, 2);
		/* up to the previous flush (8) as replayed */
		CHECK_MEM(got + SS, s->img[8] + SS, 29 * SS);
		CHECK_MEM(got + 30 * SS, s->img[11] + 30 * SS, 2 * SS);
		k10 = got[0] == 0x60;
		k12 = got[40 * SS] == 0x80;
		CHECK(k10 || got[0] == s->img[8][0]);
		CHECK(k12 || got[40 * SS] == 0);
		CHECK_EQ(kept, k10 + k12);
		seen[k10 * 2 + k12] = 1;
		close(fd);
		unlink(dpath);
	}
	/* 64 seeds: every subset of two writes came up */
	CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
	/* TO must be a flush */
	REQUIRE(lw_open(&log, s->path) == 0);
	CHECK_EQ(lw_crash(&log, -1, 11, 1, 50, &kept, &writes), -EINVAL);
	close(log.fd);
	unlink(s->path);
}

static void test_bad_log(void)
{
	struct lw_log log;
	char path[] = "/tmp/lwreplay-bad.XXXXXX";
	unsigned char blk[SS] = { 1 };
	int fd = mkstemp(path);

	REQUIRE(fd >= 0);
	CHECK_EQ(write(fd, blk, SS), SS);
	CHECK_EQ(lw_open(&log, path), -EINVAL);
	close(fd);
	unlink(path);
}

int main(void)
{
	RUN_TEST(test_list);
	RUN_TEST(test_replay_every_entry);
	RUN_TEST(test_replay_incremental);
	RUN_TEST(test_crash_subsets);
	RUN_TEST(test_bad_log);
	return TEST_DONE();
}
