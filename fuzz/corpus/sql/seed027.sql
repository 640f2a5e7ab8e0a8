ALTER TABLE table_name DROP COLUMN col_name;
