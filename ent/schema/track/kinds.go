package track

import (
	"context"
	"slices"
	"time"

	"entgo.io/ent"
	"entgo.io/ent/dialect/sql"
	"github.com/google/uuid"

	gen "github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmmember"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/filerecord"
	"github.com/herdbook/herdbook/ent/notification"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/onfarm"
	"github.com/herdbook/herdbook/internal/db/citus"
)

// The hooks of each tracked entity. unfiltered returns a context in which queries also see
// soft-deleted rows (the schema's IncludeInactive).

// Farm numbers farms from the farm-level sequence and reports farm.* events.
func Farm(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{name: "farm", counter: globalCounter, isFarm: true, unfiltered: unfiltered,
		load: func(ctx context.Context, c *gen.Client, ids, _ []uuid.UUID) (map[uuid.UUID]any, error) {
			rows, err := c.Farm.Query().Where(farm.IDIn(ids...)).All(ctx)
			return byID(rows, func(f *gen.Farm) (uuid.UUID, any) { return f.ID, farmData(f) }), err
		}}
	return k.hook()
}

// Member reports a membership change as a change of its farm (farm_users is part of a farm),
// so that the farm reaches the farms feed of a member who was just added.
func Member(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{unfiltered: unfiltered,
		farms: func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
			rows, err := onfarm.Lookup(ctx, len(ids), func(farm func(*sql.Selector)) ([]*gen.FarmMember, error) {
				return c.FarmMember.Query().Where(farmmember.IDIn(ids...), farm).
					Select(farmmember.FieldID, farmmember.FieldFarmID).All(ctx)
			})
			return farmsOf(rows, func(r *gen.FarmMember) (uuid.UUID, uuid.UUID) { return r.ID, r.FarmID }), err
		},
		after: func(ctx context.Context, c *gen.Client, _ ent.Mutation, _ []uuid.UUID, farms []uuid.UUID, _ any) error {
			for _, f := range farms {
				if err := c.Farm.UpdateOneID(f).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		}}
	return k.hook()
}

// Record numbers records from their farm's sequence and reports record.* events.
func Record(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{name: "record", counter: farmCounter, unfiltered: unfiltered,
		farms: func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
			rows, err := onfarm.Lookup(ctx, len(ids), func(farm func(*sql.Selector)) ([]*gen.Record, error) {
				return c.Record.Query().Where(record.IDIn(ids...), farm).Select(record.FieldID, record.FieldFarmID).All(ctx)
			})
			return farmsOf(rows, func(r *gen.Record) (uuid.UUID, uuid.UUID) { return r.ID, r.FarmID }), err
		},
		load: func(ctx context.Context, c *gen.Client, ids, farms []uuid.UUID) (map[uuid.UUID]any, error) {
			rows, err := c.Record.Query().Where(record.IDIn(ids...), citus.FarmOf(farms...)).All(ctx)
			return byID(rows, func(r *gen.Record) (uuid.UUID, any) { return r.ID, recordData(r) }), err
		},
		tally: func(ctx context.Context, c *gen.Client, m ent.Mutation, ids, farms []uuid.UUID) (int64, error) {
			v, set := m.Field(record.FieldIsActive)
			active, _ := v.(bool)
			if m.Op().Is(ent.OpCreate) {
				if set && !active {
					return 0, nil
				}
				return 1, nil
			}
			if !set {
				return 0, nil
			}
			// Only the rows whose state flips count.
			n, err := c.Record.Query().Where(record.IDIn(ids...), citus.FarmOf(farms...), record.IsActive(!active)).Count(ctx)
			if active {
				return int64(n), err
			}
			return -int64(n), err
		}}
	return k.hook()
}

// Animal numbers animals from their farm's sequence and reports animal.* events.
func Animal(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{name: "animal", counter: farmCounter, unfiltered: unfiltered,
		farms: func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
			rows, err := onfarm.Lookup(ctx, len(ids), func(farm func(*sql.Selector)) ([]*gen.Animal, error) {
				return c.Animal.Query().Where(animal.IDIn(ids...), farm).Select(animal.FieldID, animal.FieldFarmID).All(ctx)
			})
			return farmsOf(rows, func(r *gen.Animal) (uuid.UUID, uuid.UUID) { return r.ID, r.FarmID }), err
		},
		load: func(ctx context.Context, c *gen.Client, ids, farms []uuid.UUID) (map[uuid.UUID]any, error) {
			rows, err := c.Animal.Query().Where(animal.IDIn(ids...), citus.FarmOf(farms...)).All(ctx)
			return byID(rows, func(a *gen.Animal) (uuid.UUID, any) { return a.ID, animalData(a) }), err
		}}
	return k.hook()
}

