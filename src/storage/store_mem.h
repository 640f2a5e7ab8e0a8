/* The in-memory backend (mem://name[/prefix]), for tests. Objects live in one
 * process-global namespace until dl_store_mem_drop or process exit, so every
 * store opened on the same name sees the same objects from any thread;
 * mem://b/t and mem://b see one object as "x" and "t/x". */
#ifndef DL_STORAGE_STORE_MEM_H
#define DL_STORAGE_STORE_MEM_H

/* Removes every object under mem://`location` (e.g. "name" or "name/t").
 * Returns how many were removed. */
long dl_store_mem_drop(const char *location);

#endif
