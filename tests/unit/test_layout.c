// SPDX-License-Identifier: GPL-2.0
/*
 * Layout tests: drivers/shared/layout.c against itself (forward and inverse
 * maps, one P/Q per stripe, every array block stored exactly once) and
 * against mainline raid456 (tests/unit/data/raid456-layouts.txt, made by
 * tests/vm-gen/gen-raid456-table.sh).
 */
#include <stdint.h>
#include "r5j_test.h"
#include "raid5j/types.h"
#include "raid5j/layout.h"
#include "raid5j/parity.h"

struct layout_name {
	int level, layout;
	const char *name;	/* as mdadm --layout spells it */
};

static const struct layout_name layouts[] = {
	{ 4, 0, "-" },
	{ 5, 0, "left-asymmetric" },
	{ 5, 1, "right-asymmetric" },
	{ 5, 2, "left-symmetric" },
	{ 5, 3, "right-symmetric" },
	{ 5, 4, "parity-first" },
	{ 5, 5, "parity-last" },
	{ 6, 0, "left-asymmetric" },
	{ 6, 1, "right-asymmetric" },
	{ 6, 2, "left-symmetric" },
	{ 6, 3, "right-symmetric" },
	{ 6, 4, "parity-first" },
	{ 6, 5, "parity-last" },
	{ 6, 8, "ddf-zero-restart" },
	{ 6, 9, "ddf-N-restart" },
	{ 6, 10, "ddf-N-continue" },
	{ 6, 16, "left-asymmetric-6" },
	{ 6, 17, "right-asymmetric-6" },
	{ 6, 18, "left-symmetric-6" },
	{ 6, 19, "right-symmetric-6" },
	{ 6, 20, "parity-first-6" },
};
#define NR_LAYOUTS (int)(sizeof(layouts) / sizeof(layouts[0]))

/* 4K, 8K, 64K, 512K, and 12K (not a power of two: raid5j only) */
static const u32 chunks[] = { 8, 16, 128, 1024, 24 };
#define NR_CHUNKS (int)(sizeof(chunks) / sizeof(chunks[0]))

static int min_disks(int level)
{
	return level == 6 ? 4 : 2;
}

static struct r5j_geom geom(int level, int layout, int n, u32 chunk)
{
	struct r5j_geom g = {
		.level = level, .layout = layout, .raid_disks = n,
		.chunk_sectors = chunk,
	};
	return g;
}

static int is_parity(const struct r5j_stripe_map *map, int m)
{
	return m == map->pd_idx || m == map->qd_idx;
}

static void test_geom_check(void)
{
	static const int ok6[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18,
				   19, 20 };
	struct r5j_geom g;
	const char *msg;
	int l, i;

	for (l = -1; l <= 22; l++) {
		int v5 = l >= 0 && l <= 5, v6 = 0;

		for (i = 0; i < (int)(sizeof(ok6) / sizeof(ok6[0])); i++)
			v6 |= ok6[i] == l;
		TEST_NOTE("layout %d", l);
		g = geom(5, l, 4, 128);
		CHECK_EQ(r5j_geom_check(&g, NULL), v5 ? 0 : -EINVAL);
		g = geom(6, l, 4, 128);
		CHECK_EQ(r5j_geom_check(&g, NULL), v6 ? 0 : -EINVAL);
		/* RAID4 ignores the layout, as mainline does */
		g = geom(4, l, 4, 128);
		CHECK_EQ(r5j_geom_check(&g, NULL), 0);
	}
	TEST_NOTE("levels, members, chunks");
	for (l = -1; l <= 10; l++) {
		g = geom(l, 2, 5, 128);
		CHECK_EQ(r5j_geom_check(&g, NULL),
			 l == 4 || l == 5 || l == 6 ? 0 : -EINVAL);
	}
	g = geom(5, 2, 1, 128);
	CHECK_EQ(r5j_geom_check(&g, &msg), -EINVAL);
	CHECK(msg != NULL);
	g = geom(5, 2, 2, 128);
	CHECK_EQ(r5j_geom_check(&g, &msg), 0);
	CHECK(msg == NULL);
	g = geom(4, 0, 2, 128);
	CHECK_EQ(r5j_geom_check(&g, NULL), 0);
	g = geom(6, 2, 3, 128);
	CHECK_EQ(r5j_geom_check(&g, NULL), -EINVAL);
	g = geom(6, 2, R5J_MAX_DISKS, 128);
	CHECK_EQ(r5j_geom_check(&g, NULL), 0);
	g = geom(6, 2, R5J_MAX_DISKS + 1, 128);
	CHECK_EQ(r5j_geom_check(&g, NULL), -EINVAL);
	g = geom(6, 9, 255, 128);
	CHECK_EQ(r5j_geom_check(&g, NULL), 0);
	g = geom(6, 9, 256, 128);
	CHECK_EQ(r5j_geom_check(&g, NULL), -EINVAL);
	g = geom(5, 2, 4, 0);
	CHECK_EQ(r5j_geom_check(&g, NULL), -EINVAL);
	g = geom(5, 2, 4, 4);
	CHECK_EQ(r5j_geom_check(&g, NULL), -EINVAL);
	g = geom(5, 2, 4, 12);
	CHECK_EQ(r5j_geom_check(&g, NULL), -EINVAL);
	g = geom(5, 2, 4, 8);
	CHECK_EQ(r5j_geom_check(&g, NULL), 0);
	g = geom(5, 2, 4, 24);
	CHECK_EQ(r5j_geom_check(&g, NULL), 0);
	g = geom(5, 2, 4, 1u << 31);
	CHECK_EQ(r5j_geom_check(&g, NULL), 0);
}

