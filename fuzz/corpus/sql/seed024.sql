ALTER TABLE table_name RENAME COLUMN old_col_name TO new_col_name;
