// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j tracepoints: the one unit that instantiates them.  r5j.h comes
 * first: md.h includes trace headers of its own, which must not be
 * instantiated here.
 */
#include "r5j.h"
#define CREATE_TRACE_POINTS
#include "r5j_trace.h"
