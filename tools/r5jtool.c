// SPDX-License-Identifier: GPL-2.0
/*
 * r5jtool: inspect, verify and replay an md RAID4/5/6 write journal offline.
 *
 * The journal format and the scan rules are drivers/shared/jformat.c and
 * logscan.c, the same code the raid5j module runs at assembly; array
 * geometry is drivers/shared/layout.c.  This file adds devices, output and
 * the replay plan.  See r5jtool.8.
 *
 * Replay follows mainline recovery (raid5-cache.c, 6.1) step by step:
 *   - transactions are taken in log order; skipped ones are ignored whole;
 *   - FLUSH forgets what was collected for the listed stripes;
 *   - DATA for a stripe that already holds data and parity writes that
 *     stripe out first, then starts collecting again;
 *   - PARITY makes a stripe complete;
 *   - at the end, complete stripes with data are written (data and parity
 *     exactly as logged); parity-only stripes are ignored;
 *   - data-only (write-back) stripes: mainline re-logs them and lets the
 *     stripe engine write them with fresh parity.  r5jtool writes them
 *     directly: the other data blocks are read from the members, P (and Q)
 *     computed, data and parity written.  All data members must be present.
 *   - members are synced, then an empty meta block with seq + 10000 (a
 *     random seq if journal_tail had to be reset, as the kernel does) is
 *     written at the end of the log, then journal_tail moves there.
 * Everything is planned and checked before the first write: superblock
 * offsets (as md's super_1_load), every DATA and PARITY location
 * (drivers/shared/bounds.c, the kernel's check), every target block.  An
 * interruption leaves the journal as it was, and replaying again gives the
 * same result.
 *
 * The journal is untrusted: memory is bounded by the log's size (one plan
 * entry per logged page at most; a FLUSH only looks stripes up) and time
 * is linear in it (hashed lookups).  Members that are rebuilding
 * (recovery_offset set) and replacements are never read: they count as
 * missing for data-only stripes, and get the writes, as in the kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <dirent.h>
#include "raid5j/types.h"
#include "raid5j/bounds.h"
#include "raid5j/journal.h"
#include "raid5j/layout.h"
#include "raid5j/mdsb.h"

#define EXIT_OK		0
#define EXIT_DIFF	1	/* verify: some logged blocks are not on the members */
#define EXIT_ERR	2	/* error, refusal or bad usage */

static const char usage_text[] =
"usage: r5jtool dump JOURNAL_DEV [--from SECTOR] [--all] [--json]\n"
"       r5jtool verify JOURNAL_DEV MEMBER... [--json]\n"
"       r5jtool replay JOURNAL_DEV MEMBER... [--dry-run]\n"
"       r5jtool match-events JOURNAL_DEV MEMBER... [--dry-run]\n"
"       r5jtool writeback-check [--kmsg] [JOURNAL_DEV...]\n"
"       r5jtool --help\n"
"\n"
"Inspect, verify or replay the write journal of an md RAID4/5/6 array\n"
"(md v1.x metadata, mainline raid456 or raid5j) while it is stopped.\n"
"\n"
"  dump    print the log from journal_tail: every transaction, its\n"
"          payloads and page checksums, and where and why the valid log ends\n"
"          --from SECTOR  start at this ring sector instead of journal_tail\n"
"          --all          go on past the valid end and show stale blocks\n"
"          --json         one JSON object instead of text\n"
"  verify  as dump, then tell for every logged block whether the members\n"
"          already hold it (exit 0: all do, 1: some do not)\n"
"  replay  write the log to the members as the kernel does at assembly,\n"
"          then start an empty log at its end and move journal_tail\n"
"          --dry-run      print the writes, change nothing\n"
"  match-events  a power cut during a superblock update can leave the\n"
"          journal one event ahead of every member, which mdadm refuses to\n"
"          assemble without --force; check the journal's log and give its\n"
"          superblock the members' event count (--dry-run: check only)\n"
"  writeback-check  tell whether a journal holds a write-back log with\n"
"          data-only stripes (writes that are only in the journal); without\n"
"          a device, every block device of the machine that is an md\n"
"          journal (exit 1: some does; the boot rule then keeps raid456\n"
"          from recovering it, see tools/boot/raid5j.conf)\n"
"          --kmsg         say it in the kernel log too\n"
"\n"
"Exit status: 0 success, 1 verify found blocks not on the members or\n"
"writeback-check found data-only stripes, 2 error or refusal.\n";

