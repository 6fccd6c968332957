// SPDX-License-Identifier: GPL-2.0
/*
 * stamp: the verifying writer and checker of the power-cut tests.
 *
 *   stamp write DEV BLOCKS STRIPE_BLOCKS THREADS SECONDS ACKFILE [GEN_BASE [small]]
 *	Random writes with O_DIRECT to the first BLOCKS 4 KiB blocks of DEV,
 *	THREADS at a time, each thread in its own groups of 4 stripes: half
 *	sub-stripe (1..STRIPE_BLOCKS-1 blocks), half whole stripes (aligned,
 *	1-4 stripes).  "small": every write one random 4 KiB block (a
 *	write-back journal of data-only stripes, t-journal-wb-bigjournal).
 *	Every write gets a new generation; every block of it carries
 *	{magic, block number, generation, checksum} and data derived from
 *	them.  When pwrite() returns, "A first count gen" goes to ACKFILE
 *	(a virtio port backed by a host file: it survives the VM's death).
 *	Generations start after GEN_BASE, so runs on one array never reuse one.
 *
 *   stamp batches DEV BLOCKS STRIPE_BLOCKS THREADS BATCHES ACKFILE GEN_BASE MARKCMD
 *	The crash-point tests' writer: BATCHES rounds of THREADS writes at
 *	once (chosen as "write" does, O_DIRECT | O_DSYNC: each write is
 *	durable when acknowledged).  After each round, its "A" lines are in
 *	ACKFILE, then "M bN" (N the round, from 0), and then "MARKCMD bN"
 *	runs (a dm-log-writes mark): every write acknowledged before a mark
 *	precedes it in ACKFILE.
 *
 *   stamp check IMAGE BLOCKS ACKLOG
 *	IMAGE holds the array as read back after the crash.  For each block:
 *	acknowledged at generation G: it must carry a valid stamp of itself
 *	with generation >= G (a later write may have landed, acked or not);
 *	never acknowledged: all zero or a valid stamp of itself.  Anything
 *	else is a lost acknowledged write or garbage (the write hole).
 *	Prints a summary; exit 1 on any bad block.
 *
 *   stamp put DEV FIRST STEP COUNT GEN
 *	Writes blocks FIRST, FIRST + STEP, ... (COUNT of them) of DEV with
 *	O_DIRECT, one at a time, each a stamp of generation GEN.
 *
 *   stamp get DEV FIRST STEP COUNT GEN
 *	Reads the same blocks back with O_DIRECT and sorts them: "ok" (the
 *	stamp of GEN), "eio" (the read failed), "stale" (zero, or a stamp of
 *	an older generation), "garbage".  Prints one line per block that is
 *	not ok ("eio BLOCK" ...) and a summary line; exit 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLK 4096
#define MAGIC 0x504d41544a35524fULL	/* "OR5JTAMP" */

struct stamp_hdr {
	uint64_t magic;
	uint64_t block;
	uint64_t gen;
	uint64_t sum;
};

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--) {
		h ^= *p++;
		h *= 1099511628211ULL;
	}
	return h;
}

static void fill_block(unsigned char *b, uint64_t block, uint64_t gen)
{
	struct stamp_hdr *h = (struct stamp_hdr *)b;
	uint64_t x = block * 0x9e3779b97f4a7c15ULL ^ gen ^ 0x5bd1e995;
	size_t i;

	for (i = sizeof(*h); i < BLK; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + i, &x, 8);
	}
	h->magic = MAGIC;
	h->block = block;
	h->gen = gen;
	h->sum = fnv(b + sizeof(*h), BLK - sizeof(*h)) ^ block ^ gen;
}

