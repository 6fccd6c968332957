// SPDX-License-Identifier: GPL-2.0
/*
 * jcorrupt: find the transactions of a journal image (md v1.x journal
 * device, raid5j or raid456) and damage one of them precisely; plant
 * canaries on member images and check afterwards what recovery wrote.
 * Host-side helper of tests/vm/t-journal-bad.sh.
 *
 * The log is walked with the scanner the module and r5jtool run
 * (drivers/shared/logscan.c), from the journal superblock's journal_tail.
 * Transactions are numbered 0, 1, ... in log order; a negative index
 * counts from the end (-1: the last valid one).
 *
 *   jcorrupt list JOURNAL
 *	"start POS seq SEQ" or "nolog POS REASON", then one line per
 *	transaction: "txn IDX pos POS seq SEQ pages N stripes M VERDICT",
 *	then "end pos POS seq SEQ REASON".
 *   jcorrupt corrupt JOURNAL KIND IDX
 *	magic      magic ^ 1                     (block resealed)
 *	version    version 2                     (block resealed)
 *	meta-csum  one bit of the checksum field flipped
 *	seq        seq + 1: a gap after IDX - 1  (block resealed)
 *	page-csum  one byte in the middle of the middle page flipped
 *	torn       a write cut short: the middle page from its sector 3 on
 *	           and every page after it zeroed
 *	Prints "corrupted txn IDX pos POS seq SEQ KIND ..." .
 *   jcorrupt set-tail JOURNAL SECTOR|past-end
 *	journal_tail in the superblock (checksum fixed); past-end is the
 *	first 4 KiB-aligned sector past the end of the device, plus 64.
 *   jcorrupt copy-log FROM TO
 *	the whole log area of journal FROM over TO's, and TO's journal_tail
 *	set to FROM's: a journal of another array behind TO's superblock.
 *   jcorrupt craft JOURNAL KIND [N]
 *	Append transactions that are valid to the scanner (checksums, seq,
 *	positions right) at the end of the log, as a crafted journal would
 *	carry them (tests/vm/t-journal-crafted.sh):
 *	wrap       stripe 0 rewritten whole (DATA for each data member and
 *	           PARITY, RAID4/5 only), then in the next transaction DATA
 *	           and PARITY at 0xfffffffffffffff8: a location that wraps
 *	unaligned  DATA at array sector 4 and PARITY at stripe 4
 *	data-only  N DATA payloads for N distinct stripes, never parity
 *	wb-restage stripe 0 of a zeroed RAID4/5 with 3+ data members: DATA
 *	           of data member A (tag 4000) with its PARITY, then in the
 *	           next transaction DATA of data member C alone (tag 4001): a
 *	           write-back stripe destaged once and dirty again; prints
 *	           "restage A SA C SC clean B SB" (member, array sector; B
 *	           never written)
 *	flush      N meta blocks of FLUSH payloads, 507 stripes each
 *	txn        N is "PARITY:D1,D2,...": one transaction, DATA at each
 *	           array sector Di (tags 5000, 5001 ...), then PARITY (their
 *	           XOR, RAID4/5) at dev sector PARITY, whatever the geometry
 *	           says (tests/vm/t-reshape-crafted.sh picks them)
 *	Prints "crafted KIND txns T pages P stripes S end POS seq SEQ".
 *   jcorrupt canary JOURNAL CUT MEMBER...
 *	Split the log at transaction CUT: the prefix [0, CUT) is what
 *	recovery must replay, [CUT, end) what it must not.  Overwrite with
 *	canary blocks (a) every member block the prefix's replay writes and
 *	(b) every block of the stripes only the rest names.
 *   jcorrupt check JOURNAL CUT ORIG_MEMBER... -- POST_MEMBER...
 *	JOURNAL: the journal before the damage; ORIG_MEMBER: the members
 *	before "canary" (both untouched images of the power cut).  In the
 *	members after recovery, (a) blocks must hold the page last logged
 *	for them in the prefix, (b) blocks must still hold their canaries,
 *	every other block of the data area must be as in ORIG_MEMBER.
 *	Exit 1 on any difference.
 *
 * The replay rules are the kernel's (drivers/r5j_recovery.c, mainline
 * write-through): DATA collects a block for its stripe, PARITY writes the
 * collected blocks and the parity, FLUSH forgets; parity alone and data
 * never followed by parity write nothing.  Exit status: 0 ok, 1 check
 * failed, 2 error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include "raid5j/types.h"
#include "raid5j/journal.h"
#include "raid5j/layout.h"
#include "raid5j/mdsb.h"

typedef unsigned long long ull;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("jcorrupt: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

/* ---- devices ---- */

struct dev {
	const char *path;
	int fd;
	struct mdsb sb;
	int role;
	u64 data_offset;
	u64 dev_sectors;
};

