SET spark.databricks.delta.properties.defaults.appendOnly = true;
