// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: r5jtool's replay (planning, every bounds check, the
 * writes) on a crafted journal, the whole tool compiled in.
 *
 * Input: byte 0 level (4/5/6), 1 layout, 2 members (2..6), 3 chunk, 4
 * member size, 5 ring size (4..31 blocks), 6 journal_tail block, 7 flags
 * (bit 0 --dry-run, bit 1 one member missing, bit 2 one member marked as
 * rebuilding, bit 3 a replacement for member 0 given too), then the ring
 * (4 KiB blocks).  Fix-ups, so the fuzzer gets past the checksums: from
 * journal_tail on, every block whose byte 5 is odd is made a meta block
 * of this array (magic, version, position, the next seq), the checksum
 * fields of its payloads are set to its pages' checksums and it is
 * sealed; the walk ends at the first block left as it was.  Superblocks
 * are built by the harness (valid), images live in memfds.
 *
 * Invariant beyond memory safety: whatever the tool does (replay, refuse
 * or die), no byte outside a device's data area changes: the sectors
 * before and after the member superblocks, every member superblock, and
 * everything past each data area.  die() is caught (exit -> longjmp) and
 * the tool's allocations are tracked so none outlive one input.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>

/* ---- the tool, with exit, open and the allocator caught ---- */

static jmp_buf fz_jmp;
static int fz_fds[64], fz_nfds;

static void fz_exit(int code) __attribute__((noreturn));
static void fz_exit(int code)
{
	longjmp(fz_jmp, code + 1);
}

struct fz_hdr {
	struct fz_hdr *prev, *next;
};

static struct fz_hdr fz_live = { &fz_live, &fz_live };

static void *fz_link(struct fz_hdr *h)
{
	h->next = fz_live.next;
	h->prev = &fz_live;
	fz_live.next->prev = h;
	fz_live.next = h;
	return h + 1;
}

static void fz_unlink(struct fz_hdr *h)
{
	h->prev->next = h->next;
	h->next->prev = h->prev;
}

static void *fz_calloc(size_t n, size_t size)
{
	struct fz_hdr *h;

	if (size && n > (((size_t)1 << 30) / size))
		return NULL;
	h = calloc(1, sizeof(*h) + n * size);
	return h ? fz_link(h) : NULL;
}

static void fz_free(void *p)
{
	struct fz_hdr *h = p ? (struct fz_hdr *)p - 1 : NULL;

	if (h) {
		fz_unlink(h);
		free(h);
	}
}

static void *fz_realloc(void *p, size_t size)
{
	struct fz_hdr *h, *n;

	if (!p)
		return fz_calloc(1, size);
	h = (struct fz_hdr *)p - 1;
	fz_unlink(h);
	n = realloc(h, sizeof(*h) + size);
	if (!n) {
		fz_link(h);
		return NULL;
	}
	return fz_link(n);
}

static void fz_free_all(void)
{
	while (fz_live.next != &fz_live)
		fz_free(fz_live.next + 1);
}

static int fz_open(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd >= 0 && fz_nfds < 64)
		fz_fds[fz_nfds++] = fd;
	return fd;
}

static FILE *fz_null;		/* the tool's messages */

#undef stderr
#define stderr			fz_null
#define exit(code)		fz_exit(code)
#define calloc(n, s)		fz_calloc(n, s)
#define realloc(p, s)		fz_realloc(p, s)
#define free(p)			fz_free(p)
#define open(p, f)		fz_open(p, f)
#define main			r5jtool_main
#include "../../tools/r5jtool.c"
#undef main
#undef open
#undef free
#undef realloc
#undef calloc
#undef exit
#undef stderr
#define stderr stderr

/* ---- images ---- */

#define DOFF	16		/* data_offset of every device, sectors */
#define TAILS	64		/* sectors after every data area */
#define MAXM	7		/* members + a replacement */

static const u8 uuid[16] = "r5j-fuzz-uuid-02";
static const int layouts[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 16, 17, 18, 19, 20 };

struct img {
	int fd;
	char path[64];
	u8 *buf;
	u64 sectors, data_sectors;
};

static struct img imgs[MAXM + 1];	/* members, replacement, journal */