/* ---- small helpers ---- */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("r5jtool: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_ERR);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

typedef unsigned long long ull;

/* ---- devices ---- */

struct dev {
	const char *path;
	int fd;
	struct mdsb sb;
	int role;
	bool rebuilding;	/* recovery_offset set or a replacement: no reads */
	u64 data_offset;	/* sectors */
	u64 dev_sectors;
};

static void dev_open(struct dev *d, const char *path, bool rw)
{
	const char *why;
	int err;

	d->path = path;
	d->fd = open(path, rw ? O_RDWR : O_RDONLY);
	if (d->fd < 0)
		die("%s: cannot open: %s", path, strerror(errno));
	err = mdsb_read(d->fd, &d->sb);
	if (err == -ENOENT)
		die("%s: no md v1.x superblock", path);
	if (err)
		die("%s: cannot read superblock: %s", path, strerror(-err));
	if (mdsb_check(&d->sb, &why))
		die("refusing: %s: bad superblock: %s", path, why);
	d->role = mdsb_role(&d->sb);
	d->data_offset = le64_to_cpu(d->sb.sb.data_offset);
	d->dev_sectors = d->sb.dev_sectors;
}

/* [sector, sector + 8) of the data area lies on the device. */
static bool dev_range_ok(const struct dev *d, u64 sector)
{
	return d->data_offset <= d->dev_sectors &&
	       r5j_range_ok(sector, R5J_BLOCK_SECTORS,
			    d->dev_sectors - d->data_offset);
}

/* Read 4 KiB at dev sector (relative to data_offset); -ERANGE past the end. */
static int dev_read(struct dev *d, u64 sector, void *buf)
{
	u64 at = d->data_offset + sector;
	ssize_t n;

	if (!dev_range_ok(d, sector))
		return -ERANGE;
	n = pread(d->fd, buf, R5J_BLOCK_SIZE, (off_t)(at * 512));
	if (n < 0)
		return -errno;
	return n == R5J_BLOCK_SIZE ? 0 : -ERANGE;
}

static void dev_write(struct dev *d, u64 sector, const void *buf)
{
	u64 at = d->data_offset + sector;
	ssize_t n;

	/* cmd_replay checked every target before the first write */
	if (!dev_range_ok(d, sector))
		die("internal error: %s: write past the data area", d->path);
	n = pwrite(d->fd, buf, R5J_BLOCK_SIZE, (off_t)(at * 512));
	if (n != R5J_BLOCK_SIZE)
		die("%s: write at sector %llu failed: %s", d->path, (ull)at,
		    n < 0 ? strerror(errno) : "short write");
}

static void dev_sync(struct dev *d)
{
	if (fsync(d->fd) < 0)
		die("%s: fsync failed: %s", d->path, strerror(errno));
}

static int journal_read(void *ctx, u64 sector, void *buf)
{
	return dev_read(ctx, sector, buf);
}

/* ---- the journal and its array ---- */

struct ctx {
	struct dev j;			/* journal device */
	struct r5j_log log;
	struct r5j_geom geom;
	struct r5j_bounds bounds;	/* what payloads may address */
	u64 member_sectors;		/* sb "size": used sectors per member */
	u64 array_sectors;
	struct dev *m;			/* by role; fd < 0 if missing */
	struct dev *rep;		/* replacements by role; fd < 0 if none */
	int missing;			/* members not readable */
	bool json;
	bool dry_run;
	bool quiet;			/* scan_begin prints nothing */
	bool kmsg;			/* writeback-check: kernel log too */
	u8 meta[R5J_BLOCK_SIZE];
	u8 page[R5J_BLOCK_SIZE];
	u8 page2[R5J_BLOCK_SIZE];
};

static const char *level_name(int level)
{
	return level == 4 ? "raid4" : level == 5 ? "raid5" : "raid6";
}

static void journal_open(struct ctx *c, const char *path, bool rw)
{
	const struct mdp_superblock_1 *sb;
	const char *why;
	int level;

	dev_open(&c->j, path, rw);
	sb = &c->j.sb.sb;
	if (c->j.role != MD_DISK_ROLE_JOURNAL)
		die("%s: not a journal device (role %#x)", path, c->j.role);
	if (!(le32_to_cpu(sb->feature_map) & MD_FEATURE_JOURNAL))
		die("%s: journal feature bit not set", path);
	level = (int)le32_to_cpu(sb->level);
	c->geom.level = level;
	c->geom.layout = (int)le32_to_cpu(sb->layout);
	c->geom.raid_disks = (int)le32_to_cpu(sb->raid_disks);
	c->geom.chunk_sectors = le32_to_cpu(sb->chunksize);
	if (r5j_geom_check(&c->geom, &why))
		die("%s: unsupported array geometry: %s", path, why);
	if (r5j_log_init(&c->log, sb->set_uuid, le64_to_cpu(sb->data_size),
			 level))
		die("%s: journal too small", path);
	c->member_sectors = le64_to_cpu(sb->size);
	r5j_bounds_init(&c->bounds, &c->geom, c->member_sectors);
	c->array_sectors = c->bounds.array_sectors;
}

/* ---- output ---- */

static const char *ptype_name(u16 type)
{
	return type == R5LOG_PAYLOAD_DATA ? "data" :
	       type == R5LOG_PAYLOAD_PARITY ? "parity" : "flush";
}

static void print_header(struct ctx *c, u64 tail)
{
	const struct mdp_superblock_1 *sb = &c->j.sb.sb;
	char uuid[36];

	mdsb_uuid_str(sb->set_uuid, uuid);
	if (c->json) {
		printf("{\"journal\":\"%s\",\"superblock\":\"1.%d\",\"uuid\":\"%s\","
		       "\"level\":%d,\"layout\":%d,\"chunk_sectors\":%u,"
		       "\"raid_disks\":%d,\"data_offset\":%llu,\"data_size\":%llu,"
		       "\"ring_sectors\":%llu,\"journal_tail\":%llu",
		       c->j.path, c->j.sb.minor, uuid, c->geom.level,
		       c->geom.layout, c->geom.chunk_sectors,
		       c->geom.raid_disks, (ull)c->j.data_offset,
		       (ull)le64_to_cpu(sb->data_size),
		       (ull)c->log.ring_sectors, (ull)tail);
		return;
	}
	printf("journal %s: md v1.%d superblock at sector %llu\n", c->j.path,
	       c->j.sb.minor, (ull)c->j.sb.sb_sector);
	printf("  array %s %s layout %d chunk %u raid_disks %d\n", uuid,
	       level_name(c->geom.level), c->geom.layout,
	       c->geom.chunk_sectors, c->geom.raid_disks);
	printf("  data_offset %llu data_size %llu ring %llu journal_tail %llu\n",
	       (ull)c->j.data_offset, (ull)le64_to_cpu(sb->data_size),
	       (ull)c->log.ring_sectors, (ull)tail);
}

/*
 * Print one transaction (meta block in c->meta at pos) with its payloads;
 * every page is read again for its checksum status.  first: no JSON comma.
 */
static void print_txn(struct ctx *c, const char *kind, u64 pos, u64 seq,
		      u32 sectors, u32 pages, enum r5j_reason verdict,
		      bool first)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	unsigned int i, n = 0;
	bool jfirst = true;

	if (c->json)
		printf("%s{\"kind\":\"%s\",\"seq\":%llu,\"pos\":%llu,"
		       "\"sectors\":%u,\"pages\":%u,\"verdict\":\"%s\","
		       "\"payloads\":[", first ? "" : ",", kind, (ull)seq,
		       (ull)pos, sectors, pages, r5j_reason_name(verdict));
	else
		printf("%s seq %llu pos %llu sectors %u pages %u %s\n", kind,
		       (ull)seq, (ull)pos, sectors, pages,
		       r5j_reason_name(verdict));

	r5j_payload_iter_init(&it, &c->log, c->meta, pos);
	while (r5j_payload_next(&it, &p)) {
		n++;
		if (p.type == R5LOG_PAYLOAD_FLUSH) {
			if (c->json) {
				printf("%s{\"type\":\"flush\",\"stripes\":[",
				       jfirst ? "" : ",");
				for (i = 0; i < p.nr_stripes; i++)
					printf("%s%llu", i ? "," : "",
					       (ull)r5j_payload_stripe(&p, i));
				printf("]}");
			} else {
				printf("  flush ");
				for (i = 0; i < p.nr_stripes; i++)
					printf(" %llu",
					       (ull)r5j_payload_stripe(&p, i));
				printf("\n");
			}
			jfirst = false;
			continue;
		}
		for (i = 0; i < p.pages; i++) {
			u64 at = r5j_payload_page_pos(&c->log, &p, i);
			u32 want = r5j_payload_csum(&p, i);
			int err = dev_read(&c->j, at, c->page);
			const char *st;
			const char *what = p.type == R5LOG_PAYLOAD_DATA ? "" :
					   i ? " Q" : " P";

			if (err)
				st = "unreadable";
			else if (r5j_page_csum(c->log.seed, c->page) == want)
				st = "ok";
			else
				st = "bad";
			if (c->json)
				printf("%s{\"type\":\"%s%s\",\"%s\":%llu,"
				       "\"page\":%llu,\"csum\":\"%#010x\","
				       "\"csum_ok\":%s}", jfirst ? "" : ",",
				       ptype_name(p.type),
				       i ? "_q" : "",
				       p.type == R5LOG_PAYLOAD_DATA ?
				       "array_sector" : "stripe",
				       (ull)p.location, (ull)at, want,
				       strcmp(st, "ok") ? "false" : "true");
			else
				printf("  %-6s %s %llu%s page %llu csum %#010x %s\n",
				       ptype_name(p.type),
				       p.type == R5LOG_PAYLOAD_DATA ?
				       "array" : "stripe",
				       (ull)p.location, what, (ull)at, want, st);
			jfirst = false;
		}
	}
	if (it.err) {
		if (c->json)
			printf("%s{\"type\":\"invalid\",\"offset\":%u,\"reason\":\"%s\"}",
			       jfirst ? "" : ",", it.offset,
			       r5j_reason_name(it.err));
		else
			printf("  invalid payload at offset %u: %s\n",
			       it.offset, r5j_reason_name(it.err));
	}
	if (c->json)
		printf("]}");
}

