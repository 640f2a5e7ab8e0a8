CREATE TABLE graduate LIKE student;