static void dev_open(struct dev *d, const char *path, bool rw)
{
	int err;

	d->path = path;
	d->fd = open(path, rw ? O_RDWR : O_RDONLY);
	if (d->fd < 0)
		die("%s: %s", path, strerror(errno));
	err = mdsb_read(d->fd, &d->sb);
	if (err)
		die("%s: no md v1.x superblock (%s)", path, strerror(-err));
	d->role = mdsb_role(&d->sb);
	d->data_offset = le64_to_cpu(d->sb.sb.data_offset);
	d->dev_sectors = d->sb.dev_sectors;
}

static int dev_read(struct dev *d, u64 sector, void *buf)
{
	u64 at = d->data_offset + sector;
	ssize_t n;

	if (at + R5J_BLOCK_SECTORS > d->dev_sectors)
		return -ERANGE;
	n = pread(d->fd, buf, R5J_BLOCK_SIZE, (off_t)(at * 512));
	if (n < 0)
		return -errno;
	return n == R5J_BLOCK_SIZE ? 0 : -ERANGE;
}

static void dev_read_ok(struct dev *d, u64 sector, void *buf)
{
	int err = dev_read(d, sector, buf);

	if (err)
		die("%s: cannot read data sector %llu: %s", d->path,
		    (ull)sector, strerror(-err));
}

static void dev_write(struct dev *d, u64 sector, const void *buf)
{
	u64 at = d->data_offset + sector;

	if (at + R5J_BLOCK_SECTORS > d->dev_sectors)
		die("%s: write past the end", d->path);
	if (pwrite(d->fd, buf, R5J_BLOCK_SIZE, (off_t)(at * 512)) !=
	    R5J_BLOCK_SIZE)
		die("%s: write at data sector %llu failed", d->path,
		    (ull)sector);
}

static int journal_read(void *ctx, u64 sector, void *buf)
{
	return dev_read(ctx, sector, buf);
}

/* ---- the journal ---- */

struct txn {
	u64 pos, seq;
	u32 pages, sectors;
	enum r5j_reason verdict;
};

struct journal {
	struct dev d;
	struct r5j_log log;
	struct r5j_geom geom;
	u64 member_sectors;
	u64 tail;
	/* scan result */
	bool nolog;
	struct r5j_scan scan;
	struct txn *t;
	size_t n;
	u8 meta[R5J_BLOCK_SIZE];
	u8 page[R5J_BLOCK_SIZE];
};

static void journal_open(struct journal *j, const char *path, bool rw)
{
	const struct mdp_superblock_1 *sb;
	const char *why;

	dev_open(&j->d, path, rw);
	sb = &j->d.sb.sb;
	if (j->d.role != MD_DISK_ROLE_JOURNAL)
		die("%s: not a journal device (role %#x)", path, j->d.role);
	j->geom.level = (int)le32_to_cpu(sb->level);
	j->geom.layout = (int)le32_to_cpu(sb->layout);
	j->geom.raid_disks = (int)le32_to_cpu(sb->raid_disks);
	j->geom.chunk_sectors = le32_to_cpu(sb->chunksize);
	if (r5j_geom_check(&j->geom, &why))
		die("%s: geometry: %s", path, why);
	if (r5j_log_init(&j->log, sb->set_uuid, le64_to_cpu(sb->data_size),
			 j->geom.level))
		die("%s: journal too small", path);
	j->member_sectors = le64_to_cpu(sb->size);
	j->tail = le64_to_cpu(sb->journal_tail);
}

/* Walk the log from journal_tail, recording every transaction. */
static void journal_scan(struct journal *j)
{
	struct r5j_txn t;
	size_t cap = 0;
	int err;

	r5j_scan_init(&j->scan, &j->log, journal_read, &j->d, j->meta, j->page);
	err = r5j_scan_start(&j->scan, j->tail);
	if (err == -ENOENT) {
		j->nolog = true;
		return;
	}
	if (err)
		die("%s: read error at the log start", j->d.path);
	while ((err = r5j_scan_next(&j->scan, &t)) == 1) {
		if (j->n == cap) {
			cap = cap ? 2 * cap : 64;
			j->t = realloc(j->t, cap * sizeof(*j->t));
			if (!j->t)
				die("out of memory");
		}
		j->t[j->n].pos = t.pos;
		j->t[j->n].seq = t.seq;
		j->t[j->n].pages = t.pages;
		j->t[j->n].sectors = t.sectors;
		j->t[j->n].verdict = t.verdict;
		j->n++;
	}
	if (err < 0)
		die("%s: read error while scanning at %llu", j->d.path,
		    (ull)j->scan.pos);
}

static void read_meta(struct journal *j, u64 pos)
{
	if (dev_read(&j->d, pos, j->meta))
		die("%s: cannot read meta block at %llu", j->d.path, (ull)pos);
}

