/* deltalake: the command-line tool. */
#include <stdio.h>
#include <string.h>
#include "deltalake.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("deltalake %s\n", dl_version());
		return 0;
	}
	printf("usage: deltalake COMMAND [ARGS]\n");
	return argc > 1 ? 2 : 0;
}
