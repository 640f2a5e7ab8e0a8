#!/usr/bin/env bash
# `make run`: a narrated tour of the deltalake CLI, on a fresh clone.
#
# Each step says what it shows, prints the command, then runs it; any failure
# stops the tour with its exit code. Extend it as commands land: add a
# section with `section "Title"` and `step "what it shows" deltalake ARGS...`
# (the word `deltalake` is replaced by the binary under test). Keep every step
# true: only commands that exist, on data the tour creates in $work or reads
# from the shared test tables.
#
# usage: scripts/quickstart.sh [PATH-TO-deltalake]     (default: build/bin/deltalake)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$root/build/bin/deltalake}
[ -x "$cli" ] || { echo "quickstart: no binary at $cli; run 'make' first" >&2; exit 1; }
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
work=$(mktemp -d "${TMPDIR:-/tmp}/deltalake-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -t 1 ]; then bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'; else bold='' dim='' off=''; fi

section() { printf '\n%s== %s ==%s\n' "$bold" "$1" "$off"; }

# The command line as one would type it (quotes where the shell needs them).
show() {
	local out='$ deltalake' a
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./,:=@%+-]+$ ]]; then out+=" $a"; else out+=" '${a//\'/\'\\\'\'}'"; fi
	done
	printf '%s\n' "$out"
}

# step "narration" deltalake ARGS...: shows and runs one command.
step() {
	local say=$1; shift
	[ "$1" = deltalake ] && shift
	printf '\n%s# %s%s\n' "$dim" "$say" "$off"
	show "$@"
	"$cli" "$@"
}

# expect_fail CODE "narration" deltalake ARGS...: a step that must fail with CODE.
expect_fail() {
	local want=$1 say=$2; shift 2
	[ "$1" = deltalake ] && shift
	printf '\n%s# %s%s\n' "$dim" "$say" "$off"
	show "$@"
	local rc=0
	"$cli" "$@" 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || { echo "quickstart: expected exit $want, got $rc" >&2; exit 1; }
	printf '%s(exit %d)%s\n' "$dim" "$rc" "$off"
}

# has COMMAND...: true when the binary has that command (for optional parts).
has() { "$cli" help "$@" >/dev/null 2>&1; }

section "The tool"
step "Which version is this?" deltalake --version
step "The commands it has (each has --help)" deltalake --help
step "What it is built on, as JSON (every listing takes --format table|csv|jsonl|json|vertical)" \
	deltalake version --verbose --format json

section "Errors say what to do"
expect_fail 2 "A typo: exit code 2 and a suggestion" deltalake versoin
expect_fail 2 "An unknown option: exit code 2" deltalake version --colour

# Shared test data (the conformance tables): as the tests find it.
shared=${DL_SHARED_DIR:-$root/../shared}
[ -d "$shared/conformance" ] || shared=/work/shared

pq=$(find "$shared/conformance/golden/data-reader-nested-struct" -name '*.parquet' 2>/dev/null | sort | head -1)
if has parquet cat && [ -n "$pq" ]; then
	cp "$pq" "$work/nested.parquet"
	cd "$work"
	section "Parquet files"
	step "The schema of a Parquet file Spark wrote (a nested struct)" deltalake parquet schema nested.parquet
	step "Its rows: nested values print like Spark's show()" deltalake parquet cat nested.parquet --limit 3
	step "The same rows as JSON lines, ready for jq or DuckDB" \
		deltalake parquet cat nested.parquet --format jsonl --limit 2
	step "Only some columns, as CSV" deltalake parquet cat nested.parquet --columns b --format csv
fi

