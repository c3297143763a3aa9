package evidence

// Scope tells a fact loader which facts can change the review of one birth,
// so that it need not hand every fact of the farm to Review. Filtering the
// facts with Keep never changes Review's answer: Review(in) equals Review of
// the same input with only the kept facts.
//
// Exposures and memberships can be open-ended, so an old fact can still
// matter and there is no earliest date worth loading. There is a latest one:
// apart from profiles and the dam's own purchases and movements, no fact
// dated after Through can change the answer, because the conception window
// ends on Through and every rule looks at or before the end of an overlap.
//
// Build a Scope with ScopeOf; a Scope written by hand keeps no conception
// window and so keeps only profiles and the dam's movements.
type Scope struct {
	// DamID is the dam, lower-cased; empty when the query's dam_id is not
	// a uuid.
	DamID string
	// Through is the last date (YYYY-MM-DD) of a fact that can matter,
	// which is the end of the conception window. Empty when there is no
	// conception window: then only profiles and the dam's purchases and
	// movements matter.
	Through string
	// From is the first day of the widest conception window: that of the farm's range or of
	// a sire breed's range (gestation_days_by_breed), whichever reaches further back. An
	// exposure that ended before it cannot make a candidate. Empty without a window.
	From string

	through int
	ok      bool
}

// ScopeOf works out the scope of a review from its settings, dam and birth
// date; in.Facts is not read, so a loader can call it before loading.
func ScopeOf(in Input) Scope {
	fr := frameOf(Input{Settings: in.Settings, DamID: in.DamID, BirthDate: in.BirthDate})
	sc := Scope{DamID: fr.dam, through: fr.swe, ok: fr.windowOK}
	if sc.ok {
		sc.From, sc.Through = formatDate(fr.sws), formatDate(fr.swe)
	}
	return sc
}

// Keep reports whether f can change the review. Invalid facts are kept,
// because Review reports them as skipped; profiles are kept because any
// animal may turn out to be a candidate. A loader that cannot call Keep can
// approximate it in its query: every profile, every fact naming the dam,
// and every other fact whose date, start_date or birth_date is on or before
// Through. Through is the end of the widest conception window when gestation_days_by_breed
// gives some breed a shorter gestation than the farm's range.
func (sc Scope) Keep(f Fact) bool {
	p, errs := prepare(f)
	if errs != nil {
		return true
	}
	return sc.keep(p)
}

// keep is Keep for a fact prepared already.
func (sc Scope) keep(p *pfact) bool {
	isDam := sc.DamID != "" && p.AnimalID == sc.DamID
	switch p.Kind {
	case KindProfile:
		return true
	case KindPurchase, KindMovementIn, KindMovementOut:
		return isDam || sc.ok && p.date <= sc.through
	case KindCastration:
		return sc.ok && p.date <= sc.through
	case KindExposure:
		return sc.ok && p.start <= sc.through
	case KindMembership:
		// Another animal's membership matters too: a male's is natural service exposure.
		return sc.ok && p.start <= sc.through
	case KindMembershipEnd:
		// An end dated after the window cuts nothing in it; keeping every one is simpler.
		return sc.ok
	case KindInsemination, KindHandMating, KindEmbryoTransfer:
		return sc.ok && sc.DamID != "" && servedFemale(&p.Fact) == sc.DamID && p.date <= sc.through
	case KindPregnancyCheck:
		return isDam && sc.ok
	case KindSale, KindDeath:
		return sc.ok && p.date <= sc.through
	case KindBirth:
		return sc.DamID != "" && p.DamID == sc.DamID
	case KindDNAParentage:
		return p.Relation == RelationSire
	}
	// Identifiers and weights do not inform this version of the review.
	return false
}
