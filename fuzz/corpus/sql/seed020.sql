SET spark.databricks.delta.write.txnVersion = ...;
