/* deltalake: the command-line tool. Commands register themselves (cli.h);
 * main only hands the process over to the framework. */
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "cli.h"

int main(int argc, char **argv)
{
#ifdef __GLIBC__
	/* A command allocates and frees buffers of a few MB per row group and
	 * batch (pages, columns, output arrays). By default glibc serves those
	 * by mmap and trims freed heap tops, so every reuse faults in fresh
	 * zeroed pages: a fifth of the CPU of an UPDATE with deletion vectors
	 * went to page faults. Keeping them in the heap (up to 32 MB a block,
	 * 64 MB of free top kept) makes the pages reused instead; the process
	 * is short-lived; its peak RSS grew by 7 MB
	 * (83 MB instead of 76 for bench_dml.sh's UPDATE). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
	return dl_cli_main(argc, argv, stdout, stderr);
}
