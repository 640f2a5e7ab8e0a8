# Shared by the *_kill.sh tests: kill -9 of a command at random points of
# its run, and the checks that a killed run left a sound table. Sourced;
# needs DL_CLI, $tmp and fail().

# Seeded so that a failure can be replayed: KILL_SEED=... to change it.
kill_seed=${KILL_SEED:-12}

now_ns() { date +%s%N; }

# COUNT random delays (seconds, 3 decimals) within [0, DURATION_NS), sorted:
# points spread over the whole run, the run's own length measured first.
kill_delays() {
	awk -v d="$1" -v n="$2" -v s="$kill_seed" \
		'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.3f\n", rand() * d / 1e9 }' | sort -n
}

# How long CMD... takes, in ns (it runs to the end).
run_ns() {
	local t0 t1
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 || fail "the unkilled run failed: $*"
	t1=$(now_ns)
	echo $((t1 - t0))
}

# Runs CMD... in the background and kills it with SIGKILL after DELAY s.
run_killed() {
	local delay=$1
	shift
	"$@" >/dev/null 2>&1 &
	local pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# TABLE [cat options]: its rows, sorted CSV.
table_rows() {
	local t=$1
	shift
	"$DL_CLI" -q cat "$t" --format csv "$@" | tail -n +2 | sort
}

# WHAT TABLE: the log is whole: every commit file is lines of JSON with one
# commitInfo, the versions run without a gap from the first, and the
# snapshot (history, fsck) reads it with no referenced file missing.
log_valid() {
	local what=$1 t=$2
	# one node run for all commits (node's start-up dominates)
	node -e '
		const fs = require("fs"), path = require("path");
		const dir = path.join(process.argv[1], "_delta_log");
		const commits = fs.readdirSync(dir).filter((f) => /^[0-9]{20}\.json$/.test(f)).sort();
		if (!commits.length) { console.error("no commit"); process.exit(1); }
		let prev = null;
		for (const f of commits) {
			const v = Number(f.slice(0, 20));
			if (prev !== null && v !== prev + 1) { console.error(`commit ${v} follows ${prev}`); process.exit(1); }
			prev = v;
			let ci = 0;
			for (const l of fs.readFileSync(path.join(dir, f), "utf8").split("\n").filter((l) => l)) {
				try { if (JSON.parse(l).commitInfo) ci++; } catch (e) { console.error(`${f}: ${e.message}`); process.exit(1); }
			}
			if (ci !== 1) { console.error(`${f}: ${ci} commitInfo lines`); process.exit(1); }
		}
	' "$t" 2>"$tmp/log_err" || fail "$what: the log of $t is not whole: $(cat "$tmp/log_err")"
	"$DL_CLI" -q history "$t" --format csv >/dev/null 2>"$tmp/err" || fail "$what: history fails: $(cat "$tmp/err")"
	"$DL_CLI" -q fsck "$t" --dry-run --format csv >"$tmp/fsck" 2>"$tmp/err" || fail "$what: fsck fails: $(cat "$tmp/err")"
	[ "$(wc -l <"$tmp/fsck")" -le 1 ] || fail "$what: the log references missing files: $(head -3 "$tmp/fsck")"
}
