DESCRIBE DETAIL '/data/events/';
