set spark.databricks.delta.properties.defaults.enableChangeDataFeed = true;