/*
 * A RAID5 <-> RAID6 takeover moves no block: every data block of the RAID5
 * array sits on the same member and dev sector, with the same P, in its
 * RAID6 counterpart, whose Q is the new last member.
 */
static void test_level_change_layouts(void)
{
	int l, l6, n, i;
	u64 s;

	for (l = -1; l <= 22; l++) {
		l6 = r5j_layout_5_to_6(l);
		TEST_NOTE("RAID5 layout %d -> %d", l, l6);
		CHECK_EQ(l6 >= 0, l >= 0 && l <= 5);
		if (l6 < 0)
			continue;
		CHECK_EQ(r5j_layout_6_to_5(l6), l);
		for (n = 3; n <= 7; n++) {
			for (i = 0; i < NR_CHUNKS; i++) {
				struct r5j_geom g5 = geom(5, l, n, chunks[i]);
				struct r5j_geom g6 = geom(6, l6, n + 1, chunks[i]);
				u64 end = r5j_array_size(&g5, 16 * chunks[i]);

				REQUIRE(r5j_geom_check(&g5, NULL) == 0);
				REQUIRE(r5j_geom_check(&g6, NULL) == 0);
				CHECK_EQ(r5j_array_size(&g6, 16 * chunks[i]), end);
				for (s = 0; s < end; s += R5J_STRIPE_SECTORS) {
					struct r5j_stripe_map m5, m6;
					int d5, d6;
					u64 ds5, ds6;

					ds5 = r5j_map_array_sector(&g5, s, &d5, &m5);
					ds6 = r5j_map_array_sector(&g6, s, &d6, &m6);
					CHECK_EQ(ds5, ds6);
					CHECK_EQ(d5, d6);
					CHECK_EQ(m5.pd_idx, m6.pd_idx);
					CHECK_EQ(m6.qd_idx, n);
				}
			}
		}
	}
	TEST_NOTE("RAID6 layouts without a RAID5 counterpart");
	for (l = -1; l <= 22; l++) {
		int l5 = r5j_layout_6_to_5(l);

		CHECK_EQ(l5 >= 0, (l >= 16 && l <= 20) || l == 5);
		if (l5 >= 0)
			CHECK_EQ(r5j_layout_5_to_6(l5), l);
	}
}

static void test_disk_counts(void)
{
	struct r5j_geom g = geom(4, 0, 5, 128);

	CHECK_EQ(r5j_geom_parity_disks(&g), 1);
	CHECK_EQ(r5j_geom_data_disks(&g), 4);
	g = geom(5, 2, 5, 128);
	CHECK_EQ(r5j_geom_parity_disks(&g), 1);
	CHECK_EQ(r5j_geom_data_disks(&g), 4);
	g = geom(6, 2, 5, 128);
	CHECK_EQ(r5j_geom_parity_disks(&g), 2);
	CHECK_EQ(r5j_geom_data_disks(&g), 3);
}