/* ---- scanning ---- */

/*
 * Start the scan at journal_tail, or at --from.  Returns false (after
 * printing why) if there is no log there.
 */
static bool scan_begin(struct ctx *c, struct r5j_scan *s, bool from_set,
		       u64 from)
{
	u64 tail = le64_to_cpu(c->j.sb.sb.journal_tail);
	enum r5j_reason r;
	int err;

	r5j_scan_init(s, &c->log, journal_read, &c->j, c->meta, c->page2);
	if (from_set) {
		r5j_scan_start_at(s, from, 0);
		err = journal_read(&c->j, s->pos, c->meta);
		if (err && err != -ERANGE)
			die("%s: read failed: %s", c->j.path, strerror(-err));
		r = err ? R5J_DEVICE_END :
		    r5j_meta_check(&c->log, c->meta, s->pos, NULL);
		if (r == R5J_OK || r == R5J_BAD_META_SIZE) {
			s->seq = r5j_meta_seq(c->meta);
			err = 0;
		} else {
			s->stop = r;
			err = -ENOENT;
		}
	} else {
		err = r5j_scan_start(s, tail);
	}
	if (err && err != -ENOENT)
		die("%s: read failed: %s", c->j.path, strerror(-err));
	if (c->quiet)
		return !err;
	if (c->json)
		printf(",\"start\":{\"pos\":%llu,\"tail_reset\":%s,\"log\":%s",
		       (ull)s->start_pos, s->tail_reset ? "true" : "false",
		       err ? "false" : "true");
	else if (s->tail_reset)
		printf("journal_tail %llu is past the ring or unaligned: using 0\n",
		       (ull)tail);
	if (err) {
		if (c->json)
			printf(",\"reason\":\"%s\"}", r5j_reason_name(s->stop));
		else
			printf("no log at %llu: %s\n", (ull)s->start_pos,
			       r5j_reason_name(s->stop));
		return false;
	}
	if (c->json)
		printf(",\"seq\":%llu}", (ull)s->seq);
	else
		printf("log start %llu seq %llu\n", (ull)s->pos, (ull)s->seq);
	return true;
}

/* Stale blocks after the valid end, up to where the scan started. */
static void dump_stale(struct ctx *c, const struct r5j_scan *s)
{
	u64 left = c->log.ring_sectors - s->walked;
	u64 pos = s->pos;
	bool first = true;
	enum r5j_reason r;
	u32 pages, span;
	int err;

	if (c->json)
		printf(",\"stale\":[");
	else
		printf("stale blocks after the end:\n");
	while (left >= R5J_BLOCK_SECTORS) {
		span = R5J_BLOCK_SECTORS;
		err = journal_read(&c->j, pos, c->meta);
		if (err == -ERANGE)
			break;
		if (err)
			die("%s: read failed: %s", c->j.path, strerror(-err));
		r = r5j_meta_check(&c->log, c->meta, pos, NULL);
		if (r == R5J_OK) {
			r = r5j_meta_pages(&c->log, c->meta, &pages);
			if (r == R5J_OK &&
			    (1 + (u64)pages) * R5J_BLOCK_SECTORS <= left)
				span = (1 + pages) * R5J_BLOCK_SECTORS;
			print_txn(c, "stale", pos, r5j_meta_seq(c->meta),
				  span, r == R5J_OK ? pages : 0, r, first);
			first = false;
		}
		left -= span;
		pos = r5j_ring_add(&c->log, pos, span);
	}
	if (c->json)
		printf("]");
}

/* ---- replay plan ---- */

enum act_kind { ACT_LOG_PAGE, ACT_DATA_ONLY };

struct action {
	enum act_kind kind;
	int member;		/* ACT_LOG_PAGE */
	u64 sector;		/* stripe (dev) sector */
	u64 log_pos;		/* ACT_LOG_PAGE: ring sector of the page */
	u32 csum;
	bool parity;
	bool superseded;	/* a later action writes the same block */
	size_t stripe;		/* ACT_DATA_ONLY: index into stripes */
};

struct stripe {
	u64 sector;
	bool caching;		/* data without parity (write-back) */
	u64 *page;		/* per member: log page + 1, 0 = none */
	u32 *csum;
	struct stripe_map_s {
		int pd, qd;
	} par;
	size_t next;		/* hash chain, index + 1 */
};

struct plan {
	struct action *acts;
	size_t nacts, cap_acts;
	struct stripe *st;
	size_t nst, cap_st;
	size_t *hash;		/* index + 1 */
	size_t nhash;
	unsigned int data_parity, data_only, txns, skipped;
};

static void plan_act(struct plan *pl, const struct action *a)
{
	if (pl->nacts == pl->cap_acts) {
		pl->cap_acts = pl->cap_acts ? 2 * pl->cap_acts : 64;
		pl->acts = realloc(pl->acts, pl->cap_acts * sizeof(*pl->acts));
		if (!pl->acts)
			die("out of memory");
	}
	pl->acts[pl->nacts++] = *a;
}

static size_t stripe_hash(const struct plan *pl, u64 sector)
{
	return (size_t)((sector >> 3) * 0x9e3779b97f4a7c15ull >> 20) %
	       pl->nhash;
}

/* Keep chains short whatever the log holds: double the table as it fills. */
static void plan_rehash(struct plan *pl)
{
	size_t i, h;

	free(pl->hash);
	pl->nhash *= 2;
	pl->hash = xcalloc(pl->nhash, sizeof(*pl->hash));
	for (i = 0; i < pl->nst; i++) {
		h = stripe_hash(pl, pl->st[i].sector);
		pl->st[i].next = pl->hash[h];
		pl->hash[h] = i + 1;
	}
}

/*
 * The plan entry of a stripe; created only if create (DATA and PARITY,
 * which have a page in the log each, so entries never outnumber pages).
 */
