VACUUM eventsTable LITE;
