/* Listing _delta_log into the segment of one snapshot version. */
#include "log/log_segment.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json/json.h"
#include "storage/backend.h"
#include "util/error.h"
#include "util/mem.h"

void dl_log_commit_path(char *buf, size_t cap, int64_t version)
{
	snprintf(buf, cap, DL_LOG_DIR "/%020" PRId64 ".json", version);
}

static int digits(const char *s, int n, int64_t *out)
{
	int64_t v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9') return 0;
		if (v > (INT64_MAX - 9) / 10) return 0;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 1;
}

static int is_uuid_like(const char *s, size_t n)
{
	if (n == 0) return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F') || s[i] == '-'))
			return 0;
	return 1;
}

dl_log_file_kind dl_log_file_classify(const char *name, int64_t *version, int64_t *end_version,
                                      int32_t *part, int32_t *nparts)
{
	size_t n = strlen(name);
	int64_t v, e, p, k;
	*part = *nparts = 0;
	if (n < 21 || !digits(name, 20, &v) || name[20] != '.') return DL_LOGF_OTHER;
	*version = *end_version = v;
	const char *rest = name + 21;
	size_t rn = n - 21;
	if (strcmp(rest, "json") == 0) return DL_LOGF_COMMIT;
	if (strcmp(rest, "crc") == 0) return DL_LOGF_CRC;
	if (strcmp(rest, "checkpoint.parquet") == 0) return DL_LOGF_CHECKPOINT;
	if (rn == 35 && digits(rest, 20, &e) && strcmp(rest + 20, ".compacted.json") == 0) {
		if (e <= v) return DL_LOGF_OTHER;
		*end_version = e;
		return DL_LOGF_COMPACTION;
	}
	if (rn > 11 && strncmp(rest, "checkpoint.", 11) == 0) {
		const char *c = rest + 11;
		size_t cn = rn - 11;
		if (cn == 29 && digits(c, 10, &p) && c[10] == '.' && digits(c + 11, 10, &k) &&
		    strcmp(c + 21, ".parquet") == 0) {
			if (p < 1 || k < 1 || p > k || k > INT32_MAX) return DL_LOGF_OTHER;
			*part = (int32_t)p;
			*nparts = (int32_t)k;
			return DL_LOGF_CHECKPOINT_PART;
		}
		if (cn > 5 && strcmp(c + cn - 5, ".json") == 0 && is_uuid_like(c, cn - 5))
			return DL_LOGF_CHECKPOINT_V2_JSON;
		if (cn > 8 && strcmp(c + cn - 8, ".parquet") == 0 && is_uuid_like(c, cn - 8))
			return DL_LOGF_CHECKPOINT_V2_PARQUET;
	}
	return DL_LOGF_OTHER;
}

int dl_last_checkpoint_read(dl_store *store, dl_last_checkpoint *out)
{
	uint8_t *data = NULL;
	size_t len = 0;
	memset(out, 0, sizeof *out);
	out->version = -1;
	/* A missing or malformed hint is not an error: readers fall back to
	 * listing the whole log (golden table corrupted-last-checkpoint-kernel). */
	if (dl_store_get(&data, &len, store, DL_LOG_DIR "/_last_checkpoint") < 0) {
		dl_error_clear();
		return 0;
	}
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	if (dl_json_parse(&a, (const char *)data, len, "_last_checkpoint", &root) == 0 &&
	    root->kind == DL_JSON_OBJECT) {
		int64_t v;
		const dl_json *x = dl_json_get(root, "version");
		if (x && dl_json_int64(x, &v) == 0 && v >= 0) {
			out->version = v;
			x = dl_json_get(root, "parts");
			if (x && dl_json_int64(x, &v) == 0 && v > 0 && v <= INT32_MAX) out->parts = (int32_t)v;
			x = dl_json_get(root, "size");
			if (x && dl_json_int64(x, &v) == 0) out->size = v;
			x = dl_json_get(root, "numOfAddFiles");
			if (x && dl_json_int64(x, &v) == 0) out->num_of_add_files = v;
		}
	}
	dl_error_clear();
	dl_arena_free(&a);
	dl_free(data);
	return 0;
}