static size_t txn_index(struct journal *j, const char *arg)
{
	long idx = strtol(arg, NULL, 0);

	if (idx < 0)
		idx += (long)j->n;
	if (idx < 0 || (size_t)idx >= j->n)
		die("transaction index %s out of range (%zu transactions)",
		    arg, j->n);
	return (size_t)idx;
}

/* Stripe (dev sector) of a payload; false for FLUSH. */
static bool payload_stripe(struct journal *j, const struct r5j_payload *p,
			   u64 *stripe, int *dd)
{
	struct r5j_stripe_map map;

	if (p->type == R5LOG_PAYLOAD_DATA) {
		*stripe = r5j_map_array_sector(&j->geom, p->location, dd, &map);
		return true;
	}
	if (p->type == R5LOG_PAYLOAD_PARITY) {
		*stripe = p->location;
		*dd = -1;
		return true;
	}
	return false;
}

/* ---- a small hash set/map over u64 keys ---- */

struct entry {
	u64 key;	/* ~0: empty */
	u64 val;
	u32 csum;
};

struct map {
	struct entry *e;
	size_t cap, n;
};

static void map_init(struct map *m, size_t cap)
{
	size_t i;

	m->cap = cap;
	m->n = 0;
	m->e = xcalloc(m->cap, sizeof(*m->e));
	for (i = 0; i < m->cap; i++)
		m->e[i].key = ~0ull;
}

static struct entry *map_get(struct map *m, u64 key, bool create)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (m->cap - 1);

	while (m->e[i].key != ~0ull) {
		if (m->e[i].key == key)
			return &m->e[i];
		i = (i + 1) & (m->cap - 1);
	}
	if (!create)
		return NULL;
	if (2 * (m->n + 1) > m->cap)
		die("too many blocks for the map");
	m->e[i].key = key;
	m->e[i].val = 0;
	m->n++;
	return &m->e[i];
}

static u64 bkey(int member, u64 sector)
{
	return (u64)member << 48 | sector;
}

/*
 * What recovery of the prefix [0, cut) writes: wmap (member, sector) ->
 * log page + 1 and its checksum, the page last written wins.  Stripes the
 * prefix names: pnamed.  Stripes [cut, n) name but the prefix does not:
 * skipped.
 */
struct plan {
	struct map wmap, pnamed, skipped;
};

static void plan_build(struct journal *j, size_t cut, struct plan *pl)
{
	int nd = j->geom.raid_disks, dd, i;
	struct map pending;	/* bkey(member, stripe) -> page + 1 */
	struct r5j_payload_iter it;
	struct r5j_payload p;
	struct r5j_stripe_map map;
	struct entry *e, *w;
	u64 stripe;
	size_t k;
	unsigned int f;

	map_init(&pl->wmap, 1 << 18);
	map_init(&pl->pnamed, 1 << 16);
	map_init(&pl->skipped, 1 << 16);
	map_init(&pending, 1 << 18);
	if (cut > j->n)
		die("cut %zu past the %zu transactions", cut, j->n);
	for (k = 0; k < j->n; k++) {
		if (j->t[k].verdict != R5J_OK)
			continue;
		read_meta(j, j->t[k].pos);
		r5j_payload_iter_init(&it, &j->log, j->meta, j->t[k].pos);
		while (r5j_payload_next(&it, &p)) {
			if (k >= cut) {
				if (payload_stripe(j, &p, &stripe, &dd))
					map_get(&pl->skipped, stripe, true);
				for (f = 0; f < p.nr_stripes; f++)
					map_get(&pl->skipped,
						r5j_payload_stripe(&p, f), true);
				continue;
			}
			if (payload_stripe(j, &p, &stripe, &dd))
				map_get(&pl->pnamed, stripe, true);
			switch (p.type) {
			case R5LOG_PAYLOAD_DATA:
				e = map_get(&pending, bkey(dd, stripe), true);
				e->val = r5j_payload_page_pos(&j->log, &p, 0) + 1;
				e->csum = r5j_payload_csum(&p, 0);
				/* the stripe itself, as a marker */
				map_get(&pending, bkey(0xffff, stripe), true);
				break;
			case R5LOG_PAYLOAD_PARITY:
				if (!map_get(&pending, bkey(0xffff, stripe), false))
					break;	/* parity alone */
				r5j_stripe_parity(&j->geom, stripe, &map);
				for (i = 0; i < nd; i++) {
					u64 page;
					u32 csum;

					if (i == map.pd_idx || i == map.qd_idx) {
						unsigned int pi = i == map.pd_idx ? 0 : 1;

						if (pi >= p.pages)
							continue;
						page = r5j_payload_page_pos(&j->log, &p, pi) + 1;
						csum = r5j_payload_csum(&p, pi);
					} else {
						e = map_get(&pending, bkey(i, stripe), false);
						if (!e || !e->val)
							continue;
						page = e->val;
						csum = e->csum;
						e->val = 0;
					}
					w = map_get(&pl->wmap, bkey(i, stripe), true);
					w->val = page;
					w->csum = csum;
				}
				map_get(&pending, bkey(0xffff, stripe), false)->key = ~0ull - 1;
				break;
			case R5LOG_PAYLOAD_FLUSH:
				for (f = 0; f < p.nr_stripes; f++) {
					stripe = r5j_payload_stripe(&p, f);
					map_get(&pl->pnamed, stripe, true);
					for (i = 0; i < nd; i++) {
						e = map_get(&pending, bkey(i, stripe), false);
						if (e)
							e->val = 0;
					}
					e = map_get(&pending, bkey(0xffff, stripe), false);
					if (e)
						e->key = ~0ull - 1;
				}
				break;
			}
		}
	}
	/* skipped: only what the prefix does not name */
	for (k = 0; k < pl->skipped.cap; k++)
		if (pl->skipped.e[k].key != ~0ull &&
		    map_get(&pl->pnamed, pl->skipped.e[k].key, false))
			pl->skipped.e[k].val = 1;	/* also in the prefix */
	free(pending.e);
}