static struct stripe *plan_stripe(struct ctx *c, struct plan *pl, u64 sector,
				  bool create)
{
	size_t h = stripe_hash(pl, sector);
	size_t i = pl->hash[h];
	struct r5j_stripe_map map;
	struct stripe *s;

	while (i) {
		if (pl->st[i - 1].sector == sector)
			return &pl->st[i - 1];
		i = pl->st[i - 1].next;
	}
	if (!create)
		return NULL;
	if (pl->nst == pl->cap_st) {
		pl->cap_st = pl->cap_st ? 2 * pl->cap_st : 64;
		pl->st = realloc(pl->st, pl->cap_st * sizeof(*pl->st));
		if (!pl->st)
			die("out of memory");
	}
	s = &pl->st[pl->nst++];
	memset(s, 0, sizeof(*s));
	s->sector = sector;
	s->page = xcalloc((size_t)c->geom.raid_disks, sizeof(*s->page));
	s->csum = xcalloc((size_t)c->geom.raid_disks, sizeof(*s->csum));
	r5j_stripe_parity(&c->geom, sector, &map);
	s->par.pd = map.pd_idx;
	s->par.qd = map.qd_idx;
	s->next = pl->hash[h];
	pl->hash[h] = pl->nst;
	if (pl->nst > 2 * pl->nhash)
		plan_rehash(pl);
	return s;
}

static void stripe_reset(struct ctx *c, struct stripe *s)
{
	memset(s->page, 0, (size_t)c->geom.raid_disks * sizeof(*s->page));
	s->caching = false;
}

/* r5l_recovery_replay_one_stripe: write a complete stripe's logged blocks. */
static void plan_replay_stripe(struct ctx *c, struct plan *pl, struct stripe *s)
{
	struct action a;
	int i, data = 0;

	for (i = 0; i < c->geom.raid_disks; i++)
		if (s->page[i] && i != s->par.pd && i != s->par.qd)
			data++;
	if (data) {
		for (i = 0; i < c->geom.raid_disks; i++) {
			if (!s->page[i])
				continue;
			memset(&a, 0, sizeof(a));
			a.kind = ACT_LOG_PAGE;
			a.member = i;
			a.sector = s->sector;
			a.log_pos = s->page[i] - 1;
			a.csum = s->csum[i];
			a.parity = i == s->par.pd || i == s->par.qd;
			plan_act(pl, &a);
		}
		pl->data_parity++;
	}
	stripe_reset(c, s);
}

static void plan_txn(struct ctx *c, struct plan *pl)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	struct stripe *s;
	unsigned int i;
	int dd;
	u64 sector;
	struct r5j_stripe_map map;
	enum r5j_reason why;

	r5j_payload_iter_init(&it, &c->log, c->meta, r5j_meta_position(c->meta));
	while (r5j_payload_next(&it, &p)) {
		if (p.type != R5LOG_PAYLOAD_FLUSH) {
			why = r5j_payload_target(&c->bounds, &p, &sector, &dd,
						 &map);
			if (why != R5J_OK)
				die("refusing: %s payload in seq %llu: location %llu: %s (array %llu sectors, members %llu)",
				    p.type == R5LOG_PAYLOAD_DATA ? "DATA" :
				    "PARITY", (ull)r5j_meta_seq(c->meta),
				    (ull)p.location, r5j_reason_name(why),
				    (ull)c->array_sectors,
				    (ull)c->member_sectors);
		}
		switch (p.type) {
		case R5LOG_PAYLOAD_FLUSH:
			/* lookups only: a FLUSH never makes an entry */
			for (i = 0; i < p.nr_stripes; i++) {
				s = plan_stripe(c, pl,
						r5j_payload_stripe(&p, i),
						false);
				if (s)
					stripe_reset(c, s);
			}
			break;
		case R5LOG_PAYLOAD_DATA:
			s = plan_stripe(c, pl, sector, true);
			if (!s->caching && s->page[s->par.pd])
				plan_replay_stripe(c, pl, s);
			s->page[dd] = p.log_pos + 1;
			s->csum[dd] = r5j_payload_csum(&p, 0);
			s->caching = true;
			break;
		case R5LOG_PAYLOAD_PARITY:
			s = plan_stripe(c, pl, sector, true);
			s->page[s->par.pd] = p.log_pos + 1;
			s->csum[s->par.pd] = r5j_payload_csum(&p, 0);
			if (s->par.qd >= 0) {
				s->page[s->par.qd] =
					r5j_payload_page_pos(&c->log, &p, 1) + 1;
				s->csum[s->par.qd] = r5j_payload_csum(&p, 1);
			}
			s->caching = false;
			break;
		}
	}
}

/*
 * Later writes of the same block supersede earlier ones (verify): walk
 * the actions backwards with an open-addressing set of (member, sector),
 * linear in the number of actions.
 */
static void plan_supersede(struct plan *pl)
{
	struct blk_key {
		u64 sector;
		int member;	/* -1: empty slot */
	} *set;
	size_t n = 16, i, h;

	while (n < 2 * pl->nacts)
		n *= 2;
	set = xcalloc(n, sizeof(*set));
	for (h = 0; h < n; h++)
		set[h].member = -1;
	for (i = pl->nacts; i-- > 0;) {
		struct action *a = &pl->acts[i];

		if (a->kind != ACT_LOG_PAGE)
			continue;
		h = (size_t)(((a->sector >> 3) * 0x9e3779b97f4a7c15ull +
			      (u64)a->member * 0xc2b2ae3d27d4eb4full) >> 16) &
		    (n - 1);
		while (set[h].member >= 0 &&
		       (set[h].member != a->member ||
			set[h].sector != a->sector))
			h = (h + 1) & (n - 1);
		if (set[h].member >= 0) {
			a->superseded = true;
		} else {
			set[h].member = a->member;
			set[h].sector = a->sector;
		}
	}
	free(set);
}

/* Scan the whole log into a plan; prints the transactions if print. */
static bool plan_build(struct ctx *c, struct plan *pl, struct r5j_scan *s,
		       bool print)
{
	struct r5j_txn t;
	size_t i;
	struct action a;
	int err;
	bool first = true;

	pl->nhash = 4096;
	pl->hash = xcalloc(pl->nhash, sizeof(*pl->hash));
	if (c->json && print)
		printf(",\"transactions\":[");
	while ((err = r5j_scan_next(s, &t)) == 1) {
		pl->txns++;
		if (print) {
			print_txn(c, "txn", t.pos, t.seq, t.sectors, t.pages,
				  t.verdict, first);
			first = false;
		}
		if (t.verdict != R5J_OK) {
			pl->skipped++;
			continue;
		}
		plan_txn(c, pl);
	}
	if (err < 0)
		die("%s: read failed at ring sector %llu: %s", c->j.path,
		    (ull)s->pos, strerror(-err));
	if (c->json && print)
		printf("],\"end\":{\"pos\":%llu,\"seq\":%llu,\"reason\":\"%s\"}",
		       (ull)s->pos, (ull)s->seq, r5j_reason_name(s->stop));
	else if (print)
		printf("end pos %llu seq %llu reason %s\n", (ull)s->pos,
		       (ull)s->seq, r5j_reason_name(s->stop));

	/* r5c_recovery_replay_stripes, then the data-only ones */
	for (i = 0; i < pl->nst; i++)
		if (!pl->st[i].caching)
			plan_replay_stripe(c, pl, &pl->st[i]);
	for (i = 0; i < pl->nst; i++) {
		if (!pl->st[i].caching)
			continue;
		memset(&a, 0, sizeof(a));
		a.kind = ACT_DATA_ONLY;
		a.sector = pl->st[i].sector;
		a.stripe = i;
		plan_act(pl, &a);
		pl->data_only++;
	}
	plan_supersede(pl);
	return true;
}

