#!/usr/bin/env bash
# UniForm Iceberg table properties (docs/UNIFORM.md, "Iceberg table
# properties"): delta.universalFormat.config.iceberg.* pass through to the
# Iceberg metadata's properties with the prefix stripped (stored
# lower-cased in the Delta log), Iceberg's reserved keys left out,
# history.expire.max-snapshot-age-ms computed from the Delta retentions;
# ALTER SET changes and UNSET removes them in the next metadata version; a
# max-snapshot-age-ms above Delta's retention fails the conversion, not
# the commit. schema.name-mapping.default is written at every conversion
# and is Iceberg's name mapping of the current schema, nested fields
# included. Needs DL_CLI and DL_ORACLE_DIR.
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
props_are() { # WHAT "k=v"...: the Iceberg properties but the converted_* and the name mapping
	ice props "$t" | grep -v '^converted_delta_' >"$tmp/got"
	shift_what=$1
	shift
	printf '%s\n' "$@" | sort >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/got" || { fail "$shift_what: Iceberg properties"; diff "$tmp/want" "$tmp/got" >&2; }
	[ "$(ice prop "$t" converted_delta_version)" = "$(version "$t")" ] || fail "$shift_what: not converted"
}

t=$tmp/t
T="delta.\`$t\`"
sql "CREATE TABLE $T (id BIGINT, s STRUCT<a: INT, l: ARRAY<STRUCT<x: INT, y: STRING>>>, m MAP<STRING, ARRAY<INT>>) USING DELTA
     TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg',
       'delta.universalFormat.config.iceberg.write.metadata.compression-codec' = 'none',
       'Delta.UniversalFormat.Config.Iceberg.Commit.Retry.Num-Retries' = '7',
       'delta.universalFormat.config.iceberg.format-version' = '1',
       'delta.universalFormat.config.iceberg.uuid' = 'x',
       'delta.logRetentionDuration' = 'interval 2 days', 'user.key' = 'kept in Delta only')" || fail "create"
# stored lower-cased, as Spark normalizes delta.universalFormat.config.* keys
grep -h '"metaData"' "$t"/_delta_log/*.json | grep -q '"delta.universalformat.config.iceberg.commit.retry.num-retries":"7"' ||
	fail "the pass-through key is not stored lower-cased"
# format-version and uuid are reserved (never persisted); max-snapshot-age = 2 days < 5 days
props_are create commit.retry.num-retries=7 history.expire.max-snapshot-age-ms=172800000 \
	write.format.default=parquet write.metadata.compression-codec=none
ice name-mapping "$t" >"$tmp/ids" || fail "create: the name mapping is not the schema's"
[ "$(cat "$tmp/ids")" = "$(seq -s ' ' 1 11)" ] || fail "create: name mapping ids $(cat "$tmp/ids")"

echo '{"id":1,"s":{"a":1,"l":[{"x":1,"y":"y"}]},"m":{"k":[1]}}' >"$tmp/r.jsonl"
"$DL_CLI" -q write "$t" -i "$tmp/r.jsonl" -m append >/dev/null || fail "insert"
props_are insert commit.retry.num-retries=7 history.expire.max-snapshot-age-ms=172800000 \
	write.format.default=parquet write.metadata.compression-codec=none

sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.universalFormat.config.iceberg.write.metadata.compression-codec' = 'gzip',
     'delta.universalFormat.config.iceberg.history.expire.min-snapshots-to-keep' = '3')" || fail "alter set"
props_are "alter set" commit.retry.num-retries=7 history.expire.max-snapshot-age-ms=172800000 \
	history.expire.min-snapshots-to-keep=3 write.format.default=parquet write.metadata.compression-codec=gzip

sql "ALTER TABLE $T UNSET TBLPROPERTIES ('delta.universalFormat.config.iceberg.commit.retry.num-retries', 'delta.logRetentionDuration')" ||
	fail "alter unset"
props_are "alter unset" history.expire.min-snapshots-to-keep=3 write.format.default=parquet \
	write.metadata.compression-codec=gzip

# a schema change: the next name mapping has the new column (and nested ids)
sql "ALTER TABLE $T ADD COLUMNS (z ARRAY<STRING>)" || fail "add column"
ice name-mapping "$t" >"$tmp/ids" || fail "add column: the name mapping is not the schema's"
[ "$(wc -w <"$tmp/ids")" = 13 ] || fail "add column: name mapping ids $(cat "$tmp/ids")"

# a provided max-snapshot-age-ms larger than Delta's retention (1 week by default): the commit
# stands, the conversion fails and is reported, and the metadata stays where it was
before=$(ice prop "$t" converted_delta_version)
out=$("$DL_CLI" -q sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.universalFormat.config.iceberg.history.expire.max-snapshot-age-ms' = '604800001')" 2>&1) ||
	fail "the commit failed with the conversion: $out"
echo "$out" | grep -q "history.expire.max-snapshot-age-ms should be no less than the min of delta's delta.logRetentionDuration" ||
	fail "no conversion error reported: $out"
[ "$(ice prop "$t" converted_delta_version)" = "$before" ] || fail "a refused conversion published metadata"
# within the retention it passes; then a shorter Delta retention overrides it, as Spark's computed value does
sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.universalFormat.config.iceberg.history.expire.max-snapshot-age-ms' = '604800000')" || fail "age within retention"
[ "$(ice prop "$t" history.expire.max-snapshot-age-ms)" = 604800000 ] || fail "the provided max-snapshot-age-ms is not passed"
sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.deletedFileRetentionDuration' = 'interval 1 day',
     'delta.universalFormat.config.iceberg.history.expire.max-snapshot-age-ms' = '3600000')" || fail "tombstone retention"
[ "$(ice prop "$t" history.expire.max-snapshot-age-ms)" = 86400000 ] || fail "the Delta retention does not override"

# keys outside the prefix are not Iceberg's, and unknown delta.* keys are still refused
[ -z "$(ice prop "$t" user.key)" ] || fail "a plain Delta property reached Iceberg"
out=$("$DL_CLI" -q sql "ALTER TABLE $T SET TBLPROPERTIES ('delta.universalFormat.iceberg.x' = '1')" 2>&1) && fail "unknown key accepted"
echo "$out" | grep -q DELTA_UNKNOWN_CONFIGURATION || fail "unknown key: $out"
ice check-avro "$t" >/dev/null || fail "check-avro"

[ "$fails" = 0 ] && echo "uniform_properties: all passed"
exit $((fails > 0))