tt="$shared/conformance/golden/time-travel-start-start20-start40/delta"
if has cat && has history && [ -d "$tt/_delta_log" ]; then
	cp -r "$tt" "$work/events"
	cd "$work"
	section "A Delta table written by Spark"
	step "Its commits, newest first (three appends of 10 rows)" deltalake history events --format csv
	step "What it is, one field per line (--format vertical suits wide rows)" \
		deltalake detail events --format vertical
	step "Its columns" deltalake schema events
	step "Rows matching a predicate: files and row groups are pruned by their statistics" \
		deltalake cat events --where "id >= 27"
	step "Time travel: the table as it was at version 0" deltalake cat events --version 0 --limit 3
	step "The data files of the latest version" deltalake files events --format csv
fi

if has create && has write; then
	cd "$work"
	section "Writing a Delta table"
	printf 'id,region,amount,day\n1,north,12.5,2024-01-01\n2,south,7,2024-01-01\n3,north,3.25,2024-01-02\n' >jan.csv
	printf '{"id":4,"region":"south","amount":20,"day":"2024-01-02"}\n{"id":5,"region":"east","amount":1,"day":"2024-01-03"}\n' >more.jsonl
	printf 'id,region,amount,day\n6,north,-5,2024-01-03\n' >bad.csv
	printf 'id,region,amount,day\n2,south,70,2024-01-01\n7,west,8,2024-01-01\n' >fix.csv
	step "Create a table: a Spark SQL column list, partitioned by day, with a CHECK constraint" \
		deltalake create sales --schema "id BIGINT NOT NULL, region STRING COMMENT 'sales region', amount DOUBLE, day DATE" \
		--partition-by day --constraint positive="amount > 0"
	step "Append a CSV file (values take the table's column types)" deltalake write sales --input jan.csv --mode append
	step "Append JSON lines" deltalake write sales --input more.jsonl --mode append
	expect_fail 1 "A row breaking the constraint is refused, and the table stays as it was" \
		deltalake write sales --input bad.csv --mode append
	step "Overwrite one slice: replace the rows of 2024-01-01 only (replaceWhere)" \
		deltalake write sales --input fix.csv --mode overwrite --replace-where "day = '2024-01-01'"
	step "The table now" deltalake cat sales
	step "Time travel: the table before the overwrite (version 2)" deltalake cat sales --version 2
	step "Every commit: create, two appends, the overwrite with its predicate" \
		deltalake history sales --format csv
	step "The protocol chosen for the features used (CHECK constraints need writer version 3)" \
		deltalake protocol sales
fi

if has delete && has update && has merge && has create && has write; then
	cd "$work"
	section "Changing rows: DELETE, UPDATE, MERGE"
	step "A table with deletion vectors: a delete marks rows instead of rewriting files" \
		deltalake create orders --schema "id BIGINT, item STRING, qty INT" \
		--property delta.enableDeletionVectors=true
	printf 'id,item,qty\n1,apple,3\n2,pear,1\n3,plum,7\n4,fig,2\n' >orders.csv
	step "Four orders" deltalake write orders --input orders.csv --mode append
	step "DELETE the small orders (prints Spark's num_affected_rows)" deltalake delete orders --where "qty < 2"
	step "UPDATE with an expression over the old values" deltalake update orders --set "qty = qty * 10" --where "item = 'plum'"
	printf 'id,item,qty\n1,apple,5\n9,kiwi,4\n' >changes.csv
	step "MERGE an upsert from a CSV file: matched rows updated, new ones inserted" \
		deltalake merge orders --source changes.csv --alias t,s --on "t.id = s.id" \
		--when "MATCHED THEN UPDATE SET qty = s.qty" --when "NOT MATCHED THEN INSERT *"
	step "The rows now" deltalake cat orders
	step "Each change is a commit with Spark's operation and metrics" deltalake history orders --format csv
fi

