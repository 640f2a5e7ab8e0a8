set spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled = true;
