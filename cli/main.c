/* deltalake: the command-line tool. Commands register themselves (cli.h);
 * main only hands the process over to the framework. */
#include <stdio.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "cli.h"

int main(int argc, char **argv)
{
#if defined(M_MMAP_THRESHOLD)
	/* Writes allocate and free buffers of a few MB per column and row
	 * group (pages, dictionaries). glibc raises its mmap threshold to the
	 * largest block freed, after which such buffers come from the heap,
	 * where freed ones stay resident: a 1 GB write peaked 50 MB higher.
	 * A fixed threshold keeps them mapped, returned to the system when
	 * freed; the extra mmap calls cost well under 1% of the time. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
	return dl_cli_main(argc, argv, stdout, stderr);
}
