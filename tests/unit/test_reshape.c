// SPDX-License-Identifier: GPL-2.0
/*
 * Reshape geometry tests (drivers/shared/reshape.c): hand-computed steps
 * and positions, and a brute-force model of the members in which every
 * block is tagged with the array block it holds.  The model runs whole
 * reshapes step by step, taking checkpoints only when
 * r5j_reshape_need() asks for one, and after every step (a crash point)
 * checks that every array block is where the on-disk position says, then
 * resumes from that position on a copy and checks the finished array.
 */
#include <stdint.h>
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/layout.h"
#include "raid5j/reshape.h"

static struct r5j_geom geom(int level, int layout, int n, u32 chunk)
{
	struct r5j_geom g = {
		.level = level, .layout = layout, .raid_disks = n,
		.chunk_sectors = chunk,
	};
	return g;
}

static struct r5j_reshape rs(struct r5j_geom prev, struct r5j_geom next,
			     u64 dev, s64 diff, bool back)
{
	struct r5j_reshape r = {
		.prev = prev, .next = next, .dev_sectors = dev,
		.offset_diff = diff, .backwards = back,
	};
	return r;
}

static void test_check(void)
{
	struct r5j_reshape r;
	const char *msg;

	r = rs(geom(5, 2, 3, 128), geom(5, 2, 4, 128), 1024, 0, false);
	CHECK_EQ(r5j_reshape_check(&r, &msg), 0);
	CHECK(msg == NULL);
	r.backwards = true;		/* growing runs forwards */
	CHECK_EQ(r5j_reshape_check(&r, &msg), -EINVAL);
	CHECK(msg != NULL);
	r = rs(geom(5, 2, 4, 128), geom(5, 2, 3, 128), 1024, 0, false);
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);
	r.backwards = true;
	CHECK_EQ(r5j_reshape_check(&r, NULL), 0);
	r.offset_diff = -8;		/* backwards moves data up, never down */
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);
	r = rs(geom(5, 2, 4, 128), geom(6, 2, 5, 128), 1024, 0, false);
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);	/* level: takeover */
	r = rs(geom(5, 2, 4, 128), geom(5, 2, 4, 24), 1024, 0, false);
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);	/* 128 % 24 */
	r = rs(geom(5, 2, 4, 128), geom(5, 0, 4, 64), 1024, -128, false);
	CHECK_EQ(r5j_reshape_check(&r, NULL), 0);
	r.offset_diff = 128;
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);
	r = rs(geom(5, 2, 4, 128), geom(5, 2, 5, 256), 200, 0, false);
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);	/* < one unit */
	r = rs(geom(6, 2, 4, 128), geom(6, 2, 3, 128), 1024, 0, true);
	CHECK_EQ(r5j_reshape_check(&r, NULL), -EINVAL);	/* RAID6 < 4 */
}

/*
 * RAID5 left-symmetric 3 -> 4 members, 64 KiB chunks, 8 chunks per
 * member.  A step moves one 128-sector unit on each of the 3 new data
 * members: array sectors [384 j, 384 (j + 1)).  The old geometry holds
 * 256 array sectors per chunk row.
 */
static void test_grow_by_hand(void)
{
	struct r5j_reshape r = rs(geom(5, 2, 3, 128), geom(5, 2, 4, 128),
				  1024, 0, false);
	struct r5j_reshape_step st;

	REQUIRE(r5j_reshape_check(&r, NULL) == 0);
	CHECK_EQ(r5j_reshape_unit(&r), 128);
	CHECK_EQ(r5j_reshape_end(&r), 3072);
	CHECK_EQ(r5j_reshape_start_pos(&r), 0);
	CHECK(r5j_reshape_pos_valid(&r, 768));
	CHECK(!r5j_reshape_pos_valid(&r, 256));
	CHECK(!r5j_reshape_pos_valid(&r, 3072 + 384));

	REQUIRE(r5j_reshape_step(&r, 0, &st) == 0);
	CHECK_EQ(st.array_lo, 0);
	CHECK_EQ(st.array_hi, 384);
	CHECK_EQ(st.pos_after, 384);
	CHECK_EQ(st.dst_lo, 0);
	CHECK_EQ(st.dst_hi, 128);
	CHECK_EQ(st.src_lo, 0);		/* old rows 0 and 1 */
	CHECK_EQ(st.src_hi, 256);
	/* writes chunk row 0, which it reads: mdadm's critical section */
	CHECK_EQ(r5j_reshape_need(&r, &st, 0), R5J_RESHAPE_BACKUP);

	REQUIRE(r5j_reshape_step(&r, 384, &st) == 0);
	CHECK_EQ(st.dst_lo, 128);
	CHECK_EQ(st.dst_hi, 256);
	CHECK_EQ(st.src_lo, 128);	/* array 384..767: old rows 1, 2 */
	CHECK_EQ(st.src_hi, 384);
	CHECK_EQ(r5j_reshape_need(&r, &st, 384), R5J_RESHAPE_BACKUP);

	REQUIRE(r5j_reshape_step(&r, 768, &st) == 0);
	CHECK_EQ(st.dst_lo, 256);
	CHECK_EQ(st.dst_hi, 384);
	CHECK_EQ(st.src_lo, 384);	/* old rows 3, 4 */
	CHECK_EQ(st.src_hi, 640);
	/* row 2 still holds array 512..767 unless 768 is on disk */
	CHECK_EQ(r5j_reshape_keep_from(&r, 384), 128);
	CHECK_EQ(r5j_reshape_keep_from(&r, 768), 384);
	CHECK_EQ(r5j_reshape_need(&r, &st, 384), R5J_RESHAPE_CHECKPOINT);
	CHECK_EQ(r5j_reshape_need(&r, &st, 768), R5J_RESHAPE_GO);

	/* the last step writes array 2688..3071: old array ends at 2048 */
	REQUIRE(r5j_reshape_step(&r, 2688, &st) == 0);
	CHECK_EQ(st.dst_lo, 896);
	CHECK_EQ(st.dst_hi, 1024);
	CHECK_EQ(st.src_lo, 1024);
	CHECK_EQ(st.src_hi, 1024);	/* nothing to read: zeroes */
	CHECK_EQ(r5j_reshape_step(&r, 3072, &st), -ERANGE);
	CHECK(r5j_reshape_finished(&r, 3072));

	/* data moved two chunks down: safe from the first step */
	r.offset_diff = -256;
	REQUIRE(r5j_reshape_step(&r, 0, &st) == 0);
	CHECK_EQ(r5j_reshape_need(&r, &st, 0), R5J_RESHAPE_GO);

	/* mainline's resume test: write head has to be below the read head */
	r.offset_diff = 0;
	CHECK(!r5j_reshape_resume_ok(&r, 0, false));
	CHECK(!r5j_reshape_resume_ok(&r, 384, false));	/* 128 vs 128 */
	CHECK(r5j_reshape_resume_ok(&r, 768, false));	/* 256 vs 384 */
	CHECK(!r5j_reshape_resume_ok(&r, 512, false));	/* not a step */
	r.offset_diff = -128;
	CHECK(r5j_reshape_resume_ok(&r, 0, false));	/* 0 vs 0 + 128 */
}

