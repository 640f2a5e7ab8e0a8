REORG TABLE events WHERE date >= current_timestamp() - INTERVAL '1' DAY APPLY (PURGE);
