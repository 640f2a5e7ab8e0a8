ALTER TABLE table_name SET TBLPROPERTIES( 'delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg');