static bool skipped_only(struct plan *pl, u64 stripe)
{
	struct entry *e = map_get(&pl->skipped, stripe, false);

	return e && !e->val;
}

/* ---- members ---- */

static void members_open(struct journal *j, struct dev *m, char **paths,
			 int n, bool rw)
{
	int i, nd = j->geom.raid_disks;
	struct dev d;

	for (i = 0; i < nd; i++)
		m[i].fd = -1;
	for (i = 0; i < n; i++) {
		memset(&d, 0, sizeof(d));
		dev_open(&d, paths[i], rw);
		if (d.role >= nd)
			die("%s: not an active member (role %#x)", paths[i],
			    d.role);
		if (m[d.role].fd >= 0)
			die("%s and %s claim role %d", m[d.role].path, paths[i],
			    d.role);
		m[d.role] = d;
	}
	for (i = 0; i < nd; i++)
		if (m[i].fd < 0)
			die("member %d missing", i);
}

static void canary_fill(u8 *b, int member, u64 sector)
{
	size_t i;

	memset(b, 0xa5, R5J_BLOCK_SIZE);
	i = (size_t)snprintf((char *)b, 64, "R5J-CANARY member %d sector %llu",
			     member, (ull)sector);
	b[i] = '\n';
}

/* ---- commands ---- */

static int cmd_list(const char *path)
{
	static struct journal j;
	struct r5j_payload_iter it;
	struct r5j_payload p;
	struct map st;
	size_t k;
	u64 stripe;
	int dd;
	unsigned int ns;

	journal_open(&j, path, false);
	journal_scan(&j);
	printf("tail %llu ring %llu data_offset %llu dev_sectors %llu\n",
	       (ull)j.tail, (ull)j.log.ring_sectors, (ull)j.d.data_offset,
	       (ull)j.d.dev_sectors);
	if (j.nolog) {
		printf("nolog %llu %s\n", (ull)j.scan.start_pos,
		       r5j_reason_name(j.scan.stop));
		return 0;
	}
	printf("start %llu seq %llu\n", (ull)j.scan.start_pos,
	       (ull)(j.n ? j.t[0].seq : j.scan.seq));
	for (k = 0; k < j.n; k++) {
		ns = 0;
		if (j.t[k].verdict == R5J_OK) {
			map_init(&st, 1 << 10);
			read_meta(&j, j.t[k].pos);
			r5j_payload_iter_init(&it, &j.log, j.meta, j.t[k].pos);
			while (r5j_payload_next(&it, &p))
				if (payload_stripe(&j, &p, &stripe, &dd) &&
				    !map_get(&st, stripe, false)) {
					map_get(&st, stripe, true);
					ns++;
				}
			free(st.e);
		}
		printf("txn %zu pos %llu seq %llu pages %u stripes %u %s\n", k,
		       (ull)j.t[k].pos, (ull)j.t[k].seq, j.t[k].pages, ns,
		       r5j_reason_name(j.t[k].verdict));
	}
	printf("end pos %llu seq %llu %s\n", (ull)j.scan.pos,
	       (ull)j.scan.seq, r5j_reason_name(j.scan.stop));
	return 0;
}

static void write_meta(struct journal *j, u64 pos)
{
	dev_write(&j->d, pos, j->meta);
}