static void sb_put(struct img *im, const struct r5j_geom *g, int n,
		   int dev_number, u64 msectors, u64 data_size, u64 tail,
		   u32 feat)
{
	struct mdsb s;
	struct mdp_superblock_1 *sb = &s.sb;
	int i;

	memset(&s, 0, sizeof(s));
	sb->magic = cpu_to_le32(MD_SB_MAGIC);
	sb->major_version = cpu_to_le32(1);
	sb->feature_map = cpu_to_le32(MD_FEATURE_JOURNAL | feat);
	memcpy(sb->set_uuid, uuid, 16);
	sb->level = cpu_to_le32((u32)g->level);
	sb->layout = cpu_to_le32((u32)g->layout);
	sb->size = cpu_to_le64(msectors);
	sb->chunksize = cpu_to_le32(g->chunk_sectors);
	sb->raid_disks = cpu_to_le32((u32)n);
	sb->data_offset = cpu_to_le64(DOFF);
	sb->data_size = cpu_to_le64(data_size);
	sb->super_offset = cpu_to_le64(8);
	sb->journal_tail = cpu_to_le64(tail);
	sb->dev_number = cpu_to_le32((u32)dev_number);
	sb->device_uuid[0] = (u8)dev_number;
	sb->events = cpu_to_le64(9);
	sb->resync_offset = cpu_to_le64(~0ull);
	sb->max_dev = cpu_to_le32((u32)n + 2);
	for (i = 0; i < n; i++)
		sb->dev_roles[i] = cpu_to_le16((u16)i);
	sb->dev_roles[n] = cpu_to_le16(MD_DISK_ROLE_JOURNAL);
	sb->dev_roles[n + 1] = cpu_to_le16(0);	/* the replacement */
	sb->sb_csum = mdsb_csum(sb);
	memcpy(im->buf + 8 * 512, s.raw, 512);	/* sb_size: one sector */
}

static void img_make(struct img *im, u64 data_sectors)
{
	if (im->fd < 0) {
		im->fd = memfd_create("fuzz-replay", 0);
		if (im->fd < 0)
			abort();
		snprintf(im->path, sizeof(im->path), "/proc/self/fd/%d",
			 im->fd);
	}
	im->data_sectors = data_sectors;
	im->sectors = DOFF + data_sectors + TAILS;
	free(im->buf);
	im->buf = malloc(im->sectors * 512);
	if (!im->buf)
		abort();
	memset(im->buf, 0xee, DOFF * 512);		/* reserved area */
	memset(im->buf + DOFF * 512, 0, data_sectors * 512);
	memset(im->buf + (DOFF + data_sectors) * 512, 0xdd, TAILS * 512);
}

static void img_write(struct img *im)
{
	if (ftruncate(im->fd, 0) ||
	    ftruncate(im->fd, (off_t)(im->sectors * 512)) ||
	    pwrite(im->fd, im->buf, im->sectors * 512, 0) !=
	    (ssize_t)(im->sectors * 512))
		abort();
}

/* Outside the data area nothing changed (the journal's sb may). */
static void img_check(struct img *im, bool journal)
{
	size_t len = im->sectors * 512, end = (DOFF + im->data_sectors) * 512;
	u8 *now = malloc(len);

	if (!now || pread(im->fd, now, len, 0) != (ssize_t)len)
		abort();
	if (memcmp(now, im->buf, 8 * 512) ||
	    (!journal && memcmp(now + 8 * 512, im->buf + 8 * 512, 512)) ||
	    memcmp(now + 9 * 512, im->buf + 9 * 512, (DOFF - 9) * 512) ||
	    memcmp(now + end, im->buf + end, len - end)) {
		fprintf(stderr, "%s: changed outside the data area\n",
			im->path);
		abort();
	}
	free(now);
}

