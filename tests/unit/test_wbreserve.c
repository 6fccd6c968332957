// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/shared/wbreserve.c: rule 8''s fixed reserve (journal.md,
 * "Beyond half the ring").  Oracles: the numbers worked out by hand in
 * journal.md, and the argument that R comes back after every unit.
 */
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/wbreserve.h"

/* r5j_parity_batch() of the kernel: min(4064 / (16 + 4P), 255 / P) */
static u32 batch(int p)
{
	u32 a = 4064 / (16 + 4 * p), b = 255 / p;

	return a < b ? a : b;
}

static void test_pin_cap(void)
{
	CHECK_EQ(r5j_wb_pin_cap(0), 1);
	CHECK_EQ(r5j_wb_pin_cap(255), 1);
	CHECK_EQ(r5j_wb_pin_cap(512), 2);
	/* a 16 MiB journal: ring blocks / 32 */
	CHECK_EQ(r5j_wb_pin_cap(32768), 128);
	CHECK_EQ(r5j_wb_pin_cap(1ull << 40), R5J_WB_MAX_PINS);
	CHECK_EQ(R5J_WB_MAX_PINS, (4096 - 32) / (16 + 4));
}

static void test_x_cap(void)
{
	CHECK_EQ(batch(1), 203);
	CHECK_EQ(batch(2), 127);
	CHECK_EQ(r5j_wb_x_cap(128, batch(1)), R5J_WB_X_HEADS);
	CHECK_EQ(r5j_wb_x_cap(128, batch(2)), R5J_WB_X_HEADS);
	CHECK_EQ(r5j_wb_x_cap(8, batch(1)), 8);
	CHECK_EQ(r5j_wb_x_cap(203, 20), 20);
	CHECK_EQ(r5j_wb_x_cap(0, 20), 1);
}

static void test_reserve(void)
{
	/* journal.md: R = P x C + 1 */
	CHECK_EQ(r5j_wb_fixed_reserve(1, 32), 33);
	CHECK_EQ(r5j_wb_fixed_reserve(2, 32), 65);
	CHECK_EQ(r5j_wb_fixed_kept(1, 32, 0), 0);
	CHECK_EQ(r5j_wb_fixed_kept(1, 32, 1), 33);
	/* RAID5 keeps nothing per stripe: the ring less R for dirty data */
	CHECK_EQ(r5j_wb_fixed_kept(1, 32, 100000), 33);
	CHECK_EQ(r5j_wb_fixed_kept(2, 32, 1000), 65 + 1000);
}

/*
 * While the run time keeps free >= kept(n), the parity unit X of the N
 * stripes pinning the oldest unit fits beside the pages the other n - N
 * keep, and releasing that unit (its meta block and a page per pinner)
 * brings free back to kept(n - N).  With a meta block per destage (N
 * units in place of one) it would come back short as soon as N >= 2.
 */
static void test_r_comes_back(void)
{
	static const u32 caps[] = { 1, 2, 8, 32 };
	int p, ci;
	u32 nu;
	u64 n;

	for (p = 1; p <= 2; p++) {
		for (ci = 0; ci < 4; ci++) {
			u32 c = caps[ci];

			for (nu = 1; nu <= c; nu++) {
				for (n = nu; n < nu + 40; n++) {
					u64 free = r5j_wb_fixed_kept(p, c, n);
					u64 x = (u64)p * nu + 1;
					u64 others = (u64)(p - 1) * (n - nu);
					u64 after = free - x + nu + 1;
					u64 split = free - (u64)(p + 1) * nu +
						nu + 1;

					CHECK(x <= r5j_wb_fixed_reserve(p, c));
					CHECK(x + others <= free);
					CHECK(after >=
					      r5j_wb_fixed_kept(p, c, n - nu));
					/* journal.md: N - 1 blocks short */
					if (nu >= 2 && n > nu)
						CHECK_EQ(r5j_wb_fixed_kept(p, c,
								n - nu) - split,
							 nu - 1);
				}
			}
		}
	}
}

/*
 * raid456's recovery of a write-back log, modelled block by block (6.1
 * raid5-cache.c): each data-only stripe rewritten as a meta block and
 * its dirty blocks after the log, an empty meta block, then every
 * stripe's parity (meta + P) logged in the worst order, the stripe at
 * the new journal_tail last.  The model's peak use must be the flush
 * bound, and its rewrite the rewrite bound, for any split of d blocks.
 */
static void test_raid456_model(void)
{
	static const u64 per[] = { 1, 3, 1, 2, 4, 1 };
	int p, k;
	u64 n;

	CHECK_EQ(r5j_raid456_rewrite(0, 0), 0);
	CHECK_EQ(r5j_raid456_flush(1, 0, 0), 0);
	CHECK_EQ(r5j_raid456_rewrite(1, 1), 3);
	CHECK_EQ(r5j_raid456_flush(1, 100, 100), 401);
	CHECK_EQ(r5j_raid456_flush(2, 100, 100), 501);
	for (p = 1; p <= 2; p++) {
		for (n = 1; n <= 6; n++) {
			u64 rewrite = 0, peak, d = 0;

			for (k = 0; k < (int)n; k++) {
				rewrite += 1 + per[k];
				d += per[k];
			}
			rewrite += 1;		/* the empty meta block */
			peak = rewrite;
			for (k = 0; k < (int)n; k++)
				peak += 1 + (u64)p;	/* none frees before the last */
			CHECK_EQ(r5j_raid456_rewrite(n, d), rewrite);
			CHECK_EQ(r5j_raid456_flush(p, n, d), peak);
		}
	}
}

/*
 * raid456's hash lists: consecutive 4 KiB stripes go round the 8 lists,
 * stripes 32 KiB apart share one; each list holds an eighth of the
 * limit, less a fixed margin of heads.
 */
static void test_raid456_lists(void)
{
	u64 sector;
	u32 seen[R5J_RAID456_HASH_LISTS] = { 0 };
	int i;

	for (sector = 0; sector < 64 * 8; sector += 8)
		seen[r5j_raid456_hash(sector)]++;
	for (i = 0; i < R5J_RAID456_HASH_LISTS; i++)
		CHECK_EQ(seen[i], 8);
	CHECK_EQ(r5j_raid456_hash(0), r5j_raid456_hash(64));
	CHECK_EQ(r5j_raid456_hash(8), 1);
	CHECK_EQ(r5j_raid456_hash(7), 0);	/* inside the first stripe */
	/* no stripe_cache_size in it: write-back caches at any size */
	CHECK_EQ(r5j_raid456_list_cap(R5J_RAID456_MAX_STRIPES), 3808);
	CHECK_EQ(r5j_raid456_list_cap(36000), 4212);
	/* a small limit (tests) still caches: never 0 above 8 stripes */
	CHECK_EQ(r5j_raid456_list_cap(1024), 1);
	CHECK_EQ(r5j_raid456_list_cap(16), 1);
	CHECK_EQ(r5j_raid456_list_cap(8), 0);
}

int main(void)
{
	RUN_TEST(test_pin_cap);
	RUN_TEST(test_x_cap);
	RUN_TEST(test_reserve);
	RUN_TEST(test_r_comes_back);
	RUN_TEST(test_raid456_model);
	RUN_TEST(test_raid456_lists);
	return TEST_DONE();
}
