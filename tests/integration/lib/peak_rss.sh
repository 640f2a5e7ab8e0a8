# Sourced by the memory tests: peak_rss CMD ARGS... prints the peak RSS (KB)
# of CMD (its output discarded), or -1 when it fails. For an environment of
# its own: peak_rss env DL_THREADS=1 CMD ... (env execs CMD: same process).
peak_rss() {
	python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)' "$@"
}
