SET spark.databricks.delta.properties.defaults.enableRowTracking = true;