static void plan_free(struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->nst; i++) {
		free(pl->st[i].page);
		free(pl->st[i].csum);
	}
	free(pl->st);
	free(pl->acts);
	free(pl->hash);
}

/* ---- members ---- */

/* Member i can be read: present, in sync (not rebuilding). */
static bool member_readable(const struct ctx *c, int i)
{
	return c->m[i].fd >= 0 && !c->m[i].rebuilding;
}

static void members_open(struct ctx *c, char **paths, int n, bool rw)
{
	const struct mdp_superblock_1 *js = &c->j.sb.sb, *ms;
	u64 events = le64_to_cpu(js->events);
	int i, role, parity = r5j_geom_parity_disks(&c->geom);
	struct dev d, *slot;
	u32 feat;

	c->m = xcalloc((size_t)c->geom.raid_disks, sizeof(*c->m));
	c->rep = xcalloc((size_t)c->geom.raid_disks, sizeof(*c->rep));
	for (i = 0; i < c->geom.raid_disks; i++)
		c->m[i].fd = c->rep[i].fd = -1;
	if (le32_to_cpu(js->feature_map) & MD_FEATURE_RESHAPE_ACTIVE)
		die("refusing: a reshape is in progress");
	for (i = 0; i < n; i++) {
		memset(&d, 0, sizeof(d));
		dev_open(&d, paths[i], rw);
		ms = &d.sb.sb;
		if (memcmp(ms->set_uuid, js->set_uuid, 16))
			die("refusing: %s belongs to another array", d.path);
		role = d.role;
		if (role == MD_DISK_ROLE_JOURNAL)
			die("refusing: %s is a journal, not a member", d.path);
		if (role >= c->geom.raid_disks)
			die("refusing: %s is not an active member (role %#x)",
			    d.path, role);
		if (le32_to_cpu(ms->level) != (u32)c->geom.level ||
		    le32_to_cpu(ms->layout) != (u32)c->geom.layout ||
		    le32_to_cpu(ms->chunksize) != c->geom.chunk_sectors ||
		    le32_to_cpu(ms->raid_disks) != (u32)c->geom.raid_disks ||
		    le64_to_cpu(ms->size) != c->member_sectors)
			die("refusing: %s: geometry differs from the journal's superblock",
			    d.path);
		if (le32_to_cpu(ms->feature_map) & MD_FEATURE_RESHAPE_ACTIVE)
			die("refusing: %s: a reshape is in progress", d.path);
		if (le64_to_cpu(ms->events) != events)
			die("refusing: %s: events %llu differ from the journal's %llu (stale member?)",
			    d.path, (ull)le64_to_cpu(ms->events), (ull)events);
		/* every block the plan may touch lies on the device */
		if (le64_to_cpu(ms->data_size) < c->member_sectors)
			die("refusing: %s: data_size %llu smaller than the array's member size %llu",
			    d.path, (ull)le64_to_cpu(ms->data_size),
			    (ull)c->member_sectors);
		/* not rebuilt yet: its blocks may be stale, never read them */
		feat = le32_to_cpu(ms->feature_map);
		d.rebuilding = feat & (MD_FEATURE_RECOVERY_OFFSET |
				       MD_FEATURE_REPLACEMENT);
		slot = feat & MD_FEATURE_REPLACEMENT ? c->rep : c->m;
		if (slot[role].fd >= 0)
			die("refusing: %s and %s both claim role %d%s",
			    slot[role].path, d.path, role,
			    slot == c->rep ? " as replacements" : "");
		slot[role] = d;
	}
	c->missing = 0;
	for (i = 0; i < c->geom.raid_disks; i++)
		if (!member_readable(c, i))
			c->missing++;
	if (c->missing > parity)
		die("refusing: %d of %d members missing or rebuilding, %s tolerates %d",
		    c->missing, c->geom.raid_disks, level_name(c->geom.level),
		    parity);
}

/* Read and check a logged page into buf. */
static void read_log_page(struct ctx *c, u64 pos, u32 csum, void *buf)
{
	int err = journal_read(&c->j, pos, buf);

	if (err)
		die("%s: cannot read log page %llu: %s", c->j.path, (ull)pos,
		    strerror(-err));
	if (r5j_page_csum(c->log.seed, buf) != csum)
		die("%s: log page %llu changed under us", c->j.path, (ull)pos);
}

/*
 * Build the new stripe of a data-only action: blocks[] by member, logged
 * data substituted, P (and Q) computed.  logged[i] tells which blocks came
 * from the log.  Returns false if a needed data member is missing.
 */
static bool build_data_only(struct ctx *c, const struct stripe *s,
			    u8 **blocks, bool *logged)
{
	int n = c->geom.raid_disks, i, z, sd, slot;
	struct r5j_stripe_map map;
	static u8 zero[R5J_BLOCK_SIZE];
	const u8 **slots;
	u8 *pp, *qq;
	size_t b;

	r5j_stripe_parity(&c->geom, s->sector, &map);
	for (i = 0; i < n; i++) {
		logged[i] = s->page[i] != 0;
		if (i == map.pd_idx || i == map.qd_idx)
			continue;
		if (logged[i]) {
			read_log_page(c, s->page[i] - 1, s->csum[i], blocks[i]);
		} else {
			if (!member_readable(c, i))
				return false;
			if (dev_read(&c->m[i], s->sector, blocks[i]))
				die("%s: cannot read sector %llu", c->m[i].path,
				    (ull)s->sector);
		}
	}
	pp = blocks[map.pd_idx];
	memset(pp, 0, R5J_BLOCK_SIZE);
	for (i = 0; i < n; i++)
		if (i != map.pd_idx && i != map.qd_idx)
			for (b = 0; b < R5J_BLOCK_SIZE; b++)
				pp[b] ^= blocks[i][b];
	if (map.qd_idx < 0)
		return true;

	/* Q = sum of {02}^slot * D_slot over the syndrome slots */
	sd = r5j_syndrome_disks(&c->geom, &map);
	slots = xcalloc((size_t)sd, sizeof(*slots));
	for (z = 0; z < sd; z++)
		slots[z] = zero;
	for (i = 0; i < n; i++) {
		if (i == map.pd_idx || i == map.qd_idx)
			continue;
		slot = r5j_syndrome_slot(&c->geom, &map, i);
		if (slot < 0 || slot >= sd)
			die("internal error: bad syndrome slot");
		slots[slot] = blocks[i];
	}
	qq = blocks[map.qd_idx];
	for (b = 0; b < R5J_BLOCK_SIZE; b++) {
		u8 q = slots[sd - 1][b];

		for (z = sd - 2; z >= 0; z--)
			q = (u8)((q << 1) ^ ((q & 0x80) ? 0x1d : 0)) ^
			    slots[z][b];
		qq[b] = q;
	}
	free(slots);
	return true;
}

