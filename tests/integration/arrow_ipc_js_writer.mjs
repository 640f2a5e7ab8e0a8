// Writes an Arrow IPC stream and file with the apache-arrow npm package, for
// libdeltalake's IPC reader to read back (tests/integration/arrow_ipc.sh):
// arrow-js defaults (date64, millisecond timestamps) and nested types.
// Usage: node arrow_ipc_js_writer.mjs <oracle dir> <out prefix>
import { createRequire } from 'module';
import { writeFileSync } from 'fs';
const require = createRequire(process.argv[2] + '/');
const A = require('apache-arrow');

const cols = {
  i: A.vectorFromArray([1, null, 3], new A.Int32()),
  l: A.vectorFromArray([1n, -2n, null], new A.Int64()),
  d: A.vectorFromArray([1.5, null, -0.25], new A.Float64()),
  s: A.vectorFromArray(['a', null, 'h\u00e9llo'], new A.Utf8()),
  b: A.vectorFromArray([true, false, null], new A.Bool()),
  dd: A.vectorFromArray([new Date(Date.UTC(2020, 0, 1)), null, new Date(Date.UTC(1969, 11, 31))], new A.DateDay()),
  dm: A.vectorFromArray([new Date(Date.UTC(2020, 0, 2)), new Date(Date.UTC(1900, 0, 1)), null], new A.DateMillisecond()),
  ts: A.vectorFromArray([Date.UTC(2021, 8, 8, 11, 11, 11, 123), null, 0], new A.TimestampMillisecond('UTC')),
  tsn: A.vectorFromArray([null, -1, 1600000000000], new A.TimestampMillisecond()),
  lst: A.vectorFromArray([[1, 2], null, []], new A.List(new A.Field('item', new A.Int32(), true))),
  st: A.vectorFromArray([{ x: 1, y: 'p' }, null, { x: null, y: 'q' }],
    new A.Struct([new A.Field('x', new A.Int32(), true), new A.Field('y', new A.Utf8(), true)])),
};
const t = new A.Table(cols);
writeFileSync(process.argv[3] + '.arrows', A.tableToIPC(t, 'stream'));
writeFileSync(process.argv[3] + '.arrow', A.tableToIPC(t, 'file'));
