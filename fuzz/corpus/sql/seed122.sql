OPTIMIZE events ZORDER BY (eventType);
