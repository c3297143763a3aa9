// Package schematype holds the Go types of JSON columns. They live apart from the schema
// package because the generated code imports them, and the schema package imports the
// generated interceptors.
package schematype

// ProtocolStep is one follow-up step: a task named Name due OffsetDays after the birth.
//
// Sex, when set (male or female), makes the step a calf's: a calving recorded with the
// calving operation opens one task per live calf of that sex, naming the calf. A step
// without a sex is the dam's, as before.
type ProtocolStep struct {
	Name       string `json:"name"`
	OffsetDays int    `json:"offset_days"`
	Sex        string `json:"sex,omitempty"`
}

// CalvingEaseGrade is one grade of a farm's calving-ease scale: the code a calving records
// and what it means on the farm's scale (BIF Guidelines score 1 to 5, or the farm's own).
type CalvingEaseGrade struct {
	Code  string `json:"code"`
	Label string `json:"label"`
}

// AgeOfDamAdjustment is one line of a farm's age-of-dam adjustments for the 205-day weaning
// weight (BIF Guidelines): the kilograms added to a calf's adjusted weight when its dam's age
// at calving, in days, lies in [MinDays, MaxDays], by the calf's sex.
type AgeOfDamAdjustment struct {
	MinDays  int     `json:"min_days"`
	MaxDays  int     `json:"max_days"`
	MaleKG   float64 `json:"male_kg"`
	FemaleKG float64 `json:"female_kg"`
}

// PlannedTask is a task a birth preview would create on approval.
type PlannedTask struct {
	Name       string `json:"name"`
	OffsetDays int    `json:"offset_days"`
	DueDate    string `json:"due_date"`
}

// EventPayload carries the names a scheduled event's messages are written from, captured when
// the event is created so that a later rename does not change what was announced.
type EventPayload struct {
	FarmName    string   `json:"farm_name"`
	TaskName    string   `json:"task_name,omitempty"`
	AnimalTags  []string `json:"animal_tags,omitempty"`
	WindowLabel string   `json:"window_label,omitempty"`
	WindowStart string   `json:"window_start,omitempty"`
	WindowEnd   string   `json:"window_end,omitempty"`
	Message     string   `json:"message,omitempty"`
	// Withdrawal ending: which withdrawal ("meat" or "milk"), the medicine, the treatment's
	// date as written and the clear date (a day for meat, an RFC 3339 UTC moment for milk).
	Withdrawal   string `json:"withdrawal,omitempty"`
	MedicineName string `json:"medicine_name,omitempty"`
	TreatedOn    string `json:"treated_on,omitempty"`
	ClearOn      string `json:"clear_on,omitempty"`
	// Statutory notice falling due or overdue: its kind and deadline (docs/registry.md).
	NoticeKind string `json:"notice_kind,omitempty"`
	Deadline   string `json:"deadline,omitempty"`
	Overdue    bool   `json:"overdue,omitempty"`
}

// SpeciesWithdrawal is one line of a medicine label's withdrawal table: the periods for one
// species, where the label gives that species periods of its own, optionally for one route
// and one dose band. A null period is the label's dash: not authorised, which is not zero.
type SpeciesWithdrawal struct {
	Species             string    `json:"species"`
	Route               string    `json:"route,omitempty"`
	Dose                *DoseBand `json:"dose,omitempty"`
	WithdrawalMeatDays  *int      `json:"withdrawal_meat_days"`
	WithdrawalMilkHours *int      `json:"withdrawal_milk_hours"`
}

// DoseBand is a range of doses of a label line, both ends included, in the unit as printed.
type DoseBand struct {
	Unit string  `json:"unit"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}
