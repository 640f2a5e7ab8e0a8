SELECT * FROM table1;