static int cmd_corrupt(const char *path, const char *kind, const char *idxs)
{
	static struct journal j;
	struct r5l_meta_block *mb = (void *)j.meta;
	struct r5j_payload_iter it;
	struct r5j_payload p;
	u64 pages[512], at;
	unsigned int np = 0, i, h;
	size_t k;

	journal_open(&j, path, true);
	journal_scan(&j);
	if (j.nolog)
		die("%s: no log to corrupt (%s)", path,
		    r5j_reason_name(j.scan.stop));
	k = txn_index(&j, idxs);
	if (j.t[k].verdict != R5J_OK)
		die("txn %zu is already bad (%s)", k,
		    r5j_reason_name(j.t[k].verdict));
	read_meta(&j, j.t[k].pos);
	r5j_payload_iter_init(&it, &j.log, j.meta, j.t[k].pos);
	while (r5j_payload_next(&it, &p))
		for (i = 0; i < p.pages && np < 512; i++)
			pages[np++] = r5j_payload_page_pos(&j.log, &p, i);
	printf("corrupted txn %zu pos %llu seq %llu pages %u %s", k,
	       (ull)j.t[k].pos, (ull)j.t[k].seq, np, kind);

	if (!strcmp(kind, "magic")) {
		mb->magic = cpu_to_le32(le32_to_cpu(mb->magic) ^ 1);
		r5j_meta_seal(j.meta, j.log.seed);
		write_meta(&j, j.t[k].pos);
	} else if (!strcmp(kind, "version")) {
		mb->version = 2;
		r5j_meta_seal(j.meta, j.log.seed);
		write_meta(&j, j.t[k].pos);
	} else if (!strcmp(kind, "meta-csum")) {
		mb->checksum = cpu_to_le32(le32_to_cpu(mb->checksum) ^ 0x10000);
		write_meta(&j, j.t[k].pos);
	} else if (!strcmp(kind, "seq")) {
		mb->seq = cpu_to_le64(j.t[k].seq + 1);
		r5j_meta_seal(j.meta, j.log.seed);
		write_meta(&j, j.t[k].pos);
		printf(" now %llu", (ull)(j.t[k].seq + 1));
	} else if (!strcmp(kind, "page-csum")) {
		if (!np)
			die("txn %zu has no pages", k);
		at = pages[np / 2];
		if (dev_read(&j.d, at, j.page))
			die("cannot read page at %llu", (ull)at);
		j.page[R5J_BLOCK_SIZE / 2] ^= 0xff;
		dev_write(&j.d, at, j.page);
		printf(" page %llu", (ull)at);
	} else if (!strcmp(kind, "torn")) {
		if (!np)
			die("txn %zu has no pages", k);
		h = np / 2;
		printf(" from page %llu sector 3", (ull)pages[h]);
		for (i = h; i < np; i++) {
			if (dev_read(&j.d, pages[i], j.page))
				die("cannot read page at %llu", (ull)pages[i]);
			memset(j.page + (i == h ? 3 * 512 : 0), 0,
			       R5J_BLOCK_SIZE - (i == h ? 3 * 512 : 0));
			dev_write(&j.d, pages[i], j.page);
		}
	} else {
		die("unknown kind '%s'", kind);
	}
	printf("\n");
	return 0;
}

/* ---- crafted journals ---- */

struct craft {
	struct journal *j;
	u64 pos, seq, used;	/* next block, its seq, sectors appended */
	u8 meta[R5J_BLOCK_SIZE];
	u8 (*pages)[R5J_BLOCK_SIZE];
	unsigned int npages, txns, total_pages;
};

static void craft_begin(struct craft *cr)
{
	r5j_meta_init(cr->meta, cr->pos, cr->seq);
	cr->npages = 0;
}

static void craft_page(struct craft *cr, unsigned int tag, u32 *csum)
{
	u8 *pg = cr->pages[cr->npages++];
	unsigned int i;

	for (i = 0; i < R5J_BLOCK_SIZE; i += 16)
		snprintf((char *)pg + i, 16, "craft%09u", tag);
	*csum = r5j_page_csum(cr->j->log.seed, pg);
}

static void craft_commit(struct craft *cr)
{
	struct journal *j = cr->j;
	u64 sectors = (1 + (u64)cr->npages) * R5J_BLOCK_SECTORS;
	unsigned int i;
	u64 p;

	/* stay inside one lap after what the log already holds */
	if (j->scan.walked + cr->used + sectors > j->log.ring_sectors)
		die("crafted log does not fit the ring");
	r5j_meta_seal(cr->meta, j->log.seed);
	dev_write(&j->d, cr->pos, cr->meta);
	p = r5j_ring_add(&j->log, cr->pos, R5J_BLOCK_SECTORS);
	for (i = 0; i < cr->npages; i++) {
		dev_write(&j->d, p, cr->pages[i]);
		p = r5j_ring_add(&j->log, p, R5J_BLOCK_SECTORS);
	}
	cr->pos = p;
	cr->seq++;
	cr->used += sectors;
	cr->txns++;
	cr->total_pages += cr->npages;
}

