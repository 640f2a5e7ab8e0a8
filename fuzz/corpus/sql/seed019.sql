SET spark.databricks.delta.write.txnAppId = ...;
