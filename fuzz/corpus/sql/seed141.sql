ALTER TABLE table_name ADD COLUMNS (col_name.nested_col_name INT COMMENT 'col_comment' AFTER colA_name);