/* ---- commands ---- */

static int cmd_dump(struct ctx *c, const char *jpath, bool from_set, u64 from,
		    bool all)
{
	struct r5j_scan s;
	struct plan pl;

	journal_open(c, jpath, false);
	print_header(c, le64_to_cpu(c->j.sb.sb.journal_tail));
	memset(&pl, 0, sizeof(pl));
	if (scan_begin(c, &s, from_set, from)) {
		plan_build(c, &pl, &s, true);
		if (all)
			dump_stale(c, &s);
	}
	plan_free(&pl);
	if (c->json)
		printf("}\n");
	return EXIT_OK;
}

static int cmd_verify(struct ctx *c, const char *jpath, char **members,
		      int nmembers)
{
	unsigned int on = 0, off = 0, absent = 0;
	struct r5j_scan s;
	struct plan pl;
	size_t i;
	int k, status;
	bool first = true;

	journal_open(c, jpath, false);
	members_open(c, members, nmembers, false);
	print_header(c, le64_to_cpu(c->j.sb.sb.journal_tail));
	memset(&pl, 0, sizeof(pl));
	if (scan_begin(c, &s, false, 0))
		plan_build(c, &pl, &s, true);
	if (c->json)
		printf(",\"blocks\":[");
	for (i = 0; i < pl.nacts; i++) {
		struct action *a = &pl.acts[i];
		u8 *blocks[R5J_MAX_DISKS];
		bool logged[R5J_MAX_DISKS];
		const char *st;
		u8 *buf;

		if (a->superseded)
			continue;
		if (a->kind == ACT_LOG_PAGE) {
			read_log_page(c, a->log_pos, a->csum, c->page);
			if (!member_readable(c, a->member)) {
				st = "member-missing";
				absent++;
			} else if (dev_read(&c->m[a->member], a->sector,
					    c->page2) == 0 &&
				   !memcmp(c->page, c->page2, R5J_BLOCK_SIZE)) {
				st = "on-member";
				on++;
			} else {
				st = "not-on-member";
				off++;
			}
			if (c->json)
				printf("%s{\"stripe\":%llu,\"member\":%d,\"block\":\"%s\",\"page\":%llu,\"state\":\"%s\"}",
				       first ? "" : ",", (ull)a->sector,
				       a->member, a->parity ? "parity" : "data",
				       (ull)a->log_pos, st);
			else
				printf("stripe %llu member %d %s from log page %llu: %s\n",
				       (ull)a->sector, a->member,
				       a->parity ? "parity" : "data",
				       (ull)a->log_pos, st);
			first = false;
			continue;
		}
		/* data-only stripe: its data and the parity it implies */
		buf = xcalloc((size_t)c->geom.raid_disks, R5J_BLOCK_SIZE);
		for (k = 0; k < c->geom.raid_disks; k++)
			blocks[k] = buf + (size_t)k * R5J_BLOCK_SIZE;
		if (!build_data_only(c, &pl.st[a->stripe], blocks, logged)) {
			st = "member-missing";
			absent++;
		} else {
			st = "on-member";
			for (k = 0; k < c->geom.raid_disks; k++) {
				struct r5j_stripe_map map;

				r5j_stripe_parity(&c->geom, a->sector, &map);
				if (!logged[k] && k != map.pd_idx &&
				    k != map.qd_idx)
					continue;
				if (!member_readable(c, k))
					continue;
				if (dev_read(&c->m[k], a->sector, c->page2) ||
				    memcmp(blocks[k], c->page2, R5J_BLOCK_SIZE))
					st = "not-on-member";
			}
			if (strcmp(st, "on-member"))
				off++;
			else
				on++;
		}
		if (c->json)
			printf("%s{\"stripe\":%llu,\"block\":\"data-only\",\"state\":\"%s\"}",
			       first ? "" : ",", (ull)a->sector, st);
		else
			printf("stripe %llu data-only (data and computed parity): %s\n",
			       (ull)a->sector, st);
		first = false;
		free(buf);
	}
	status = off || absent ? EXIT_DIFF : EXIT_OK;
	if (c->json)
		printf("],\"summary\":{\"on_member\":%u,\"not_on_member\":%u,\"member_missing\":%u}}\n",
		       on, off, absent);
	else
		printf("verify: %u blocks on the members, %u not, %u on missing members\n",
		       on, off, absent);
	plan_free(&pl);
	return status;
}

static void say_write(struct ctx *c, const char *what, const struct dev *d,
		      u64 sector)
{
	if (c->dry_run)
		printf("would write %s to %s sector %llu\n", what, d->path,
		       (ull)(d->data_offset + sector));
}

/* Write a block to member k and, mid `mdadm --replace`, its replacement. */
static void member_write(struct ctx *c, int k, const char *what, u64 sector,
			 const void *buf)
{
	struct dev *d[2] = { &c->m[k], &c->rep[k] };
	int i;

	for (i = 0; i < 2; i++) {
		if (d[i]->fd < 0)
			continue;
		say_write(c, what, d[i], sector);
		if (!c->dry_run)
			dev_write(d[i], sector, buf);
	}
}

/* Every block the plan writes lies in its device's data area: refuse if not. */
static void plan_check_targets(struct ctx *c, const struct plan *pl)
{
	size_t i;
	int k;

	for (i = 0; i < pl->nacts; i++) {
		const struct action *a = &pl->acts[i];

		for (k = 0; k < c->geom.raid_disks; k++) {
			if (a->kind == ACT_LOG_PAGE && k != a->member)
				continue;
			if (!r5j_range_ok(a->sector, R5J_BLOCK_SECTORS,
					  c->member_sectors) ||
			    (c->m[k].fd >= 0 && !dev_range_ok(&c->m[k], a->sector)) ||
			    (c->rep[k].fd >= 0 &&
			     !dev_range_ok(&c->rep[k], a->sector)))
				die("refusing: stripe %llu lies outside member %d's data area",
				    (ull)a->sector, k);
		}
	}
}

/* The kernel's rule for the seq of a new log (drivers/r5j_recovery.c). */
static u64 new_log_seq(const struct r5j_scan *s)
{
	u32 r;

	if (!s->tail_reset)
		return s->seq + R5J_SEQ_JUMP;
	/* the old log may go on after the end found: chain on to nothing */
	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		die("getrandom failed: %s", strerror(errno));
	return r;
}

