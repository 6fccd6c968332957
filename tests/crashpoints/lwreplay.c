// SPDX-License-Identifier: GPL-2.0
/*
 * lwreplay: reads a dm-log-writes log and rebuilds the logged device at
 * any entry (the log format: the kernel's
 * Documentation/admin-guide/device-mapper/log-writes.rst).
 *
 *   lwreplay info LOG
 *	"entries N sectorsize S"
 *   lwreplay list LOG
 *	One line per flush, FUA or mark entry: "ENTRY FLAGS [MARK]", FLAGS
 *	letters of F (flush), U (FUA), D (discard), M (mark); ENTRY counts
 *	from 0 in log order.
 *   lwreplay replay LOG DEV FROM TO
 *	Applies entries FROM..TO (inclusive) to DEV (a file or a device):
 *	writes their data, zeroes what discards cover.  FROM 0 onto a
 *	zeroed DEV rebuilds the device as it was once entry TO was logged;
 *	a later FROM continues a replay that ended at FROM - 1.
 *   lwreplay crash LOG DEV TO SEED [PERCENT]
 *	A crash just before the flush entry TO completed, as CrashMonkey
 *	models it: every entry up to the flush before TO (the previous
 *	entry with F), then of the entries between that flush and TO the
 *	FUA ones (durable when they completed) and a random subset of the
 *	others (each kept with PERCENT %, default 50; xorshift seeded with
 *	SEED, so a SEED reproduces the subset).  DEV must be zeroed.
 *	Prints "kept K of W writes".
 *
 * The log: a super block (sector 0: magic, version, nr_entries,
 * sectorsize), then per entry one sectorsize block holding the entry
 * header {sector, nr_sectors, flags, data_len} (a mark's name follows
 * the header in that block) and nr_sectors sectorsize blocks of data
 * (none for discards and marks).  Sector numbers are in sectorsize units.
 * The target logs a write only once a flush (or its own FUA) made it
 * durable, so a prefix of the log is a state the disk could have been in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_VERSION	1ULL
#define LW_FLUSH	(1 << 0)
#define LW_FUA		(1 << 1)
#define LW_DISCARD	(1 << 2)
#define LW_MARK		(1 << 3)
#define LW_MARK_MAX	256

/* On-disk, little endian. */
struct lw_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct lw_entry_disk {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
} __attribute__((packed));

struct lw_log {
	int fd;
	uint64_t nr_entries;
	uint32_t sectorsize;
	uint64_t pos;		/* byte offset of the next entry's header */
	uint64_t index;		/* its number */
};

struct lw_entry {
	uint64_t index;
	uint64_t sector;	/* in sectorsize units */
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_pos;	/* byte offset of its data in the log */
	char mark[LW_MARK_MAX];
};

static int lw_open(struct lw_log *log, const char *path)
{
	struct lw_super sb;

	log->fd = open(path, O_RDONLY);
	if (log->fd < 0)
		return -errno;
	if (pread(log->fd, &sb, sizeof(sb), 0) != sizeof(sb)) {
		close(log->fd);
		return -EIO;
	}
	if (le64toh(sb.magic) != LW_MAGIC || le64toh(sb.version) != LW_VERSION ||
	    le32toh(sb.sectorsize) < 512 || le32toh(sb.sectorsize) > 65536 ||
	    (le32toh(sb.sectorsize) & (le32toh(sb.sectorsize) - 1))) {
		close(log->fd);
		return -EINVAL;
	}
	log->nr_entries = le64toh(sb.nr_entries);
	log->sectorsize = le32toh(sb.sectorsize);
	log->pos = log->sectorsize;
	log->index = 0;
	return 0;
}

/* The next entry's header into @e; 1 read, 0 at the end, < 0 error. */
static int lw_next(struct lw_log *log, struct lw_entry *e)
{
	unsigned char blk[65536];
	struct lw_entry_disk d;
	uint64_t len;

	if (log->index >= log->nr_entries)
		return 0;
	if (pread(log->fd, blk, log->sectorsize, log->pos) != log->sectorsize)
		return -EIO;
	memcpy(&d, blk, sizeof(d));
	e->index = log->index;
	e->sector = le64toh(d.sector);
	e->nr_sectors = le64toh(d.nr_sectors);
	e->flags = le64toh(d.flags);
	e->mark[0] = 0;
	len = le64toh(d.data_len);
	if (e->flags & LW_MARK) {
		if (len >= LW_MARK_MAX || len > log->sectorsize - sizeof(d))
			return -EINVAL;
		memcpy(e->mark, blk + sizeof(d), len);
		e->mark[len] = 0;
	}
	e->data_pos = log->pos + log->sectorsize;
	log->pos = e->data_pos;
	if (!(e->flags & (LW_DISCARD | LW_MARK)))
		log->pos += e->nr_sectors * log->sectorsize;
	log->index++;
	return 1;
}

/* Entry @e's effect on @dev: its data, or zeroes for a discard. */
static int lw_apply(struct lw_log *log, const struct lw_entry *e, int dev)
{
	static unsigned char buf[1 << 20];
	uint64_t left = e->nr_sectors * log->sectorsize;
	uint64_t src = e->data_pos, dst = e->sector * log->sectorsize;

	if (e->flags & LW_MARK)
		return 0;
	if (e->flags & LW_DISCARD)
		memset(buf, 0, sizeof(buf));
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		if (!(e->flags & LW_DISCARD) &&
		    pread(log->fd, buf, n, src) != (ssize_t)n)
			return -EIO;
		if (pwrite(dev, buf, n, dst) != (ssize_t)n)
			return -EIO;
		src += n;
		dst += n;
		left -= n;
	}
	return 0;
}