void dl_log_files_free(dl_log_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) dl_free(files[i].path);
	dl_free(files);
}

/* Lists _delta_log from `start` (NULL for all) into classified files sorted
 * by (version, kind, name) as the store returns names sorted. */
static int list_log(dl_store *store, int64_t start, dl_log_file **out, size_t *n)
{
	char start_name[32];
	dl_object_list l = {NULL, 0};
	*out = NULL;
	*n = 0;
	if (start > 0) snprintf(start_name, sizeof start_name, "%020" PRId64, start);
	int rc = dl_store_list_entries_from(&l, store, DL_LOG_DIR, start > 0 ? start_name : NULL);
	if (rc == DL_ENOTFOUND) {
		dl_error_clear();
		return 0;
	}
	DL_TRY(rc);
	dl_log_file *files = dl_calloc(l.count ? l.count : 1, sizeof *files);
	if (!files) {
		dl_object_list_free(&l);
		return DL_ENOMEM;
	}
	size_t k = 0;
	for (size_t i = 0; i < l.count; i++) {
		const char *name = strrchr(l.items[i].path, '/');
		name = name ? name + 1 : l.items[i].path;
		dl_log_file f = {0};
		f.kind = dl_log_file_classify(name, &f.version, &f.end_version, &f.part, &f.nparts);
		if (f.kind == DL_LOGF_OTHER) continue;
		if (l.items[i].size < 0) {
			/* a directory (or FIFO...) named like a commit or checkpoint:
			 * skipping it would silently drop that version */
			rc = dl_error_set(DL_ECORRUPT, "%s/%s is not a regular file but is named like a log file "
			                  "(%s of version %lld): remove or rename it", DL_LOG_DIR, name,
			                  f.kind == DL_LOGF_COMMIT ? "the commit" : "a file", (long long)f.version);
			dl_log_files_free(files, k);
			dl_object_list_free(&l);
			return rc;
		}
		f.size = l.items[i].size;
		f.mtime_ms = l.items[i].mtime_ms;
		f.path = l.items[i].path; /* taken over below */
		l.items[i].path = NULL;
		if (strchr(f.path, '/') == NULL || strncmp(f.path, DL_LOG_DIR "/", 11) != 0) {
			/* Normalize to a path relative to the table root. */
			size_t need = strlen(name) + sizeof DL_LOG_DIR + 1;
			char *p = dl_malloc(need);
			if (!p) {
				dl_free(f.path);
				dl_log_files_free(files, k);
				dl_object_list_free(&l);
				return DL_ENOMEM;
			}
			snprintf(p, need, DL_LOG_DIR "/%s", name);
			dl_free(f.path);
			f.path = p;
		}
		files[k++] = f;
	}
	dl_object_list_free(&l);
	*out = files;
	*n = k;
	return 0;
}

int dl_log_list_commits(dl_store *store, dl_log_file **out, size_t *n)
{
	dl_log_file *all;
	size_t na;
	DL_TRY(list_log(store, 0, &all, &na));
	size_t k = 0;
	for (size_t i = 0; i < na; i++) {
		if (all[i].kind == DL_LOGF_COMMIT) all[k++] = all[i];
		else dl_free(all[i].path);
	}
	*out = all;
	*n = k;
	return 0;
}

static int copy_file(dl_log_file *dst, const dl_log_file *src)
{
	*dst = *src;
	dst->path = dl_strdup(src->path);
	return dst->path ? 0 : DL_ENOMEM;
}

/* The newest complete checkpoint with version <= max_version: index range
 * [*first, *first + *count) into files, or *count = 0. */
