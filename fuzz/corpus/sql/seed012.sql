INSERT INTO default.people10m SELECT * FROM morePeople;