static const char *lw_flag_letters(uint64_t flags, char *s)
{
	char *p = s;

	if (flags & LW_FLUSH)
		*p++ = 'F';
	if (flags & LW_FUA)
		*p++ = 'U';
	if (flags & LW_DISCARD)
		*p++ = 'D';
	if (flags & LW_MARK)
		*p++ = 'M';
	if (p == s)
		*p++ = '-';
	*p = 0;
	return s;
}

static int lw_list(struct lw_log *log, FILE *out)
{
	struct lw_entry e;
	char f[8];
	int r;

	while ((r = lw_next(log, &e)) > 0) {
		if (!(e.flags & (LW_FLUSH | LW_FUA | LW_MARK)))
			continue;
		fprintf(out, "%" PRIu64 " %s", e.index, lw_flag_letters(e.flags, f));
		if (e.flags & LW_MARK)
			fprintf(out, " %s", e.mark);
		fputc('\n', out);
	}
	return r;
}

/* Entries @from..@to (inclusive) onto @dev. */
static int lw_replay(struct lw_log *log, int dev, uint64_t from, uint64_t to)
{
	struct lw_entry e;
	int r;

	if (to >= log->nr_entries)
		return -ERANGE;
	while ((r = lw_next(log, &e)) > 0) {
		if (e.index >= from) {
			r = lw_apply(log, &e, dev);
			if (r)
				return r;
		}
		if (e.index == to)
			return 0;
	}
	return r ? r : -ERANGE;
}

static uint64_t lw_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * The crash before flush entry @to completed: see the header.  *@kept and
 * *@writes count the non-FUA writes since the previous flush.
 */
static int lw_crash(struct lw_log *log, int dev, uint64_t to, uint64_t seed,
		    unsigned int percent, uint64_t *kept, uint64_t *writes)
{
	uint64_t prev_flush = 0, s = seed * 0x9e3779b97f4a7c15ULL + 1;
	int have_prev = 0, r;
	struct lw_log scan = *log;
	struct lw_entry e;

	*kept = *writes = 0;
	if (to >= log->nr_entries)
		return -ERANGE;
	/* where the previous flush is: one pass over the headers */
	while ((r = lw_next(&scan, &e)) > 0 && e.index < to) {
		if (e.flags & LW_FLUSH) {
			prev_flush = e.index;
			have_prev = 1;
		}
	}
	if (r < 0)
		return r;
	if (r == 0)
		return -ERANGE;
	if (!(e.flags & LW_FLUSH))
		return -EINVAL;
	while ((r = lw_next(log, &e)) > 0 && e.index < to) {
		int keep = 1;

		if ((!have_prev || e.index > prev_flush) &&
		    !(e.flags & (LW_FUA | LW_MARK))) {
			(*writes)++;
			keep = lw_rand(&s) % 100 < percent;
			*kept += keep;
		}
		if (keep) {
			r = lw_apply(log, &e, dev);
			if (r)
				return r;
		}
	}
	return r < 0 ? r : 0;
}

#ifndef LWREPLAY_NO_MAIN
static int usage(void)
{
	fprintf(stderr, "usage: lwreplay info|list LOG\n"
		"       lwreplay replay LOG DEV FROM TO\n"
		"       lwreplay crash LOG DEV TO SEED [PERCENT]\n");
	return 64;
}

int main(int argc, char **argv)
{
	struct lw_log log;
	int r, dev = -1;

	if (argc < 3)
		return usage();
	r = lw_open(&log, argv[2]);
	if (r) {
		fprintf(stderr, "lwreplay: %s: %s\n", argv[2],
			r == -EINVAL ? "not a dm-log-writes log" : strerror(-r));
		return 2;
	}
	if (!strcmp(argv[1], "info")) {
		printf("entries %" PRIu64 " sectorsize %u\n", log.nr_entries,
		       log.sectorsize);
		return 0;
	}
	if (!strcmp(argv[1], "list")) {
		r = lw_list(&log, stdout);
	} else if (!strcmp(argv[1], "replay") && argc == 6) {
		dev = open(argv[3], O_WRONLY);
		if (dev < 0) {
			perror("lwreplay: open");
			return 2;
		}
		r = lw_replay(&log, dev, strtoull(argv[4], NULL, 0),
			      strtoull(argv[5], NULL, 0));
	} else if (!strcmp(argv[1], "crash") && (argc == 6 || argc == 7)) {
		uint64_t kept, writes;

		dev = open(argv[3], O_WRONLY);
		if (dev < 0) {
			perror("lwreplay: open");
			return 2;
		}
		r = lw_crash(&log, dev, strtoull(argv[4], NULL, 0),
			     strtoull(argv[5], NULL, 0),
			     argc == 7 ? atoi(argv[6]) : 50, &kept, &writes);
		if (!r)
			printf("kept %" PRIu64 " of %" PRIu64 " writes\n", kept, writes);
	} else {
		return usage();
	}
	if (dev >= 0 && fsync(dev) && !r)
		r = -errno;
	if (r < 0) {
		fprintf(stderr, "lwreplay %s: %s\n", argv[1],
			r == -ERANGE ? "no such entry" :
			r == -EINVAL ? "bad entry (crash: TO must be a flush)" :
			strerror(-r));
		return 1;
	}
	return 0;
}
#endif
