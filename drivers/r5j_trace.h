/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid5j tracepoints (/sys/kernel/tracing/events/raid5j/): a stripe's life
 * (get, handle, release), its member I/O (submit, end), a journal unit's
 * (submit, stable) and the journal tail's moves (reclaim), and write-back's
 * (cache: acknowledged at the journal; evict; reload: read back from the
 * journal; destage: on the members, the journal may let it go).  Documentation/design.md "Tracepoints"
 * has a worked example.  Fields are plain values: the format is read by
 * tools, never by the driver.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM raid5j

#if !defined(RAID5J_R5J_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RAID5J_R5J_TRACE_H

#include <linux/tracepoint.h>
#include "r5j.h"

#define R5J_TRACE_NAME	32	/* md device name, as mdname() gives it */

DECLARE_EVENT_CLASS(r5j_stripe_class,
	TP_PROTO(struct r5j_stripe *sh),
	TP_ARGS(sh),
	TP_STRUCT__entry(
		__array(char, md, R5J_TRACE_NAME)
		__field(u64, sector)
		__field(unsigned long, state)
		__field(int, count)
		__field(int, write_stage)
		__field(bool, prev)
	),
	TP_fast_assign(
		strscpy(__entry->md, mdname(sh->conf->mddev), R5J_TRACE_NAME);
		__entry->sector = sh->sector;
		__entry->state = sh->state;
		__entry->count = atomic_read(&sh->count);
		__entry->write_stage = sh->write_stage;
		__entry->prev = sh->prev;
	),
	TP_printk("%s sector=%llu%s state=%#lx count=%d write_stage=%d",
		  __entry->md, __entry->sector, __entry->prev ? " prev" : "",
		  __entry->state, __entry->count, __entry->write_stage)
);

#define R5J_STRIPE_EVENT(name)						\
	DEFINE_EVENT(r5j_stripe_class, name,				\
		TP_PROTO(struct r5j_stripe *sh),			\
		TP_ARGS(sh))

R5J_STRIPE_EVENT(r5j_stripe_get);
R5J_STRIPE_EVENT(r5j_stripe_handle);
R5J_STRIPE_EVENT(r5j_stripe_release);
R5J_STRIPE_EVENT(r5j_wb_cache);
R5J_STRIPE_EVENT(r5j_wb_evict);
R5J_STRIPE_EVENT(r5j_wb_reload);
R5J_STRIPE_EVENT(r5j_wb_destage);

DECLARE_EVENT_CLASS(r5j_member_class,
	TP_PROTO(struct r5j_stripe *sh, int idx, bool write, bool replacement,
		 int status),
	TP_ARGS(sh, idx, write, replacement, status),
	TP_STRUCT__entry(
		__array(char, md, R5J_TRACE_NAME)
		__field(u64, sector)
		__field(int, idx)
		__field(int, status)
		__field(bool, write)
		__field(bool, replacement)
	),
	TP_fast_assign(
		strscpy(__entry->md, mdname(sh->conf->mddev), R5J_TRACE_NAME);
		__entry->sector = sh->sector;
		__entry->idx = idx;
		__entry->status = status;
		__entry->write = write;
		__entry->replacement = replacement;
	),
	TP_printk("%s sector=%llu dev=%d%s %s status=%d",
		  __entry->md, __entry->sector, __entry->idx,
		  __entry->replacement ? " replacement" : "",
		  __entry->write ? "write" : "read", __entry->status)
);

DEFINE_EVENT(r5j_member_class, r5j_member_submit,
	TP_PROTO(struct r5j_stripe *sh, int idx, bool write, bool replacement,
		 int status),
	TP_ARGS(sh, idx, write, replacement, status));

DEFINE_EVENT(r5j_member_class, r5j_member_end,
	TP_PROTO(struct r5j_stripe *sh, int idx, bool write, bool replacement,
		 int status),
	TP_ARGS(sh, idx, write, replacement, status));

DECLARE_EVENT_CLASS(r5j_unit_class,
	TP_PROTO(struct mddev *mddev, u64 seq, u64 pos, u32 sectors,
		 bool fua, int status),
	TP_ARGS(mddev, seq, pos, sectors, fua, status),
	TP_STRUCT__entry(
		__array(char, md, R5J_TRACE_NAME)
		__field(u64, seq)
		__field(u64, pos)
		__field(u32, sectors)
		__field(int, status)
		__field(bool, fua)
	),
	TP_fast_assign(
		strscpy(__entry->md, mdname(mddev), R5J_TRACE_NAME);
		__entry->seq = seq;
		__entry->pos = pos;
		__entry->sectors = sectors;
		__entry->fua = fua;
		__entry->status = status;
	),
	TP_printk("%s seq=%llu pos=%llu sectors=%u%s status=%d",
		  __entry->md, __entry->seq, __entry->pos, __entry->sectors,
		  __entry->fua ? " fua" : "", __entry->status)
);

DEFINE_EVENT(r5j_unit_class, r5j_unit_submit,
	TP_PROTO(struct mddev *mddev, u64 seq, u64 pos, u32 sectors,
		 bool fua, int status),
	TP_ARGS(mddev, seq, pos, sectors, fua, status));

DEFINE_EVENT(r5j_unit_class, r5j_unit_stable,
	TP_PROTO(struct mddev *mddev, u64 seq, u64 pos, u32 sectors,
		 bool fua, int status),
	TP_ARGS(mddev, seq, pos, sectors, fua, status));

TRACE_EVENT(r5j_journal_reclaim,
	TP_PROTO(struct mddev *mddev, u64 old_tail, u64 new_tail, u64 used),
	TP_ARGS(mddev, old_tail, new_tail, used),
	TP_STRUCT__entry(
		__array(char, md, R5J_TRACE_NAME)
		__field(u64, old_tail)
		__field(u64, new_tail)
		__field(u64, used)
	),
	TP_fast_assign(
		strscpy(__entry->md, mdname(mddev), R5J_TRACE_NAME);
		__entry->old_tail = old_tail;
		__entry->new_tail = new_tail;
		__entry->used = used;
	),
	TP_printk("%s tail=%llu->%llu used=%llu", __entry->md,
		  __entry->old_tail, __entry->new_tail, __entry->used)
);

#endif /* RAID5J_R5J_TRACE_H */

/* out of tree: define_trace.h finds this file through -I drivers */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE r5j_trace
#include <trace/define_trace.h>
