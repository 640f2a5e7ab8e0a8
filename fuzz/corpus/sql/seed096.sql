DESCRIBE HISTORY '/data/events/';
