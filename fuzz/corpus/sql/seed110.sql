CREATE TABLE db.target_table SHALLOW CLONE delta.`/data/source`;
