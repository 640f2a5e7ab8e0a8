UPDATE people10m SET gender = 'Female' WHERE gender = 'F';