/*
 * RAID5 4 -> 3 members, backwards, 64 KiB chunks, 8 chunks per member:
 * the array was cut to 8 * 128 * 2 = 2048 sectors first.  The old
 * geometry holds 384 array sectors per chunk row.
 */
static void test_shrink_by_hand(void)
{
	struct r5j_reshape r = rs(geom(5, 2, 4, 128), geom(5, 2, 3, 128),
				  1024, 0, true);
	struct r5j_reshape_step st;

	REQUIRE(r5j_reshape_check(&r, NULL) == 0);
	CHECK_EQ(r5j_reshape_end(&r), 2048);
	CHECK_EQ(r5j_reshape_start_pos(&r), 2048);
	CHECK(!r5j_reshape_finished(&r, 2048));
	REQUIRE(r5j_reshape_step(&r, 2048, &st) == 0);
	CHECK_EQ(st.array_lo, 1792);
	CHECK_EQ(st.array_hi, 2048);
	CHECK_EQ(st.pos_after, 1792);
	CHECK_EQ(st.dst_lo, 896);
	CHECK_EQ(st.dst_hi, 1024);
	CHECK_EQ(st.src_lo, 512);	/* old rows 4 and 5 */
	CHECK_EQ(st.src_hi, 768);
	CHECK_EQ(r5j_reshape_keep_to(&r, 2048), 768);
	CHECK_EQ(r5j_reshape_need(&r, &st, 2048), R5J_RESHAPE_GO);
	/* array 1536..1791: old rows 4 (1536..1919), dst 768..895 */
	REQUIRE(r5j_reshape_step(&r, 1792, &st) == 0);
	CHECK_EQ(st.dst_lo, 768);
	CHECK_EQ(st.src_lo, 512);
	CHECK_EQ(st.src_hi, 640);
	CHECK_EQ(r5j_reshape_keep_to(&r, 2048), 768);
	CHECK_EQ(r5j_reshape_need(&r, &st, 2048), R5J_RESHAPE_GO);
	/* near the start the write head meets the read head */
	REQUIRE(r5j_reshape_step(&r, 256, &st) == 0);
	CHECK_EQ(st.dst_lo, 0);
	CHECK_EQ(st.src_lo, 0);
	CHECK_EQ(r5j_reshape_need(&r, &st, 256), R5J_RESHAPE_BACKUP);
	CHECK_EQ(r5j_reshape_step(&r, 0, &st), -ERANGE);
	CHECK(r5j_reshape_finished(&r, 0));

	CHECK(r5j_reshape_resume_ok(&r, 2048, false));	/* 1024 > 640 */
	/* mainline resumes here although the step needs mdadm's backup */
	CHECK(r5j_reshape_resume_ok(&r, 256, false));	/* 128 > 0 */
	CHECK(!r5j_reshape_resume_ok(&r, 0, false));
}

/* Same member count: in place unless the data moves by a chunk. */
static void test_layout_change_by_hand(void)
{
	struct r5j_reshape r = rs(geom(5, 2, 4, 64), geom(5, 0, 4, 128),
				  1024, 0, false);
	struct r5j_reshape_step st;

	REQUIRE(r5j_reshape_check(&r, NULL) == 0);
	CHECK_EQ(r5j_reshape_unit(&r), 128);
	CHECK_EQ(r5j_reshape_end(&r), 3072);
	REQUIRE(r5j_reshape_step(&r, 384, &st) == 0);
	CHECK_EQ(st.dst_lo, 128);
	CHECK_EQ(st.src_lo, 128);	/* 64-sector rows 2 and 3 */
	CHECK_EQ(st.src_hi, 256);
	CHECK_EQ(r5j_reshape_need(&r, &st, 384), R5J_RESHAPE_BACKUP);
	CHECK(!r5j_reshape_resume_ok(&r, 384, false));
	CHECK(r5j_reshape_resume_ok(&r, 384, true));
	r.offset_diff = -128;
	CHECK_EQ(r5j_reshape_need(&r, &st, 384), R5J_RESHAPE_GO);
	CHECK(r5j_reshape_resume_ok(&r, 384, false));
	r.offset_diff = -64;		/* less than the larger chunk */
	CHECK(!r5j_reshape_resume_ok(&r, 384, false));
}

