SELECT * FROM mytable TIMESTAMP AS OF timestamp_expression;
