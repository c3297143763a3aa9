package graph

// SetSlowRecordsPage makes Farm.records and the animals connections go through the
// executor field by field (on) or through the one-pass writers of fastpage.go and
// fastanimals.go (off, the default), so that tests can compare their answers byte for byte.
func SetSlowRecordsPage(on bool) { slowRecordsPage.Store(on) }

// OnePassPages is how many pages the one-pass writers have answered.
func OnePassPages() int64 { return onePassPages.Load() }
