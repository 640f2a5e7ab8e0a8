/* libFuzzer harness for the sharing server's YAML config parser
 * (src/sharing/config_yaml.c): any bytes must either load or fail with
 * DL_EINVALID / DL_ENOMEM (never crash, hang, leak or expand aliases), and
 * a loaded config must hold what the server relies on: at least one
 * recipient, names without '/', every granted share present. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sharing/server.h"
#include "util/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_shr_config c;
	int rc = dl_shr_config_parse(&c, (const char *)data, size, "fuzz.yaml");
	if (rc < 0) {
		if (rc != DL_EINVALID && rc != DL_ENOMEM) abort();
		return 0;
	}
	if (c.nrecipients == 0 || !c.endpoint) abort();
	for (size_t i = 0; i < c.nshares; i++) {
		const dl_shr_share *s = &c.shares[i];
		if (!s->name || strchr(s->name, '/')) abort();
		for (size_t j = 0; j < s->nschemas; j++)
			for (size_t k = 0; k < s->schemas[j].ntables; k++)
				if (!s->schemas[j].tables[k].location) abort();
	}
	for (size_t i = 0; i < c.nrecipients; i++)
		for (size_t j = 0; j < c.recipients[i].nshares; j++)
			if (!dl_shr_config_share(&c, c.recipients[i].shares[j])) abort();
	dl_shr_config_free(&c);
	return 0;
}
