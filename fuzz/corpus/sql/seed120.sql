OPTIMIZE delta.`/path/to/delta/table`;
