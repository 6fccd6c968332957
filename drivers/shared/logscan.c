// SPDX-License-Identifier: GPL-2.0
/*
 * Journal log scanner: walks the ring from a start position and returns
 * every transaction that mainline recovery would accept, then where and
 * why the valid log ends.  See include/raid5j/journal.h for the rules.
 *
 * No allocation (the caller lends two 4 KiB buffers), no recursion, and all
 * I/O goes through the caller's read callback, so the kernel runs it at
 * assembly over sync bios and r5jtool over a file or block device.
 */
#include "raid5j/types.h"
#include "raid5j/journal.h"

void r5j_scan_init(struct r5j_scan *s, const struct r5j_log *log,
		   r5j_read_fn read, void *ctx, void *meta_buf, void *page_buf)
{
	memset(s, 0, sizeof(*s));
	s->log = log;
	s->read = read;
	s->ctx = ctx;
	s->meta = meta_buf;
	s->page = page_buf;
}

void r5j_scan_start_at(struct r5j_scan *s, u64 pos, u64 seq)
{
	s->start_pos = r5j_ring_sanitize(s->log, pos);
	s->tail_reset = s->start_pos != pos;
	s->pos = s->start_pos;
	s->seq = seq;
	s->walked = 0;
	s->stop = R5J_OK;
}

int r5j_scan_start(struct r5j_scan *s, u64 journal_tail)
{
	enum r5j_reason r;
	int err;

	r5j_scan_start_at(s, journal_tail, 0);
	err = s->read(s->ctx, s->pos, s->meta);
	if (err == -ERANGE) {
		s->stop = R5J_DEVICE_END;
		return -ENOENT;
	}
	if (err) {
		s->stop = R5J_IO_ERROR;
		return err;
	}
	/* mainline's load check: magic, version, checksum, position */
	r = r5j_meta_check(s->log, s->meta, s->pos, NULL);
	if (r != R5J_OK && r != R5J_BAD_META_SIZE) {
		s->stop = r;
		return -ENOENT;
	}
	s->seq = r5j_meta_seq(s->meta);
	return 0;
}

/*
 * Check every page of a well-formed transaction at s->pos.  Returns 0 and
 * t->verdict set, or the read callback's error (-ERANGE included).
 */
static int r5j_scan_check_pages(struct r5j_scan *s, struct r5j_txn *t)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	unsigned int i;
	u64 at;
	int err;

	r5j_payload_iter_init(&it, s->log, s->meta, s->pos);
	while (r5j_payload_next(&it, &p)) {
		for (i = 0; i < p.pages; i++) {
			at = r5j_payload_page_pos(s->log, &p, i);
			err = s->read(s->ctx, at, s->page);
			if (err)
				return err;
			if (r5j_page_csum(s->log->seed, s->page) !=
			    r5j_payload_csum(&p, i)) {
				t->verdict = R5J_BAD_PAGE_CSUM;
				t->bad_page = at;
				return 0;
			}
		}
	}
	return 0;
}

/* End the valid log; returns 0 for r5j_scan_next(). */
static int r5j_scan_stop(struct r5j_scan *s, enum r5j_reason why)
{
	s->stop = why;
	return 0;
}

int r5j_scan_next(struct r5j_scan *s, struct r5j_txn *t)
{
	struct r5j_payload_iter it;
	struct r5j_payload p;
	enum r5j_reason r;
	u64 sectors;
	int err;

	if (s->stop != R5J_OK && s->stop != R5J_IO_ERROR)
		return 0;
	s->stop = R5J_OK;
	if (s->walked + R5J_BLOCK_SECTORS > s->log->ring_sectors)
		return r5j_scan_stop(s, R5J_WRAPPED);

	err = s->read(s->ctx, s->pos, s->meta);
	if (err == -ERANGE)
		return r5j_scan_stop(s, R5J_DEVICE_END);
	if (err) {
		s->stop = R5J_IO_ERROR;
		return err;
	}
	r = r5j_meta_check(s->log, s->meta, s->pos, &s->seq);
	if (r != R5J_OK)
		return r5j_scan_stop(s, r);

	memset(t, 0, sizeof(*t));
	t->pos = s->pos;
	t->seq = s->seq;
	t->meta = s->meta;
	t->verdict = R5J_OK;

	r5j_payload_iter_init(&it, s->log, s->meta, s->pos);
	while (r5j_payload_next(&it, &p))
		;
	if (it.err) {
		/* mainline skips the block and tries the next one */
		t->verdict = it.err;
		t->bad_offset = it.offset;
		sectors = R5J_BLOCK_SECTORS;
	} else {
		t->pages = it.pages;
		sectors = (u64)(1 + it.pages) * R5J_BLOCK_SECTORS;
		if (s->walked + sectors > s->log->ring_sectors)
			return r5j_scan_stop(s, R5J_WRAPPED);
		err = r5j_scan_check_pages(s, t);
		if (err == -ERANGE)
			return r5j_scan_stop(s, R5J_DEVICE_END);
		if (err) {
			s->stop = R5J_IO_ERROR;
			return err;
		}
		if (t->verdict != R5J_OK)
			sectors = R5J_BLOCK_SECTORS;
	}

	t->sectors = sectors;
	s->pos = r5j_ring_add(s->log, s->pos, sectors);
	s->seq++;
	s->walked += sectors;
	return 1;
}