static void choose_checkpoint(const dl_log_file *f, size_t n, int64_t max_version, size_t *first,
                              size_t *count)
{
	*count = 0;
	int64_t best = -1;
	for (size_t i = 0; i < n; i++) {
		if (f[i].version > max_version || f[i].version < best) continue;
		switch (f[i].kind) {
		case DL_LOGF_CHECKPOINT:
		case DL_LOGF_CHECKPOINT_V2_JSON:
		case DL_LOGF_CHECKPOINT_V2_PARQUET:
			if (f[i].version > best || *count == 0) {
				best = f[i].version;
				*first = i;
				*count = 1;
			}
			break;
		case DL_LOGF_CHECKPOINT_PART: {
			if (f[i].part != 1 || (f[i].version == best && *count)) break;
			/* Parts are sorted by name: 1..K of the same K must follow. */
			int32_t k = f[i].nparts, got = 0;
			for (size_t j = i; j < n && f[j].version == f[i].version; j++)
				if (f[j].kind == DL_LOGF_CHECKPOINT_PART && f[j].nparts == k &&
				    f[j].part == got + 1)
					got++;
			if (got == k) {
				best = f[i].version;
				*first = i;
				*count = (size_t)k;
			}
			break;
		}
		default: break;
		}
	}
}

static int collect_parts(dl_log_segment *seg, const dl_log_file *f, size_t n, size_t first,
                         size_t count)
{
	seg->checkpoint = dl_calloc(count, sizeof *seg->checkpoint);
	if (!seg->checkpoint) return DL_ENOMEM;
	const dl_log_file *c0 = &f[first];
	seg->checkpoint_version = c0->version;
	seg->checkpoint_kind = c0->kind;
	if (c0->kind != DL_LOGF_CHECKPOINT_PART) {
		seg->ncheckpoint = 1;
		return copy_file(&seg->checkpoint[0], c0);
	}
	int32_t want = 1;
	for (size_t j = first; j < n && f[j].version == c0->version && want <= c0->nparts; j++) {
		if (f[j].kind != DL_LOGF_CHECKPOINT_PART || f[j].nparts != c0->nparts || f[j].part != want)
			continue;
		DL_TRY(copy_file(&seg->checkpoint[seg->ncheckpoint++], &f[j]));
		want++;
	}
	return 0;
}

static int64_t max_version_of(const dl_log_file *f, size_t n)
{
	int64_t m = -1;
	for (size_t i = 0; i < n; i++) {
		if (f[i].kind == DL_LOGF_COMMIT && f[i].version > m) m = f[i].version;
		if (f[i].kind >= DL_LOGF_CHECKPOINT && f[i].kind <= DL_LOGF_CHECKPOINT_V2_PARQUET &&
		    f[i].version > m)
			m = f[i].version;
	}
	return m;
}

static int collect_commits(dl_log_segment *seg, const dl_log_file *f, size_t n, bool requested)
{
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == DL_LOGF_COMMIT) cap++;
	seg->commits = dl_calloc(cap ? cap : 1, sizeof *seg->commits);
	if (!seg->commits) return DL_ENOMEM;
	int64_t expect = seg->checkpoint_version + 1;
	for (size_t i = 0; i < n; i++) {
		if (f[i].kind != DL_LOGF_COMMIT) continue;
		if (f[i].version == seg->version) {
			seg->last_commit = dl_calloc(1, sizeof *seg->last_commit);
			if (!seg->last_commit) return DL_ENOMEM;
			DL_TRY(copy_file(seg->last_commit, &f[i]));
		}
		if (f[i].version <= seg->checkpoint_version || f[i].version > seg->version) continue;
		if (f[i].version != expect) {
			if (seg->checkpoint_version < 0 && expect == 0)
				return dl_error_set(requested ? DL_ENOTFOUND : DL_ECORRUPT,
				                    "version %" PRId64 " cannot be reconstructed: the log starts at "
				                    "version %" PRId64 " (older commits were cleaned up) and has no "
				                    "checkpoint at or before version %" PRId64,
				                    seg->version, f[i].version, seg->version);
			return dl_error_set(DL_ECORRUPT,
			                    "versions not contiguous: version %" PRId64
			                    " is missing from the log (found version %" PRId64
			                    " after it); the table is corrupt",
			                    expect, f[i].version);
		}
		/* a commit holds at least its commitInfo or one action: an empty
		 * file would read as a version that changed nothing */
		if (f[i].size == 0)
			return dl_error_set(DL_ECORRUPT, "%s is empty: a commit holds at least one action; the log of version "
			                    "%" PRId64 " is corrupt",
			                    f[i].path, f[i].version);
		DL_TRY(copy_file(&seg->commits[seg->ncommits++], &f[i]));
		expect++;
	}
	if (expect != seg->version + 1)
		return dl_error_set(DL_ECORRUPT,
		                    "versions not contiguous: version %" PRId64 " is missing from the log",
		                    expect);
	return 0;
}

