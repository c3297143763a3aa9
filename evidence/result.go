package evidence

// SettingsStatus says whether the farm has usable birth-history settings.
type SettingsStatus string

// The settings_status values.
const (
	SettingsConfigured    SettingsStatus = "configured"
	SettingsNotConfigured SettingsStatus = "not_configured"
)

// PlannedWindowStatus says whether the birth fell in a planned birth window.
type PlannedWindowStatus string

// The planned_window_status values.
const (
	PlannedWithin        PlannedWindowStatus = "within"
	PlannedOutside       PlannedWindowStatus = "outside"
	PlannedNotConfigured PlannedWindowStatus = "not_configured"
)

// SireStatus says how far the review got towards naming a sire.
type SireStatus string

// The sire.status values.
const (
	// SireUnknown means no exposure on record points at any sire.
	SireUnknown SireStatus = "unknown"
	// SireCandidates means there are candidates but not exactly one
	// plausible one.
	SireCandidates SireStatus = "candidates"
	// SirePresumed means exactly one candidate is plausible.
	SirePresumed SireStatus = "presumed"
)

// Eligibility is the review's verdict on one candidate sire.
type Eligibility string

// The eligibility values.
const (
	// EligibilityPlausible means every rule was checked and none ruled
	// the candidate out.
	EligibilityPlausible Eligibility = "plausible"
	// EligibilityUnknown means a fact the rules need is missing.
	EligibilityUnknown Eligibility = "unknown"
	// EligibilityExcluded means a recorded fact rules the candidate out.
	EligibilityExcluded Eligibility = "excluded"
)

// Relation places a dated fact against the conception window.
type Relation string

// The relation_to_conception values.
const (
	RelationBefore  Relation = "before"
	RelationWithin  Relation = "within"
	RelationAfter   Relation = "after"
	RelationUnknown Relation = "unknown"
)

// Evidence is the BirthEvidence of SPEC.md: everything the records say about
// one birth. Every array is non-nil so that it encodes as [] rather than
// null, and every list and text respects the SPEC limits.
type Evidence struct {
	// EvidenceVersion is always EvidenceVersion.
	EvidenceVersion int `json:"evidence_version"`
	// Settings echoes the settings the review used, or null.
	Settings *Settings `json:"settings"`
	// SettingsStatus is configured when valid settings were used.
	SettingsStatus SettingsStatus `json:"settings_status"`
	// PlannedWindowStatus compares the birth date with the birth windows.
	PlannedWindowStatus PlannedWindowStatus `json:"planned_window_status"`
	// MatchingBirthWindows lists every window holding the birth date.
	MatchingBirthWindows []Window `json:"matching_birth_windows"`
	// ConceptionWindow is the range of dates in which the dam conceived,
	// or null when gestation is not configured.
	ConceptionWindow *Interval `json:"conception_window"`
	// Sire is the review's answer about the sire.
	Sire Sire `json:"sire"`
	// MovementComparisons places the dam's arrivals and departures against
	// the conception window.
	MovementComparisons []MovementComparison `json:"movement_comparisons"`
	// Unresolved lists, one sentence each, the missing facts that limited
	// the review.
	Unresolved []string `json:"unresolved"`
}

// Interval is an inclusive range of calendar dates.
type Interval struct {
	StartDate string `json:"start_date"`
	EndDate   string `json:"end_date"`
}

// Sire is the sire part of the evidence.
type Sire struct {
	// Status is unknown, candidates or presumed.
	Status SireStatus `json:"status"`
	// AnimalID is the presumed sire; empty unless Status is presumed.
	AnimalID string `json:"animal_id,omitempty"`
	// Confidence is the review score of a presumed sire: a conservative,
	// deterministic figure below 1 built from the shape of the evidence.
	// It is not a DNA confidence.
	Confidence *float64 `json:"confidence,omitempty"`
	// Provenance names the records the presumption rests on.
	Provenance string `json:"provenance,omitempty"`
	// PresumedCross is "<sire breed> × <dam breed>" when both are known: breeders write the
	// sire's breed first (a Limousin sire on an Angus dam is a Limousin × Angus calf).
	PresumedCross string `json:"presumed_cross,omitempty"`
	// Candidates are all sires exposed to the dam in the conception window.
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one possible sire with the evidence for and against him.
type Candidate struct {
	AnimalID    string      `json:"animal_id"`
	Eligibility Eligibility `json:"eligibility"`
	// Reasons holds one sentence per rule that decided or informed the
	// eligibility.
	Reasons                 []string `json:"reasons"`
	ExposureRecordIDs       []string `json:"exposure_record_ids"`
	ExposureRecordItemIDs   []string `json:"exposure_record_item_ids"`
	MembershipRecordIDs     []string `json:"membership_record_ids"`
	MembershipRecordItemIDs []string `json:"membership_record_item_ids"`
	// OverlapIntervals are the days on which the exposure, the conception
	// window and (for group exposures) the dam's membership all hold,
	// merged where they touch.
	OverlapIntervals []Interval `json:"overlap_intervals"`
	// Breed comes from the candidate's profile when it names one.
	Breed string `json:"breed,omitempty"`
	// GestationDays is the gestation range he was judged by: his breed's from the settings'
	// gestation_days_by_breed, else the farm's gestation_days; GestationBreed names the
	// breed as the settings do, empty for the farm's range.
	GestationDays  *Range `json:"gestation_days,omitempty"`
	GestationBreed string `json:"gestation_breed,omitempty"`
	// ImpliedGestationDays is the gestation the birth implies if he sired it: from the days
	// between the last day of his overlaps and the birth to those between the first day and
	// the birth.
	ImpliedGestationDays *Range `json:"implied_gestation_days,omitempty"`

	// What placed him with the dam, for a calving that names him (not part of the evidence
	// as SPEC defines it, so never in its JSON): the dam's services by him in his window
	// (insemination, hand mating, embryo transfer; newest last), whether an exposure fact
	// placed him with her (directly or through a group she was in), and the spans his and
	// her dated memberships of one group overlapped (natural service).
	Services []Fact      `json:"-"`
	Exposed  bool        `json:"-"`
	Shared   []SharedRun `json:"-"`
}

// SharedRun is a stretch of days a male and the dam were both members of a group, within
// his conception window: natural service by a bull that ran with her.
type SharedRun struct {
	GroupID string
	Interval
}

// MovementComparison places one of the dam's purchase, movement_in or
// movement_out facts against the conception window.
type MovementComparison struct {
	RecordID             string   `json:"record_id"`
	RecordItemID         string   `json:"record_item_id"`
	Kind                 Kind     `json:"kind"`
	Date                 string   `json:"date"`
	RelationToConception Relation `json:"relation_to_conception"`
}