/*
 * r5j_reshape_walked(): md's sync_request() counter at every step, as
 * raid456's reshape_request() relates it to the step's destination
 * (forwards: the first dev sector written; backwards: the member's whole
 * units less one less that sector), for grows, a shrink and same-count
 * changes in both directions.
 */
static void test_walked(void)
{
	struct r5j_reshape cases[] = {
		rs(geom(5, 2, 3, 128), geom(5, 2, 4, 128), 1024, 0, false),
		rs(geom(5, 2, 4, 128), geom(5, 2, 3, 128), 1024, 0, true),
		rs(geom(5, 2, 4, 64), geom(5, 0, 4, 128), 1000, -128, false),
		rs(geom(5, 2, 4, 128), geom(5, 1, 4, 32), 1000, 128, true),
		rs(geom(6, 2, 5, 32), geom(6, 17, 5, 32), 520, 64, true),
		rs(geom(4, 5, 4, 16), geom(4, 5, 6, 64), 600, -64, false),
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct r5j_reshape *r = &cases[i];
		u64 u = r5j_reshape_unit(r), units = r->dev_sectors / u * u;
		u64 pos = r5j_reshape_start_pos(r);
		struct r5j_reshape_step st;
		int steps = 0;

		REQUIRE(r5j_reshape_check(r, NULL) == 0);
		CHECK_EQ(r5j_reshape_walked(r, pos), 0);
		while (!r5j_reshape_step(r, pos, &st)) {
			u64 j = r5j_reshape_walked(r, pos);

			if (r->backwards)
				CHECK_EQ(units - u - st.dst_lo, j);
			else
				CHECK_EQ(st.dst_lo, j);
			CHECK_EQ(r5j_reshape_walked(r, st.pos_after), j + u);
			pos = st.pos_after;
			steps++;
		}
		CHECK(r5j_reshape_finished(r, pos));
		CHECK_EQ(r5j_reshape_walked(r, pos), units);
		CHECK_EQ((u64)steps, units / u);
	}
}

/* r5j_reshape_unsafe(): the window between the two positions, both ways. */
static void test_unsafe(void)
{
	int back;

	for (back = 0; back < 2; back++) {
		u64 safe = back ? 200 : 100, progress = back ? 100 : 200;

		CHECK(r5j_reshape_unsafe(safe, progress, 150, 160));
		CHECK(r5j_reshape_unsafe(safe, progress, 99, 101));
		CHECK(r5j_reshape_unsafe(safe, progress, 199, 201));
		CHECK(r5j_reshape_unsafe(safe, progress, 0, 300));
		CHECK(!r5j_reshape_unsafe(safe, progress, 90, 100));
		CHECK(!r5j_reshape_unsafe(safe, progress, 200, 210));
	}
	/* checkpointed: nothing waits */
	CHECK(!r5j_reshape_unsafe(100, 100, 0, 300));
	CHECK(!r5j_reshape_unsafe(0, 0, 0, 300));
}

/* row_side() against the rows' data blocks enumerated one by one. */
static void test_row_side(void)
{
	static const int ns[] = { 3, 4, 5, 7 };
	int i, lvl, back, k, m;

	for (lvl = 5; lvl <= 6; lvl++)
	for (i = 0; i < 4; i++)
	for (back = 0; back < 2; back++) {
		int n = ns[i] + (lvl == 6);
		struct r5j_reshape r = rs(geom(lvl, 2, n, 16),
					  geom(lvl, 2, n + 1, 32), 512, 0,
					  back);
		const struct r5j_geom *gs[2] = { &r.prev, &r.next };
		u64 pos, d;

		for (k = 0; k < 2; k++)
		for (pos = 0; pos <= 2048; pos += 8)
		for (d = 0; d < 256; d += 8) {
			int ahead = 0, done = 0;

			for (m = 0; m < gs[k]->raid_disks; m++) {
				struct r5j_stripe_map map;
				u64 a;

				r5j_stripe_parity(gs[k], d, &map);
				if (m == map.pd_idx || m == map.qd_idx)
					continue;
				a = r5j_array_sector_of(gs[k], d, m);
				if (r5j_reshape_ahead(&r, pos, a))
					ahead++;
				else
					done++;
				CHECK(r5j_reshape_geom(&r, pos, a) ==
				      (r5j_reshape_ahead(&r, pos, a) ?
				       &r.prev : &r.next));
			}
			TEST_NOTE("level %d n %d geom %d pos %llu row %llu %s",
				  lvl, n, k, (unsigned long long)pos,
				  (unsigned long long)d,
				  back ? "backwards" : "forwards");
			CHECK_EQ(r5j_reshape_row_side(&r, pos, gs[k], d),
				 !done ? 1 : !ahead ? -1 : 0);
		}
	}
}

