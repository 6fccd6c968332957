/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for code that compiles both in the kernel module and in
 * userspace (unit tests, r5jtool).  Pure-logic files include only this header
 * and their own, never a kernel or libc header directly.
 */
#ifndef RAID5J_TYPES_H
#define RAID5J_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <linux/types.h>	/* __le32 etc., as used by <linux/raid/md_p.h> */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define le16_to_cpu(x) le16toh(x)
#define le32_to_cpu(x) le32toh(x)
#define le64_to_cpu(x) le64toh(x)
#define cpu_to_le16(x) htole16(x)
#define cpu_to_le32(x) htole32(x)
#define cpu_to_le64(x) htole64(x)
#endif

#endif /* RAID5J_TYPES_H */
