VACUUM delta.`/data/events/`;