/*
 * Replay classification (reshape.md R11): every row of either geometry,
 * logged with all its data blocks, one of them, or none, at every
 * position: the geometry comes back exactly when the row lies wholly on
 * that geometry's side; a block of another row, a parity location off by
 * a stripe or unaligned, or data on both sides gives NULL.  A prev row
 * straddling the position (run time writes its blocks ahead, reshape.md
 * 5.1) replays through prev with only blocks ahead logged, never with a
 * done block or as parity alone.
 */
static void test_log_geom(void)
{
	static const struct { int lvl, lay, n, dn; u32 oc, nc; bool back; } cs[] = {
		{ 5, 2, 3, 1, 16, 16, false },
		{ 5, 0, 5, -1, 16, 32, true },
		{ 6, 18, 5, 0, 32, 16, false },
		{ 6, 2, 6, -2, 16, 16, true },
		{ 4, 0, 3, 2, 16, 16, false },
	};
	int c, k, m, nd, na, hits[2] = { 0, 0 }, nulls = 0, straddles = 0;

	for (c = 0; c < 5; c++) {
		struct r5j_reshape r = rs(geom(cs[c].lvl, cs[c].lay, cs[c].n, cs[c].oc),
					  geom(cs[c].lvl, 2, cs[c].n + cs[c].dn, cs[c].nc),
					  1024, 0, cs[c].back);
		const struct r5j_geom *gs[2] = { &r.prev, &r.next };
		u64 pos, d;

		REQUIRE(r5j_reshape_check(&r, NULL) == 0);
		for (pos = 0; pos <= r5j_reshape_end(&r);
		     pos += r5j_reshape_unit(&r) * r5j_geom_data_disks(&r.next))
		for (k = 0; k < 2; k++)
		for (d = 0; d < 512; d += 8) {
			const struct r5j_geom *g = gs[k];
			int side = r5j_reshape_row_side(&r, pos, g, d);
			bool own = side == (k ? -1 : 1);
			u64 data[R5J_MAX_DISKS + 1], ahead[R5J_MAX_DISKS];
			struct r5j_stripe_map map;
			const struct r5j_geom *got;

			r5j_stripe_parity(g, d, &map);
			for (nd = 0, m = 0; m < g->raid_disks; m++)
				if (m != map.pd_idx && m != map.qd_idx)
					data[nd++] = r5j_array_sector_of(g, d, m);
			data[nd] = data[0] + r5j_geom_data_disks(g) * g->chunk_sectors;
			TEST_NOTE("case %d geom %d pos %llu row %llu", c, k,
				  (unsigned long long)pos, (unsigned long long)d);
			if (!k && !side) {
				/* a prev row straddling pos */
				straddles++;
				CHECK(r5j_reshape_log_geom(&r, pos, data, nd, d) == NULL);
				CHECK(r5j_reshape_log_geom(&r, pos, data, 0, d) != g);
				for (na = 0, m = 0; m < nd; m++) {
					bool a = r5j_reshape_ahead(&r, pos, data[m]);

					if (a)
						ahead[na++] = data[m];
					got = r5j_reshape_log_geom(&r, pos, &data[m], 1, d);
					CHECK(a ? got == g : got != g);
				}
				REQUIRE(na > 0 && na < nd);
				CHECK(r5j_reshape_log_geom(&r, pos, ahead, na, d) == g);
				CHECK(r5j_reshape_log_geom(&r, pos, ahead, na, d + 8) == NULL);
				continue;
			}
			if (!own) {
				/*
				 * Not g's: the same sectors may form a valid
				 * stripe of the other geometry at d, never
				 * one of g.
				 */
				nulls++;
				CHECK(r5j_reshape_log_geom(&r, pos, data, nd, d) != g);
				for (m = 0; m < nd; m++)
					CHECK(r5j_reshape_log_geom(&r, pos, &data[m], 1, d) != g);
				CHECK(r5j_reshape_log_geom(&r, pos, data, 0, d) != g);
				continue;
			}
			hits[k]++;
			CHECK(r5j_reshape_log_geom(&r, pos, data, nd, d) == g);
			for (m = 0; m < nd; m++)
				CHECK(r5j_reshape_log_geom(&r, pos, &data[m], 1, d) == g);
			/* wrong parity row, unaligned parity, a foreign block */
			CHECK(r5j_reshape_log_geom(&r, pos, data, nd, d + 8) == NULL);
			CHECK(r5j_reshape_log_geom(&r, pos, data, nd, d + 1) == NULL);
			CHECK(r5j_reshape_log_geom(&r, pos, data, nd + 1, d) == NULL);
			/* parity only: g's unless the other geometry claims d too */
			got = r5j_reshape_log_geom(&r, pos, data, 0, d);
			if (r5j_reshape_row_side(&r, pos, gs[!k], d) == (k ? 1 : -1))
				CHECK(got == NULL);
			else
				CHECK(got == g);
		}
	}
	CHECK(hits[0] > 100 && hits[1] > 100 && nulls > 100 && straddles > 10);
}

/* ---- brute-force model ---- */

#define BS		R5J_STRIPE_SECTORS
#define T_JUNK		0xffffffffu
#define T_PARITY	0xfffffffeu
#define T_ZERO		0u
#define NOT_SAVED	0xfffffffdu

static char model_name[96];	/* the reshape being modelled, for notes */

