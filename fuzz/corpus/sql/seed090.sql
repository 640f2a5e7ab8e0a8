VACUUM '/data/events';