static int cmd_replay(struct ctx *c, const char *jpath, char **members,
		      int nmembers)
{
	u64 tail = 0, end_pos, new_seq;
	struct r5j_scan s;
	struct plan pl;
	size_t i;
	int k;

	journal_open(c, jpath, !c->dry_run);
	members_open(c, members, nmembers, !c->dry_run);
	print_header(c, le64_to_cpu(c->j.sb.sb.journal_tail));
	memset(&pl, 0, sizeof(pl));
	if (!scan_begin(c, &s, false, 0)) {
		if (s.stop == R5J_BAD_MAGIC || s.stop == R5J_DEVICE_END) {
			printf("nothing to replay\n");
			return EXIT_OK;
		}
		die("refusing: journal_tail points at a block of this kind: %s",
		    r5j_reason_name(s.stop));
	}
	plan_build(c, &pl, &s, true);
	if (s.stop == R5J_WRAPPED)
		die("refusing: the log wraps onto its own start");

	/* refuse before writing anything */
	for (i = 0; i < pl.nacts; i++) {
		const struct stripe *st = &pl.st[pl.acts[i].stripe];

		if (pl.acts[i].kind != ACT_DATA_ONLY || !c->missing)
			continue;
		for (k = 0; k < c->geom.raid_disks; k++)
			if (!member_readable(c, k) && k != st->par.pd &&
			    k != st->par.qd && !st->page[k])
				die("refusing: data-only stripe %llu needs missing or rebuilding member %d to compute parity",
				    (ull)st->sector, k);
	}
	plan_check_targets(c, &pl);
	end_pos = s.pos;
	if (!dev_range_ok(&c->j, end_pos))
		die("refusing: log end %llu lies outside the journal's data area",
		    (ull)end_pos);

	printf("replay: %u transactions (%u skipped), %u data-parity stripes, %u data-only stripes\n",
	       pl.txns, pl.skipped, pl.data_parity, pl.data_only);
	for (i = 0; i < pl.nacts; i++) {
		struct action *a = &pl.acts[i];
		u8 *blocks[R5J_MAX_DISKS];
		bool logged[R5J_MAX_DISKS];
		struct r5j_stripe_map map;
		char what[96];
		u8 *buf;

		if (a->kind == ACT_LOG_PAGE) {
			read_log_page(c, a->log_pos, a->csum, c->page);
			snprintf(what, sizeof(what), "%s of stripe %llu (log page %llu)",
				 a->parity ? "parity" : "data",
				 (ull)a->sector, (ull)a->log_pos);
			member_write(c, a->member, what, a->sector, c->page);
			continue;
		}
		buf = xcalloc((size_t)c->geom.raid_disks, R5J_BLOCK_SIZE);
		for (k = 0; k < c->geom.raid_disks; k++)
			blocks[k] = buf + (size_t)k * R5J_BLOCK_SIZE;
		if (!build_data_only(c, &pl.st[a->stripe], blocks, logged))
			die("internal error: data-only stripe not buildable");
		r5j_stripe_parity(&c->geom, a->sector, &map);
		for (k = 0; k < c->geom.raid_disks; k++) {
			bool par = k == map.pd_idx || k == map.qd_idx;

			if (!logged[k] && !par)
				continue;
			snprintf(what, sizeof(what), "%s of data-only stripe %llu",
				 par ? "computed parity" : "data", (ull)a->sector);
			member_write(c, k, what, a->sector, blocks[k]);
		}
		free(buf);
	}
	if (!c->dry_run)
		for (k = 0; k < c->geom.raid_disks; k++) {
			if (c->m[k].fd >= 0)
				dev_sync(&c->m[k]);
			if (c->rep[k].fd >= 0)
				dev_sync(&c->rep[k]);
		}

	/* a new, empty log at the end; then journal_tail */
	new_seq = new_log_seq(&s);
	r5j_meta_init(c->meta, end_pos, new_seq);
	r5j_meta_seal(c->meta, c->log.seed);
	tail = le64_to_cpu(c->j.sb.sb.journal_tail);
	if (c->dry_run) {
		printf("would write empty meta block seq %llu to %s sector %llu\n",
		       (ull)new_seq, c->j.path, (ull)(c->j.data_offset + end_pos));
		printf("would set journal_tail %llu -> %llu\n", (ull)tail,
		       (ull)end_pos);
	} else {
		dev_write(&c->j, end_pos, c->meta);
		dev_sync(&c->j);
		c->j.sb.sb.journal_tail = cpu_to_le64(end_pos);
		if (mdsb_write(c->j.fd, &c->j.sb))
			die("%s: cannot write superblock", c->j.path);
		printf("journal_tail %llu -> %llu, new log seq %llu\n",
		       (ull)tail, (ull)end_pos, (ull)new_seq);
	}
	plan_free(&pl);
	return EXIT_OK;
}

/* ---- match-events (Documentation/journal.md, "Superblock updates") ---- */

/* Newest event count of the active members among @paths; their count. */
static int newest_member_events(struct ctx *c, char **paths, int n, u64 *newest)
{
	int i, active = 0;

	*newest = 0;
	for (i = 0; i < n; i++) {
		struct dev d;
		u64 ev;

		dev_open(&d, paths[i], false);
		if (memcmp(d.sb.sb.set_uuid, c->j.sb.sb.set_uuid, 16))
			die("%s: not a member of the journal's array", d.path);
		ev = le64_to_cpu(d.sb.sb.events);
		if (d.role >= MD_DISK_ROLE_MAX) {
			printf("%s: not an active member (role %#x), ignored\n",
			       d.path, d.role);
		} else {
			active++;
			if (ev > *newest)
				*newest = ev;
		}
		close(d.fd);
	}
	return active;
}

static int cmd_match_events(struct ctx *c, const char *jpath, char **paths,
			    int n)
{
	struct r5j_scan s;
	struct r5j_txn t;
	u64 jev, newest;
	int r, txns = 0;

	journal_open(c, jpath, !c->dry_run);
	jev = le64_to_cpu(c->j.sb.sb.events);
	if (!newest_member_events(c, paths, n, &newest))
		die("no active member given");
	printf("journal %s: events %llu; newest active member: events %llu\n",
	       jpath, (ull)jev, (ull)newest);
	/* mdadm 4.2 takes a journal with the newest member's count or one less */
	if (jev <= newest && jev + 1 >= newest) {
		printf("the journal is up to date: mdadm assembles the array as it is; nothing to do\n");
		return EXIT_OK;
	}
	if (jev < newest)
		die("the journal is %llu events behind the members: it is stale; refusing",
		    (ull)(newest - jev));
	if (jev != newest + 1)
		die("the journal is %llu events ahead of the members, not what a power cut during one superblock update leaves; refusing",
		    (ull)(jev - newest));
	/* the log the kernel will replay must read cleanly */
	if (scan_begin(c, &s, false, 0)) {
		while ((r = r5j_scan_next(&s, &t)) > 0)
			txns += t.verdict == R5J_OK;
		if (r < 0)
			die("%s: read error while scanning the log at %llu",
			    jpath, (ull)s.pos);
		printf("log: %d transactions from journal_tail, ending at %llu (%s): the kernel replays them at assembly\n",
		       txns, (ull)s.pos, r5j_reason_name(s.stop));
	} else {
		printf("the kernel starts a new log at assembly\n");
	}
	if (c->dry_run) {
		printf("dry run: the journal superblock is not changed\n");
		return EXIT_OK;
	}
	c->j.sb.sb.events = cpu_to_le64(newest);
	r = mdsb_write(c->j.fd, &c->j.sb);
	if (r)
		die("%s: superblock write failed: %s", jpath, strerror(-r));
	printf("journal superblock: events %llu -> %llu; assemble with mdadm as usual\n",
	       (ull)jev, (ull)newest);
	return EXIT_OK;
}

