#!/usr/bin/env bash
# UniForm Iceberg (docs/UNIFORM.md): a table created with the seeds'
# properties is read as Iceberg by an independent reader
# (uniform_check.mjs: avsc for the Avro manifests, the metadata JSON by the
# spec, DuckDB reading the listed Parquet files by field id) after appends,
# an overwrite, DELETE, UPDATE, MERGE and OPTIMIZE; at every Iceberg
# snapshot it must see exactly the rows our reader sees at the Delta
# version that snapshot converted. Avro files are checked against the
# spec's manifest schemas. Then: enabling UniForm later converts the whole
# table at once; hudi, deletion vectors and a missing compat flag are
# refused with Spark's error classes. Needs DL_CLI and DL_ORACLE_DIR.
set -uo pipefail
: "${DL_CLI:?DL_CLI must name the deltalake binary}"
: "${DL_ORACLE_DIR:?DL_ORACLE_DIR must name tools/oracle}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ice() { (cd "$DL_ORACLE_DIR" && node "$here/uniform_check.mjs" "$@"); }
sql() { "$DL_CLI" -q sql "$@" >/dev/null; }
version() { "$DL_CLI" detail "$1" --format jsonl | sed 's/.*"version":\([0-9]*\).*/\1/'; }

t=$tmp/t
T="delta.\`$t\`"
pairs=$tmp/pairs
: >"$pairs"
step() { # after a commit: remember (Iceberg snapshot, Delta version) and that they agree now
	local sid v
	sid=$(ice current "$t") || { fail "$1: no Iceberg metadata"; return; }
	v=$(version "$t")
	[ "$(ice prop "$t" converted_delta_version)" = "$v" ] || fail "$1: converted_delta_version is not $v"
	echo "$sid $v $1" >>"$pairs"
}

sql "CREATE TABLE $T (id BIGINT, name STRING, g INT, d DATE) USING DELTA PARTITIONED BY (g)
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "create"
step create
"$DL_CLI" protocol "$t" --format csv | grep -q icebergCompatV2 || fail "the protocol lacks icebergCompatV2"
"$DL_CLI" detail "$t" --format jsonl | grep -q '"delta.columnMapping.mode":"name"' || fail "column mapping was not turned on"
sql "INSERT INTO $T SELECT id, 'n' || CAST(id % 7 AS STRING), CAST(id % 3 AS INT), DATE '2024-01-01' FROM range(0, 300)" || fail "insert 1"
step append1
sql "INSERT INTO $T VALUES (1000, NULL, 1, NULL), (1001, 'x', NULL, DATE '2023-05-06')" || fail "insert 2"
step append2
sql "DELETE FROM $T WHERE id % 10 = 3" || fail "delete"
step delete
sql "UPDATE $T SET name = upper(name) WHERE g = 2" || fail "update"
step update
sql "MERGE INTO $T AS t USING (SELECT id, 'm' AS name FROM range(290, 310)) AS s ON t.id = s.id
     WHEN MATCHED THEN UPDATE SET name = s.name
     WHEN NOT MATCHED THEN INSERT (id, name, g, d) VALUES (s.id, s.name, 0, DATE '2025-02-03')" || fail "merge"
step merge
"$DL_CLI" -q optimize "$t" >/dev/null || fail "optimize"
step optimize
sql "INSERT OVERWRITE $T SELECT id, 'o', 1, NULL FROM range(0, 5)" || fail "overwrite"
step overwrite

# Every snapshot, as the final metadata lists them, against our reader.
mkdir -p "$tmp/snaps"
ice rows-many "$t" "$tmp/snaps" $(cut -d' ' -f1 "$pairs") || fail "the Iceberg reader failed"
while read -r sid v what; do
	"$DL_CLI" cat "$t" --version "$v" --format csv | tail -n +2 | sort >"$tmp/ours.rows"
	if ! cmp -s "$tmp/snaps/$sid.rows" "$tmp/ours.rows"; then
		fail "$what (snapshot $sid, Delta version $v): Iceberg rows differ from ours"
		diff "$tmp/snaps/$sid.rows" "$tmp/ours.rows" | head -5 >&2
	fi
done <"$pairs"
[ "$(wc -l <"$pairs")" -ge 8 ] || fail "expected a snapshot per commit"
[ "$(ice check-avro "$t")" = ok ] || fail "the Avro files do not follow the spec's schemas"

# Enabling UniForm on a table with data: the next commit converts it all.
u=$tmp/later
U="delta.\`$u\`"
sql "CREATE TABLE $U (a INT, b STRING) USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name')" || fail "create later"
sql "INSERT INTO $U VALUES (1, 'a'), (2, 'b'), (3, NULL)" || fail "insert later"
[ -e "$u/metadata" ] && fail "metadata written before UniForm was enabled"
sql "ALTER TABLE $U SET TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "alter later"
ice rows "$u" >"$tmp/ice.rows" || fail "later: the Iceberg reader failed"
"$DL_CLI" cat "$u" --format csv | tail -n +2 | sort >"$tmp/ours.rows"
cmp -s "$tmp/ice.rows" "$tmp/ours.rows" || fail "later: Iceberg rows differ from ours"