struct model {
	const struct r5j_reshape *r;
	int members;
	u64 base;		/* model sector of previous dev sector 0 */
	u64 nblk;		/* blocks per member */
	u64 data_end;		/* array sectors holding data */
	u32 *disk;		/* members x nblk tags */
	u32 *saved;		/* per array block: mdadm's backup, or NOT_SAVED */
	u64 safe;		/* position on disk */
	/* counts */
	int steps, go, checkpoints, backups;
	int backups_held;	/* blocks in saved[] */
	bool mainline;		/* checkpoint by mainline_need() instead */
	int crash_nobackup, crash_refused;
};

static u32 tag_of(u64 array_sector)
{
	return (u32)(array_sector / BS) + 1;
}

static u32 *blk(struct model *md, int m, const struct r5j_geom *g, u64 dev)
{
	s64 s = (s64)md->base + (s64)dev +
		(g == &md->r->next ? md->r->offset_diff : 0);

	if (s < 0 || (u64)s / BS >= md->nblk || m >= md->members)
		return NULL;
	return &md->disk[(u64)m * md->nblk + (u64)s / BS];
}

/* Where array sector a lives in geometry g. */
static u32 *loc(struct model *md, const struct r5j_geom *g, u64 a)
{
	struct r5j_stripe_map map;
	int m;
	u64 dev = r5j_map_array_sector(g, a, &m, &map);

	return blk(md, m, g, dev);
}

static int model_init(struct model *md, const struct r5j_reshape *r)
{
	u64 a, prev_size, abs_diff;
	int m;

	memset(md, 0, sizeof(*md));
	md->r = r;
	md->members = r->prev.raid_disks > r->next.raid_disks ?
		      r->prev.raid_disks : r->next.raid_disks;
	abs_diff = r->offset_diff < 0 ? -r->offset_diff : r->offset_diff;
	md->base = r->offset_diff < 0 ? abs_diff : 0;
	md->nblk = (md->base + r->dev_sectors + abs_diff) / BS;
	prev_size = r5j_array_size(&r->prev, r->dev_sectors);
	md->data_end = prev_size < r5j_reshape_end(r) ? prev_size :
		       r5j_reshape_end(r);
	md->disk = malloc(md->members * md->nblk * sizeof(u32));
	md->saved = malloc((r5j_reshape_end(r) / BS + 1) * sizeof(u32));
	if (!md->disk || !md->saved)
		return -1;
	for (a = 0; a < md->members * md->nblk; a++)
		md->disk[a] = T_JUNK;
	for (a = 0; a <= r5j_reshape_end(r) / BS; a++)
		md->saved[a] = NOT_SAVED;
	for (a = 0; a < md->data_end; a += BS)
		*loc(md, &r->prev, a) = tag_of(a);
	for (m = 0; m < r->prev.raid_disks; m++) {
		u64 d;

		for (d = 0; d < r5j_array_size(&r->prev, r->dev_sectors) /
			 r5j_geom_data_disks(&r->prev); d += BS) {
			struct r5j_stripe_map map;

			r5j_stripe_parity(&r->prev, d, &map);
			if (m == map.pd_idx || m == map.qd_idx)
				*blk(md, m, &r->prev, d) = T_PARITY;
		}
	}
	md->safe = r5j_reshape_start_pos(r);
	return 0;
}

static void model_free(struct model *md)
{
	free(md->disk);
	free(md->saved);
}

static int model_copy(struct model *dst, const struct model *src)
{
	size_t dn = src->members * src->nblk * sizeof(u32);
	size_t sn = (r5j_reshape_end(src->r) / BS + 1) * sizeof(u32);

	*dst = *src;
	dst->disk = malloc(dn);
	dst->saved = malloc(sn);
	if (!dst->disk || !dst->saved)
		return -1;
	memcpy(dst->disk, src->disk, dn);
	memcpy(dst->saved, src->saved, sn);
	return 0;
}

/* What an array block reads after a crash now: 0 means lost. */
static u32 model_read(struct model *md, u64 a)
{
	const struct r5j_geom *g = r5j_reshape_geom(md->r, md->safe, a);
	u32 *p = loc(md, g, a);

	if (p && *p == tag_of(a))
		return *p;
	if (g == &md->r->prev && md->saved[a / BS] != NOT_SAVED)
		return md->saved[a / BS];
	return p ? *p : T_JUNK;
}

/* Every array block readable through the on-disk position. */
static int model_consistent(struct model *md, const char *when)
{
	u64 a, end = r5j_reshape_end(md->r);
	int bad = 0;

	for (a = 0; a < end; a += BS) {
		u32 want = a < md->data_end ? tag_of(a) : T_ZERO;
		u32 got;

		/* not yet reshaped and past the old data: never read */
		if (a >= md->data_end && r5j_reshape_ahead(md->r, md->safe, a))
			continue;
		got = model_read(md, a);
		if (got != want && !bad++) {
			TEST_NOTE("%.80s: %s: safe %llu array %llu: %#x != %#x",
				  model_name, when,
				  (unsigned long long)md->safe,
				  (unsigned long long)a, got, want);
			CHECK_EQ(got, want);
		}
	}
	return bad;
}

/*
 * mdadm's backup, in effect: before a step that overwrites rows it (or a
 * later step) still reads, save every array block stored in a
 * previous-geometry block the step's destination covers.
 */
