package herdbook

import (
	"context"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recordanimal"
)

// NoteRecordName is the name the web app gives a note it writes about an animal (a record of
// type OTHER naming the animal, its text in the description). The app shows the name in the
// user's language, as it does the names the server gives the records it writes.
const NoteRecordName = "Note"

// notesDefault and notesCap bound AnimalNotes: a card shows a few, an animal page a few more.
const (
	notesDefault = 3
	notesCap     = 50
)

// AnimalNotes answers the animal's notes: the records in force that name the animal directly
// and carry a description (a note written at the crush, or a record of any kind whose writer
// added words to it), newest first by the moment they apply to, then the latest written.
// first is how many (3 when nil, at most 50). An animal that is not the farm's is ENOTFOUND.
// Three statements after authorization whatever the number of records: the animal, the
// notes, and nothing per note.
func (s *Service) AnimalNotes(ctx context.Context, farmID, animalID uuid.UUID, first *int) ([]*ent.Record, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadAnimals, ScopeReadRecords); err != nil {
		return nil, err
	}
	n := notesDefault
	if first != nil {
		if *first < 0 {
			var fe fieldErrors
			fe.add("first", "must be 0 or more")
			return nil, fe.err()
		}
		n = min(*first, notesCap)
	}
	c := s.Client(ctx)
	ok, err := c.Animal.Query().Where(animal.FarmID(farmID), animal.ID(animalID)).Exist(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, Errorf(ENOTFOUND, "animal %s not found", animalID)
	}
	if n == 0 {
		return []*ent.Record{}, nil
	}
	return c.Record.Query().
		Where(record.FarmID(farmID), record.HasAnimalLinksWith(recordanimal.AnimalID(animalID), recordanimal.FarmID(farmID)), record.DescriptionNotNil(), record.DescriptionNEQ("")).
		Order(ent.Desc(record.FieldAppliedAt), ent.Desc(record.FieldCreatedAt), ent.Desc(record.FieldID)).
		Limit(n).All(ctx)
}
