package herdbook

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/ent/birthpreview"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
)

// The functions below resolve the ids that computed answers (a birth's evidence, a preview)
// name into objects, for clients that follow references instead of looking ids up. Each loads
// every id of one kind in one query, so an answer naming many animals costs no more than one
// naming a few. Deleted objects are included: evidence keeps naming an animal or a record
// after it is deleted, and the object's isActive says so.

// AnimalsByID returns the farm's animals with the given ids, by id. Needs read:animals.
func (s *Service) AnimalsByID(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]*ent.Animal, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]*ent.Animal{}
	if len(ids) == 0 {
		return out, nil
	}
	as, err := s.Client(ctx).Animal.Query().Where(animal.FarmID(farmID), animal.IDIn(dedupe(ids)...)).All(IncludeInactive(ctx))
	for _, a := range as {
		out[a.ID] = a
	}
	return out, err
}

// RecordsByID returns the farm's records with the given ids, by id. Needs read:records.
func (s *Service) RecordsByID(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]*ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]*ent.Record{}
	if len(ids) == 0 {
		return out, nil
	}
	rs, err := s.Client(ctx).Record.Query().Where(record.FarmID(farmID), record.IDIn(dedupe(ids)...)).All(IncludeInactive(ctx))
	for _, r := range rs {
		out[r.ID] = r
	}
	return out, err
}

// BirthPreviewsByID returns the farm's previews with the given ids, by id, in one query.
// Needs read:records.
func (s *Service) BirthPreviewsByID(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]*ent.BirthPreview, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]*ent.BirthPreview{}
	if len(ids) == 0 {
		return out, nil
	}
	ps, err := s.Client(ctx).BirthPreview.Query().Where(birthpreview.FarmID(farmID), birthpreview.IDIn(dedupe(ids)...)).All(ctx)
	for _, p := range ps {
		out[p.ID] = p
	}
	return out, err
}

// RecordItemsByID returns the items with the given ids of the farm's records, by id. Needs
// read:records.
func (s *Service) RecordItemsByID(ctx context.Context, farmID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]*ent.RecordItem, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	out := map[uuid.UUID]*ent.RecordItem{}
	if len(ids) == 0 {
		return out, nil
	}
	ctx = IncludeInactive(ctx)
	is, err := s.Client(ctx).RecordItem.Query().
		Where(recorditem.IDIn(dedupe(ids)...), itemsOfFarm(farmID)).All(ctx)
	for _, it := range is {
		out[it.ID] = it
	}
	return out, err
}

// BirthEvent returns an approved birth of the farm with its tasks. Needs read:records.
func (s *Service) BirthEvent(ctx context.Context, farmID, id uuid.UUID) (*ent.BirthEvent, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadRecords); err != nil {
		return nil, err
	}
	ev, err := s.Client(ctx).BirthEvent.Query().Where(birthevent.FarmID(farmID), birthevent.ID(id)).Only(ctx)
	return ev, notFound(err, "birth", id)
}