# A table created by a relative path and written by relative and absolute
# paths: its Iceberg location is absolute, and every commit converts (no
# warning), whichever way the table is named.
mkdir -p "$tmp/cwd"
(cd "$tmp/cwd" && "$DL_CLI" -q sql "CREATE TABLE delta.\`rel\` (a INT) USING DELTA TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" >/dev/null) || fail "relative: create"
printf 'a\n1\n2\n' >"$tmp/rel.csv"
(cd "$tmp/cwd" && "$DL_CLI" -q write rel --input "$tmp/rel.csv" --mode append 2>"$tmp/rel.err" >/dev/null) || fail "relative: write"
"$DL_CLI" -q write "$tmp/cwd/rel" --input "$tmp/rel.csv" --mode append 2>>"$tmp/rel.err" >/dev/null || fail "absolute: write"
(cd "$tmp" && "$DL_CLI" -q write cwd/rel --input "$tmp/rel.csv" --mode append 2>>"$tmp/rel.err" >/dev/null) || fail "other relative: write"
[ -s "$tmp/rel.err" ] && fail "relative: $(head -1 "$tmp/rel.err")"
grep -q "\"location\":\"$tmp/cwd/rel\"" "$(ls "$tmp"/cwd/rel/metadata/v*.metadata.json | sort -V | tail -1)" || fail "relative: the Iceberg location is not absolute"
[ "$(ice prop "$tmp/cwd/rel" converted_delta_version)" = 3 ] || fail "relative: not every commit was converted"
[ "$(ice rows "$tmp/cwd/rel" | wc -l)" = 6 ] || fail "relative: the Iceberg reader does not see the 6 rows"

# UniForm state: detail, SHOW TBLPROPERTIES, deltalake uniform.
v=$(version "$u")
"$DL_CLI" detail "$u" --format jsonl | grep -q "\"uniformIcebergConvertedVersion\":$v" || fail "detail lacks the converted version"
"$DL_CLI" sql "SHOW TBLPROPERTIES $U (converted_delta_version)" --format csv | grep -q "^converted_delta_version,$v\$" || fail "SHOW TBLPROPERTIES lacks converted_delta_version"
"$DL_CLI" uniform "$u" --format csv | tail -1 | grep -q "^false,$v,$v," || fail "uniform on an up-to-date table converted"

# A failed conversion never fails the commit, and the next one catches up:
# a corrupt newer metadata file makes the conversion after version v+1 fail.
n=$(cat "$u/metadata/version-hint.text")
echo 'not json' >"$u/metadata/v$((n + 1)).metadata.json"
sql "INSERT INTO $U VALUES (4, 'd')" || fail "a failing conversion failed the commit"
[ "$(cat "$u/metadata/version-hint.text")" = "$n" ] || fail "the failed conversion moved the hint"
rm "$u/metadata/v$((n + 1)).metadata.json"
sql "INSERT INTO $U VALUES (5, 'e')" || fail "insert after repair"
[ "$(ice prop "$u" converted_delta_version)" = "$(version "$u")" ] || fail "the next commit did not catch up"
ice rows "$u" >"$tmp/ice.rows" || fail "catch-up: the Iceberg reader failed"
"$DL_CLI" cat "$u" --format csv | tail -n +2 | sort >"$tmp/ours.rows"
cmp -s "$tmp/ice.rows" "$tmp/ours.rows" || fail "catch-up: Iceberg rows differ from ours"
"$DL_CLI" uniform "$tmp/h_none" >/dev/null 2>&1 && fail "uniform on a missing table succeeded"

# Refusals, with the table left as it was.
expect_refusal() { # NAME CLASS SQL
	local out
	out=$("$DL_CLI" -q sql "$3" 2>&1) && { fail "$1: accepted"; return; }
	echo "$out" | grep -q "$2" || fail "$1: expected $2, got: $out"
}
expect_refusal hudi DELTA_UNIVERSAL_FORMAT_VIOLATION \
	"CREATE TABLE delta.\`$tmp/h\` (a INT) USING DELTA TBLPROPERTIES ('delta.universalFormat.enabledFormats' = 'hudi')"
expect_refusal iceberg_hudi DELTA_UNIVERSAL_FORMAT_VIOLATION \
	"CREATE TABLE delta.\`$tmp/h\` (a INT) USING DELTA TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg,hudi')"
expect_refusal no_compat DELTA_UNIVERSAL_FORMAT_VIOLATION \
	"CREATE TABLE delta.\`$tmp/h\` (a INT) USING DELTA TBLPROPERTIES ('delta.universalFormat.enabledFormats' = 'iceberg')"
expect_refusal dv DELTA_ICEBERG_COMPAT_VIOLATION.DELETION_VECTORS_SHOULD_BE_DISABLED \
	"CREATE TABLE delta.\`$tmp/h\` (a INT) USING DELTA TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.enableDeletionVectors' = 'true')"
