// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace stand-ins for the kernel's xor_blocks() and raid6 library
 * (raid6_call.gen_syndrome and .xor_syndrome, raid6_2data_recov,
 * raid6_datap_recov), with the
 * kernel's signatures and pointer-table conventions, so drivers/shared/
 * parity.c runs unchanged in unit tests and tools.
 *
 * GF(2^8) with polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d), generator {02};
 * Q = sum over data slots z of {02}^z * D[z].  Table driven; test_parity.c
 * checks results against its own bit-by-bit arithmetic.
 *
 * The entry points also check the rules the kernel versions silently rely
 * on (1..MAX_XOR_BLOCKS xor sources, faila < failb < data slots, at least
 * two data slots) and abort on a violation, so misuse fails the tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include "raid5j/types.h"
#include "raid5j/parity.h"

static u8 gf_mul_tab[256][256];
static u8 gf_exp[256];	/* {02}^i, i < 255 */
static u8 gf_log[256];
static u8 gf_inv[256];

static void __attribute__((constructor)) gf_init(void)
{
	unsigned int x = 1;
	int i, a, b;

	for (i = 0; i < 255; i++) {
		gf_exp[i] = x;
		gf_log[x] = i;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	gf_exp[255] = gf_exp[0];
	for (a = 0; a < 256; a++)
		for (b = 0; b < 256; b++)
			gf_mul_tab[a][b] = (a && b) ?
				gf_exp[(gf_log[a] + gf_log[b]) % 255] : 0;
	for (a = 1; a < 256; a++)
		gf_inv[a] = gf_exp[(255 - gf_log[a]) % 255];
}

static void user_bug(const char *what)
{
	fprintf(stderr, "raid6_user: %s\n", what);
	abort();
}

void xor_blocks(unsigned int count, unsigned int bytes, void *dest,
		void **srcs)
{
	u8 *d = dest;
	unsigned int i, j;

	if (count < 1 || count > MAX_XOR_BLOCKS)
		user_bug("xor_blocks: 1..MAX_XOR_BLOCKS sources per call");
	for (i = 0; i < count; i++) {
		const u8 *s = srcs[i];

		for (j = 0; j + 8 <= bytes; j += 8) {
			u64 a, b;

			memcpy(&a, d + j, 8);
			memcpy(&b, s + j, 8);
			a ^= b;
			memcpy(d + j, &a, 8);
		}
		for (; j < bytes; j++)
			d[j] ^= s[j];
	}
}

/* Eight GF(2^8) multiplications by {02} at once. */
static inline u64 gf_mul2_x8(u64 v)
{
	u64 hi = v & 0x8080808080808080ULL;

	return ((v << 1) & 0xfefefefefefefefeULL) ^ ((hi >> 7) * 0x1d);
}

/* P and Q over ptrs[0 .. disks - 3] into ptrs[disks - 2], ptrs[disks - 1]. */
static void user_gen_syndrome(int disks, size_t bytes, void **ptrs)
{
	u8 *p = ptrs[disks - 2], *q = ptrs[disks - 1];
	int z, hi = disks - 3;
	size_t i;

	if (disks < 4)
		user_bug("gen_syndrome: fewer than two data slots");
	if (bytes % 8)
		user_bug("gen_syndrome: length not a multiple of 8");
	/* Horner: Q = (((D_hi * 2) + D_hi-1) * 2 ...) + D_0, 8 bytes a step */
	for (i = 0; i < bytes; i += 8) {
		u64 wp, wq, d;

		memcpy(&wp, (u8 *)ptrs[hi] + i, 8);
		wq = wp;
		for (z = hi - 1; z >= 0; z--) {
			memcpy(&d, (u8 *)ptrs[z] + i, 8);
			wp ^= d;
			wq = gf_mul2_x8(wq) ^ d;
		}
		memcpy(p + i, &wp, 8);
		memcpy(q + i, &wq, 8);
	}
}

/* P ^= D[start..stop], Q ^= sum {02}^z D[z] over the same range. */
static void user_xor_syndrome(int disks, int start, int stop, size_t bytes,
			      void **ptrs)
{
	u8 *p = ptrs[disks - 2], *q = ptrs[disks - 1];
	int z;
	size_t i;

	if (start < 0 || start > stop || stop > disks - 3)
		user_bug("xor_syndrome: need 0 <= start <= stop < data slots");
	if (bytes % 8)
		user_bug("xor_syndrome: length not a multiple of 8");
	for (i = 0; i < bytes; i += 8) {
		u64 wp, wq, d, v;

		memcpy(&wp, (u8 *)ptrs[stop] + i, 8);
		wq = wp;
		for (z = stop - 1; z >= start; z--) {
			memcpy(&d, (u8 *)ptrs[z] + i, 8);
			wp ^= d;
			wq = gf_mul2_x8(wq) ^ d;
		}
		/* slots below start contribute nothing but their powers */
		for (z = start - 1; z >= 0; z--)
			wq = gf_mul2_x8(wq);
		memcpy(&v, p + i, 8);
		v ^= wp;
		memcpy(p + i, &v, 8);
		memcpy(&v, q + i, 8);
		v ^= wq;
		memcpy(q + i, &v, 8);
	}
}

struct raid6_calls raid6_call = {
	.gen_syndrome = user_gen_syndrome,
	.xor_syndrome = user_xor_syndrome,
	.name = "user",
};

static u8 user_zero[R5J_BLOCK_SIZE];

/* Data slots a < b lost; P and Q present. */
static void user_2data_recov(int disks, size_t bytes, int faila, int failb,
			     void **ptrs)
{
	u8 *p = ptrs[disks - 2], *q = ptrs[disks - 1];
	u8 *da = ptrs[faila], *db = ptrs[failb];
	u8 ca, cb;
	size_t i;

	if (faila < 0 || faila >= failb || failb >= disks - 2)
		user_bug("2data_recov: need faila < failb < data slots");
	if (bytes > sizeof(user_zero))
		user_bug("2data_recov: block too large");

	/* P and Q of the rest, into the lost blocks' buffers */
	ptrs[faila] = user_zero;
	ptrs[failb] = user_zero;
	ptrs[disks - 2] = da;
	ptrs[disks - 1] = db;
	user_gen_syndrome(disks, bytes, ptrs);
	ptrs[faila] = da;
	ptrs[failb] = db;
	ptrs[disks - 2] = p;
	ptrs[disks - 1] = q;

	/*
	 * dp = Da + Db, dq = g^a Da + g^b Db, so
	 * Da = (g^(b-a) dp + g^-a dq) / (g^(b-a) + 1).
	 */
	ca = gf_inv[gf_exp[failb - faila] ^ 1];
	cb = gf_mul_tab[ca][gf_inv[gf_exp[faila]]];
	ca = gf_mul_tab[ca][gf_exp[failb - faila]];
	for (i = 0; i < bytes; i++) {
		u8 dp = p[i] ^ da[i], dq = q[i] ^ db[i];
		u8 a = gf_mul_tab[ca][dp] ^ gf_mul_tab[cb][dq];

		da[i] = a;
		db[i] = a ^ dp;
	}
}

/* Data slot a and P lost; Q present. */
static void user_datap_recov(int disks, size_t bytes, int faila, void **ptrs)
{
	u8 *p = ptrs[disks - 2], *q = ptrs[disks - 1];
	u8 *da = ptrs[faila];
	u8 c;
	size_t i;

	if (faila < 0 || faila >= disks - 2)
		user_bug("datap_recov: faila not a data slot");
	if (bytes > sizeof(user_zero))
		user_bug("datap_recov: block too large");

	ptrs[faila] = user_zero;
	ptrs[disks - 1] = da;
	user_gen_syndrome(disks, bytes, ptrs);
	ptrs[faila] = da;
	ptrs[disks - 1] = q;

	/* q + Q' = g^a Da; P = P' + Da */
	c = gf_inv[gf_exp[faila]];
	for (i = 0; i < bytes; i++) {
		u8 a = gf_mul_tab[c][q[i] ^ da[i]];

		da[i] = a;
		p[i] ^= a;
	}
}

void (*raid6_2data_recov)(int disks, size_t bytes, int faila, int failb,
			  void **ptrs) = user_2data_recov;
void (*raid6_datap_recov)(int disks, size_t bytes, int faila,
			  void **ptrs) = user_datap_recov;
