// SPDX-License-Identifier: GPL-2.0
/*
 * Parity tests: drivers/shared/parity.c (over tools/lib/raid6_user.c) on
 * random stripes of every level and layout.  P is checked against a plain
 * byte xor, Q against a slow bit-by-bit GF(2^8) evaluation with mainline's
 * slot order re-derived here; then every one- and two-member loss is
 * rebuilt and compared with the original.
 */
#include <stdint.h>
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/layout.h"
#include "raid5j/parity.h"

#define BS R5J_BLOCK_SIZE

static const struct {
	int level, layout;
} layouts[] = {
	{ 4, 0 }, { 5, 0 }, { 5, 1 }, { 5, 2 }, { 5, 3 }, { 5, 4 }, { 5, 5 },
	{ 6, 0 }, { 6, 1 }, { 6, 2 }, { 6, 3 }, { 6, 4 }, { 6, 5 },
	{ 6, 8 }, { 6, 9 }, { 6, 10 },
	{ 6, 16 }, { 6, 17 }, { 6, 18 }, { 6, 19 }, { 6, 20 },
};
#define NR_LAYOUTS (int)(sizeof(layouts) / sizeof(layouts[0]))

static const int member_counts[] = { 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 16 };
#define NR_COUNTS (int)(sizeof(member_counts) / sizeof(member_counts[0]))
#define MAXD 16

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static void fill_random(void *p, size_t len)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t v = rnd();

		memcpy(b + i, &v, len - i < 8 ? len - i : 8);
	}
}

/* GF(2^8), 0x11d, the slow way: shift and reduce. */
static uint8_t gf_mul_slow(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (a << 1) ^ (a & 0x80 ? 0x1d : 0);
		b >>= 1;
	}
	return r;
}

static uint8_t gf_pow2_slow(int e)
{
	uint8_t r = 1;

	while (e-- > 0)
		r = gf_mul_slow(r, 2);
	return r;
}

/*
 * Syndrome coefficient exponent of data member m: its position when walking
 * the members from the one after Q (DDF layouts: from member 0, every
 * member counting).
 */
static int ref_slot(int n, const struct r5j_stripe_map *map, int m)
{
	int i, count = 0;
	int d0 = map->ddf_layout ? 0 :
		 (map->qd_idx == n - 1 ? 0 : map->qd_idx + 1);

	for (i = d0;; i = (i + 1) % n) {
		if (i == m)
			return count;
		if (map->ddf_layout || (i != map->pd_idx && i != map->qd_idx))
			count++;
	}
}

struct stripe {
	struct r5j_geom g;
	struct r5j_stripe_map map;
	uint8_t *mem;			/* all blocks below */
	void *blk[MAXD];		/* the stripe under test */
	void *orig[MAXD];		/* what it should be */
	void *slots[R5J_PARITY_SLOTS(MAXD)];
	uint8_t *zero;
	struct r5j_parity_work w;
};

static void stripe_init(struct stripe *st)
{
	int i;

	st->mem = malloc((2 * MAXD + 3) * BS);
	for (i = 0; i < MAXD; i++) {
		st->blk[i] = st->mem + i * BS;
		st->orig[i] = st->mem + (MAXD + i) * BS;
	}
	st->zero = st->mem + 2 * MAXD * BS;
	memset(st->zero, 0, BS);
	st->w.slots = st->slots;
	st->w.zero = st->zero;
	st->w.spare[0] = st->mem + (2 * MAXD + 1) * BS;
	st->w.spare[1] = st->mem + (2 * MAXD + 2) * BS;
}

static int is_data(const struct stripe *st, int m)
{
	return m != st->map.pd_idx && m != st->map.qd_idx;
}

/* Random data, parity from r5j_compute_parity(), checked by reference. */
static void make_stripe(struct stripe *st)
{
	int n = st->g.raid_disks, m, i;
	uint8_t *p, *q;

	for (m = 0; m < n; m++)
		fill_random(st->blk[m], BS);	/* parity too: must be overwritten */
	/* a few all-zero and all-ones data blocks, edge cases for GF */
	if (rnd() % 4 == 0)
		for (m = 0; m < n; m++)
			if (is_data(st, m) && rnd() % 3 == 0)
				memset(st->blk[m], rnd() % 2 ? 0xff : 0, BS);
	r5j_compute_parity(&st->g, &st->map, st->blk, &st->w);

	p = malloc(BS);
	q = malloc(BS);
	memset(p, 0, BS);
	memset(q, 0, BS);
	for (m = 0; m < n; m++) {
		uint8_t c;

		if (!is_data(st, m))
			continue;
		c = gf_pow2_slow(ref_slot(n, &st->map, m));
		for (i = 0; i < BS; i++) {
			p[i] ^= ((uint8_t *)st->blk[m])[i];
			q[i] ^= gf_mul_slow(c, ((uint8_t *)st->blk[m])[i]);
		}
	}
	CHECK_MEM(st->blk[st->map.pd_idx], p, BS);
	if (st->g.level == 6)
		CHECK_MEM(st->blk[st->map.qd_idx], q, BS);
	free(p);
	free(q);
	for (m = 0; m < n; m++)
		memcpy(st->orig[m], st->blk[m], BS);
	CHECK_EQ(r5j_check_parity(&st->g, &st->map, st->blk, &st->w), 0);
}

