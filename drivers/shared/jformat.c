// SPDX-License-Identifier: GPL-2.0
/*
 * Journal on-disk format: checksums, ring arithmetic, meta block encoder,
 * header checks and the payload iterator.  See include/raid5j/journal.h.
 *
 * Pure logic shared by the kernel module and userspace; every on-disk field
 * is read through the packed structs of <linux/raid/md_p.h> and converted
 * with le*_to_cpu(), so buffers need no alignment.
 */
#include "raid5j/types.h"
#include "raid5j/crc32c.h"
#include "raid5j/journal.h"

#ifndef __KERNEL__
/* Table-driven CRC32C (Castagnoli, reflected 0x82f63b78), raw register. */
static u32 r5j_crc32c_table[256];

static void r5j_crc32c_init(void)
{
	u32 i, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
		r5j_crc32c_table[i] = c;
	}
}

u32 r5j_crc32c(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;

	if (!r5j_crc32c_table[1])
		r5j_crc32c_init();
	while (len--)
		crc = r5j_crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}
#endif

/* In enum order: R5J_REASONS lists the values 0, 1, 2... in sequence. */
#define R5J_REASON_NAME(sym, val, name) name,
static const char * const r5j_reason_names[] = {
	R5J_REASONS(R5J_REASON_NAME)
};
#undef R5J_REASON_NAME

const char *r5j_reason_name(enum r5j_reason r)
{
	if ((unsigned int)r >= R5J_NR_REASONS)
		return "unknown";
	return r5j_reason_names[r];
}

int r5j_log_init(struct r5j_log *log, const u8 uuid[16], u64 data_sectors,
		 int level)
{
	memset(log, 0, sizeof(*log));
	if (level == 4 || level == 5)
		log->parity_pages = 1;
	else if (level == 6)
		log->parity_pages = 2;
	else
		return -EINVAL;
	log->ring_sectors = data_sectors & ~(u64)(R5J_BLOCK_SECTORS - 1);
	if (log->ring_sectors < 2 * R5J_BLOCK_SECTORS)
		return -EINVAL;
	log->seed = r5j_log_seed(uuid);
	return 0;
}

u32 r5j_log_seed(const u8 uuid[16])
{
	return r5j_crc32c(~0u, uuid, 16);
}

u32 r5j_page_csum(u32 seed, const void *page)
{
	return r5j_crc32c(seed, page, R5J_BLOCK_SIZE);
}

u32 r5j_meta_csum(u32 seed, const void *meta)
{
	static const u8 zero[4];
	const u8 *b = meta;
	u32 crc;

	/* bytes 4..7 are the checksum field itself */
	crc = r5j_crc32c(seed, b, 4);
	crc = r5j_crc32c(crc, zero, 4);
	return r5j_crc32c(crc, b + 8, R5J_BLOCK_SIZE - 8);
}

u64 r5j_ring_add(const struct r5j_log *log, u64 pos, u64 sectors)
{
	pos += sectors;
	while (pos >= log->ring_sectors)
		pos -= log->ring_sectors;
	return pos;
}

u64 r5j_ring_distance(const struct r5j_log *log, u64 from, u64 to)
{
	return to >= from ? to - from : to + log->ring_sectors - from;
}

u64 r5j_ring_sanitize(const struct r5j_log *log, u64 tail)
{
	if (tail >= log->ring_sectors || (tail & (R5J_BLOCK_SECTORS - 1)))
		return 0;
	return tail;
}

/* ---- meta block header ---- */

u64 r5j_meta_seq(const void *meta)
{
	return le64_to_cpu(((const struct r5l_meta_block *)meta)->seq);
}

u64 r5j_meta_position(const void *meta)
{
	return le64_to_cpu(((const struct r5l_meta_block *)meta)->position);
}

u32 r5j_meta_size(const void *meta)
{
	return le32_to_cpu(((const struct r5l_meta_block *)meta)->meta_size);
}

bool r5j_meta_writeback(const void *meta)
{
	const struct r5l_meta_block *mb = meta;

	return mb->__zero_pading_1 & R5J_META_FLAG_WRITEBACK;
}

