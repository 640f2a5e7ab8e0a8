/* deltalake: the command-line tool. Commands register themselves (cli.h);
 * main only hands the process over to the framework. */
#include <stdio.h>
#include "cli.h"

int main(int argc, char **argv)
{
	return dl_cli_main(argc, argv, stdout, stderr);
}
