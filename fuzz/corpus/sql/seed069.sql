SELECT * FROM mytable;
