// DuckDB reads the Parquet file of tests/unit/parquet/test_geospatial.c:
// geom/geog carry GEOMETRY/GEOGRAPHY logical types (DuckDB's GEOMETRY) whose
// values are our WKB bytes, b stays a BLOB. Usage: node geo_duckdb_check.mjs
// FILE.parquet. Exit 0 = as expected, 1 = not.
import {createRequire} from 'module';
// The oracle's node_modules (DL_ORACLE_DIR, else the working directory).
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const [, , pq] = process.argv;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const p = `read_parquet('${pq}')`;
const POINT = '0101000000000000000000F03F0000000000000040';
const LINE = '0102000000020000000000000000000000000000000000000000000000000008400000000000001040';
const want = JSON.stringify({
	types: ['GEOMETRY', 'GEOMETRY', 'BLOB'],
	rows: [['POINT (1 2)', 'LINESTRING (0 0, 3 4)', POINT, LINE, POINT],
	       [null, null, null, null, null],
	       ['LINESTRING (0 0, 3 4)', 'POINT (1 2)', LINE, POINT, LINE]],
});
const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM ${p}`);
const r = await con.runAndReadAll(`SELECT geom::VARCHAR, geog::VARCHAR, hex(ST_AsWKB(geom)),
	hex(ST_AsWKB(geog)), hex(b) FROM ${p}`);
const got = JSON.stringify({
	types: d.getRowObjectsJson().map(x => x.column_type),
	rows: r.getRowsJson(),
});
if (got !== want) {
	console.error(`DuckDB read\n${got}\nexpected\n${want}`);
	process.exit(1);
}
console.log('ok: DuckDB reads the geometry/geography columns');
