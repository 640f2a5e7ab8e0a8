SELECT * FROM table_changes('tableName', 0);
