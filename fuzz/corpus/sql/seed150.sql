ALTER TABLE table_name DROP COLUMNS (col_name_1, col_name_2);