/*
 * One journal: how many data-only stripes its log holds.  Exit status of
 * the process: 0 none, 1 some, 2 error (die).
 */
static int writeback_check_one(struct ctx *c, const char *jpath)
{
	struct r5j_scan s;
	struct plan pl;
	char uuid[36], msg[768];
	int kmsg;

	journal_open(c, jpath, false);
	memset(&pl, 0, sizeof(pl));
	c->quiet = true;
	if (scan_begin(c, &s, false, 0))
		plan_build(c, &pl, &s, false);
	mdsb_uuid_str(c->j.sb.sb.set_uuid, uuid);
	if (!pl.data_only) {
		printf("%s: array %s: no data-only stripes in the log\n",
		       jpath, uuid);
		plan_free(&pl);
		return EXIT_OK;
	}
	printf("%s: array %s: %u data-only stripes in the log (write-back data not yet on the members)\n",
	       jpath, uuid, pl.data_only);
	/* at boot, stdout may go nowhere: the kernel log is read (--kmsg) */
	snprintf(msg, sizeof(msg),
		 "<3>r5jtool: %s (array %s) holds %u write-back stripes not yet on the members; raid456 is not started on it (its recovery of such a log can hang): boot a kernel with raid5j, or run 'r5jtool replay %s MEMBER...' and assemble again\n",
		 jpath, uuid, pl.data_only, jpath);
	/* one write() is one record; stdio's dprintf fails on lseek here */
	kmsg = c->kmsg ? open("/dev/kmsg", O_WRONLY) : -1;
	if (kmsg >= 0) {
		if (write(kmsg, msg, strlen(msg)) < 0)
			fprintf(stderr, "r5jtool: /dev/kmsg: %s\n", strerror(errno));
		close(kmsg);
	}
	plan_free(&pl);
	return EXIT_DIFF;
}

/* Does the device carry an md v1.x superblock with the journal role? */
static bool is_journal(const char *path)
{
	struct mdsb sb;
	const char *why;
	bool yes;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	yes = !mdsb_read(fd, &sb) && !mdsb_check(&sb, &why) &&
	      mdsb_role(&sb) == MD_DISK_ROLE_JOURNAL;
	close(fd);
	return yes;
}

/* Check one journal in a child, so that die() ends only that check. */
static int writeback_check_child(const char *jpath, bool kmsg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		struct ctx c;

		memset(&c, 0, sizeof(c));
		c.kmsg = kmsg;
		exit(writeback_check_one(&c, jpath));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return EXIT_ERR;
	return WEXITSTATUS(status);
}

/* A log known to hold data-only stripes is reported whatever else failed. */
static int worse(int a, int b)
{
	if (a == EXIT_DIFF || b == EXIT_DIFF)
		return EXIT_DIFF;
	return a > b ? a : b;
}

/* writeback-check: the journals named, or every block device that is one. */
static int cmd_writeback_check(char **paths, int npaths, bool kmsg)
{
	int i, worst = EXIT_OK;
	struct dirent *de;
	char path[300];
	DIR *dir;

	for (i = 0; i < npaths; i++)
		worst = worse(worst, writeback_check_child(paths[i], kmsg));
	if (npaths)
		return worst;
	dir = opendir("/sys/class/block");
	if (!dir)
		die("/sys/class/block: %s", strerror(errno));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if (!is_journal(path))
			continue;
		worst = worse(worst, writeback_check_child(path, kmsg));
	}
	closedir(dir);
	return worst;
}

int main(int argc, char **argv)
{
	static struct ctx c;
	char **pos;
	int npos = 0, i;
	bool all = false, from_set = false;
	u64 from = 0;
	const char *cmd;
	char *end;

	if (argc < 2)
		die("missing command (try --help)");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		fputs(usage_text, stdout);
		return EXIT_OK;
	}
	pos = xcalloc((size_t)argc, sizeof(*pos));
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			c.json = true;
		} else if (!strcmp(argv[i], "--all")) {
			all = true;
		} else if (!strcmp(argv[i], "--kmsg") &&
			   !strcmp(cmd, "writeback-check")) {
			c.kmsg = true;
		} else if (!strcmp(argv[i], "--dry-run")) {
			c.dry_run = true;
		} else if (!strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--from")) {
			if (++i == argc)
				die("--from needs a sector");
			errno = 0;
			from = strtoull(argv[i], &end, 0);
			if (errno || *end || end == argv[i])
				die("--from: bad sector '%s'", argv[i]);
			from_set = true;
		} else if (argv[i][0] == '-' && argv[i][1] == '-') {
			die("unknown option %s (try --help)", argv[i]);
		} else {
			pos[npos++] = argv[i];
		}
	}
	if (!strcmp(cmd, "dump")) {
		if (npos != 1 || c.dry_run)
			die("usage: r5jtool dump JOURNAL_DEV [--from SECTOR] [--all] [--json]");
		return cmd_dump(&c, pos[0], from_set, from, all);
	}
	if (!strcmp(cmd, "verify")) {
		if (npos < 2 || c.dry_run || all || from_set)
			die("usage: r5jtool verify JOURNAL_DEV MEMBER... [--json]");
		return cmd_verify(&c, pos[0], pos + 1, npos - 1);
	}
	if (!strcmp(cmd, "replay")) {
		if (npos < 2 || c.json || all || from_set)
			die("usage: r5jtool replay JOURNAL_DEV MEMBER... [--dry-run]");
		return cmd_replay(&c, pos[0], pos + 1, npos - 1);
	}
	if (!strcmp(cmd, "match-events")) {
		if (npos < 2 || c.json || all || from_set)
			die("usage: r5jtool match-events JOURNAL_DEV MEMBER... [--dry-run]");
		return cmd_match_events(&c, pos[0], pos + 1, npos - 1);
	}
	if (!strcmp(cmd, "writeback-check")) {
		if (c.json || all || from_set || c.dry_run)
			die("usage: r5jtool writeback-check [--kmsg] [JOURNAL_DEV...]");
		return cmd_writeback_check(pos, npos, c.kmsg);
	}
	die("unknown command '%s' (try --help)", cmd);
}
