// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/shared/wbreserve.c: L12's fixed reserve (journal.md,
 * section 15).  Oracles: the numbers worked out by hand in
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
 * raid5-cache.c r5l_recovery_log()): the log found at journal_tail holds
 * ring blocks [0, @log).  Each data-only stripe is rewritten after it as a
 * meta block and its dirty blocks, then an empty meta block; raid456's
 * in-memory tail becomes the rewrite's start while the superblock keeps
 * the old journal_tail until the recovery is over.  Then every stripe logs
 * a meta block and P parity pages, each behind r5l_has_free_space()'s
 * strict test against that in-memory tail.  1: a block of the old log was
 * overwritten (a power cut now loses it all); 2: the test failed (BUG() or
 * a wait nothing ends); 0: safe.
 */
static int raid456_model(u64 ring, u64 log, int p, u64 n, const u64 *per)
{
	u64 pos = log, k, b, used;

	for (k = 0; k < n; k++)
		pos += 1 + per[k];
	pos += 1;			/* the empty meta block */
	if (pos > ring)
		return 1;		/* the rewrite itself wrapped */
	for (k = 0; k < n; k++) {
		used = pos - log;
		if (!(ring > used + 1 + (u64)p))
			return 2;
		for (b = 0; b < 1 + (u64)p; b++)
			if ((pos + b) % ring < log)
				return 1;
		pos += 1 + (u64)p;
	}
	return 0;
}

/* The bounds before the one predicate: rewrite after the log, flush <= ring */
static bool old_bounds_fit(u64 ring, u64 log, int p, u64 n, u64 d)
{
	u64 rewrite = n ? n + d + 1 : 0;

	return log + rewrite <= ring && r5j_raid456_recovery(p, n, d) <= ring;
}

static void test_raid456_model(void)
{
	static const u64 per[] = { 1, 3, 1, 2, 4, 1, 1, 2 };
	u64 ring, log, n, d, k, ones[20];
	int p, old_unsafe = 0;

	CHECK_EQ(r5j_raid456_recovery(1, 0, 0), 0);
	CHECK_EQ(r5j_raid456_recovery(1, 100, 100), 401);
	CHECK_EQ(r5j_raid456_recovery(2, 100, 100), 501);
	/* nothing data-only: the log alone (write-through's tiny rings) */
	CHECK_EQ(r5j_raid456_spare(1000, 0, 1, 0, 0), 1000);
	CHECK_EQ(r5j_raid456_spare(1000, 999, 1, 0, 0), 1);
	CHECK_EQ(r5j_raid456_spare(1000, 1000, 1, 0, 0), 0);
	CHECK_EQ(r5j_raid456_spare(1000, 598, 1, 100, 100), 0);
	CHECK_EQ(r5j_raid456_spare(1000, 597, 1, 100, 100), 1);
	for (p = 1; p <= 2; p++) {
		for (ring = 8; ring <= 96; ring++) {
			for (log = 1; log < ring; log++) {
				for (n = 1, d = per[0]; n <= 8;
				     d += per[n < 8 ? n : 0], n++) {
					u64 spare;
					int m;

					spare = r5j_raid456_spare(ring, log, p, n, d);
					m = raid456_model(ring, log, p, n, per);
					/* the predicate admits only what is safe */
					if (spare)
						CHECK_EQ(m, 0);
					/*
					 * and is tight: it keeps two blocks
					 * (one for the strict test, one the
					 * model spends), three more are unsafe
					 */
					if (spare == 1 && log + 3 < ring)
						CHECK(raid456_model(ring, log + 3, p,
								    n, per) != 0);
					if (old_bounds_fit(ring, log, p, n, d) && m)
						old_unsafe++;
				}
			}
		}
	}
	/* the two bounds alone let raid456 write over the live log */
	CHECK(old_unsafe > 0);
	/*
	 * e.g. RAID5, 20 stripes of one 4 KiB write each in one unit (21
	 * blocks) of a 100-block ring: 81 blocks of recovery passed both
	 * bounds, and its parity wraps onto the unit
	 */
	for (k = 0; k < 20; k++)
		ones[k] = 1;
	CHECK(old_bounds_fit(100, 21, 1, 20, 20));
	CHECK_EQ(r5j_raid456_spare(100, 21, 1, 20, 20), 0);
	CHECK_EQ(raid456_model(100, 21, 1, 20, ones), 1);
	CHECK(r5j_raid456_spare(100, 21, 1, 15, 15) > 0);
	CHECK_EQ(raid456_model(100, 21, 1, 15, ones), 0);
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
