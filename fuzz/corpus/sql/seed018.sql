INSERT OVERWRITE TABLE default.people10m SELECT * FROM morePeople;