static void model_backup(struct model *md, const struct r5j_reshape_step *st)
{
	const struct r5j_reshape *r = md->r;
	u64 d;
	int m;

	for (d = st->dst_lo; d < st->dst_hi; d += BS)
		for (m = 0; m < r->next.raid_disks; m++) {
			u32 *p = blk(md, m, &r->next, d);
			u64 a;

			if (!p || *p == T_JUNK || *p == T_PARITY || *p == T_ZERO)
				continue;
			a = (u64)(*p - 1) * BS;
			if (r5j_reshape_ahead(r, md->safe, a) &&
			    md->saved[a / BS] == NOT_SAVED) {
				md->saved[a / BS] = *p;
				md->backups_held++;
			}
		}
}

/* The previous-geometry rows of a step and of every later one. */
static int model_check_overlap(struct model *md,
			       const struct r5j_reshape_step *st)
{
	const struct r5j_reshape *r = md->r;
	s64 w_lo = (s64)st->dst_lo + r->offset_diff;
	s64 w_hi = (s64)st->dst_hi + r->offset_diff;
	struct r5j_reshape_step later;
	u64 pos = st->pos;
	int bad = 0;

	while (!r5j_reshape_step(r, pos, &later)) {
		if (later.src_lo < later.src_hi &&
		    w_lo < (s64)later.src_hi && (s64)later.src_lo < w_hi &&
		    !bad++) {
			TEST_NOTE("%.80s: step at %llu writes [%lld, %lld), step at %llu reads [%llu, %llu)",
				  model_name, (unsigned long long)st->pos,
				  (long long)w_lo, (long long)w_hi,
				  (unsigned long long)later.pos,
				  (unsigned long long)later.src_lo,
				  (unsigned long long)later.src_hi);
			CHECK(0);
		}
		pos = later.pos_after;
	}
	return bad;
}

/* One step: read the sources, write every block of the destination rows. */
static int model_step(struct model *md, const struct r5j_reshape_step *st)
{
	const struct r5j_reshape *r = md->r;
	u64 n = (st->array_hi - st->array_lo) / BS, i, d;
	u32 *buf = malloc(n * sizeof(u32));
	int m, bad = 0;

	if (!buf)
		return 1;
	for (i = 0; i < n; i++) {
		u64 a = st->array_lo + i * BS;

		buf[i] = T_ZERO;
		if (a < md->data_end) {
			u32 *p = loc(md, &r->prev, a);
			struct r5j_stripe_map map;
			int dd;
			u64 dev = r5j_map_array_sector(&r->prev, a, &dd, &map);

			/* the step reads only inside its stated source rows */
			if ((dev < st->src_lo || dev >= st->src_hi) && !bad++) {
				TEST_NOTE("%.80s: step at %llu reads dev %llu outside [%llu, %llu)",
					  model_name, (unsigned long long)st->pos,
					  (unsigned long long)dev,
					  (unsigned long long)st->src_lo,
					  (unsigned long long)st->src_hi);
				CHECK(0);
			}

			buf[i] = p && *p == tag_of(a) ? *p : md->saved[a / BS];
			if (buf[i] != tag_of(a) && !bad++) {
				TEST_NOTE("%.80s: step at %llu: source of array %llu lost",
					  model_name, (unsigned long long)st->pos,
					  (unsigned long long)a);
				CHECK_EQ(buf[i], tag_of(a));
			}
		}
	}
	for (d = st->dst_lo; d < st->dst_hi; d += BS) {
		struct r5j_stripe_map map;

		r5j_stripe_parity(&r->next, d, &map);
		for (m = 0; m < r->next.raid_disks; m++) {
			u32 *p = blk(md, m, &r->next, d);
			u64 a;

			if (!p) {
				if (!bad++)
					CHECK(p != NULL);
				continue;
			}
			if (m == map.pd_idx || m == map.qd_idx) {
				*p = T_PARITY;
				continue;
			}
			a = r5j_array_sector_of(&r->next, d, m);
			if (a < st->array_lo || a >= st->array_hi) {
				if (!bad++)
					CHECK(a >= st->array_lo && a < st->array_hi);
				continue;
			}
			*p = buf[(a - st->array_lo) / BS];
		}
	}
	free(buf);
	return bad;
}

static void model_checkpoint(struct model *md, u64 pos)
{
	u64 a;

	md->safe = pos;
	md->checkpoints++;
	/* mdadm drops backup the superblock has gone past */
	for (a = 0; a < r5j_reshape_end(md->r); a += BS)
		if (!r5j_reshape_ahead(md->r, pos, a) &&
		    md->saved[a / BS] != NOT_SAVED) {
			md->saved[a / BS] = NOT_SAVED;
			md->backups_held--;
		}
}

/* prev rows straddling progress that model_check_log() logged */
static long model_straddled;

/*
 * R9 + R11: a stripe a write may log while the reshape is at progress (a
 * prev row wholly ahead of progress, or its blocks ahead of progress if
 * it straddles, a next row wholly behind the on-disk position) replays
 * through the geometry it was written in.
 */