/* 1: valid stamp of @block (gen in *gen); 0: all zero; -1: garbage. */
static int read_stamp(const unsigned char *b, uint64_t block, uint64_t *gen)
{
	const struct stamp_hdr *h = (const struct stamp_hdr *)b;
	size_t i;

	if (h->magic == MAGIC && h->block == block &&
	    h->sum == (fnv(b + sizeof(*h), BLK - sizeof(*h)) ^ block ^ h->gen)) {
		*gen = h->gen;
		return 1;
	}
	for (i = 0; i < BLK; i++)
		if (b[i])
			return -1;
	return 0;
}

static const char *dev;
static uint64_t nblocks, stripe_blocks;
static int seconds, ack_fd, dev_fd, small;
static atomic_uint_fast64_t next_gen = 1;
static atomic_uint_fast64_t acked_ios;
static pthread_mutex_t ack_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int threads;

/* One write of thread @me (seed @seed), stamped and acknowledged. */
static void write_one(uint64_t me, uint64_t *seed, unsigned char *buf)
{
	uint64_t ngroups = nblocks / (4 * stripe_blocks);
	uint64_t group, base, first, count, gen, i;
	char line[80];

	/*
	 * Each thread owns every threads-th group of 4 stripes, so
	 * writes to a block never overlap in flight: for one block,
	 * a later acknowledged generation supersedes all earlier.
	 */
	group = me + (rnd(seed) % ((ngroups - me + threads - 1) / threads)) *
		threads;
	base = group * 4 * stripe_blocks;
	if (small) {
		count = 1;
		first = base + rnd(seed) % (4 * stripe_blocks);
	} else if (rnd(seed) & 1) {
		uint64_t off = rnd(seed) % (4 * stripe_blocks - 1);

		count = 1 + rnd(seed) % (stripe_blocks - 1);
		if (off + count > 4 * stripe_blocks)
			count = 4 * stripe_blocks - off;
		first = base + off;
	} else {
		uint64_t s0 = rnd(seed) % 4;

		count = stripe_blocks * (1 + rnd(seed) % (4 - s0));
		first = base + s0 * stripe_blocks;
	}
	gen = atomic_fetch_add(&next_gen, 1);
	for (i = 0; i < count; i++)
		fill_block(buf + i * BLK, first + i, gen);
	if (pwrite(dev_fd, buf, count * BLK, first * BLK) !=
	    (ssize_t)(count * BLK)) {
		fprintf(stderr, "stamp: write %llu+%llu: %s\n",
			(unsigned long long)first,
			(unsigned long long)count, strerror(errno));
		exit(2);
	}
	snprintf(line, sizeof(line), "A %llu %llu %llu\n",
		 (unsigned long long)first, (unsigned long long)count,
		 (unsigned long long)gen);
	pthread_mutex_lock(&ack_lock);
	if (write(ack_fd, line, strlen(line)) < 0)
		exit(3);
	pthread_mutex_unlock(&ack_lock);
	atomic_fetch_add(&acked_ios, 1);
}

static void *writer(void *arg)
{
	uint64_t me = (uintptr_t)arg - 1;
	uint64_t seed = (me + 1) * 0x2545f4914f6cdd1dULL + time(NULL);
	unsigned char *buf;
	time_t end = time(NULL) + seconds;

	if (posix_memalign((void **)&buf, BLK, stripe_blocks * 4 * BLK))
		return NULL;
	while (time(NULL) < end)
		write_one(me, &seed, buf);
	free(buf);
	return NULL;
}

/* A round of the batches writer: one write of thread arg - 1. */
static uint64_t batch_seeds[64];

static void *batch_writer(void *arg)
{
	uint64_t me = (uintptr_t)arg - 1;
	unsigned char *buf;

	if (posix_memalign((void **)&buf, BLK, stripe_blocks * 4 * BLK))
		exit(2);
	write_one(me, &batch_seeds[me], buf);
	free(buf);
	return NULL;
}

