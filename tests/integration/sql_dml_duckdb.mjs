// DuckDB side of sql_dml.sh: runs a script of ';'-separated statements
// (the same text `deltalake sql` ran, with USING DELTA and TBLPROPERTIES
// clauses removed, as DuckDB has no such clauses) in an in-memory database
// and prints the final query's rows as CSV lines, NULL as empty.
// usage: node sql_dml_duckdb.mjs SCRIPT_FILE
import {createRequire} from 'module';
import {readFileSync} from 'fs';
const require = createRequire((process.env.DL_ORACLE_DIR || process.cwd()) + '/');
const {DuckDBInstance} = require('@duckdb/node-api');

const text = readFileSync(process.argv[2], 'utf8')
	.replace(/\bUSING DELTA\b/gi, '')
	.replace(/\bPARTITIONED BY \([^)]*\)/gi, '')
	.replace(/\bTBLPROPERTIES \([^)]*\)/gi, '');
const stmts = text.split(';').map(s => s.trim()).filter(s => s.length);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
let last = [];
for (const s of stmts) last = (await con.runAndReadAll(s)).getRows();
const cell = v => (v === null ? '' : typeof v === 'bigint' ? v.toString() : String(v));
for (const r of last) console.log(r.map(cell).join(','));
