GENERATE symlink_format_manifest FOR TABLE delta.``;
