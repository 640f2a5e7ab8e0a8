CREATE TABLE db.target_table SHALLOW CLONE delta.`/data/source` VERSION AS OF 3;
