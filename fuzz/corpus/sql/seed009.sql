SELECT * FROM table_name TIMESTAMP AS OF timestamp_expression;
