SET spark.sql.sources.partitionOverwriteMode=dynamic;
