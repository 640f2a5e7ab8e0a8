VACUUM eventsTable USING INVENTORY inventoryTable;
