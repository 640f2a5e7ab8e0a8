SET spark.databricks.delta.replaceWhere.constraintCheck.enabled=false;