/*
 * Mainline's syndrome order, re-derived step by step: walk the members
 * from the one after Q (DDF: from member 0), counting data members (DDF:
 * counting every member).
 */
static int ref_syndrome_slot(const struct r5j_geom *g,
			     const struct r5j_stripe_map *map, int m)
{
	int n = g->raid_disks;
	int sd = map->ddf_layout ? n : n - 2;
	int i, count = 0, d0;

	if (m == map->pd_idx)
		return sd;
	if (m == map->qd_idx)
		return sd + 1;
	d0 = map->ddf_layout ? 0 : (map->qd_idx == n - 1 ? 0 : map->qd_idx + 1);
	for (i = d0;; i = (i + 1) % n) {
		if (i == m)
			return count;
		if (map->ddf_layout || !is_parity(map, i))
			count++;
	}
}

/*
 * One geometry over 2 * raid_disks + 2 chunk stripes (the parity rotation
 * repeats every raid_disks or raid_disks - 1 of them).
 */
static void check_geometry(const struct r5j_geom *g)
{
	int n = g->raid_disks, dd = r5j_geom_data_disks(g);
	u64 kmax = 2 * n + 2, rows = g->chunk_sectors / 8;
	u64 total = kmax * g->chunk_sectors * dd, s, b;
	unsigned char *hit = calloc(kmax * rows * n, 1);
	int m;

	if (!CHECK(hit != NULL))
		return;

	for (s = 0; s < total; s += 8) {
		/* any sector of the block maps the same way */
		u64 sector = s + ((s >> 3) & 7);
		struct r5j_stripe_map map, map2;
		int dd_idx = -1;
		u64 dev = r5j_map_array_sector(g, sector, &dd_idx, &map);

		if (!CHECK(dd_idx >= 0 && dd_idx < n) ||
		    !CHECK(dev < kmax * g->chunk_sectors) ||
		    !CHECK(!is_parity(&map, dd_idx)))
			continue;
		CHECK_EQ(dev % g->chunk_sectors, sector % g->chunk_sectors);
		CHECK_EQ(r5j_array_sector_of(g, dev, dd_idx), sector);
		r5j_stripe_parity(g, dev, &map2);
		CHECK_EQ(map2.pd_idx, map.pd_idx);
		CHECK_EQ(map2.qd_idx, map.qd_idx);
		CHECK_EQ(map2.ddf_layout, map.ddf_layout);
		hit[(dev / 8) * n + dd_idx]++;
	}

	for (b = 0; b < kmax * rows; b++) {
		struct r5j_stripe_map map, first;
		int sd, data = 0;
		unsigned int seen = 0;	/* syndrome slots used, as a bitmask */
		unsigned long long seen_hi = 0;

		r5j_stripe_parity(g, b * 8, &map);
		r5j_stripe_parity(g, b / rows * rows * 8, &first);
		CHECK_EQ(map.pd_idx, first.pd_idx);
		if (!CHECK(map.pd_idx >= 0 && map.pd_idx < n))
			continue;
		if (g->level == 6) {
			if (!CHECK(map.qd_idx >= 0 && map.qd_idx < n) ||
			    !CHECK(map.qd_idx != map.pd_idx))
				continue;
			CHECK_EQ(map.ddf_layout,
				 g->layout >= 8 && g->layout <= 10);
		} else {
			CHECK_EQ(map.qd_idx, -1);
			CHECK_EQ(map.ddf_layout, 0);
		}
		sd = r5j_syndrome_disks(g, &map);
		CHECK_EQ(sd, map.ddf_layout ? n : dd);
		for (m = 0; m < n; m++) {
			int slot = r5j_syndrome_slot(g, &map, m);

			if (is_parity(&map, m)) {
				CHECK_EQ(hit[b * n + m], 0);
				CHECK_EQ(slot, m == map.pd_idx ? sd : sd + 1);
				continue;
			}
			data++;
			CHECK_EQ(hit[b * n + m], 1);
			if (!CHECK(slot >= 0 && slot < sd))
				continue;
			if (slot < 32)
				seen |= 1u << slot;
			else
				seen_hi |= 1ull << (slot - 32);
			if (g->level == 6) {
				CHECK_EQ(slot, ref_syndrome_slot(g, &map, m));
				if (map.ddf_layout)
					CHECK_EQ(slot, m);
			} else {
				/* RAID4/5: logical data order */
				CHECK_EQ(slot, r5j_array_sector_of(g, b * 8, m) /
					 g->chunk_sectors % dd);
			}
		}
		CHECK_EQ(data, dd);
		/* data slots distinct (n <= 16 here, so sd <= 16) */
		CHECK_EQ(__builtin_popcount(seen) + __builtin_popcountll(seen_hi),
			 dd);
	}
	free(hit);
}

