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
	/* Commands allocate and free buffers of a few MB per column, row group
	 * and batch (pages, dictionaries, output arrays). glibc's default
	 * raises its mmap threshold to the largest block freed, after which
	 * such buffers come from the heap, where freed ones stay resident: a
	 * 1 GB write peaked 50 MB higher. A fixed 256 KiB threshold keeps them
	 * mapped and returned when freed (the 440 MB CSV write of
	 * bench_s3_write.sh's generator: 267-270 MB peak; 4 MiB gave 305 MB).
	 * Smaller blocks stay on the heap, whose freed top is kept up to 16 MB
	 * per arena instead of trimmed at once, so reusing them does not fault
	 * in fresh zeroed pages (bench_dml.sh's UPDATE spent a tenth of its CPU
	 * in page faults). Memory bounds come first: issue 14's 1 GB write
	 * must stay under 256 MB. DELETE and UPDATE, which read much and
	 * write little, raise the threshold (dl_cli_malloc_for_reads). */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
	return dl_cli_main(argc, argv, stdout, stderr);
}
