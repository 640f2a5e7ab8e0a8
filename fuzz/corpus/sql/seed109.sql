CREATE TABLE IF NOT EXISTS delta.`/data/target/` SHALLOW CLONE db.source_table;
