OPTIMIZE events WHERE date = '2021-11-18' ZORDER BY (eventType);
