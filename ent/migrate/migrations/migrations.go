// Package migrations embeds the versioned migrations (Atlas format), one directory per
// dialect, generated from the ent schema by `go run ./db/migrationgen NAME`.
package migrations

import "embed"

// FS holds sqlite/ and postgres/, each with its *.sql files and atlas.sum.
//
//go:embed sqlite postgres
var FS embed.FS
