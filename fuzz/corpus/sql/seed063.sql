CREATE TABLE graduate CLONE student;