/* Lose the members in failed[], rebuild, compare every block. */
static void lose_and_recover(struct stripe *st, const int *failed, int nf)
{
	int n = st->g.raid_disks, i, m;

	for (i = 0; i < nf; i++)
		fill_random(st->blk[failed[i]], BS);
	TEST_NOTE("level %d layout %d n %d pd %d qd %d lost %d %d",
		  st->g.level, st->g.layout, n, st->map.pd_idx,
		  st->map.qd_idx, failed[0], nf > 1 ? failed[1] : -1);
	CHECK_EQ(r5j_recover(&st->g, &st->map, st->blk, failed, nf, &st->w), 0);
	for (m = 0; m < n; m++)
		if (!CHECK_MEM(st->blk[m], st->orig[m], BS))
			memcpy(st->blk[m], st->orig[m], BS);
}

static void for_each_stripe(int level, void (*fn)(struct stripe *st))
{
	struct stripe st;
	int l, c, k;

	stripe_init(&st);
	for (l = 0; l < NR_LAYOUTS; l++) {
		if (layouts[l].level != level)
			continue;
		for (c = 0; c < NR_COUNTS; c++) {
			int n = member_counts[c];

			st.g = (struct r5j_geom){ .level = level,
						  .layout = layouts[l].layout,
						  .raid_disks = n,
						  .chunk_sectors = 8 };
			if (r5j_geom_check(&st.g, NULL))
				continue;
			/* every parity rotation position */
			for (k = 0; k < n; k++) {
				r5j_stripe_parity(&st.g, k * 8, &st.map);
				TEST_NOTE("level %d layout %d n %d row %d",
					  level, st.g.layout, n, k);
				fn(&st);
			}
		}
	}
	free(st.mem);
}

static void one_failure(struct stripe *st)
{
	int m;

	make_stripe(st);
	for (m = 0; m < st->g.raid_disks; m++)
		lose_and_recover(st, &m, 1);
	/* nothing lost: nothing written */
	CHECK_EQ(r5j_recover(&st->g, &st->map, st->blk, NULL, 0, &st->w), 0);
}

static void two_failures(struct stripe *st)
{
	int f[2];

	int a, b;

	make_stripe(st);
	for (a = 0; a < st->g.raid_disks; a++) {
		for (b = a + 1; b < st->g.raid_disks; b++) {
			/* either order: r5j_recover() sorts */
			f[0] = rnd() % 2 ? a : b;
			f[1] = f[0] == a ? b : a;
			lose_and_recover(st, f, 2);
		}
	}
}

static void check_detects(struct stripe *st)
{
	int m, want;
	uint8_t *b;

	make_stripe(st);
	for (m = 0; m < st->g.raid_disks; m++) {
		b = st->blk[m];
		b[rnd() % BS] ^= 1 << (rnd() % 8);
		if (m == st->map.pd_idx)
			want = R5J_P_BAD;
		else if (m == st->map.qd_idx)
			want = R5J_Q_BAD;
		else
			want = st->g.level == 6 ? R5J_P_BAD | R5J_Q_BAD :
			       R5J_P_BAD;
		CHECK_EQ(r5j_check_parity(&st->g, &st->map, st->blk, &st->w),
			 want);
		memcpy(st->blk[m], st->orig[m], BS);
	}
}

