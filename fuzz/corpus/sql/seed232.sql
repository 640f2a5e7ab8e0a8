USE s;
