ALTER TABLE table_name CHANGE col_name.nested_col_name nested_col_name INT COMMENT 'c' FIRST;