/* Make the log from block tail on valid wherever the input asks. */
static void fix_ring(u8 *ring, u64 blocks, u64 tail, const struct r5j_log *log)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	u64 b = tail, walked = 0, seq = 1000, pos;
	unsigned int i;

	while (walked < blocks) {
		u8 *m = ring + b * R5J_BLOCK_SIZE;
		struct r5l_meta_block *mb = (void *)m;
		u64 step = 1;

		if (!(m[5] & 1))
			break;
		mb->magic = cpu_to_le32(R5LOG_MAGIC);
		mb->version = R5LOG_VERSION;
		mb->position = cpu_to_le64(b * R5J_BLOCK_SECTORS);
		mb->seq = cpu_to_le64(seq++);
		r5j_payload_iter_init(&it, log, m, b * R5J_BLOCK_SECTORS);
		while (r5j_payload_next(&it, &p)) {
			for (i = 0; i < p.pages; i++) {
				pos = r5j_payload_page_pos(log, &p, i);
				__le32 cs = cpu_to_le32(r5j_page_csum(log->seed,
						ring + pos * 512));

				memcpy((u8 *)p.raw + 16 + 4 * i, &cs, 4);
			}
		}
		if (!it.err)
			step += it.pages;
		r5j_meta_seal(m, log->seed);
		walked += step;
		b = (b + step) % blocks;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);
int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static bool init;
	static struct ctx c;
	struct r5j_geom g;
	struct r5j_log log;
	char *paths[MAXM];
	struct img *j = &imgs[MAXM];
	u64 msectors, blocks, tail;
	int n, i, np = 0, flags, missing, rebuilding;
	size_t ring_len;

	if (!init) {
		for (i = 0; i <= MAXM; i++)
			imgs[i].fd = -1;
		fz_null = fopen("/dev/null", "w");
		if (!fz_null || !freopen("/dev/null", "w", stdout))
			abort();
		init = true;
	}
	if (size < 8)
		return 0;
	g.level = 4 + data[0] % 3;
	g.layout = layouts[data[1] % (sizeof(layouts) / sizeof(layouts[0]))];
	n = 2 + data[2] % 5;
	if (g.level == 6 && n < 4)
		n = 4;
	g.raid_disks = n;
	g.chunk_sectors = 8u << (data[3] % 4);
	if (r5j_geom_check(&g, NULL))
		return 0;
	msectors = (1 + data[4] % 8) * 64;
	blocks = 4 + data[5] % 28;
	tail = data[6] % blocks;
	flags = data[7];
	if (r5j_log_init(&log, uuid, blocks * R5J_BLOCK_SECTORS, g.level))
		abort();

	img_make(j, blocks * R5J_BLOCK_SECTORS);
	ring_len = blocks * R5J_BLOCK_SIZE;
	memcpy(j->buf + DOFF * 512, data + 8,
	       size - 8 < ring_len ? size - 8 : ring_len);
	fix_ring(j->buf + DOFF * 512, blocks, tail, &log);
	sb_put(j, &g, n, n, msectors, blocks * R5J_BLOCK_SECTORS,
	       tail * R5J_BLOCK_SECTORS, 0);
	img_write(j);

	missing = flags & 2 ? data[2] / 8 % n : -1;
	rebuilding = flags & 4 ? data[3] / 8 % n : -1;
	for (i = 0; i < n; i++) {
		img_make(&imgs[i], msectors);
		sb_put(&imgs[i], &g, n, i, msectors, msectors, 0,
		       i == rebuilding ? MD_FEATURE_RECOVERY_OFFSET : 0);
		img_write(&imgs[i]);
		if (i != missing)
			paths[np++] = imgs[i].path;
	}
	if (flags & 8) {
		img_make(&imgs[n], msectors);
		sb_put(&imgs[n], &g, n, n + 1, msectors, msectors, 0,
		       MD_FEATURE_REPLACEMENT | MD_FEATURE_RECOVERY_OFFSET);
		img_write(&imgs[n]);
		paths[np++] = imgs[n].path;
	}

	memset(&c, 0, sizeof(c));
	c.dry_run = flags & 1;
	fz_nfds = 0;
	if (!setjmp(fz_jmp))
		cmd_replay(&c, j->path, paths, np);
	fflush(stdout);
	for (i = 0; i < fz_nfds; i++)
		close(fz_fds[i]);
	fz_free_all();

	img_check(j, true);
	for (i = 0; i < n + (flags & 8 ? 1 : 0); i++)
		img_check(&imgs[i], false);
	return 0;
}