static void craft_data(struct craft *cr, u64 array_sector, unsigned int tag)
{
	u32 csum;

	craft_page(cr, tag, &csum);
	if (r5j_meta_add_data(cr->meta, array_sector, csum))
		die("meta block full");
}

/* PARITY at stripe with the XOR of the last ndata pages (RAID4/5). */
static void craft_parity_xor(struct craft *cr, u64 stripe, unsigned int ndata)
{
	u8 *pg = cr->pages[cr->npages];
	unsigned int i, b;
	u32 csum;

	memset(pg, 0, R5J_BLOCK_SIZE);
	for (i = cr->npages - ndata; i < cr->npages; i++)
		for (b = 0; b < R5J_BLOCK_SIZE; b++)
			pg[b] ^= cr->pages[i][b];
	cr->npages++;
	csum = r5j_page_csum(cr->j->log.seed, pg);
	if (r5j_meta_add_parity(cr->meta, stripe, &csum, 1))
		die("meta block full");
}

static int cmd_craft(const char *path, const char *kind, const char *ns)
{
	static struct journal j;
	static struct craft cr;
	struct r5j_stripe_map map;
	u64 n = ns && strcmp(kind, "txn") ? strtoull(ns, NULL, 0) : 1;
	u64 i, s, stripes = 0;
	u64 fl[507];
	int nd, k, dd;

	journal_open(&j, path, true);
	journal_scan(&j);
	if (j.nolog)
		die("%s: no log to append to (%s)", path,
		    r5j_reason_name(j.scan.stop));
	nd = r5j_geom_data_disks(&j.geom);
	cr.j = &j;
	cr.pos = j.scan.pos;
	cr.seq = j.scan.seq;
	cr.pages = xcalloc(256, R5J_BLOCK_SIZE);

	if (!strcmp(kind, "wrap")) {
		if (j.geom.level == 6)
			die("wrap: RAID4/5 only");
		craft_begin(&cr);
		for (k = 0; k < nd; k++)
			craft_data(&cr, (u64)k * j.geom.chunk_sectors,
				   1000 + (unsigned int)k);
		craft_parity_xor(&cr, 0, (unsigned int)nd);
		craft_commit(&cr);
		craft_begin(&cr);
		craft_data(&cr, ~7ull, 2000);
		craft_parity_xor(&cr, ~7ull, 1);
		craft_commit(&cr);
		stripes = 2;
	} else if (!strcmp(kind, "unaligned")) {
		if (j.geom.level == 6)
			die("unaligned: RAID4/5 only");
		craft_begin(&cr);
		craft_data(&cr, 4, 3000);
		craft_parity_xor(&cr, 4, 1);
		craft_commit(&cr);
		stripes = 1;
	} else if (!strcmp(kind, "data-only")) {
		for (s = 0; stripes < n; s += R5J_BLOCK_SECTORS) {
			if (s + R5J_BLOCK_SECTORS > j.member_sectors)
				die("data-only: the array has only %llu stripes",
				    (ull)stripes);
			if (!(stripes % 200)) {
				if (stripes)
					craft_commit(&cr);
				craft_begin(&cr);
			}
			r5j_stripe_parity(&j.geom, s, &map);
			for (dd = 0; dd == map.pd_idx || dd == map.qd_idx; dd++)
				;
			craft_data(&cr, r5j_array_sector_of(&j.geom, s, dd),
				   (unsigned int)stripes);
			stripes++;
		}
		craft_commit(&cr);
	} else if (!strcmp(kind, "wb-restage")) {
		int m[3], nm = 0;

		if (j.geom.level == 6)
			die("wb-restage: RAID4/5 only");
		r5j_stripe_parity(&j.geom, 0, &map);
		for (dd = 0; dd < j.geom.raid_disks && nm < 3; dd++)
			if (dd != map.pd_idx)
				m[nm++] = dd;
		if (nm < 3)
			die("wb-restage: needs three data members");
		craft_begin(&cr);
		craft_data(&cr, r5j_array_sector_of(&j.geom, 0, m[0]), 4000);
		craft_parity_xor(&cr, 0, 1);
		craft_commit(&cr);
		craft_begin(&cr);
		craft_data(&cr, r5j_array_sector_of(&j.geom, 0, m[2]), 4001);
		craft_commit(&cr);
		stripes = 1;
		printf("restage %d %llu %d %llu clean %d %llu\n",
		       m[0], (ull)r5j_array_sector_of(&j.geom, 0, m[0]),
		       m[2], (ull)r5j_array_sector_of(&j.geom, 0, m[2]),
		       m[1], (ull)r5j_array_sector_of(&j.geom, 0, m[1]));
	} else if (!strcmp(kind, "txn")) {
		const char *p = ns;
		char *e;
		u64 parity;

		if (j.geom.level == 6)
			die("txn: RAID4/5 only");
		if (!p)
			die("txn: PARITY:D1,D2,... needed");
		parity = strtoull(p, &e, 0);
		if (e == p || *e != ':')
			die("txn: '%s' is not PARITY:D1,D2,...", ns);
		craft_begin(&cr);
		k = 0;
		do {
			p = e + 1;
			s = strtoull(p, &e, 0);
			if (e == p || (*e && *e != ','))
				die("txn: bad data sector list '%s'", ns);
			if (k == 200)
				die("txn: at most 200 data sectors");
			craft_data(&cr, s, 5000 + (unsigned int)k++);
		} while (*e);
		craft_parity_xor(&cr, parity, (unsigned int)k);
		craft_commit(&cr);
		stripes = 1;
	} else if (!strcmp(kind, "flush")) {
		for (i = 0; i < n; i++) {
			craft_begin(&cr);
			for (k = 0; k < 507; k++) {
				s = (i * 507 + (u64)k) * R5J_BLOCK_SECTORS;
				fl[k] = s % (j.member_sectors & ~7ull);
			}
			if (r5j_meta_add_flush(cr.meta, fl, 507))
				die("flush: meta block full");
			craft_commit(&cr);
			stripes += 507;
		}
	} else {
		die("unknown craft kind '%s'", kind);
	}
	if (fsync(j.d.fd))
		die("%s: fsync failed", path);
	printf("crafted %s txns %u pages %u stripes %llu end %llu seq %llu\n",
	       kind, cr.txns, cr.total_pages, (ull)stripes, (ull)cr.pos,
	       (ull)cr.seq);
	return 0;
}

