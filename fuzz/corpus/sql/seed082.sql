UPDATE people10m SET gender = 'Male' WHERE gender = 'M';