if has sql; then
	cd "$work"
	section "SQL"
	step "A warehouse of named tables, as Spark lays it out; statements separated by ';'" \
		deltalake sql --warehouse wh "CREATE SCHEMA shop;
		CREATE TABLE shop.customers (id BIGINT NOT NULL, name STRING, country STRING) USING DELTA;
		INSERT INTO shop.customers VALUES (1, 'Ada', 'UK'), (2, 'Linus', 'FI'), (3, 'Grace', 'US');
		CREATE TABLE shop.sales (id BIGINT, customer BIGINT, amount DECIMAL(10,2), day DATE) USING DELTA PARTITIONED BY (day);
		INSERT INTO shop.sales SELECT id, id % 3 + 1, CAST(id * 1.25 AS DECIMAL(10,2)), DATE'2024-01-01' + CAST(id % 4 AS INT) FROM range(1, 41)"
	step "A join, an aggregate and a window function" \
		deltalake sql --warehouse wh "SELECT c.name, count(*) AS orders, sum(s.amount) AS total,
		  rank() OVER (ORDER BY sum(s.amount) DESC) AS rank
		FROM shop.sales s JOIN shop.customers c ON s.customer = c.id GROUP BY c.name ORDER BY rank"
	step "MERGE in SQL: upsert from a VALUES list, with Spark's result columns" \
		deltalake sql --warehouse wh "MERGE INTO shop.customers t USING (VALUES (3, 'Grace Hopper', 'US'), (4, 'Edsger', 'NL')) AS u(id, name, country)
		ON t.id = u.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
	step "Time travel: the table before the MERGE" \
		deltalake sql --warehouse wh "SELECT * FROM shop.customers VERSION AS OF 1 ORDER BY id"
	step "EXPLAIN: a filter on the partition column prunes files" \
		deltalake sql --warehouse wh --format csv "EXPLAIN SELECT sum(amount) FROM shop.sales WHERE day = DATE'2024-01-02'"
	step "DESCRIBE HISTORY, SHOW TABLES: the catalog's view" \
		deltalake sql --warehouse wh --format csv "SHOW TABLES IN shop; DESCRIBE HISTORY shop.customers LIMIT 2"
	step "ROLLUP: subtotals per country and a grand total (grouping() tells a rolled-up NULL)" \
		deltalake sql --warehouse wh "SELECT c.country, c.name, sum(s.amount) AS total, grouping(c.name) AS subtotal
		FROM shop.sales s JOIN shop.customers c ON s.customer = c.id GROUP BY ROLLUP(c.country, c.name)
		ORDER BY c.country NULLS LAST, c.name NULLS LAST"
	expect_fail 1 "Errors carry Spark's error class" deltalake sql --warehouse wh "SELECT nme FROM shop.customers"
fi

if has ingest && has optimize && has alter; then
	cd "$work"
	section "Streaming, ALTER and maintenance"
	seq 1 2500 | awk 'BEGIN { print "id,kind" } { print $1 "," ($1 % 3 == 0 ? "click" : "view") }' >clicks.csv
	step "ingest: CSV from a pipe in exactly-once micro-batches (a rerun on the same checkpoint adds nothing)" \
		deltalake ingest clicks --input clicks.csv --checkpoint clicks.ckpt --batch-rows 1000
	step "Each batch is one commit carrying its txn id" deltalake history clicks --format csv
	step "ALTER TABLE: a new column with a comment" \
		deltalake alter clicks "ADD COLUMNS (source STRING COMMENT 'where the click came from')"
	step "A CHECK constraint: every existing row is checked first" deltalake alter clicks "ADD CONSTRAINT positive CHECK (id > 0)"
	step "OPTIMIZE ZORDER BY: the small files compacted, rows ordered by id (Spark's metrics)" \
		deltalake optimize clicks --zorder-by id --format vertical
	step "VACUUM (dry run): the files no version inside the retention window needs" \
		deltalake vacuum clicks --dry-run --retain 0 --no-retention-check --format csv
fi

cd "$work"
section "Results to a file"
step "-o writes the results to a file (only when the command succeeds)" \
	deltalake version -v --format csv -o versions.csv
printf '%s# the file:%s\n' "$dim" "$off"
cat versions.csv

printf '\n%sDone.%s Next: README.md for the C library, docs/CLI.md for every command.\n' "$bold" "$off"
