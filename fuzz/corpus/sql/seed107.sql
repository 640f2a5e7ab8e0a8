CREATE TABLE delta.`/data/target/` SHALLOW CLONE delta.`/data/source/`;