void r5j_meta_set_writeback(void *meta, bool wb)
{
	struct r5l_meta_block *mb = meta;

	if (wb)
		mb->__zero_pading_1 |= R5J_META_FLAG_WRITEBACK;
	else
		mb->__zero_pading_1 &= ~R5J_META_FLAG_WRITEBACK;
}

void r5j_meta_init(void *meta, u64 pos, u64 seq)
{
	struct r5l_meta_block *mb = meta;

	memset(meta, 0, R5J_BLOCK_SIZE);
	mb->magic = cpu_to_le32(R5LOG_MAGIC);
	mb->version = R5LOG_VERSION;
	mb->meta_size = cpu_to_le32(R5J_META_HDR_SIZE);
	mb->seq = cpu_to_le64(seq);
	mb->position = cpu_to_le64(pos);
}

/* Reserve len bytes at the end of the payloads; NULL if they do not fit. */
static u8 *r5j_meta_reserve(void *meta, u32 len)
{
	struct r5l_meta_block *mb = meta;
	u32 used = le32_to_cpu(mb->meta_size);

	if (used > R5J_BLOCK_SIZE || len > R5J_BLOCK_SIZE - used)
		return NULL;
	mb->meta_size = cpu_to_le32(used + len);
	return (u8 *)meta + used;
}

static int r5j_meta_add_dp(void *meta, u16 type, u64 location,
			   const u32 *csums, unsigned int pages)
{
	struct r5l_payload_data_parity *dp;
	unsigned int i;

	dp = (void *)r5j_meta_reserve(meta, R5J_DATA_PAYLOAD_SIZE + 4 * pages);
	if (!dp)
		return -ENOSPC;
	dp->header.type = cpu_to_le16(type);
	dp->header.flags = 0;
	dp->size = cpu_to_le32(pages * R5J_BLOCK_SECTORS);
	dp->location = cpu_to_le64(location);
	for (i = 0; i < pages; i++)
		dp->checksum[i] = cpu_to_le32(csums[i]);
	return 0;
}

int r5j_meta_add_data(void *meta, u64 array_sector, u32 csum)
{
	return r5j_meta_add_dp(meta, R5LOG_PAYLOAD_DATA, array_sector, &csum, 1);
}

int r5j_meta_add_parity(void *meta, u64 stripe_sector, const u32 *csums,
			unsigned int pages)
{
	if (pages < 1 || pages > R5J_MAX_PARITY_PAGES)
		return -EINVAL;
	return r5j_meta_add_dp(meta, R5LOG_PAYLOAD_PARITY, stripe_sector,
			       csums, pages);
}

int r5j_meta_add_flush(void *meta, const u64 *stripes, unsigned int n)
{
	struct r5l_payload_flush *fl;
	unsigned int i;

	if (n > (R5J_BLOCK_SIZE - R5J_META_HDR_SIZE) / 8)
		return -ENOSPC;
	fl = (void *)r5j_meta_reserve(meta, R5J_FLUSH_PAYLOAD_SIZE + 8 * n);
	if (!fl)
		return -ENOSPC;
	fl->header.type = cpu_to_le16(R5LOG_PAYLOAD_FLUSH);
	fl->header.flags = 0;
	fl->size = cpu_to_le32(8 * n);
	for (i = 0; i < n; i++)
		fl->flush_stripes[i] = cpu_to_le64(stripes[i]);
	return 0;
}

void r5j_meta_seal(void *meta, u32 seed)
{
	struct r5l_meta_block *mb = meta;

	mb->checksum = cpu_to_le32(r5j_meta_csum(seed, meta));
}

enum r5j_reason r5j_meta_check(const struct r5j_log *log, const void *meta,
			       u64 pos, const u64 *seq)
{
	const struct r5l_meta_block *mb = meta;

	if (le32_to_cpu(mb->magic) != R5LOG_MAGIC)
		return R5J_BAD_MAGIC;
	if (mb->version != R5LOG_VERSION)
		return R5J_BAD_VERSION;
	if (le32_to_cpu(mb->checksum) != r5j_meta_csum(log->seed, meta))
		return R5J_BAD_META_CSUM;
	if (le64_to_cpu(mb->position) != pos)
		return R5J_BAD_POSITION;
	if (seq && le64_to_cpu(mb->seq) != *seq)
		return R5J_BAD_SEQ;
	if (le32_to_cpu(mb->meta_size) > R5J_BLOCK_SIZE)
		return R5J_BAD_META_SIZE;
	return R5J_OK;
}

