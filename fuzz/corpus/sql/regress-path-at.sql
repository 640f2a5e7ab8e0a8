OPTIMIZE '/path/o/delta/tableVACUUM delta.`/x` LITE;ÿÿÿleVACUUM delta.`/x@` LITE;ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ';
