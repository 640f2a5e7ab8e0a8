SET spark.databricks.delta.retentionDurationCheck.enabled = false;