// Task numbers farm tasks from their farm's sequence and reports task.* events.
func Task(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{name: "task", counter: farmCounter, unfiltered: unfiltered,
		farms: func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
			rows, err := onfarm.Lookup(ctx, len(ids), func(farm func(*sql.Selector)) ([]*gen.FarmTask, error) {
				return c.FarmTask.Query().Where(farmtask.IDIn(ids...), farm).Select(farmtask.FieldID, farmtask.FieldFarmID).All(ctx)
			})
			return farmsOf(rows, func(r *gen.FarmTask) (uuid.UUID, uuid.UUID) { return r.ID, r.FarmID }), err
		},
		load: func(ctx context.Context, c *gen.Client, ids, farms []uuid.UUID) (map[uuid.UUID]any, error) {
			rows, err := c.FarmTask.Query().Where(farmtask.IDIn(ids...), citus.FarmOf(farms...)).All(ctx)
			return byID(rows, func(t *gen.FarmTask) (uuid.UUID, any) { return t.ID, taskData(t) }), err
		}}
	return k.hook()
}

// File reports file.* events, and a change of the records that show the file: its upload
// to a record, its links, its rename or deletion change what those records list.
func File(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{name: "file", unfiltered: unfiltered,
		farms: func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
			rows, err := onfarm.Lookup(ctx, len(ids), func(farm func(*sql.Selector)) ([]*gen.File, error) {
				return c.File.Query().Where(file.IDIn(ids...), farm).Select(file.FieldID, file.FieldFarmID).All(ctx)
			})
			return farmsOf(rows, func(r *gen.File) (uuid.UUID, uuid.UUID) { return r.ID, r.FarmID }), err
		},
		load: func(ctx context.Context, c *gen.Client, ids, farms []uuid.UUID) (map[uuid.UUID]any, error) {
			rows, err := c.File.Query().Where(file.IDIn(ids...), citus.FarmOf(farms...)).All(ctx)
			return byID(rows, func(f *gen.File) (uuid.UUID, any) { return f.ID, fileData(f) }), err
		},
		before: func(ctx context.Context, c *gen.Client, m ent.Mutation, ids, farms []uuid.UUID) (any, error) {
			if m.Op().Is(ent.OpCreate) {
				return []uuid.UUID(nil), nil
			}
			// The records the files show, from the links of the files' farms (on a cluster
			// their shard), whether or not a record is active.
			var touched []uuid.UUID
			err := c.FileRecord.Query().Where(filerecord.FileIDIn(ids...), citus.FarmOf(farms...)).
				Unique(true).Select(filerecord.FieldRecordID).Scan(ctx, &touched)
			return touched, err
		},
		after: func(ctx context.Context, c *gen.Client, m ent.Mutation, _ []uuid.UUID, farms []uuid.UUID, before any) error {
			touched, _ := before.([]uuid.UUID)
			for _, v := range slices.Concat(m.AddedIDs(file.EdgeRecords), m.RemovedIDs(file.EdgeRecords)) {
				if id, ok := v.(uuid.UUID); ok && !slices.Contains(touched, id) {
					touched = append(touched, id)
				}
			}
			if len(touched) == 0 {
				return nil
			}
			if len(farms) == 1 {
				ctx = onfarm.With(ctx, farms[0]) // a file's records are of its farm
			}
			return c.Record.Update().Where(record.IDIn(touched...), citus.FarmOf(farms...)).Exec(ctx)
		}}
	return k.hook()
}

// Notification reports notification.* events. Leasing and counting attempts are the
// workers' bookkeeping, not news: only a change of status, error, sent or read time is.
func Notification(unfiltered func(context.Context) context.Context) ent.Hook {
	k := &kind{name: "notification", unfiltered: unfiltered,
		quiet: map[string]bool{
			notification.FieldLeaseUntil: true, notification.FieldLeasedBy: true, notification.FieldAttempts: true,
			notification.FieldNextAttemptAt: true, notification.FieldUpdatedAt: true,
		},
		farms: func(ctx context.Context, c *gen.Client, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
			rows, err := onfarm.Lookup(ctx, len(ids), func(farm func(*sql.Selector)) ([]*gen.Notification, error) {
				return c.Notification.Query().Where(notification.IDIn(ids...), farm).
					Select(notification.FieldID, notification.FieldFarmID).All(ctx)
			})
			return farmsOf(rows, func(r *gen.Notification) (uuid.UUID, uuid.UUID) { return r.ID, r.FarmID }), err
		},
		load: func(ctx context.Context, c *gen.Client, ids, farms []uuid.UUID) (map[uuid.UUID]any, error) {
			rows, err := c.Notification.Query().Where(notification.IDIn(ids...), citus.FarmOf(farms...)).All(ctx)
			return byID(rows, func(n *gen.Notification) (uuid.UUID, any) { return n.ID, notificationData(n) }), err
		}}
	return k.hook()
}

func byID[T any](rows []T, f func(T) (uuid.UUID, any)) map[uuid.UUID]any {
	out := make(map[uuid.UUID]any, len(rows))
	for _, r := range rows {
		id, d := f(r)
		out[id] = d
	}
	return out
}

