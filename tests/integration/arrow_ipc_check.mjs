// Reads an Arrow IPC stream written by libdeltalake (the sample of
// tests/unit/columnar/sample.h, batches of 29, 0 and 7 rows) with the
// apache-arrow npm package and checks the schema and every value.
// Usage: node arrow_ipc_check.mjs <oracle dir> <file>
import { createRequire } from 'module';
import { readFileSync } from 'fs';
const require = createRequire(process.argv[2] + '/');
const { tableFromIPC } = require('apache-arrow');

const t = tableFromIPC(readFileSync(process.argv[3]));
let failures = 0;
function check(what, got, want) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) {
    if (failures++ < 20) console.error(`MISMATCH ${what}: got ${g} want ${w}`);
  }
}

const expectTypes = {
  b: 'Bool', i8: 'Int8', i16: 'Int16', i32: 'Int32', i64: 'Int64', f32: 'Float32', f64: 'Float64',
  dec: 'Decimal[10e+2]', s: 'Utf8', bin: 'Binary', dt: 'Date32<DAY>', ts: 'Timestamp<MICROSECOND, UTC>',
  tsn: 'Timestamp<MICROSECOND>', st: 'Struct<{x:Int64, y:Utf8}>', arr: 'List<Int32>',
  m: 'Map<{key:Utf8, value:List<Float64>}>',
  deep: 'List<Struct<{k:Utf8, v:Map<{key:Int32, value:Utf8}>}>>',
  v: 'Struct<{value:Binary, metadata:Binary}>', n: 'Null',
};
const names = Object.keys(expectTypes);
check('field names', t.schema.fields.map(f => f.name), names);
for (const f of t.schema.fields) {
  check(`type of ${f.name}`, String(f.type), expectTypes[f.name]);
  check(`nullable ${f.name}`, f.nullable, f.name !== 'i32');
}
const md = Object.fromEntries(t.schema.fields.map(f => [f.name, Object.fromEntries(f.metadata)]));
check('i32 metadata', md.i32, { 'delta.metadata': '{"comment":"id"}' });
check('v metadata', md.v, { 'ARROW:extension:name': 'arrow.parquet.variant', 'ARROW:extension:metadata': '' });
check('b metadata', md.b, {});
const mapType = t.schema.fields[15].type;
check('map entries', [mapType.children[0].name, mapType.children[0].nullable,
  mapType.children[0].type.children[0].nullable], ['entries', false, false]);
check('rows', t.numRows, 36);
check('batches', t.batches.length, 3);

// Plain JS values from arrow-js ones.
function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Array.from(v);
  if (v.constructor && v.constructor.name === 'DecimalBigNum') {
    let x = 0n;
    for (let i = 3; i >= 0; i--) x = (x << 32n) | BigInt(v[i] >>> 0);
    return BigInt.asIntN(128, x).toString();
  }
  if (typeof v.toArray === 'function' && typeof v.length === 'number' && v.type) {
    const out = [];
    for (let i = 0; i < v.length; i++) out.push(plain(v.get(i)));
    return out;
  }
  if (typeof v.toJSON === 'function') {
    const o = v.toJSON();
    const r = {};
    for (const k of Object.keys(o)) r[k] = plain(o[k]);
    return r;
  }
  return v;
}

function expected(col, r) {
  if (col === 18 || (col !== 3 && (r + col) % 4 === 3)) return null;
  const R = BigInt(r);
  switch (col) {
    case 0: return r % 2 === 0;
    case 1: return (r % 200) - 100;
    case 2: return -700 * r;
    case 3: return r;
    case 4: return (R * 10000000000n - 5n).toString();
    case 5: return r + 0.5;
    case 6: return r * -0.25;
    case 7: return ((R * 12345n - 99n) * (r % 3 === 0 ? -1n : 1n)).toString();
    case 8: return `str${r}\u00e9`;
    case 9: return [r & 255, 255, 0].slice(0, r % 4);
    case 10: return (18000 + r) * 86400000;
    case 11: return 1600000000000000 + r * 1000001;
    case 12: return -86400000000 + r;
    case 13: return { x: String(r), y: r % 3 === 0 ? null : 'yy' };
    case 14: return Array.from({ length: r % 4 }, (_, k) => (k === 1 ? null : r + k));
    case 15: {
      const m = {};
      for (let k = 0; k < r % 3; k++) m[`k${k}`] = k === 1 ? null : [1.5 * r];
      return m;
    }
    case 16: return [{ k: 'a', v: { 0: 'v' } }, { k: 'b', v: { 1: 'v' } }];
    case 17: return { value: [12, r & 255], metadata: [1, 0, 0] };
  }
  throw new Error(`column ${col}`);
}

for (let g = 0; g < t.numRows; g++) {
  const r = g < 29 ? g : g - 29;
  for (let c = 0; c < names.length; c++) {
    let got = plain(t.getChild(names[c]).get(g));
    // Timestamps come back as (fractional) milliseconds: compare micros.
    if ((c === 11 || c === 12) && got !== null) got = Math.round(got * 1000);
    check(`${names[c]}[${g}]`, got, expected(c, r));
  }
}
if (failures) {
  console.error(`${failures} mismatches`);
  process.exit(1);
}
console.log(`arrow-js read ${t.numRows} rows x ${names.length} columns: all values match`);
