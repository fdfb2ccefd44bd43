-- PostgreSQL translation of sqlite/0073-job-part-bytes.sql.
-- Job inputs and answers stored as bytes, as pin content is (0008): an answer arrives as the UTF-8 bytes the mill
-- wrote and is sent as they are, never decoded into text to be stored nor encoded again to be sent.
ALTER TABLE job_parts ADD COLUMN content bytea;
UPDATE job_parts SET content = convert_to(text, 'UTF8');
ALTER TABLE job_parts ALTER COLUMN content SET NOT NULL;
ALTER TABLE job_parts DROP COLUMN text;
