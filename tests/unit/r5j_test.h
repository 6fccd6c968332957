/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit test framework: each tests/unit/test_*.c is its own program.
 *
 *	static void test_something(void)
 *	{
 *		CHECK(x > 0);
 *		CHECK_EQ(r5j_geom_data_disks(&g), 3);
 *		REQUIRE(p != NULL);	// like CHECK, but ends the test case
 *	}
 *
 *	int main(void)
 *	{
 *		RUN_TEST(test_something);
 *		return TEST_DONE();
 *	}
 *
 * A failed check prints file:line, the expression and the values, and fails
 * the current test case (the case goes on, so one run shows every broken
 * check; output stops after R5J_TEST_MAX_REPORTS per case).  TEST_DONE()
 * prints "<program>: N passed, N failed" and a line "R5J-COUNTS N N" that
 * tests/unit/Makefile adds up; it returns the exit status.
 *
 * TEST_NOTE() explains a failure: printed only with the next failed check.
 */
#ifndef R5J_TEST_H
#define R5J_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define R5J_TEST_MAX_REPORTS	10

struct r5j_test_state {
	const char *name;	/* current test case */
	int checks_failed;	/* in the current test case */
	int passed, failed;	/* test cases */
	char note[256];
};

static struct r5j_test_state r5j_t __attribute__((unused));

static inline double r5j_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int r5j_test_report(const char *file, int line)
{
	if (++r5j_t.checks_failed > R5J_TEST_MAX_REPORTS)
		return 0;
	fprintf(stderr, "%s:%d: [%s] ", file, line,
		r5j_t.name ? r5j_t.name : "-");
	return 1;
}

static inline void r5j_test_note_out(void)
{
	if (r5j_t.note[0] && r5j_t.checks_failed <= R5J_TEST_MAX_REPORTS)
		fprintf(stderr, "    (%s)\n", r5j_t.note);
}

/* Context for the next failure message, printf-style. */
#define TEST_NOTE(...) \
	snprintf(r5j_t.note, sizeof(r5j_t.note), __VA_ARGS__)

#define CHECK(cond) ({							\
	int _ok = !!(cond);						\
	if (!_ok && r5j_test_report(__FILE__, __LINE__)) {		\
		fprintf(stderr, "CHECK(%s) failed\n", #cond);		\
		r5j_test_note_out();					\
	}								\
	_ok;								\
})

#define CHECK_EQ(a, b) ({						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	int _ok = _a == _b;						\
	if (!_ok && r5j_test_report(__FILE__, __LINE__)) {		\
		fprintf(stderr, "CHECK_EQ(%s, %s) failed: "		\
			"%lld (%#llx) != %lld (%#llx)\n", #a, #b,	\
			_a, (unsigned long long)_a, _b,			\
			(unsigned long long)_b);			\
		r5j_test_note_out();					\
	}								\
	_ok;								\
})

#define CHECK_MEM(a, b, len) ({						\
	int _ok = !memcmp((a), (b), (len));				\
	if (!_ok && r5j_test_report(__FILE__, __LINE__)) {		\
		fprintf(stderr, "CHECK_MEM(%s, %s, %s) failed\n",	\
			#a, #b, #len);					\
		r5j_test_note_out();					\
	}								\
	_ok;								\
})

/* Fail and end the current test case (use only in the test function). */
#define REQUIRE(cond) do {						\
	if (!CHECK(cond))						\
		return;							\
} while (0)

#define RUN_TEST(fn) do {						\
	double _t0 = r5j_test_now();					\
	r5j_t.name = #fn;						\
	r5j_t.checks_failed = 0;					\
	r5j_t.note[0] = '\0';						\
	fn();								\
	if (r5j_t.checks_failed) {					\
		r5j_t.failed++;						\
		printf("FAIL %s (%d failed checks, %.2fs)\n", #fn,	\
		       r5j_t.checks_failed, r5j_test_now() - _t0);	\
	} else {							\
		r5j_t.passed++;						\
		printf("ok   %s (%.2fs)\n", #fn, r5j_test_now() - _t0);	\
	}								\
	fflush(stdout);							\
} while (0)

#define TEST_DONE() ({							\
	printf("%s: %d passed, %d failed\n", __FILE__,			\
	       r5j_t.passed, r5j_t.failed);				\
	printf("R5J-COUNTS %d %d\n", r5j_t.passed, r5j_t.failed);	\
	fflush(stdout);	/* sanitizers may _exit() after main returns */	\
	r5j_t.failed ? 1 : 0;						\
})

#endif /* R5J_TEST_H */