static void check_level(int level)
{
	int i, n, c;

	for (i = 0; i < NR_LAYOUTS; i++) {
		if (layouts[i].level != level)
			continue;
		for (n = min_disks(level); n <= 16; n++) {
			for (c = 0; c < NR_CHUNKS; c++) {
				struct r5j_geom g = geom(level, layouts[i].layout,
							 n, chunks[c]);

				TEST_NOTE("level %d layout %d disks %d chunk %u",
					  level, g.layout, n, g.chunk_sectors);
				if (CHECK_EQ(r5j_geom_check(&g, NULL), 0))
					check_geometry(&g);
			}
		}
	}
}

static void test_map_raid4(void)
{
	check_level(4);
}

static void test_map_raid5(void)
{
	check_level(5);
}

static void test_map_raid6(void)
{
	check_level(6);
}

/* A few fixed points, worked out by hand from md's documentation. */
static void test_known_points(void)
{
	struct r5j_geom g = geom(5, R5J_ALG_LEFT_SYMMETRIC, 4, 8);
	struct r5j_stripe_map map;
	int m;

	/* left-symmetric, 4 disks: row 1 is "D4 D5 P D3" (chunk numbers) */
	CHECK_EQ(r5j_map_array_sector(&g, 3 * 8, &m, &map), 8);
	CHECK_EQ(m, 3);
	CHECK_EQ(map.pd_idx, 2);
	CHECK_EQ(r5j_map_array_sector(&g, 4 * 8 + 5, &m, &map), 8 + 5);
	CHECK_EQ(m, 0);
	/* RAID4: parity always on the last member */
	g = geom(4, R5J_ALG_PARITY_0, 5, 16);
	r5j_stripe_parity(&g, 12345 * 16, &map);
	CHECK_EQ(map.pd_idx, 4);
	CHECK_EQ(map.qd_idx, -1);
	/* RAID6 left-asymmetric, 5 disks: row 0 is "Q D0 D1 D2 P" */
	g = geom(6, R5J_ALG_LEFT_ASYMMETRIC, 5, 8);
	r5j_stripe_parity(&g, 0, &map);
	CHECK_EQ(map.pd_idx, 4);
	CHECK_EQ(map.qd_idx, 0);
	CHECK_EQ(r5j_array_sector_of(&g, 0, 1), 0);
	/* ddf-N-restart starts "D0 D1 D2 P Q" */
	g = geom(6, R5J_ALG_ROTATING_N_RESTART, 5, 8);
	r5j_stripe_parity(&g, 0, &map);
	CHECK_EQ(map.pd_idx, 3);
	CHECK_EQ(map.qd_idx, 4);
	CHECK(map.ddf_layout);
	/* *_6: Q pinned on the last member */
	g = geom(6, R5J_ALG_RIGHT_SYMMETRIC_6, 6, 8);
	for (m = 0; m < 12; m++) {
		r5j_stripe_parity(&g, m * 8, &map);
		CHECK_EQ(map.qd_idx, 5);
		CHECK_EQ(map.pd_idx, m % 5);
	}
}

/* Array sectors far out (multi-TiB members) still round-trip. */
static void test_large_sectors(void)
{
	static const u64 bases[] = { 1ull << 32, 0xffffffffull * 8,
				     1ull << 44, (1ull << 50) + 4096 * 5 };
	int i, l, j, n;

	for (l = 0; l < NR_LAYOUTS; l++) {
		for (n = min_disks(layouts[l].level); n <= 16; n += 5) {
			struct r5j_geom g = geom(layouts[l].level,
						 layouts[l].layout, n, 1024);

			for (i = 0; i < 4; i++) {
				for (j = 0; j < 64; j++) {
					u64 s = bases[i] + (u64)j * 1021 * 8 + j % 8;
					struct r5j_stripe_map map;
					int m;
					u64 dev = r5j_map_array_sector(&g, s, &m, &map);

					TEST_NOTE("level %d layout %d n %d sector %llu",
						  g.level, g.layout, n,
						  (unsigned long long)s);
					CHECK(!is_parity(&map, m));
					CHECK_EQ(r5j_array_sector_of(&g, dev, m), s);
					CHECK(dev <= s);
				}
			}
		}
	}
}

