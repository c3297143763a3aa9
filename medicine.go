package herdbook

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/medicineversion"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/evidence"
	"github.com/herdbook/herdbook/withdrawal"
)

// SpeciesWithdrawal is one line of a label's withdrawal table: a species, optionally a route
// and a dose band, and its periods, null where the label has a dash (see schematype).
type SpeciesWithdrawal = schematype.SpeciesWithdrawal

// DoseBand is the dose range of a label line.
type DoseBand = schematype.DoseBand

// MedicineInput creates a medicine. The periods come from the product's label as the farmer
// enters them: none is assumed, so both are required, each a number or null for the label's
// dash ("not authorised", which is not zero).
type MedicineInput struct {
	Name                string
	ActiveSubstance     *string
	WithdrawalMeatDays  Optional[int]
	WithdrawalMilkHours Optional[int]
	SpeciesWithdrawals  []SpeciesWithdrawal
	DryCow              bool
}

// MedicinePatch changes a medicine; absent fields keep their value, a null period is the
// label's dash. SpeciesWithdrawals, when given (non-nil), replaces the list. A change of any
// period, of the lines or of DryCow makes a new version.
type MedicinePatch struct {
	Name                *string
	ActiveSubstance     Optional[string]
	WithdrawalMeatDays  Optional[int]
	WithdrawalMilkHours Optional[int]
	SpeciesWithdrawals  *[]SpeciesWithdrawal
	DryCow              *bool
}

// maxLabelLines bounds a label's lines: a species for each route and dose band printed.
const maxLabelLines = 50

func validateMeatDays(fe *fieldErrors, field string, v Optional[int], required bool) {
	switch {
	case !v.Set && required:
		fe.add(field, "is required: the label's meat withdrawal in days, 0 when the label says zero, null when it has a dash (not authorised)")
	case v.Value != nil && (*v.Value < 0 || *v.Value > evidence.MaxWithdrawalMeatDays):
		fe.add(field, "must be between 0 and %d, or null when the label has a dash (not authorised)", evidence.MaxWithdrawalMeatDays)
	}
}

func validateMilkHours(fe *fieldErrors, field string, v Optional[int], required bool) {
	switch {
	case !v.Set && required:
		fe.add(field, "is required: the label's milk withdrawal in hours, 0 when the label says zero, null when it has a dash (not authorised)")
	case v.Value != nil && (*v.Value < 0 || *v.Value > evidence.MaxWithdrawalMilkHours):
		fe.add(field, "must be between 0 and %d, or null when the label has a dash (not authorised)", evidence.MaxWithdrawalMilkHours)
	}
}

// validateSpeciesWithdrawals checks a label's lines: a known species, a route of 1 to 100
// characters when given, a dose band with a unit and 0 <= min <= max when given, and no two
// lines of a species for the same route whose dose bands overlap (the label would give two
// periods for one use).
func validateSpeciesWithdrawals(fe *fieldErrors, list []SpeciesWithdrawal) {
	if len(list) > maxLabelLines {
		fe.add("species_withdrawals", "must have at most %d lines", maxLabelLines)
		return
	}
	for i, sw := range list {
		p := fmt.Sprintf("species_withdrawals[%d]", i)
		if !slices.Contains(Species, sw.Species) {
			fe.add(p+".species", "must be one of %s", strings.Join(Species, ", "))
		}
		if sw.Route != "" || strings.TrimSpace(sw.Route) != sw.Route {
			validateName(fe, p+".route", sw.Route, 1, 100)
		}
		if d := sw.Dose; d != nil {
			if !fe.line(p+".dose.unit", d.Unit) {
				// named by the text rule
			} else if strings.TrimSpace(d.Unit) == "" || len(d.Unit) > 50 {
				fe.add(p+".dose.unit", "must be the dose unit as printed on the label, 1 to 50 characters (mg/kg, ml/10 kg)")
			}
			if !(d.Min >= 0 && d.Min <= evidence.MaxDose) {
				fe.add(p+".dose.min", "must be between 0 and %g", float64(evidence.MaxDose))
			}
			if !(d.Max >= d.Min && d.Max <= evidence.MaxDose) {
				fe.add(p+".dose.max", "must be at least dose.min and at most %g", float64(evidence.MaxDose))
			}
		}
		validateMeatDays(fe, p+".withdrawal_meat_days", Optional[int]{Set: true, Value: sw.WithdrawalMeatDays}, false)
		validateMilkHours(fe, p+".withdrawal_milk_hours", Optional[int]{Set: true, Value: sw.WithdrawalMilkHours}, false)
		for j, o := range list[:i] {
			if o.Species == sw.Species && strings.EqualFold(strings.TrimSpace(o.Route), strings.TrimSpace(sw.Route)) && bandsOverlap(o.Dose, sw.Dose) {
				fe.add(p, "must not give %s by the same route and dose as species_withdrawals[%d]", strings.ToLower(sw.Species), j)
				break
			}
		}
	}
}

