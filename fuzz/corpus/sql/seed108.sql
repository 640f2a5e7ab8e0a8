CREATE OR REPLACE TABLE db.target_table SHALLOW CLONE db.source_table;