/*
 * r5j_rows: each block of a range comes out exactly once, in the row its
 * dev sector says, rows never repeat, and nothing outside the range.
 */
static void check_rows(const struct r5j_geom *g, u64 first, u64 last)
{
	u64 lo = first & ~7ull, nblocks = first < last ? (last + 7 - lo) / 8 : 0;
	u64 dev, prev_dev = 0, block, seen = 0;
	unsigned char *hit = calloc(nblocks + 1, 1);
	struct r5j_rows it;
	int rows = 0;

	TEST_NOTE("level %d layout %d n %d chunk %u range %llu-%llu",
		  g->level, g->layout, g->raid_disks, g->chunk_sectors,
		  (unsigned long long)first, (unsigned long long)last);
	r5j_rows_init(&it, g, first, last);
	while (r5j_rows_next(&it, &dev)) {
		int in_row = 0;

		CHECK(rows == 0 || dev != prev_dev);
		prev_dev = dev;
		rows++;
		while (r5j_rows_block(&it, &block)) {
			struct r5j_stripe_map map;
			int m;

			in_row++;
			if (!CHECK(block % 8 == 0 && block >= lo &&
				   block < last))
				continue;
			CHECK_EQ(r5j_map_array_sector(g, block, &m, &map), dev);
			CHECK_EQ(hit[(block - lo) / 8], 0);
			hit[(block - lo) / 8] = 1;
			seen++;
		}
		CHECK(in_row > 0);
	}
	CHECK_EQ(seen, nblocks);
	free(hit);
}

static void test_rows(void)
{
	static const u32 chunks[] = { 8, 16, 24, 128, 1024 };
	unsigned int seed = 12345;
	int l, n, c, i;

	for (l = 0; l < NR_LAYOUTS; l++) {
		for (n = min_disks(layouts[l].level); n <= 9; n += 2) {
			for (c = 0; c < 5; c++) {
				struct r5j_geom g = geom(layouts[l].level,
							 layouts[l].layout, n,
							 chunks[c]);
				u64 row = (u64)chunks[c] *
					  r5j_geom_data_disks(&g);

				/* whole rows, one block, empty, unaligned */
				check_rows(&g, 0, row);
				check_rows(&g, row, 3 * row);
				check_rows(&g, 8, 16);
				check_rows(&g, 40, 40);
				check_rows(&g, 3, 5);
				check_rows(&g, (1ull << 40) + 1, (1ull << 40) + row + 9);
				for (i = 0; i < 40; i++) {
					u64 first = rand_r(&seed) % (8 * row);
					u64 len = 1 + rand_r(&seed) % (3 * row);

					check_rows(&g, first, first + len);
				}
			}
		}
	}
}

static void test_array_size(void)
{
	int l, n, c;

	for (l = 0; l < NR_LAYOUTS; l++) {
		for (n = min_disks(layouts[l].level); n <= 16; n++) {
			for (c = 0; c < NR_CHUNKS; c++) {
				u32 cs = chunks[c];
				struct r5j_geom g = geom(layouts[l].level,
							 layouts[l].layout, n, cs);
				u64 dd = r5j_geom_data_disks(&g);

				TEST_NOTE("level %d layout %d n %d chunk %u",
					  g.level, g.layout, n, cs);
				CHECK_EQ(r5j_array_size(&g, 0), 0);
				CHECK_EQ(r5j_array_size(&g, cs - 1), 0);
				CHECK_EQ(r5j_array_size(&g, cs), cs * dd);
				CHECK_EQ(r5j_array_size(&g, 1000ull * cs + cs - 8),
					 1000ull * cs * dd);
				CHECK_EQ(r5j_array_size(&g, 1ull << 40),
					 (1ull << 40) / cs * cs * dd);
			}
		}
	}
}

