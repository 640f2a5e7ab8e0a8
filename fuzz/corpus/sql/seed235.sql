SET x;
