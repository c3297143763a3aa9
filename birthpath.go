package herdbook

import (
	"fmt"

	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/ent/predicate"
	"github.com/herdbook/herdbook/ent/record"
)

// One birth path (docs/breeding.md, "One birth, one operation"): approving a reviewed birth
// is the calving operation. The approval names the calves (and the sire, on the calving's
// bases), and records them exactly as POST …/calvings does: each calf an animal of the
// register with its birth facts, the calving counted in the reports, and the protocol's calf
// steps as tasks naming the calves. A calving recorded without a preview makes and approves a
// preview of its own. Approving without calves is refused: a birth is recorded with its calves.

// BirthApproval is the approval of a birth preview: the client's request id, and the calving
// as POST …/calvings takes it (the dam and the day are the preview's).
type BirthApproval struct {
	RequestID string
	SireID    *string
	SireBasis *string
	DNALab    *string
	Calves    []CalfInput
}

// calving is the calving an approval of preview p records.
func (a BirthApproval) calving(p *ent.BirthPreview) CalvingInput {
	return CalvingInput{DamID: p.DamID.String(), Date: p.BirthDate, SireID: a.SireID, SireBasis: a.SireBasis,
		DNALab: a.DNALab, Calves: a.Calves, preview: p, requestID: a.RequestID}
}

// checkCalves refuses an approval without calves, saying what to give.
func (a BirthApproval) checkCalves() error {
	if len(a.Calves) == 0 {
		return Invalid(FieldError{Field: "calves", Message: fmt.Sprintf("approving a birth records its calves, as a calving does: "+
			"give 1 to %d calves (tag or eid, sex, status alive or stillborn), stillborn ones too", MaxCalves)})
	}
	return nil
}

// calvingEvent keeps the birth events that are calvings: those with the calving's record
// (whose id is the event's). Births approved before approval took calves have none.
func calvingEvent(farmID uuid.UUID) predicate.BirthEvent {
	return func(s *sql.Selector) {
		t := sql.Table(record.Table)
		s.Where(sql.In(s.C(birthevent.FieldID), sql.Select(t.C(record.FieldID)).From(t).Where(sql.EQ(t.C(record.FieldFarmID), farmID))))
	}
}
