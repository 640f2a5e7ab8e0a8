SET spark.databricks.delta.schema.autoMerge.enabled=true;
