UPDATE delta.`/tmp/delta/people-10m` SET gender = 'Female' WHERE gender = 'F';
