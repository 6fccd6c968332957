/* SPDX-License-Identifier: GPL-2.0 */
/*
 * crc32c as md's journal uses it: the raw CRC register, no pre- or
 * post-inversion (the kernel's crc32c_le()).  The standard CRC32C of a
 * buffer is r5j_crc32c(~0, buf, len) ^ ~0.
 *
 * In the kernel this is crc32c() of <linux/crc32c.h> (libcrc32c: the module
 * depends on it, and on crc32c_generic or an accelerated crc32c being
 * loaded first, as raid456 does); in userspace a table-driven
 * implementation in drivers/shared/jformat.c.
 */
#ifndef RAID5J_CRC32C_H
#define RAID5J_CRC32C_H

#include "types.h"

#ifdef __KERNEL__
#include <linux/crc32c.h>

static inline u32 r5j_crc32c(u32 crc, const void *buf, size_t len)
{
	return crc32c(crc, buf, len);
}
#else
u32 r5j_crc32c(u32 crc, const void *buf, size_t len);
#endif

#endif /* RAID5J_CRC32C_H */
