VACUUM delta.`/x` LITE;
