VACUUM eventsTable DRY RUN;
