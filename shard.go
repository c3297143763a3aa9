package herdbook

import (
	"github.com/herdbook/herdbook/internal/db/citus"
)

// Statements name the farm (issue 30.3): farmOf and linkedOf, in internal/db/citus, add the
// farm to a query where a farm's request already knows it.
var (
	farmOf   = citus.FarmOf
	linkedOf = citus.LinkedOf
)