func farmsOf[T any](rows []T, f func(T) (uuid.UUID, uuid.UUID)) map[uuid.UUID]uuid.UUID {
	out := make(map[uuid.UUID]uuid.UUID, len(rows))
	for _, r := range rows {
		id, farm := f(r)
		out[id] = farm
	}
	return out
}

// The event data of each kind: the fields of the REST representation (SPEC.md's where it
// has one), without nested lists, so that a payload stays small; a receiver that needs
// more reads the entity over the API.

// FarmData is the data of farm.* events.
type FarmData struct {
	ID                  uuid.UUID  `json:"id"`
	Name                string     `json:"name"`
	Species             string     `json:"species"`
	SpeciesOther        *string    `json:"species_other"`
	AllowPrivateThreads bool       `json:"allow_private_threads"`
	CurrentMonthStart   *time.Time `json:"current_month_start"`
	IsActive            bool       `json:"is_active"`
	CreatedAt           time.Time  `json:"created_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
}

func farmData(f *gen.Farm) FarmData {
	return FarmData{ID: f.ID, Name: f.Name, Species: string(f.Species), SpeciesOther: f.SpeciesOther,
		AllowPrivateThreads: f.AllowPrivateThreads, CurrentMonthStart: utc(f.CurrentMonthStart), IsActive: f.IsActive,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

// RecordData is the data of record.* events.
type RecordData struct {
	ID          uuid.UUID `json:"id"`
	FarmID      uuid.UUID `json:"farm_id"`
	Type        string    `json:"type"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	AppliedAt   time.Time `json:"applied_at"`
	IsActive    bool      `json:"is_active"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func recordData(r *gen.Record) RecordData {
	return RecordData{ID: r.ID, FarmID: r.FarmID, Type: string(r.Type), Name: r.Name, Description: r.Description,
		AppliedAt: r.AppliedAt.UTC(), IsActive: r.IsActive, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// AnimalData is the data of animal.* events.
type AnimalData struct {
	ID        uuid.UUID `json:"id"`
	FarmID    uuid.UUID `json:"farm_id"`
	Tag       string    `json:"tag"`
	Name      *string   `json:"name"`
	IsActive  bool      `json:"is_active"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func animalData(a *gen.Animal) AnimalData {
	return AnimalData{ID: a.ID, FarmID: a.FarmID, Tag: a.Tag, Name: a.Name, IsActive: a.IsActive,
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC()}
}

// TaskData is the data of task.* events (SPEC.md's FarmTask without its animals).
type TaskData struct {
	ID           uuid.UUID  `json:"id"`
	FarmID       uuid.UUID  `json:"farm_id"`
	BirthEventID uuid.UUID  `json:"birth_event_id"`
	Name         string     `json:"name"`
	Status       string     `json:"status"`
	DueDate      *time.Time `json:"due_date"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

func taskData(t *gen.FarmTask) TaskData {
	return TaskData{ID: t.ID, FarmID: t.FarmID, BirthEventID: t.BirthEventID, Name: t.Name, Status: string(t.Status),
		DueDate: utc(t.DueDate), CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()}
}

// FileData is the data of file.* events (the File of SPEC.md without its url).
type FileData struct {
	ID        uuid.UUID `json:"id"`
	FarmID    uuid.UUID `json:"farm_id"`
	Name      string    `json:"name"`
	MimeType  string    `json:"mime_type"`
	Size      int64     `json:"size"`
	IsActive  bool      `json:"is_active"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func fileData(f *gen.File) FileData {
	return FileData{ID: f.ID, FarmID: f.FarmID, Name: f.Name, MimeType: f.MimeType, Size: f.Size, IsActive: f.IsActive,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

// NotificationData is the data of notification.* events: SPEC.md's Notification and when
// its recipient read it.
type NotificationData struct {
	ID               uuid.UUID  `json:"id"`
	FarmID           uuid.UUID  `json:"farm_id"`
	UserID           uuid.UUID  `json:"user_id"`
	ScheduledEventID uuid.UUID  `json:"scheduled_event_id"`
	Type             string     `json:"type"`
	Status           string     `json:"status"`
	ErrorMessage     *string    `json:"error_message"`
	SentAt           *time.Time `json:"sent_at"`
	ReadAt           *time.Time `json:"read_at"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

func notificationData(n *gen.Notification) NotificationData {
	return NotificationData{ID: n.ID, FarmID: n.FarmID, UserID: n.UserID, ScheduledEventID: n.ScheduledEventID,
		Type: string(n.Type), Status: string(n.Status), ErrorMessage: n.ErrorMessage, SentAt: utc(n.SentAt),
		ReadAt: utc(n.ReadAt), CreatedAt: n.CreatedAt.UTC(), UpdatedAt: n.UpdatedAt.UTC()}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
