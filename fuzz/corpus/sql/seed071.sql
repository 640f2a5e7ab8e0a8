CREATE TABLE mytable USING deltaSharing LOCATION '#..';
