DESCRIBE HISTORY '/data/events/' LIMIT 1;