// bandsOverlap reports whether two lines' dose bands share a dose: no band is every dose;
// bands in different units are told apart by the treatment's unit.
func bandsOverlap(a, b *DoseBand) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return strings.EqualFold(strings.TrimSpace(a.Unit), strings.TrimSpace(b.Unit)) && a.Min <= b.Max && b.Min <= a.Max
}

func validateSubstance(fe *fieldErrors, s *string) {
	if s != nil {
		validateName(fe, "active_substance", *s, 1, 200)
	}
}

// Validate checks a MedicineInput.
func (in MedicineInput) Validate() error {
	var fe fieldErrors
	validateName(&fe, "name", in.Name, 1, 200)
	validateSubstance(&fe, in.ActiveSubstance)
	validateMeatDays(&fe, "withdrawal_meat_days", in.WithdrawalMeatDays, true)
	validateMilkHours(&fe, "withdrawal_milk_hours", in.WithdrawalMilkHours, true)
	validateSpeciesWithdrawals(&fe, in.SpeciesWithdrawals)
	return fe.err()
}

// Validate checks a MedicinePatch.
func (p MedicinePatch) Validate() error {
	var fe fieldErrors
	if p.Name != nil {
		validateName(&fe, "name", *p.Name, 1, 200)
	}
	validateSubstance(&fe, p.ActiveSubstance.Value)
	validateMeatDays(&fe, "withdrawal_meat_days", p.WithdrawalMeatDays, false)
	validateMilkHours(&fe, "withdrawal_milk_hours", p.WithdrawalMilkHours, false)
	if p.SpeciesWithdrawals != nil {
		validateSpeciesWithdrawals(&fe, *p.SpeciesWithdrawals)
	}
	return fe.err()
}

// sortedWithdrawals orders a label's lines by species, route and dose band, with routes
// trimmed, so that an unchanged label compares equal.
func sortedWithdrawals(list []SpeciesWithdrawal) []SpeciesWithdrawal {
	out := slices.Clone(list)
	if out == nil {
		out = []SpeciesWithdrawal{}
	}
	for i := range out {
		out[i].Route = strings.TrimSpace(out[i].Route)
		if d := out[i].Dose; d != nil {
			out[i].Dose = &DoseBand{Unit: strings.TrimSpace(d.Unit), Min: d.Min, Max: d.Max}
		}
	}
	slices.SortStableFunc(out, func(a, b SpeciesWithdrawal) int {
		if c := strings.Compare(a.Species, b.Species); c != 0 {
			return c
		}
		if c := strings.Compare(a.Route, b.Route); c != 0 {
			return c
		}
		switch {
		case a.Dose == nil || b.Dose == nil:
			if a.Dose == nil && b.Dose != nil {
				return -1
			} else if a.Dose != nil && b.Dose == nil {
				return 1
			}
			return 0
		case a.Dose.Unit != b.Dose.Unit:
			return strings.Compare(a.Dose.Unit, b.Dose.Unit)
		}
		return cmp.Compare(a.Dose.Min, b.Dose.Min)
	})
	return out
}

func samePeriod(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameLine(a, b SpeciesWithdrawal) bool {
	return a.Species == b.Species && a.Route == b.Route && samePeriod(a.WithdrawalMeatDays, b.WithdrawalMeatDays) &&
		samePeriod(a.WithdrawalMilkHours, b.WithdrawalMilkHours) &&
		((a.Dose == nil && b.Dose == nil) || (a.Dose != nil && b.Dose != nil && *a.Dose == *b.Dose))
}

// Medicines lists a farm's medicines, oldest first, in two queries whatever the page size.
func (s *Service) Medicines(ctx context.Context, farmID uuid.UUID, p Page) ([]*ent.Medicine, int, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, 0, err
	}
	offset, limit, err := s.bounds(p)
	if err != nil {
		return nil, 0, err
	}
	q := s.Client(ctx).Medicine.Query().Where(medicine.FarmID(farmID))
	total, err := q.Clone().Count(ctx)
	if err != nil || limit == 0 {
		return []*ent.Medicine{}, total, err
	}
	ms, err := q.Order(ent.Asc(medicine.FieldCreatedAt), ent.Asc(medicine.FieldID)).Offset(offset).Limit(limit).All(ctx)
	return ms, total, err
}