/* Greedy cover of the commits by the longest compaction starting at each
 * version: the replay reads those instead of the commits they span. */
static int collect_compactions(dl_log_segment *seg, const dl_log_file *f, size_t n)
{
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == DL_LOGF_COMPACTION) cap++;
	if (!cap) return 0;
	seg->compactions = dl_calloc(cap, sizeof *seg->compactions);
	if (!seg->compactions) return DL_ENOMEM;
	int64_t v = seg->checkpoint_version + 1;
	while (v <= seg->version) {
		const dl_log_file *best = NULL;
		for (size_t i = 0; i < n; i++)
			if (f[i].kind == DL_LOGF_COMPACTION && f[i].version == v &&
			    f[i].end_version <= seg->version && (!best || f[i].end_version > best->end_version))
				best = &f[i];
		if (!best) {
			v++;
			continue;
		}
		DL_TRY(copy_file(&seg->compactions[seg->ncompactions++], best));
		v = best->end_version + 1;
	}
	return 0;
}

static int find_crc(dl_log_segment *seg, const dl_log_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f[i].kind == DL_LOGF_CRC && f[i].version == seg->version) {
			seg->crc = dl_calloc(1, sizeof *seg->crc);
			if (!seg->crc) return DL_ENOMEM;
			return copy_file(seg->crc, &f[i]);
		}
	}
	return 0;
}

static int build_from(dl_log_segment *seg, const dl_log_file *f, size_t n, int64_t version)
{
	int64_t latest = max_version_of(f, n);
	if (latest < 0 && n == 0) return dl_error_set(DL_ENOTFOUND, "not a Delta table: no _delta_log");
	if (latest < 0)
		return dl_error_set(DL_ENOTFOUND, "not a Delta table: _delta_log has no commit or "
		                    "checkpoint file");
	if (version > latest)
		return dl_error_set(DL_ENOTFOUND,
		                    "version %" PRId64 " of the table does not exist: the latest version "
		                    "is %" PRId64,
		                    version, latest);
	seg->version = version < 0 ? latest : version;
	seg->checkpoint_version = -1;
	size_t first = 0, count = 0;
	choose_checkpoint(f, n, seg->version, &first, &count);
	if (count) DL_TRY(collect_parts(seg, f, n, first, count));
	DL_TRY(collect_commits(seg, f, n, version >= 0));
	DL_TRY(collect_compactions(seg, f, n));
	return find_crc(seg, f, n);
}

void dl_log_segment_free(dl_log_segment *seg)
{
	dl_log_files_free(seg->checkpoint, seg->ncheckpoint);
	dl_log_files_free(seg->commits, seg->ncommits);
	dl_log_files_free(seg->compactions, seg->ncompactions);
	if (seg->crc) dl_log_files_free(seg->crc, 1);
	if (seg->last_commit) dl_log_files_free(seg->last_commit, 1);
	memset(seg, 0, sizeof *seg);
}

int dl_log_segment_build(dl_log_segment *out, dl_store *store, int64_t version)
{
	memset(out, 0, sizeof *out);
	dl_last_checkpoint hint;
	DL_TRY(dl_last_checkpoint_read(store, &hint));
	int64_t start = hint.version;
	if (version >= 0 && start > version) start = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		dl_log_file *files;
		size_t n;
		DL_TRY(list_log(store, start > 0 ? start : 0, &files, &n));
		int rc = build_from(out, files, n, version);
		dl_log_files_free(files, n);
		if (rc == 0) return 0;
		dl_log_segment_free(out);
		/* A stale or wrong hint: list the whole log once before failing. */
		if (start <= 0) return rc;
		start = -1;
	}
	return DL_ERROR;
}
