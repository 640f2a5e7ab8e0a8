DESCRIBE HISTORY delta.`/data/events/`;
