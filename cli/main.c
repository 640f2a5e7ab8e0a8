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
	 * zeroed pages: a tenth of the CPU of an UPDATE with deletion vectors
	 * went to page faults. Blocks up to 4 MB from the heap, and 16 MB of
	 * free top kept per arena, make the pages reused instead (bench_dml.sh
	 * UPDATE: 27k faults -> 19k, the first touch of its peak). Larger
	 * values saved no more and raised the MERGE benchmark's peak RSS from
	 * 167 to 222 MB (each thread's arena keeps its free top); these keep
	 * it at 168 MB. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
#endif
	return dl_cli_main(argc, argv, stdout, stderr);
}
