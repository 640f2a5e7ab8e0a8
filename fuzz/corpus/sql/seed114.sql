DROP TABLE my_test;
