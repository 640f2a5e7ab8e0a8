INSERT OVERWRITE default.people10m SELECT * FROM morePeople;