static int cmd_set_tail(const char *path, const char *arg)
{
	static struct journal j;
	u64 tail, old;

	journal_open(&j, path, true);
	if (!strcmp(arg, "past-end"))
		tail = ((j.d.dev_sectors - j.d.data_offset + 7) & ~7ull) + 64;
	else
		tail = strtoull(arg, NULL, 0);
	old = le64_to_cpu(j.d.sb.sb.journal_tail);
	j.d.sb.sb.journal_tail = cpu_to_le64(tail);
	if (mdsb_write(j.d.fd, &j.d.sb))
		die("%s: cannot write the superblock", path);
	printf("journal_tail %llu -> %llu (device %llu sectors, data_offset %llu, ring %llu)\n",
	       (ull)old, (ull)tail, (ull)j.d.dev_sectors, (ull)j.d.data_offset,
	       (ull)j.log.ring_sectors);
	return 0;
}

static int cmd_copy_log(const char *from, const char *to)
{
	static struct journal a, b;
	u64 s, n;

	journal_open(&a, from, false);
	journal_open(&b, to, true);
	n = a.log.ring_sectors < b.log.ring_sectors ? a.log.ring_sectors :
	    b.log.ring_sectors;
	for (s = 0; s < n; s += R5J_BLOCK_SECTORS) {
		if (dev_read(&a.d, s, a.page))
			die("%s: read at %llu failed", from, (ull)s);
		dev_write(&b.d, s, a.page);
	}
	b.d.sb.sb.journal_tail = a.d.sb.sb.journal_tail;
	if (mdsb_write(b.d.fd, &b.d.sb))
		die("%s: cannot write the superblock", to);
	printf("copied %llu sectors of log, journal_tail %llu\n", (ull)n,
	       (ull)le64_to_cpu(b.d.sb.sb.journal_tail));
	return 0;
}

static size_t cut_arg(struct journal *j, const char *arg)
{
	long cut = strtol(arg, NULL, 0);

	if (cut < 0)
		cut += (long)j->n;
	if (cut < 0 || (size_t)cut > j->n)
		die("cut %s out of range (%zu transactions)", arg, j->n);
	return (size_t)cut;
}

static int cmd_canary(const char *jpath, const char *cuts, char **mpaths,
		      int nm)
{
	static struct journal j;
	struct dev m[R5J_MAX_DISKS];
	struct plan pl;
	size_t k, cut, nw = 0, ns = 0;
	u8 b[R5J_BLOCK_SIZE];
	int i;

	journal_open(&j, jpath, false);
	journal_scan(&j);
	cut = j.nolog ? 0 : cut_arg(&j, cuts);
	members_open(&j, m, mpaths, nm, true);
	plan_build(&j, cut, &pl);
	for (k = 0; k < pl.wmap.cap; k++) {
		struct entry *e = &pl.wmap.e[k];
		int member = (int)(e->key >> 48);
		u64 sector = e->key & ((1ull << 48) - 1);

		if (e->key == ~0ull)
			continue;
		canary_fill(b, member, sector);
		dev_write(&m[member], sector, b);
		nw++;
	}
	for (k = 0; k < pl.skipped.cap; k++) {
		struct entry *e = &pl.skipped.e[k];

		if (e->key == ~0ull || e->val)
			continue;
		for (i = 0; i < j.geom.raid_disks; i++) {
			canary_fill(b, i, e->key);
			dev_write(&m[i], e->key, b);
		}
		ns++;
	}
	printf("canary: cut %zu of %zu transactions: %zu blocks to replay, %zu stripes only past the cut (%zu blocks)\n",
	       cut, j.n, nw, ns, ns * (size_t)j.geom.raid_disks);
	return 0;
}

