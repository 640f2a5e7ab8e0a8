ALTER TABLE delta.`/data/t` SET TBLPROPERTIES(delta.compatibility.symlinkFormatManifest.enabled=true);
