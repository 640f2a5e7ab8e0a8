SET spark.databricks.delta.write.txnVersion.autoReset.enabled = true;
