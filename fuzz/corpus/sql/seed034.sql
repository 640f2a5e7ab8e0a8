CREATE TABLE sales_data ( sale_id BIGINT, amount DECIMAL(10,2), sale_date DATE ) TBLPROPERTIES ('delta.feature.catalogManaged' = 'supported');