// Medicine returns one medicine of a farm.
func (s *Service) Medicine(ctx context.Context, farmID, id uuid.UUID) (*ent.Medicine, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	m, err := s.Client(ctx).Medicine.Query().Where(medicine.FarmID(farmID), medicine.ID(id)).Only(ctx)
	return m, notFound(err, "medicine", id)
}

// CreateMedicine adds a medicine to a farm's list as version 1.
func (s *Service) CreateMedicine(ctx context.Context, farmID uuid.UUID, in MedicineInput) (*ent.Medicine, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	var m *ent.Medicine
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		sw := sortedWithdrawals(in.SpeciesWithdrawals)
		var substance *string
		if in.ActiveSubstance != nil {
			t := strings.TrimSpace(*in.ActiveSubstance)
			substance = &t
		}
		m, err = c.Medicine.Create().SetFarmID(farmID).SetName(strings.TrimSpace(in.Name)).
			SetNillableActiveSubstance(substance).SetVersion(1).
			SetNillableWithdrawalMeatDays(in.WithdrawalMeatDays.Value).SetNillableWithdrawalMilkHours(in.WithdrawalMilkHours.Value).
			SetSpeciesWithdrawals(sw).SetDryCow(in.DryCow).Save(ctx)
		if err != nil {
			return err
		}
		return s.addMedicineVersion(ctx, m, v.UserID)
	})
	return m, err
}

func (s *Service) addMedicineVersion(ctx context.Context, m *ent.Medicine, by uuid.UUID) error {
	return s.Client(ctx).MedicineVersion.Create().SetMedicineID(m.ID).SetFarmID(m.FarmID).SetVersion(m.Version).
		SetNillableWithdrawalMeatDays(m.WithdrawalMeatDays).SetNillableWithdrawalMilkHours(m.WithdrawalMilkHours).
		SetSpeciesWithdrawals(m.SpeciesWithdrawals).SetDryCow(m.DryCow).SetCreatedBy(by).Exec(ctx)
}

// UpdateMedicine changes a medicine. A change of its periods makes a new version; treatments
// already recorded keep the version they were given under.
func (s *Service) UpdateMedicine(ctx context.Context, farmID, id uuid.UUID, p MedicinePatch) (*ent.Medicine, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords)
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var m *ent.Medicine
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		old, err := c.Medicine.Query().Where(medicine.FarmID(farmID), medicine.ID(id)).Only(ctx)
		if err != nil {
			return notFound(err, "medicine", id)
		}
		u := old.Update()
		if p.Name != nil {
			u.SetName(strings.TrimSpace(*p.Name))
		}
		if p.ActiveSubstance.Set {
			if p.ActiveSubstance.Value == nil {
				u.ClearActiveSubstance()
			} else {
				u.SetActiveSubstance(strings.TrimSpace(*p.ActiveSubstance.Value))
			}
		}
		changed := false
		if p.WithdrawalMeatDays.Set && !samePeriod(p.WithdrawalMeatDays.Value, old.WithdrawalMeatDays) {
			if v := p.WithdrawalMeatDays.Value; v != nil {
				u.SetWithdrawalMeatDays(*v)
			} else {
				u.ClearWithdrawalMeatDays()
			}
			changed = true
		}
		if p.WithdrawalMilkHours.Set && !samePeriod(p.WithdrawalMilkHours.Value, old.WithdrawalMilkHours) {
			if v := p.WithdrawalMilkHours.Value; v != nil {
				u.SetWithdrawalMilkHours(*v)
			} else {
				u.ClearWithdrawalMilkHours()
			}
			changed = true
		}
		if p.SpeciesWithdrawals != nil {
			sw := sortedWithdrawals(*p.SpeciesWithdrawals)
			if !slices.EqualFunc(sw, sortedWithdrawals(old.SpeciesWithdrawals), sameLine) {
				u.SetSpeciesWithdrawals(sw)
				changed = true
			}
		}
		if p.DryCow != nil && *p.DryCow != old.DryCow {
			u.SetDryCow(*p.DryCow)
			changed = true
		}
		if !changed && (p.Name == nil || strings.TrimSpace(*p.Name) == old.Name) &&
			(!p.ActiveSubstance.Set || equalPtr(trimmedPtr(p.ActiveSubstance.Value), old.ActiveSubstance)) {
			// A write that changes nothing changes nothing: no updated_at, no new version.
			m = old
			return nil
		}
		if changed {
			u.SetVersion(old.Version + 1)
		}
		if m, err = u.Save(ctx); err != nil {
			return err
		}
		if changed {
			// Two edits racing for the same version meet at the unique (medicine, version)
			// index: the later one is a conflict, to be retried against the new version.
			return constraint(s.addMedicineVersion(ctx, m, v.UserID), "the medicine was changed at the same time; read it again and retry")
		}
		return nil
	})
	return m, err
}

