OPTIMIZE delta_table_name WHERE date >= '2017-01-01';
