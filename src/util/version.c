#include "deltalake.h"

const char *dl_version(void)
{
	return "0.1.0";
}
