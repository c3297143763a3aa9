package db

import (
	"entgo.io/ent/dialect/sql/schema"

	entmigrate "github.com/herdbook/herdbook/ent/migrate"
)

// Ent declares the join tables of many-to-many edges itself, with the primary key (left
// id, right id) and no way to add an index in ent/schema. A join from the right-hand side
// (a record's files, an animal's records, a group's records, an animal's tasks)
// would then read the whole table, so every join table also gets the reverse index
// (right id, left id): the join is answered from the index alone. They are added to ent's
// description of the tables here, before the migration generator and
// TestMigrationsMatchSchema compare it with the migrations.
func init() {
	for _, t := range []*schema.Table{
		entmigrate.FileRecordsTable,     // a record's files (every record read)
		entmigrate.RecordAnimalsTable,   // an animal's records
		entmigrate.RecordGroupsTable,    // a group's records
		entmigrate.FarmTaskAnimalsTable, // an animal's tasks
	} {
		left, right := t.PrimaryKey[0], t.PrimaryKey[1]
		if hasIndex(t, right.Name) {
			continue
		}
		t.Indexes = append(t.Indexes, &schema.Index{
			Name:    t.Name + "_" + right.Name + "_" + left.Name,
			Columns: []*schema.Column{right, left},
		})
	}
}

func hasIndex(t *schema.Table, first string) bool {
	for _, ix := range t.Indexes {
		if len(ix.Columns) > 0 && ix.Columns[0].Name == first {
			return true
		}
	}
	return false
}
