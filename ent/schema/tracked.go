package schema

import (
	"entgo.io/ent"

	"github.com/herdbook/herdbook/ent/schema/track"
)

// The change-tracking hooks (package track): they number the rows the change feed lists and
// write webhook events to the outbox, in the transaction of each change.

// Hooks of the Farm.
func (Farm) Hooks() []ent.Hook { return []ent.Hook{track.Farm(IncludeInactive)} }

// Hooks of the FarmMember: a membership change is a change of its farm.
func (FarmMember) Hooks() []ent.Hook { return []ent.Hook{track.Member(IncludeInactive)} }

// Hooks of the Record.
func (Record) Hooks() []ent.Hook { return []ent.Hook{track.Record(IncludeInactive)} }

// Hooks of the Animal.
func (Animal) Hooks() []ent.Hook { return []ent.Hook{track.Animal(IncludeInactive)} }

// Hooks of the FarmTask.
func (FarmTask) Hooks() []ent.Hook { return []ent.Hook{track.Task(IncludeInactive)} }

// Hooks of the File.
func (File) Hooks() []ent.Hook { return []ent.Hook{track.File(IncludeInactive)} }

// Hooks of the Notification.
func (Notification) Hooks() []ent.Hook { return []ent.Hook{track.Notification(IncludeInactive)} }
