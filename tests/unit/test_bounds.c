// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/shared/bounds.c: the checks every journal location goes through
 * before the kernel or r5jtool writes.  Oracles: an array's
 * size computed here from the geometry by hand, and the inverse mapping.
 */
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/bounds.h"

static struct r5j_payload pl(u16 type, u64 loc)
{
	struct r5j_payload p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.location = loc;
	return p;
}

static enum r5j_reason target(const struct r5j_bounds *b, u16 type, u64 loc,
			      u64 *stripe, int *dd)
{
	struct r5j_payload p = pl(type, loc);
	struct r5j_stripe_map map;

	return r5j_payload_target(b, &p, stripe, dd, &map);
}

static void test_range_ok(void)
{
	CHECK(r5j_range_ok(0, 8, 8));
	CHECK(!r5j_range_ok(1, 8, 8));
	CHECK(!r5j_range_ok(8, 8, 8));
	CHECK(r5j_range_ok(~0ull - 8, 8, ~0ull));
	/* the old test: loc + 8 > size passes for loc = 2^64 - 8 */
	CHECK(!r5j_range_ok(~7ull, 8, 1024));
	CHECK(!r5j_range_ok(~0ull, 1, 1024));
	CHECK(!r5j_range_ok(0, 8, 0));
}

/* 2 members: array sector s is member sector s, so ~7 is data_offset - 8. */
static void test_wrap_two_members(void)
{
	struct r5j_geom g = { 5, R5J_ALG_LEFT_SYMMETRIC, 2, 16 };
	struct r5j_bounds b;
	u64 s = 1;
	int dd;

	r5j_bounds_init(&b, &g, 1024);
	CHECK_EQ(b.array_sectors, 1024);
	CHECK_EQ(target(&b, R5LOG_PAYLOAD_DATA, ~7ull, &s, &dd),
		 R5J_BAD_LOCATION);
	CHECK_EQ(target(&b, R5LOG_PAYLOAD_PARITY, ~7ull, &s, &dd),
		 R5J_BAD_LOCATION);
	CHECK_EQ(s, 1);		/* untouched on refusal */
	CHECK_EQ(target(&b, R5LOG_PAYLOAD_DATA, 1016, &s, &dd), R5J_OK);
	CHECK_EQ(s, 1016);
	CHECK_EQ(target(&b, R5LOG_PAYLOAD_DATA, 1024, &s, &dd),
		 R5J_BAD_LOCATION);
}

static void test_unaligned(void)
{
	struct r5j_geom g = { 6, R5J_ALG_LEFT_SYMMETRIC, 5, 32 };
	struct r5j_bounds b;
	u64 s, loc;
	int dd;

	r5j_bounds_init(&b, &g, 4096);
	for (loc = 1; loc < 8; loc++) {
		CHECK_EQ(target(&b, R5LOG_PAYLOAD_DATA, loc, &s, &dd),
			 R5J_UNALIGNED);
		CHECK_EQ(target(&b, R5LOG_PAYLOAD_PARITY, 64 + loc, &s, &dd),
			 R5J_UNALIGNED);
	}
	CHECK_EQ(target(&b, R5LOG_PAYLOAD_DATA, ~3ull, &s, &dd), R5J_UNALIGNED);
}

/*
 * Every aligned array sector of small arrays (all levels, several
 * layouts) is accepted, maps inside the members to a data member and
 * back; the first sector past the array and every stripe past the
 * members are refused.
 */
static void test_every_block(void)
{
	static const struct r5j_geom gs[] = {
		{ 4, 0, 3, 16 }, { 5, R5J_ALG_LEFT_ASYMMETRIC, 4, 16 },
		{ 5, R5J_ALG_RIGHT_SYMMETRIC, 5, 64 }, { 5, R5J_ALG_PARITY_N, 3, 8 },
		{ 6, R5J_ALG_LEFT_SYMMETRIC, 6, 16 },
		{ 6, R5J_ALG_ROTATING_N_CONTINUE, 5, 32 },
		{ 6, R5J_ALG_LEFT_SYMMETRIC_6, 4, 8 },
	};
	struct r5j_stripe_map map;
	struct r5j_bounds b;
	struct r5j_payload p;
	unsigned int i;
	u64 dev = 1000, loc, s;	/* not a chunk multiple: size rounds down */
	int dd, nd;

	for (i = 0; i < sizeof(gs) / sizeof(gs[0]); i++) {
		const struct r5j_geom *g = &gs[i];

		REQUIRE(r5j_geom_check(g, NULL) == 0);
		nd = r5j_geom_data_disks(g);
		r5j_bounds_init(&b, g, dev);
		CHECK_EQ(b.array_sectors,
			 dev / g->chunk_sectors * g->chunk_sectors * (u64)nd);
		for (loc = 0; loc < b.array_sectors; loc += 8) {
			p = pl(R5LOG_PAYLOAD_DATA, loc);
			if (r5j_payload_target(&b, &p, &s, &dd, &map) != R5J_OK) {
				CHECK(0);
				break;
			}
			CHECK(s + 8 <= dev && s % 8 == 0);
			CHECK(dd != map.pd_idx && dd != map.qd_idx);
			CHECK_EQ(r5j_array_sector_of(g, s, dd), loc);
		}
		CHECK_EQ(target(&b, R5LOG_PAYLOAD_DATA, b.array_sectors, &s, &dd),
			 R5J_BAD_LOCATION);
		CHECK_EQ(target(&b, R5LOG_PAYLOAD_PARITY, 992, &s, &dd), R5J_OK);
		CHECK_EQ(target(&b, R5LOG_PAYLOAD_PARITY, 1000, &s, &dd),
			 R5J_BAD_LOCATION);
		CHECK_EQ(target(&b, R5LOG_PAYLOAD_PARITY, ~7ull, &s, &dd),
			 R5J_BAD_LOCATION);
	}
}

int main(void)
{
	RUN_TEST(test_range_ok);
	RUN_TEST(test_wrap_two_members);
	RUN_TEST(test_unaligned);
	RUN_TEST(test_every_block);
	return TEST_DONE();
}