/* ---- payload iterator ---- */

void r5j_payload_iter_init(struct r5j_payload_iter *it,
			   const struct r5j_log *log, const void *meta,
			   u64 meta_pos)
{
	memset(it, 0, sizeof(*it));
	it->log = log;
	it->meta = meta;
	it->meta_size = r5j_meta_size(meta);
	it->offset = R5J_META_HDR_SIZE;
	it->log_pos = r5j_ring_add(log, meta_pos, R5J_BLOCK_SECTORS);
	if (it->meta_size > R5J_BLOCK_SIZE) {
		it->err = R5J_BAD_META_SIZE;
		it->meta_size = 0;
	}
}

bool r5j_payload_next(struct r5j_payload_iter *it, struct r5j_payload *p)
{
	const struct r5l_payload_data_parity *dp;
	const struct r5l_payload_flush *fl;
	const struct r5l_payload_header *hdr;
	u32 room, len, size;

	if (it->err || it->offset >= it->meta_size)
		return false;
	room = it->meta_size - it->offset;
	memset(p, 0, sizeof(*p));
	p->raw = it->meta + it->offset;
	p->offset = it->offset;
	p->log_pos = it->log_pos;
	if (room < sizeof(*hdr))
		goto bad;
	hdr = (const void *)p->raw;
	p->type = le16_to_cpu(hdr->type);
	p->flags = le16_to_cpu(hdr->flags);

	switch (p->type) {
	case R5LOG_PAYLOAD_DATA:
	case R5LOG_PAYLOAD_PARITY:
		if (room < R5J_DATA_PAYLOAD_SIZE)
			goto bad;
		dp = (const void *)p->raw;
		p->pages = p->type == R5LOG_PAYLOAD_DATA ?
			   1 : it->log->parity_pages;
		size = le32_to_cpu(dp->size);
		if (size != p->pages * R5J_BLOCK_SECTORS)
			goto bad;
		len = R5J_DATA_PAYLOAD_SIZE + 4 * p->pages;
		if (room < len)
			goto bad;
		p->location = le64_to_cpu(dp->location);
		break;
	case R5LOG_PAYLOAD_FLUSH:
		if (room < R5J_FLUSH_PAYLOAD_SIZE)
			goto bad;
		fl = (const void *)p->raw;
		size = le32_to_cpu(fl->size);
		if (size % 8 || size > room - R5J_FLUSH_PAYLOAD_SIZE)
			goto bad;
		len = R5J_FLUSH_PAYLOAD_SIZE + size;
		p->nr_stripes = size / 8;
		break;
	default:
		goto bad;
	}

	it->offset += len;
	it->pages += p->pages;
	it->log_pos = r5j_ring_add(it->log, it->log_pos,
				   (u64)p->pages * R5J_BLOCK_SECTORS);
	return true;
bad:
	it->err = R5J_BAD_PAYLOAD;
	return false;
}

u32 r5j_payload_csum(const struct r5j_payload *p, unsigned int i)
{
	const struct r5l_payload_data_parity *dp = (const void *)p->raw;

	if (i >= p->pages)
		return 0;
	return le32_to_cpu(dp->checksum[i]);
}

u64 r5j_payload_stripe(const struct r5j_payload *p, unsigned int i)
{
	const struct r5l_payload_flush *fl = (const void *)p->raw;

	if (i >= p->nr_stripes)
		return 0;
	return le64_to_cpu(fl->flush_stripes[i]);
}

u64 r5j_payload_page_pos(const struct r5j_log *log,
			 const struct r5j_payload *p, unsigned int i)
{
	return r5j_ring_add(log, p->log_pos, (u64)i * R5J_BLOCK_SECTORS);
}

enum r5j_reason r5j_meta_pages(const struct r5j_log *log, const void *meta,
			       u32 *pages)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;

	r5j_payload_iter_init(&it, log, meta, 0);
	while (r5j_payload_next(&it, &p))
		;
	*pages = it.pages;
	return it.err;
}