static int model_check_log(struct model *md, u64 progress)
{
	const struct r5j_reshape *r = md->r;
	const struct r5j_geom *gs[2] = { &r->prev, &r->next };
	u64 data[R5J_MAX_DISKS], d;
	int k, m, nd, side, bad = 0;

	for (k = 0; k < 2; k++)
	for (d = 0; d + BS <= r->dev_sectors; d += BS) {
		const struct r5j_geom *g = gs[k];
		struct r5j_stripe_map map;

		/* the same dev sector never belongs to both sides at once */
		if (!k && r5j_reshape_row_side(r, md->safe, g, d) == 1 &&
		    r5j_reshape_row_side(r, md->safe, &r->next, d) == -1 &&
		    !bad++) {
			TEST_NOTE("%.80s: row %llu claimed by both geometries at %llu",
				  model_name, (unsigned long long)d,
				  (unsigned long long)md->safe);
			CHECK(0);
		}
		side = r5j_reshape_row_side(r, k ? md->safe : progress, g, d);
		if (side != (k ? -1 : 1) && (k || side))
			continue;
		r5j_stripe_parity(g, d, &map);
		for (nd = 0, m = 0; m < g->raid_disks; m++)
			if (m != map.pd_idx && m != map.qd_idx &&
			    (side || r5j_reshape_ahead(r, progress,
						       r5j_array_sector_of(g, d, m))))
				data[nd++] = r5j_array_sector_of(g, d, m);
		if (!side)
			model_straddled++;
		if (r5j_reshape_log_geom(r, md->safe, data, nd, d) != g &&
		    !bad++) {
			TEST_NOTE("%.80s: row %llu of geometry %d at progress %llu, safe %llu",
				  model_name, (unsigned long long)d, k,
				  (unsigned long long)progress,
				  (unsigned long long)md->safe);
			CHECK(0);
		}
	}
	return bad;
}

/* Restart after a crash: mdadm restores its backup ahead of the position. */
static void model_restore(struct model *md)
{
	u64 a;

	for (a = 0; a < md->data_end; a += BS)
		if (md->saved[a / BS] != NOT_SAVED &&
		    r5j_reshape_ahead(md->r, md->safe, a))
			*loc(md, &md->r->prev, a) = md->saved[a / BS];
}

/*
 * raid456 6.1's checkpoint test in reshape_request(), restated (its 10 s
 * timer left out): positions in dev sectors, the read side widened and the
 * write side moved by a unit and by the data offset change; checkpoint if
 * the on-disk position's reads are behind the write while this step's are
 * ahead of it; if even this step's reads are not ahead, only a backup
 * (mdadm) protects the step.
 */
static enum r5j_reshape_need mainline_need(const struct r5j_reshape *r,
					   const struct r5j_reshape_step *st,
					   u64 safe)
{
	s64 u = r5j_reshape_unit(r), d = r->offset_diff;
	s64 w = st->pos / r5j_geom_data_disks(&r->next);
	s64 rd = st->pos / r5j_geom_data_disks(&r->prev);
	s64 sf = safe / r5j_geom_data_disks(&r->prev);

	if (r->backwards) {
		w -= u;
		rd += u;
		sf += u;
	} else {
		w += u;
		rd -= rd < u ? rd : u;
		sf -= sf < u ? sf : u;
	}
	if (d < 0) {
		sf -= d;
		rd -= d;
	} else {
		w += d;
	}
	if (r->backwards ? sf > w && rd < w : sf < w && rd > w)
		return R5J_RESHAPE_CHECKPOINT;
	if (r->backwards ? rd >= w : rd <= w)
		return R5J_RESHAPE_BACKUP;
	return R5J_RESHAPE_GO;
}

/*
 * Run the reshape from md->safe to the end.  crash_check: after each step,
 * check the crash state and resume a copy from it.
 */
static int model_run(struct model *md, bool crash_check)
{
	struct r5j_reshape_step st;
	u64 pos = md->safe;
	int bad = 0;

	while (!bad && !r5j_reshape_step(md->r, pos, &st)) {
		enum r5j_reshape_need need = md->mainline ?
			mainline_need(md->r, &st, md->safe) :
			r5j_reshape_need(md->r, &st, md->safe);

		md->steps++;
		/*
		 * Never more than raid456 asks for at the same state: where
		 * raid5j needs mdadm's backup, raid456 needs it too.
		 */
		if (!md->mainline &&
		    need > mainline_need(md->r, &st, md->safe) && !bad++) {
			TEST_NOTE("%.80s: step at %llu safe %llu: raid5j %d, raid456 %d",
				  model_name, (unsigned long long)st.pos,
				  (unsigned long long)md->safe, need,
				  mainline_need(md->r, &st, md->safe));
			CHECK(0);
		}
		if (need == R5J_RESHAPE_CHECKPOINT) {
			model_checkpoint(md, st.pos);
			if (!md->mainline)
				CHECK_EQ(r5j_reshape_need(md->r, &st, md->safe),
					 R5J_RESHAPE_GO);
		} else if (need == R5J_RESHAPE_BACKUP) {
			md->backups++;
			model_backup(md, &st);
		} else {
			md->go++;
		}
		if (need != R5J_RESHAPE_BACKUP)
			bad += model_check_overlap(md, &st);
		bad += model_step(md, &st);
		pos = st.pos_after;
		if (crash_check && !bad) {
			struct model c;

			bad += model_consistent(md, "crash");
			bad += model_check_log(md, pos);
			if (md->backups_held == 0) {
				md->crash_nobackup++;
				if (!r5j_reshape_resume_ok(md->r, md->safe, false))
					md->crash_refused++;
			}
			if (!bad) {
				if (model_copy(&c, md))
					return 1;
				model_restore(&c);
				bad += model_run(&c, false);
				if (!bad)
					bad += model_consistent(&c, "resumed");
				model_free(&c);
			}
		}
		/* mdadm: keep the backup until the position passes it */
		if (need == R5J_RESHAPE_BACKUP)
			model_checkpoint(md, pos);
	}
	if (!bad)
		model_checkpoint(md, pos);
	CHECK(r5j_reshape_finished(md->r, md->safe));
	return bad;
}

