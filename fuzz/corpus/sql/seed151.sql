ALTER TABLE t SET TBLPROPERTIES ( 'delta.feature.allowColumnDefaults' = 'enabled' );