expect_refusal void DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_DATA_TYPE \
	"CREATE TABLE delta.\`$tmp/h\` (a INT, v VOID) USING DELTA TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true')"
[ -e "$tmp/h/_delta_log" ] && [ -n "$(ls "$tmp/h/_delta_log")" ] && fail "a refused CREATE left a log"
before=$(cat "$t"/_delta_log/*.json | md5sum)
expect_refusal alter_hudi DELTA_UNIVERSAL_FORMAT_VIOLATION \
	"ALTER TABLE $T SET TBLPROPERTIES ('delta.universalFormat.enabledFormats' = 'iceberg,hudi')"
expect_refusal alter_dv DELTA_ICEBERG_COMPAT_VIOLATION.DELETION_VECTORS_SHOULD_BE_DISABLED \
	"ALTER TABLE $T SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
[ "$(cat "$t"/_delta_log/*.json | md5sum)" = "$before" ] || fail "a refused ALTER changed the log"

# Snapshot expiry (Spark's IcebergConverter: only when the converted commits include an OPTIMIZE,
# Iceberg's ExpireSnapshots with the defaults, history.expire.max-snapshot-age-ms = 5 days and
# min-snapshots-to-keep = 1; files deleted only under metadata/). Snapshots are made 6 days old
# by editing the metadata, as if written then.
e=$tmp/expire
E="delta.\`$e\`"
sql "CREATE TABLE $E (id INT, s STRING) USING DELTA
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" || fail "expire: create"
sql "INSERT INTO $E SELECT id, 'a' FROM range(0, 20)" || fail "expire: insert 1"
sql "INSERT INTO $E SELECT id, 'b' FROM range(20, 40)" || fail "expire: insert 2"
sql "DELETE FROM $E WHERE id = 3" || fail "expire: delete" # rewrites the first manifest: the old one is s1's and s2's only
ice backdate "$e" 6 || fail "expire: backdate"
sql "INSERT INTO $E SELECT id, 'c' FROM range(40, 60)" || fail "expire: insert 3"
[ "$(ice snapshots "$e" | head -1 | wc -w)" = 5 ] || fail "expire: a commit without OPTIMIZE expired snapshots: $(ice snapshots "$e" | head -1)"
s4=$(ice current "$e")
sql "INSERT INTO $E SELECT id, 'd' FROM range(60, 70)" || fail "expire: insert 4"
s5=$(ice current "$e")
ice backdate "$e" 6 || fail "expire: backdate 2" # s0..s4 old, s5 (current) recent
ice referenced "$e" >"$tmp/ref.before"
"$DL_CLI" -q optimize "$e" >/dev/null || fail "expire: optimize"
grep -q '"operation":"OPTIMIZE"' "$e/_delta_log/00000000000000000006.json" || fail "expire: version 6 is not an OPTIMIZE"
s6=$(ice current "$e")
# kept: the new head and s5 (not older than 5 days); s4 is 6 days old and one is already kept
[ "$(ice snapshots "$e" | head -1)" = "$s5 $s6" ] || fail "expire: kept snapshots $(ice snapshots "$e" | head -1), want $s5 $s6"
[ "$(ice snapshots "$e" | tail -1)" = "$s5 $s6" ] || fail "expire: snapshot-log $(ice snapshots "$e" | tail -1), want $s5 $s6"
ice referenced "$e" >"$tmp/ref.after"
ls "$e"/metadata/*.avro | sort >"$tmp/avro.after"
cmp -s "$tmp/ref.after" "$tmp/avro.after" || { fail "expire: the Avro files left are not exactly the referenced ones"; diff "$tmp/ref.after" "$tmp/avro.after" >&2; }
[ "$(comm -23 "$tmp/ref.before" "$tmp/ref.after" | grep -c 'snap-')" = 5 ] || fail "expire: the expired manifest lists were not deleted"
[ "$(comm -23 "$tmp/ref.before" "$tmp/ref.after" | grep -vc 'snap-')" -ge 1 ] || fail "expire: no unreferenced manifest was deleted"
"$DL_CLI" cat "$e" --format csv | tail -n +2 | sort >"$tmp/ours"
ice rows "$e" >"$tmp/ice" || fail "expire: Iceberg reader"
cmp -s "$tmp/ours" "$tmp/ice" || fail "expire: Iceberg rows differ from ours"
ice rows "$e" "$s5" >"$tmp/ice5" || fail "expire: Iceberg reader at the kept s5"
cmp -s "$tmp/ours" "$tmp/ice5" || fail "expire: rows at s5 differ (OPTIMIZE changes no rows)"
[ "$(ice check-avro "$e")" = ok ] || fail "expire: the Avro files do not follow the spec"
# every data file of the Delta snapshot is still there (expiry deletes no data file)
"$DL_CLI" cat "$e" --format csv >/dev/null || fail "expire: a data file was deleted"

[ "$fails" -eq 0 ] && echo "uniform_iceberg: ok"
exit $((fails > 0))
