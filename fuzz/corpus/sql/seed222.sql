DESCRIBE DETAIL delta.`/x`;