// DeleteMedicine takes a medicine off the farm's list. Treatments recorded with it keep it:
// their withdrawal periods and the medicine book still read it.
func (s *Service) DeleteMedicine(ctx context.Context, farmID, id uuid.UUID) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleEditor, ScopeWriteRecords); err != nil {
		return err
	}
	return s.inTx(ctx, func(ctx context.Context) error {
		n, err := s.Client(ctx).Medicine.Update().Where(medicine.FarmID(farmID), medicine.ID(id), medicine.IsActive(true)).
			SetIsActive(false).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return Errorf(ENOTFOUND, "medicine %s not found", id)
		}
		return nil
	})
}

// MedicineVersions returns every version of a medicine, oldest first.
func (s *Service) MedicineVersions(ctx context.Context, farmID, id uuid.UUID) ([]*ent.MedicineVersion, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	return s.Client(ctx).MedicineVersion.Query().
		Where(medicineversion.FarmID(farmID), medicineversion.MedicineID(id)).
		Order(ent.Asc(medicineversion.FieldVersion)).All(ctx)
}

// labelOf returns a medicine version's label as the withdrawal package reads it: a general
// line (the version's own periods, for species without lines of their own), then the species'
// lines, each null period a dash.
func labelOf(v *ent.MedicineVersion) withdrawal.Label {
	l := withdrawal.Label{DryCow: v.DryCow, Lines: make([]withdrawal.Line, 0, len(v.SpeciesWithdrawals)+1)}
	l.Lines = append(l.Lines, withdrawal.Line{MeatDays: v.WithdrawalMeatDays, MilkHours: v.WithdrawalMilkHours})
	for _, sw := range v.SpeciesWithdrawals {
		ln := withdrawal.Line{Species: sw.Species, Route: sw.Route, MeatDays: sw.WithdrawalMeatDays, MilkHours: sw.WithdrawalMilkHours}
		if sw.Dose != nil {
			ln.Dose = &withdrawal.DoseBand{Unit: sw.Dose.Unit, Min: sw.Dose.Min, Max: sw.Dose.Max}
		}
		l.Lines = append(l.Lines, ln)
	}
	return l
}

// MedicineNode returns a medicine by id alone, for the graph's node(id:), when the viewer may
// read its farm's records; deleted medicines are not found.
func (s *Service) MedicineNode(ctx context.Context, id uuid.UUID) (*ent.Medicine, error) {
	if _, err := authenticate(ctx); err != nil {
		return nil, err
	}
	m, err := s.Client(ctx).Medicine.Query().Where(medicine.ID(id)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "node", id)
	}
	if _, _, err := s.authorizeFarm(ctx, m.FarmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	return m, nil
}

// LabelPeriod is a label period as printed: a number of days or hours.
func LabelPeriod(n int) Optional[int] { return Optional[int]{Set: true, Value: &n} }

// NotAuthorised is the label's dash: no period, the product is not authorised there.
var NotAuthorised = Optional[int]{Set: true}

// trimmedPtr is the value a write stores for an optional text: trimmed, or absent.
func trimmedPtr(v *string) *string {
	if v == nil {
		return nil
	}
	t := strings.TrimSpace(*v)
	return &t
}