/* ---- mainline raid456 table -------------------------------------------- */

/* Keep identical to tests/vm-gen/r5j-probe.c. */
#define STAMP_MAGIC 0x504d41545335524aULL

static void stamp_block(uint64_t sector, uint8_t *blk)
{
	uint64_t *w = (uint64_t *)blk;
	uint64_t x = sector * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	int i;

	w[0] = STAMP_MAGIC;
	w[1] = sector;
	for (i = 2; i < R5J_BLOCK_SIZE / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
}

static uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t len)
{
	while (len--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

static const struct layout_name *layout_by_name(int level, const char *name)
{
	int i;

	for (i = 0; i < NR_LAYOUTS; i++)
		if (layouts[i].level == level && !strcmp(layouts[i].name, name))
			return &layouts[i];
	return NULL;
}

struct table_stats {
	int geoms, rows, q_rows, tries;
	/* geometries seen per layout at 4 KiB chunks, bit per member count */
	unsigned int small[NR_LAYOUTS];
	int other_chunks[NR_LAYOUTS];
};

/* Q of every row of chunk stripe cs, hashed as r5j-probe does. */
static uint32_t q_hash(const struct r5j_geom *g, u64 cs, uint8_t *mem,
		       void **slots, const void *zero)
{
	struct r5j_parity_work w = { .slots = slots, .zero = zero,
				     .spare = { mem, mem + R5J_BLOCK_SIZE } };
	void *blocks[16];
	uint32_t h = 2166136261u;
	u64 r;
	int m;

	for (m = 0; m < g->raid_disks; m++)
		blocks[m] = mem + (2 + m) * R5J_BLOCK_SIZE;
	for (r = 0; r < g->chunk_sectors / 8; r++) {
		u64 dev = cs * g->chunk_sectors + r * 8;
		struct r5j_stripe_map map;

		r5j_stripe_parity(g, dev, &map);
		for (m = 0; m < g->raid_disks; m++)
			if (!is_parity(&map, m))
				stamp_block(r5j_array_sector_of(g, dev, m),
					    blocks[m]);
		r5j_compute_parity(g, &map, blocks, &w);
		h = fnv1a(h, blocks[map.qd_idx], R5J_BLOCK_SIZE);
	}
	return h;
}

/* Check one "R" line against the geometry of the last "G" line. */
static void check_table_row(const struct r5j_geom *g, char *line,
			    struct table_stats *st, uint8_t *mem,
			    void **slots, const void *zero)
{
	struct r5j_stripe_map map;
	char *tok, *save;
	u64 cs, dev;
	int m = 0, pq = 0;

	tok = strtok_r(line + 2, " \n", &save);
	cs = strtoull(tok, NULL, 10);
	dev = cs * g->chunk_sectors;
	r5j_stripe_parity(g, dev, &map);
	st->rows++;

	while ((tok = strtok_r(NULL, " \n", &save))) {
		if (!strncmp(tok, "q=", 2)) {
			uint32_t want = strtoul(tok + 2, NULL, 16);

			CHECK_EQ(q_hash(g, cs, mem, slots, zero), want);
			st->q_rows++;
			continue;
		}
		if (!CHECK(m < g->raid_disks))
			return;
		if (!strcmp(tok, "P")) {
			CHECK_EQ(map.pd_idx, m);
			pq++;
		} else if (!strcmp(tok, "Q")) {
			CHECK_EQ(map.qd_idx, m);
			pq++;
		} else {
			u64 s = strtoull(tok, NULL, 10) * g->chunk_sectors;
			struct r5j_stripe_map fmap;
			int dd_idx;

			CHECK(!is_parity(&map, m));
			CHECK_EQ(r5j_array_sector_of(g, dev, m), s);
			CHECK_EQ(r5j_map_array_sector(g, s, &dd_idx, &fmap), dev);
			CHECK_EQ(dd_idx, m);
		}
		m++;
	}
	CHECK_EQ(m, g->raid_disks);
	CHECK_EQ(pq, r5j_geom_parity_disks(g));
}

/*
 * "X"/"A" lines: what mainline refused or took.  raid5j agrees, except that
 * it takes chunks that are a multiple of 4 KiB but not a power of two
 * (mainline raid456 refuses them at run; layout.h allows them).
 */
static void check_table_try(char *line, struct table_stats *st)
{
	char name[64], verdict[16];
	int level, n, chunk_kib;
	const struct layout_name *ln;
	struct r5j_geom g;
	int pow2, want;

	if (!CHECK_EQ(sscanf(line + 2, "%d %63s %d %d %15s", &level, name, &n,
			     &chunk_kib, verdict), 5))
		return;
	ln = layout_by_name(level, name);
	if (!CHECK(ln != NULL))
		return;
	st->tries++;
	g = geom(level, ln->layout, n, chunk_kib * 2);
	pow2 = chunk_kib > 0 && !(chunk_kib & (chunk_kib - 1));
	want = line[0] == 'A' ? 0 : -EINVAL;
	if (line[0] == 'X' && !pow2 && chunk_kib % 4 == 0)
		want = 0;
	CHECK_EQ(r5j_geom_check(&g, NULL), want);
}

static void test_mainline_table(void)
{
	char path[512], line[4096];
	struct table_stats st = { 0 };
	struct r5j_geom g = { 0 };
	bool have_g = false;
	uint8_t *mem;
	void *slots[R5J_PARITY_SLOTS(16)];
	static const uint8_t zero[R5J_BLOCK_SIZE];
	FILE *f;
	int i, lineno = 0;

	snprintf(path, sizeof(path), "%s/raid456-layouts.txt", R5J_TEST_DATA);
	f = fopen(path, "r");
	TEST_NOTE("no table: make it with tests/vm-gen/gen-raid456-table.sh");
	REQUIRE(f != NULL);
	mem = malloc(18 * R5J_BLOCK_SIZE);
	REQUIRE(mem != NULL);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		TEST_NOTE("raid456-layouts.txt:%d: %.60s", lineno, line);
		if (line[0] == 'G') {
			unsigned long long comp, asz;
			int l;

			have_g = false;
			if (!CHECK_EQ(sscanf(line, "G %d %d %d %u %llu %llu",
					     &g.level, &g.layout, &g.raid_disks,
					     &g.chunk_sectors, &comp, &asz), 6))
				continue;
			if (!CHECK_EQ(r5j_geom_check(&g, NULL), 0) ||
			    !CHECK(g.raid_disks <= 16))
				continue;
			CHECK_EQ(r5j_array_size(&g, comp), asz);
			have_g = true;
			st.geoms++;
			for (l = 0; l < NR_LAYOUTS; l++) {
				if (layouts[l].level != g.level ||
				    (g.level != 4 && layouts[l].layout != g.layout))
					continue;
				if (g.chunk_sectors == 8)
					st.small[l] |= 1u << g.raid_disks;
				else
					st.other_chunks[l]++;
			}
		} else if (line[0] == 'R') {
			if (CHECK(have_g))
				check_table_row(&g, line, &st, mem, slots, zero);
		} else if (line[0] == 'X' || line[0] == 'A') {
			check_table_try(line, &st);
		} else {
			CHECK(line[0] == '#');
		}
	}
	fclose(f);
	free(mem);

	/* The table covers every layout, 3 (RAID6: 4) to 16 members. */
	for (i = 0; i < NR_LAYOUTS; i++) {
		unsigned int want = 0;
		int n;

		for (n = layouts[i].level == 6 ? 4 : 3; n <= 16; n++)
			want |= 1u << n;
		TEST_NOTE("table coverage: level %d layout %s",
			  layouts[i].level, layouts[i].name);
		CHECK_EQ(st.small[i] & want, want);
		CHECK(st.other_chunks[i] >= 6);
	}
	printf("     table: %d geometries, %d chunk stripes (%d with Q), "
	       "%d create attempts\n", st.geoms, st.rows, st.q_rows, st.tries);
}

int main(void)
{
	RUN_TEST(test_geom_check);
	RUN_TEST(test_disk_counts);
	RUN_TEST(test_level_change_layouts);
	RUN_TEST(test_known_points);
	RUN_TEST(test_map_raid4);
	RUN_TEST(test_map_raid5);
	RUN_TEST(test_map_raid6);
	RUN_TEST(test_large_sectors);
	RUN_TEST(test_rows);
	RUN_TEST(test_array_size);
	RUN_TEST(test_mainline_table);
	return TEST_DONE();
}
