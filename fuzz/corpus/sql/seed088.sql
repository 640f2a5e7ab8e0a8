VACUUM eventsTable;
