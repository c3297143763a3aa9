-- Create index "recorditem_male_profile" to table: "record_items"
CREATE INDEX `recorditem_male_profile` ON `record_items` (`fact_subject`) WHERE fact_kind = 'profile' AND metadata -> 'birth_history' ->> 'sex' = 'male';
