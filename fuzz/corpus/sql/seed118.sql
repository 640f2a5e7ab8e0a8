OPTIMIZE '/path/to/delta/table';