struct model_totals {
	int configs, steps, go, checkpoints, backups;
	int crash_nobackup, crash_refused;
};

static void model_one(const struct r5j_reshape *r, struct model_totals *t,
		      bool mainline)
{
	struct model md;

	if (r5j_reshape_check(r, NULL))
		return;
	if (model_init(&md, r)) {
		CHECK(0);
		return;
	}
	md.mainline = mainline;
	snprintf(model_name, sizeof(model_name),
		 "%slevel %d layout %d->%d n %d->%d chunk %u->%u diff %lld %s",
		 mainline ? "mainline " : "",
		  r->prev.level, r->prev.layout, r->next.layout,
		  r->prev.raid_disks, r->next.raid_disks,
		  r->prev.chunk_sectors, r->next.chunk_sectors,
		  (long long)r->offset_diff,
		  r->backwards ? "backwards" : "forwards");
	if (!model_consistent(&md, "initial") && !model_run(&md, true))
		model_consistent(&md, "finished");
	t->configs++;
	t->steps += md.steps;
	t->go += md.go;
	t->checkpoints += md.checkpoints;
	t->backups += md.backups;
	t->crash_nobackup += md.crash_nobackup;
	t->crash_refused += md.crash_refused;
	model_free(&md);
}

static void model_all(bool mainline, struct model_totals *t)
{
	static const int lay5[] = { 0, 1, 2, 3, 4, 5 };
	static const int lay6[] = { 2, 1, 10, 18 };
	static const u32 chunks[][2] = {
		{ 8, 8 }, { 16, 16 }, { 8, 32 }, { 32, 8 }, { 16, 32 },
	};
	static const s64 diffs[] = { 0, 8, 16, 32, 64, 96 };
	int lvl, li, ci, di, n, dn, dir;

	for (lvl = 4; lvl <= 6; lvl++)
	for (li = 0; li < (lvl == 6 ? 4 : lvl == 5 ? 6 : 1); li++)
	for (ci = 0; ci < 5; ci++)
	for (n = lvl == 6 ? 4 : 2; n <= (lvl == 6 ? 6 : 5); n++)
	for (dn = -2; dn <= 2; dn++)
	for (di = 0; di < 6; di++)
	for (dir = 0; dir < 2; dir++) {
		int lay = lvl == 6 ? lay6[li] : lay5[li];
		/* layout changes: to left-symmetric, or from it */
		int nlay = dn == 0 && lay != 2 ? 2 : lay;
		struct r5j_reshape r = rs(geom(lvl, lay, n, chunks[ci][0]),
					  geom(lvl, nlay, n + dn, chunks[ci][1]),
					  0, dir ? diffs[di] : -diffs[di],
					  dir);
		u32 u = r5j_reshape_unit(&r);

		/* 12 units, plus a partial one that is never reshaped */
		r.dev_sectors = 12 * (u64)u + 8;
		if (dn == 0 && lay == nlay && chunks[ci][0] == chunks[ci][1])
			continue;
		model_one(&r, t, mainline);
		if (r5j_t.checks_failed)
			return;
	}
}

static void model_report(const struct model_totals *t)
{
	printf("    model: %d reshapes, %d steps: %d go, %d after a checkpoint, %d needing a backup; %d checkpoints\n",
	       t->configs, t->steps, t->go, t->steps - t->go - t->backups,
	       t->backups, t->checkpoints);
	printf("    crash points without a backup held: %d, refused by mainline's assembly test: %d\n",
	       t->crash_nobackup, t->crash_refused);
}

static void test_model(void)
{
	struct model_totals t = { 0 };

	model_straddled = 0;
	model_all(false, &t);
	model_report(&t);
	printf("    J1/J3: %ld straddling prev rows logged at crash points\n",
	       model_straddled);
	CHECK(model_straddled > 1000);
	/* interop: raid456 resumes every position raid5j leaves unprotected */
	CHECK_EQ(t.crash_refused, 0);
	CHECK(t.crash_nobackup > 1000);
	CHECK(t.configs > 1000);
	CHECK(t.backups > 0 && t.go > 0 && t.steps - t.go - t.backups > 0);
}

/*
 * The same reshapes with raid456's checkpoint decisions: the model (and
 * with it R1) agrees that mainline's positions are safe to resume from,
 * so a reshape raid456 interrupted resumes under raid5j's rules.
 */
static void test_model_mainline(void)
{
	struct model_totals t = { 0 };

	model_all(true, &t);
	model_report(&t);
	CHECK(t.configs > 1000);
}

int main(void)
{
	RUN_TEST(test_check);
	RUN_TEST(test_grow_by_hand);
	RUN_TEST(test_shrink_by_hand);
	RUN_TEST(test_layout_change_by_hand);
	RUN_TEST(test_walked);
	RUN_TEST(test_unsafe);
	RUN_TEST(test_row_side);
	RUN_TEST(test_log_geom);
	RUN_TEST(test_model);
	RUN_TEST(test_model_mainline);
	return TEST_DONE();
}
