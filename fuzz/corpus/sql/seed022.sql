SET spark.databricks.delta.commitInfo.userMetadata=overwritten-for-fixing-incorrect-data;
