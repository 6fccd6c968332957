// SPDX-License-Identifier: GPL-2.0
/*
 * r5j-probe: fills an md array with stamped blocks and reads its members
 * back, to record where mainline raid456 put every block.  Runs inside the
 * VM of gen-raid456-table.sh, built static on the host.
 *
 * It knows nothing of any layout: a member block is data when its content is
 * exactly the stamp of some array sector, P when it is the xor of the data
 * blocks of its row, Q otherwise (RAID6).  The unit test
 * (tests/unit/test_layout.c) regenerates the same stamps: keep
 * stamp_block() and fnv1a() identical there.
 *
 *   r5j-probe fill DEV ARRAY_SECTORS
 *   r5j-probe dump NPARITY CHUNK_SECTORS ROWS OFFSET_SECTORS MEMBER...
 *
 * dump prints one line per chunk stripe (ROWS of them):
 *   R <chunk stripe> <entry per member> [q=<hash>]
 * entry: the array chunk number (array sector / chunk sectors) whose first
 * block the member holds at the chunk stripe's first row, or P or Q.  Every
 * other row of the chunk stripe is checked to continue the same chunks
 * (array sector + 8 per row) with P and Q on the same members.  hash is
 * FNV-1a 32 over the Q blocks of all rows of the chunk stripe in row order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLK 4096
#define STAMP_MAGIC 0x504d41545335524aULL	/* "JR5STAMP" little endian */

static void stamp_block(uint64_t sector, uint8_t *blk)
{
	uint64_t *w = (uint64_t *)blk;
	uint64_t x = sector * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	int i;

	w[0] = STAMP_MAGIC;
	w[1] = sector;
	for (i = 2; i < BLK / 8; i++) {
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

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int fill(const char *dev, uint64_t sectors)
{
	enum { BATCH = 256 };
	uint8_t *buf = malloc(BLK * BATCH);
	uint64_t s = 0;
	int fd = open(dev, O_WRONLY);

	if (!buf || fd < 0)
		die(dev);
	while (s < sectors) {
		size_t n = 0;

		while (n < BATCH && s < sectors) {
			stamp_block(s, buf + n * BLK);
			s += 8;
			n++;
		}
		if (write(fd, buf, n * BLK) != (ssize_t)(n * BLK))
			die("write");
	}
	if (fsync(fd) || close(fd))
		die("fsync");
	free(buf);
	return 0;
}

/* Array sector of a data block, or -1. */
static int64_t stamp_of(const uint8_t *blk, uint8_t *tmp)
{
	uint64_t s;

	memcpy(&s, blk + 8, 8);
	if (memcmp(blk, &(uint64_t){ STAMP_MAGIC }, 8) || s % 8)
		return -1;
	stamp_block(s, tmp);
	return memcmp(blk, tmp, BLK) ? -1 : (int64_t)s;
}

static int dump(int np, uint64_t chunk, uint64_t rows, uint64_t off,
		int n, char **names)
{
	uint64_t per_member = rows * chunk * 512;
	uint8_t **m = calloc(n, sizeof(*m));
	uint8_t tmp[BLK], x[BLK];
	int64_t *first = calloc(n, sizeof(*first));
	int64_t *cur = calloc(n, sizeof(*cur));
	int i, j;

	if (!m || !first || !cur)
		die("calloc");
	for (i = 0; i < n; i++) {
		int fd = open(names[i], O_RDONLY);

		m[i] = malloc(per_member);
		if (fd < 0 || !m[i])
			die(names[i]);
		if (pread(fd, m[i], per_member, off * 512) != (ssize_t)per_member)
			die("pread");
		close(fd);
	}

	for (uint64_t cs = 0; cs < rows; cs++) {
		uint32_t qh = 2166136261u;
		int pd = -1, qd = -1;

		for (uint64_t r = 0; r < chunk / 8; r++) {
			uint64_t o = (cs * chunk + r * 8) * 512;
			int np_seen = 0;

			memset(x, 0, BLK);
			for (i = 0; i < n; i++) {
				cur[i] = stamp_of(m[i] + o, tmp);
				if (cur[i] < 0) {
					np_seen++;
					continue;
				}
				for (j = 0; j < BLK; j++)
					x[j] ^= m[i][o + j];
			}
			if (np_seen != np) {
				fprintf(stderr, "cs %llu row %llu: %d parity blocks\n",
					(unsigned long long)cs,
					(unsigned long long)r, np_seen);
				return 1;
			}
			/* Which non-data block is P: the xor of the data. */
			for (i = 0; i < n; i++) {
				if (cur[i] >= 0)
					continue;
				if (!memcmp(m[i] + o, x, BLK)) {
					cur[i] = -2;	/* P */
				} else if (np == 2) {
					cur[i] = -3;	/* Q */
					qh = fnv1a(qh, m[i] + o, BLK);
				}
			}
			for (i = 0, j = 0; i < n; i++)
				j += cur[i] == -2 ? 1 : cur[i] == -3 ? 2 : 0;
			if (j != (np == 2 ? 3 : 1)) {
				fprintf(stderr, "cs %llu row %llu: P/Q not found\n",
					(unsigned long long)cs,
					(unsigned long long)r);
				return 1;
			}
			for (i = 0; i < n; i++) {
				if (r == 0) {
					first[i] = cur[i];
					if (cur[i] == -2)
						pd = i;
					if (cur[i] == -3)
						qd = i;
					continue;
				}
				if (first[i] < 0 ? cur[i] != first[i] :
				    cur[i] != first[i] + (int64_t)(8 * r)) {
					fprintf(stderr, "cs %llu row %llu member %d: not continuing its chunk\n",
						(unsigned long long)cs,
						(unsigned long long)r, i);
					return 1;
				}
			}
		}
		printf("R %llu", (unsigned long long)cs);
		for (i = 0; i < n; i++) {
			if (i == pd)
				printf(" P");
			else if (i == qd)
				printf(" Q");
			else if (first[i] % chunk)
				return fprintf(stderr, "chunk misaligned\n"), 1;
			else
				printf(" %llu", (unsigned long long)(first[i] / chunk));
		}
		if (np == 2)
			printf(" q=%08x", qh);
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "fill"))
		return fill(argv[2], strtoull(argv[3], NULL, 0));
	if (argc >= 8 && !strcmp(argv[1], "dump"))
		return dump(atoi(argv[2]), strtoull(argv[3], NULL, 0),
			    strtoull(argv[4], NULL, 0),
			    strtoull(argv[5], NULL, 0), argc - 6, argv + 6);
	fprintf(stderr, "usage: r5j-probe fill DEV ARRAY_SECTORS\n"
		"       r5j-probe dump NPARITY CHUNK_SECTORS ROWS OFFSET MEMBER...\n");
	return 2;
}