static int do_batches(int argc, char **argv)
{
	pthread_t tid[64];
	char line[80], cmd[512];
	int i, b, batches;

	if (argc != 10)
		return 64;
	dev = argv[2];
	nblocks = strtoull(argv[3], NULL, 0);
	stripe_blocks = strtoull(argv[4], NULL, 0);
	threads = atoi(argv[5]);
	batches = atoi(argv[6]);
	if (threads < 1 || threads > 64 || stripe_blocks < 2 ||
	    nblocks < stripe_blocks * 4 * (uint64_t)threads)
		return 64;
	atomic_store(&next_gen, strtoull(argv[8], NULL, 0) + 1);
	dev_fd = open(dev, O_RDWR | O_DIRECT | O_DSYNC);
	ack_fd = open(argv[7], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (dev_fd < 0 || ack_fd < 0) {
		perror("stamp: open");
		return 2;
	}
	for (i = 0; i < threads; i++)
		batch_seeds[i] = (i + 1) * 0x2545f4914f6cdd1dULL + time(NULL);
	for (b = 0; b < batches; b++) {
		for (i = 0; i < threads; i++)
			pthread_create(&tid[i], NULL, batch_writer,
				       (void *)(uintptr_t)(i + 1));
		for (i = 0; i < threads; i++)
			pthread_join(tid[i], NULL);
		snprintf(line, sizeof(line), "M b%d\n", b);
		if (write(ack_fd, line, strlen(line)) < 0)
			return 3;
		snprintf(cmd, sizeof(cmd), "%s b%d", argv[9], b);
		if (system(cmd)) {
			fprintf(stderr, "stamp: '%s' failed\n", cmd);
			return 2;
		}
	}
	printf("stamp: %llu writes acknowledged in %d batches\n",
	       (unsigned long long)atomic_load(&acked_ios), batches);
	return 0;
}

static int do_write(int argc, char **argv)
{
	pthread_t tid[64];
	int i;

	if (argc < 8)
		return 64;
	dev = argv[2];
	nblocks = strtoull(argv[3], NULL, 0);
	stripe_blocks = strtoull(argv[4], NULL, 0);
	threads = atoi(argv[5]);
	seconds = atoi(argv[6]);
	if (threads < 1 || threads > 64 || stripe_blocks < 2 ||
	    nblocks < stripe_blocks * 4 * (uint64_t)threads)
		return 64;
	if (argc > 8)
		atomic_store(&next_gen, strtoull(argv[8], NULL, 0) + 1);
	if (argc > 9 && !strcmp(argv[9], "small"))
		small = 1;
	else if (argc > 9)
		return 64;
	dev_fd = open(dev, O_RDWR | O_DIRECT);
	ack_fd = open(argv[7], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (dev_fd < 0 || ack_fd < 0) {
		perror("stamp: open");
		return 2;
	}
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, writer, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("stamp: %llu writes acknowledged\n",
	       (unsigned long long)atomic_load(&acked_ios));
	return 0;
}

static int do_check(int argc, char **argv)
{
	uint64_t *acked, n, b, gen = 0, acks = 0;
	uint64_t ok_new = 0, ok_acked = 0, zero = 0, lost = 0, garbage = 0;
	unsigned char *buf;
	char line[256];
	FILE *f;
	int fd;

	if (argc < 5)
		return 64;
	n = strtoull(argv[3], NULL, 0);
	acked = calloc(n, sizeof(*acked));
	buf = malloc(BLK);
	f = fopen(argv[4], "r");
	fd = open(argv[2], O_RDONLY);
	if (!acked || !buf || !f || fd < 0) {
		perror("stamp check");
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, c, g;

		if (sscanf(line, "A %llu %llu %llu", &a, &c, &g) != 3)
			continue;
		for (b = a; b < a + c && b < n; b++)
			if (acked[b] < g)
				acked[b] = g;
		acks++;
	}
	for (b = 0; b < n; b++) {
		int r;

		if (pread(fd, buf, BLK, b * BLK) != BLK) {
			perror("stamp check: read");
			return 2;
		}
		r = read_stamp(buf, b, &gen);
		if (r < 0) {
			if (garbage++ < 10)
				printf("stamp: block %llu: garbage (acked gen %llu)\n",
				       (unsigned long long)b,
				       (unsigned long long)acked[b]);
			continue;
		}
		if (!acked[b]) {
			r ? ok_new++ : zero++;
			continue;
		}
		if (r == 0 || gen < acked[b]) {
			if (lost++ < 10)
				printf("stamp: block %llu: acknowledged gen %llu lost (found %s %llu)\n",
				       (unsigned long long)b,
				       (unsigned long long)acked[b],
				       r ? "gen" : "zeros",
				       (unsigned long long)(r ? gen : 0));
			continue;
		}
		ok_acked++;
	}
	printf("stamp: %llu acks; blocks: %llu acked ok, %llu unacked stamped, %llu zero, %llu lost, %llu garbage\n",
	       (unsigned long long)acks, (unsigned long long)ok_acked,
	       (unsigned long long)ok_new, (unsigned long long)zero,
	       (unsigned long long)lost, (unsigned long long)garbage);
	return (lost || garbage) ? 1 : 0;
}

/* put and get: blocks FIRST + i * STEP, i < COUNT, generation GEN */
static int do_put_get(int argc, char **argv, int put)
{
	uint64_t first, step, count, gen, i, g;
	uint64_t ok = 0, eio = 0, stale = 0, garbage = 0;
	unsigned char *buf;
	int fd;

	if (argc < 7)
		return 64;
	first = strtoull(argv[3], NULL, 0);
	step = strtoull(argv[4], NULL, 0);
	count = strtoull(argv[5], NULL, 0);
	gen = strtoull(argv[6], NULL, 0);
	fd = open(argv[2], (put ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&buf, BLK, BLK)) {
		perror("stamp put/get");
		return 2;
	}
	for (i = 0; i < count; i++) {
		uint64_t b = first + i * step;
		int r;

		if (put) {
			fill_block(buf, b, gen);
			if (pwrite(fd, buf, BLK, b * BLK) != BLK) {
				perror("stamp put: write");
				return 2;
			}
			continue;
		}
		if (pread(fd, buf, BLK, b * BLK) != BLK) {
			printf("eio %llu\n", (unsigned long long)b);
			eio++;
			continue;
		}
		g = 0;
		r = read_stamp(buf, b, &g);
		if (r > 0 && g == gen) {
			ok++;
		} else if (r < 0 || g > gen) {
			printf("garbage %llu\n", (unsigned long long)b);
			garbage++;
		} else {
			printf("stale %llu\n", (unsigned long long)b);
			stale++;
		}
	}
	if (!put)
		printf("stamp get: ok %llu eio %llu stale %llu garbage %llu\n",
		       (unsigned long long)ok, (unsigned long long)eio,
		       (unsigned long long)stale, (unsigned long long)garbage);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int r = 64;

	if (argc > 1 && !strcmp(argv[1], "write"))
		r = do_write(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "batches"))
		r = do_batches(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "check"))
		r = do_check(argc, argv);
	else if (argc > 1 && !strcmp(argv[1], "put"))
		r = do_put_get(argc, argv, 1);
	else if (argc > 1 && !strcmp(argv[1], "get"))
		r = do_put_get(argc, argv, 0);
	if (r == 64)
		fprintf(stderr, "usage: stamp write DEV BLOCKS STRIPE_BLOCKS THREADS SECONDS ACKFILE [GEN_BASE [small]]\n"
			"       stamp batches DEV BLOCKS STRIPE_BLOCKS THREADS BATCHES ACKFILE GEN_BASE MARKCMD\n"
			"       stamp check IMAGE BLOCKS ACKLOG\n"
			"       stamp put|get DEV FIRST STEP COUNT GEN\n");
	return r;
}
