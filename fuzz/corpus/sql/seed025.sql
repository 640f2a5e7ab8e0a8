ALTER TABLE table_name RENAME COLUMN col_name.old_nested_field TO new_nested_field;
