UPDATE delta.`/tmp/delta/people-10m` SET gender = 'Male' WHERE gender = 'M';
