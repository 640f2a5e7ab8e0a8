OPTIMIZE delta_table_name;
