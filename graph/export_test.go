package graph

// SetSlowRecordsPage makes Farm.records go through the executor field by field (on) or
// through the one-pass writer of fastpage.go (off, the default), so that tests can compare
// their answers byte for byte.
func SetSlowRecordsPage(on bool) { slowRecordsPage.Store(on) }
