package herdbook

import (
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
)

// SpeciesWithdrawal is a label's periods for one species (see schematype).
type SpeciesWithdrawal = schematype.SpeciesWithdrawal

// MedicineInput creates a medicine. The periods come from the product's label as the farmer
// enters them: none is assumed, so both are required.
type MedicineInput struct {
	Name                string
	ActiveSubstance     *string
	WithdrawalMeatDays  *int
	WithdrawalMilkHours *int
	SpeciesWithdrawals  []SpeciesWithdrawal
}

// MedicinePatch changes a medicine; absent fields keep their value. SpeciesWithdrawals, when
// given (non-nil), replaces the list. A change of any period makes a new version.
type MedicinePatch struct {
	Name                *string
	ActiveSubstance     Optional[string]
	WithdrawalMeatDays  *int
	WithdrawalMilkHours *int
	SpeciesWithdrawals  *[]SpeciesWithdrawal
}

func validateMeatDays(fe *fieldErrors, field string, v *int, required bool) {
	switch {
	case v == nil && required:
		fe.add(field, "is required (the label's meat withdrawal in days; 0 when the label gives none)")
	case v != nil && (*v < 0 || *v > evidence.MaxWithdrawalMeatDays):
		fe.add(field, "must be between 0 and %d", evidence.MaxWithdrawalMeatDays)
	}
}

func validateMilkHours(fe *fieldErrors, field string, v *int, required bool) {
	switch {
	case v == nil && required:
		fe.add(field, "is required (the label's milk withdrawal in hours; 0 when the label gives none)")
	case v != nil && (*v < 0 || *v > evidence.MaxWithdrawalMilkHours):
		fe.add(field, "must be between 0 and %d", evidence.MaxWithdrawalMilkHours)
	}
}

func validateSpeciesWithdrawals(fe *fieldErrors, list []SpeciesWithdrawal) {
	if len(list) > len(Species) {
		fe.add("species_withdrawals", "must have at most %d items, one per species", len(Species))
		return
	}
	seen := map[string]bool{}
	for i, sw := range list {
		p := fmt.Sprintf("species_withdrawals[%d]", i)
		if !slices.Contains(Species, sw.Species) {
			fe.add(p+".species", "must be one of %s", strings.Join(Species, ", "))
		} else if seen[sw.Species] {
			fe.add(p+".species", "must not repeat a species")
		}
		seen[sw.Species] = true
		validateMeatDays(fe, p+".withdrawal_meat_days", &sw.WithdrawalMeatDays, false)
		validateMilkHours(fe, p+".withdrawal_milk_hours", &sw.WithdrawalMilkHours, false)
	}
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

func sortedWithdrawals(list []SpeciesWithdrawal) []SpeciesWithdrawal {
	out := slices.Clone(list)
	if out == nil {
		out = []SpeciesWithdrawal{}
	}
	slices.SortFunc(out, func(a, b SpeciesWithdrawal) int { return strings.Compare(a.Species, b.Species) })
	return out
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
			SetWithdrawalMeatDays(*in.WithdrawalMeatDays).SetWithdrawalMilkHours(*in.WithdrawalMilkHours).
			SetSpeciesWithdrawals(sw).Save(ctx)
		if err != nil {
			return err
		}
		return s.addMedicineVersion(ctx, m, v.UserID)
	})
	return m, err
}

func (s *Service) addMedicineVersion(ctx context.Context, m *ent.Medicine, by uuid.UUID) error {
	return s.Client(ctx).MedicineVersion.Create().SetMedicineID(m.ID).SetFarmID(m.FarmID).SetVersion(m.Version).
		SetWithdrawalMeatDays(m.WithdrawalMeatDays).SetWithdrawalMilkHours(m.WithdrawalMilkHours).
		SetSpeciesWithdrawals(m.SpeciesWithdrawals).SetCreatedBy(by).Exec(ctx)
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
		if p.WithdrawalMeatDays != nil && *p.WithdrawalMeatDays != old.WithdrawalMeatDays {
			u.SetWithdrawalMeatDays(*p.WithdrawalMeatDays)
			changed = true
		}
		if p.WithdrawalMilkHours != nil && *p.WithdrawalMilkHours != old.WithdrawalMilkHours {
			u.SetWithdrawalMilkHours(*p.WithdrawalMilkHours)
			changed = true
		}
		if p.SpeciesWithdrawals != nil {
			sw := sortedWithdrawals(*p.SpeciesWithdrawals)
			if !slices.Equal(sw, sortedWithdrawals(old.SpeciesWithdrawals)) {
				u.SetSpeciesWithdrawals(sw)
				changed = true
			}
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

// labelFor returns a version's periods for a species: the species' own where the label gives
// them, the general ones otherwise.
func labelFor(v *ent.MedicineVersion, species string) (meatDays, milkHours int) {
	for _, sw := range v.SpeciesWithdrawals {
		if sw.Species == species {
			return sw.WithdrawalMeatDays, sw.WithdrawalMilkHours
		}
	}
	return v.WithdrawalMeatDays, v.WithdrawalMilkHours
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
