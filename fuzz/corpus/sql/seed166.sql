UPDATE my_test SET invalid = true WHERE user_id IS NULL;