/* Rewrite a random subset of the data by read-modify-write. */
static void rmw(struct stripe *st)
{
	int n = st->g.raid_disks, m, round;
	void *old[MAXD], *new[MAXD];
	uint8_t *mem = malloc(n * BS);

	make_stripe(st);
	for (round = 0; round < 3; round++) {
		for (m = 0; m < n; m++) {
			old[m] = new[m] = NULL;
			/* round 0: one member; then random subsets */
			if (!is_data(st, m) ||
			    (round == 0 ? m != (int)(rnd() % n) : rnd() % 2))
				continue;
			new[m] = mem + m * BS;
			fill_random(new[m], BS);
			old[m] = st->blk[m];
		}
		CHECK_EQ(r5j_parity_rmw(&st->g, &st->map, old,
					st->blk[st->map.pd_idx],
					st->g.level == 6 ?
					st->blk[st->map.qd_idx] : NULL,
					&st->w), 0);
		for (m = 0; m < n; m++)
			if (new[m])
				memcpy(st->blk[m], new[m], BS);
		CHECK_EQ(r5j_parity_rmw(&st->g, &st->map, new,
					st->blk[st->map.pd_idx],
					st->g.level == 6 ?
					st->blk[st->map.qd_idx] : NULL,
					&st->w), 0);
		CHECK_EQ(r5j_check_parity(&st->g, &st->map, st->blk, &st->w),
			 0);
	}
	free(mem);
}

static void test_rmw(void)
{
	for_each_stripe(4, rmw);
	for_each_stripe(5, rmw);
	for_each_stripe(6, rmw);
}

static void test_xor_into(void)
{
	uint8_t *mem = malloc(11 * BS), want[BS];
	void *srcs[10];
	int count, i, j;

	for (i = 0; i < 10; i++)
		srcs[i] = mem + (i + 1) * BS;
	for (count = 0; count <= 10; count++) {
		fill_random(mem, 11 * BS);
		memcpy(want, mem, BS);
		for (i = 0; i < count; i++)
			for (j = 0; j < BS; j++)
				want[j] ^= ((uint8_t *)srcs[i])[j];
		r5j_xor_into(mem, srcs, count);
		TEST_NOTE("count %d", count);
		CHECK_MEM(mem, want, BS);
	}
	free(mem);
}

static void test_p_and_single_recovery_raid45(void)
{
	for_each_stripe(4, one_failure);
	for_each_stripe(5, one_failure);
}

static void test_syndrome_raid6(void)
{
	/* make_stripe() checks P and Q against the slow reference */
	for_each_stripe(6, make_stripe);
}

static void test_single_recovery_raid6(void)
{
	for_each_stripe(6, one_failure);
}

static void test_double_recovery_raid6(void)
{
	for_each_stripe(6, two_failures);
}

static void test_check_parity(void)
{
	for_each_stripe(4, check_detects);
	for_each_stripe(5, check_detects);
	for_each_stripe(6, check_detects);
}

static void test_recover_refuses(void)
{
	struct stripe st;
	int f[3] = { 0, 1, 2 };

	stripe_init(&st);
	st.g = (struct r5j_geom){ .level = 6, .layout = 2, .raid_disks = 5,
				  .chunk_sectors = 8 };
	r5j_stripe_parity(&st.g, 0, &st.map);
	make_stripe(&st);
	CHECK_EQ(r5j_recover(&st.g, &st.map, st.blk, f, 3, &st.w), -EINVAL);
	f[1] = 0;
	CHECK_EQ(r5j_recover(&st.g, &st.map, st.blk, f, 2, &st.w), -EINVAL);
	f[1] = 5;
	CHECK_EQ(r5j_recover(&st.g, &st.map, st.blk, f, 2, &st.w), -EINVAL);
	f[1] = -1;
	CHECK_EQ(r5j_recover(&st.g, &st.map, st.blk, f, 2, &st.w), -EINVAL);
	CHECK_EQ(r5j_recover(&st.g, &st.map, st.blk, f, -1, &st.w), -EINVAL);
	st.g.level = 5;
	r5j_stripe_parity(&st.g, 0, &st.map);
	f[1] = 1;
	CHECK_EQ(r5j_recover(&st.g, &st.map, st.blk, f, 2, &st.w), -EINVAL);
	/* the refused calls wrote nothing */
	st.g.level = 6;
	r5j_stripe_parity(&st.g, 0, &st.map);
	CHECK_EQ(r5j_check_parity(&st.g, &st.map, st.blk, &st.w), 0);
	free(st.mem);
}

int main(void)
{
	RUN_TEST(test_xor_into);
	RUN_TEST(test_p_and_single_recovery_raid45);
	RUN_TEST(test_syndrome_raid6);
	RUN_TEST(test_single_recovery_raid6);
	RUN_TEST(test_double_recovery_raid6);
	RUN_TEST(test_check_parity);
	RUN_TEST(test_rmw);
	RUN_TEST(test_recover_refuses);
	return TEST_DONE();
}
