SET spark.databricks.delta.replaceWhere.dataColumns.enabled=false;
