VACUUM delta.`/data/events/` RETAIN 100 HOURS;
