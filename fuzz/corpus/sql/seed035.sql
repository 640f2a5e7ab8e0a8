DESCRIBE DETAIL sales_data;
