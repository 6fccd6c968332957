// SPDX-License-Identifier: GPL-2.0
/*
 * nowait_io: O_DIRECT reads or writes with RWF_NOWAIT, timed.
 *
 *   nowait_io read|write DEV OFFSET LEN COUNT STEP
 *	COUNT calls of LEN bytes at OFFSET, OFFSET + STEP, ... (bytes);
 *	writes carry the byte 0x5a.  Prints one line:
 *	"ok N eagain N other N last_errno E max_ms M" and exits 0, or 2
 *	when it could not run (open, allocation).  The caller judges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int ok = 0, eagain = 0, other = 0, last_errno = 0, fd, write, i;
	long long offset, step, count;
	double max_ms = 0;
	struct iovec iov;
	size_t len;
	void *buf;

	if (argc != 7) {
		fprintf(stderr, "usage: %s read|write DEV OFFSET LEN COUNT STEP\n",
			argv[0]);
		return 2;
	}
	write = !strcmp(argv[1], "write");
	offset = strtoll(argv[3], NULL, 0);
	len = strtoull(argv[4], NULL, 0);
	count = strtoll(argv[5], NULL, 0);
	step = strtoll(argv[6], NULL, 0);
	fd = open(argv[2], (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	if (posix_memalign(&buf, 4096, len)) {
		fprintf(stderr, "no memory\n");
		return 2;
	}
	memset(buf, 0x5a, len);
	iov.iov_base = buf;
	iov.iov_len = len;
	for (i = 0; i < count; i++) {
		double t0 = now_ms(), dt;
		ssize_t r;

		if (write)
			r = pwritev2(fd, &iov, 1, offset + i * step, RWF_NOWAIT);
		else
			r = preadv2(fd, &iov, 1, offset + i * step, RWF_NOWAIT);
		dt = now_ms() - t0;
		if (dt > max_ms)
			max_ms = dt;
		if (r == (ssize_t)len) {
			ok++;
		} else if (r < 0 && errno == EAGAIN) {
			eagain++;
		} else {
			other++;
			last_errno = r < 0 ? errno : 0;
		}
	}
	printf("ok %d eagain %d other %d last_errno %d max_ms %.0f\n", ok,
	       eagain, other, last_errno, max_ms);
	return 0;
}