static int cmd_check(const char *jpath, const char *cuts, char **orig,
		     int norig, char **post, int npost)
{
	static struct journal j;
	static struct dev a[R5J_MAX_DISKS], b[R5J_MAX_DISKS];
	u8 pa[R5J_BLOCK_SIZE], pb[R5J_BLOCK_SIZE];
	unsigned long replayed = 0, not_replayed = 0, intact = 0,
		      skipped_written = 0, unchanged = 0, unexpected = 0;
	unsigned int shown = 0;
	struct plan pl;
	size_t cut;
	u64 s;
	int i;

	journal_open(&j, jpath, false);
	journal_scan(&j);
	cut = j.nolog ? 0 : cut_arg(&j, cuts);
	plan_build(&j, cut, &pl);
	members_open(&j, a, orig, norig, false);
	members_open(&j, b, post, npost, false);

	for (i = 0; i < j.geom.raid_disks; i++) {
		for (s = 0; s + R5J_BLOCK_SECTORS <= j.member_sectors;
		     s += R5J_BLOCK_SECTORS) {
			struct entry *e = map_get(&pl.wmap, bkey(i, s), false);
			const char *bad = NULL;

			dev_read_ok(&b[i], s, pb);
			if (e) {
				if (dev_read(&j.d, e->val - 1, pa) ||
				    r5j_page_csum(j.log.seed, pa) != e->csum)
					die("%s: log page %llu unreadable or changed: is this the intact copy?",
					    jpath, (ull)(e->val - 1));
				if (memcmp(pa, pb, R5J_BLOCK_SIZE)) {
					not_replayed++;
					bad = "not replayed: does not hold its logged page";
				} else {
					replayed++;
				}
			} else if (skipped_only(&pl, s)) {
				canary_fill(pa, i, s);
				if (!memcmp(pa, pb, R5J_BLOCK_SIZE)) {
					intact++;
				} else {
					skipped_written++;
					bad = "canary overwritten, but only transactions past the cut name its stripe";
				}
			} else {
				dev_read_ok(&a[i], s, pa);
				if (!memcmp(pa, pb, R5J_BLOCK_SIZE)) {
					unchanged++;
				} else {
					unexpected++;
					bad = "changed, but no replayed transaction writes it";
				}
			}
			if (bad && shown++ < 10)
				printf("BAD member %d (%s) data sector %llu: %s\n",
				       i, b[i].path, (ull)s, bad);
		}
	}
	printf("check: cut %zu: %lu/%lu blocks replayed, %lu/%lu blocks of stripes past the cut intact, %lu other blocks changed\n",
	       cut, replayed, replayed + not_replayed, intact,
	       intact + skipped_written, unexpected);
	(void)unchanged;
	return not_replayed || skipped_written || unexpected ? 1 : 0;
}

int main(int argc, char **argv)
{
	int i, sep = -1;

	if (argc < 3)
		die("usage: jcorrupt list|corrupt|craft|set-tail|copy-log|canary|check ... (see the source)");
	if (!strcmp(argv[1], "list") && argc == 3)
		return cmd_list(argv[2]);
	if (!strcmp(argv[1], "corrupt") && argc == 5)
		return cmd_corrupt(argv[2], argv[3], argv[4]);
	if (!strcmp(argv[1], "craft") && (argc == 4 || argc == 5))
		return cmd_craft(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	if (!strcmp(argv[1], "set-tail") && argc == 4)
		return cmd_set_tail(argv[2], argv[3]);
	if (!strcmp(argv[1], "copy-log") && argc == 4)
		return cmd_copy_log(argv[2], argv[3]);
	if (!strcmp(argv[1], "canary") && argc >= 5)
		return cmd_canary(argv[2], argv[3], argv + 4, argc - 4);
	if (!strcmp(argv[1], "check") && argc >= 7) {
		for (i = 4; i < argc; i++)
			if (!strcmp(argv[i], "--"))
				sep = i;
		if (sep < 5 || sep == argc - 1)
			die("check: ORIG_MEMBER... -- POST_MEMBER...");
		return cmd_check(argv[2], argv[3], argv + 4, sep - 4,
				 argv + sep + 1, argc - sep - 1);
	}
	die("bad command or arguments: %s (see the source)", argv[1]);
}
