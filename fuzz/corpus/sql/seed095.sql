VACUUM eventsTable USING INVENTORY (select * from inventoryTable);
