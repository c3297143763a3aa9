// Package notice derives a holding's statutory notices from the dated facts of its book:
// births, tags, deaths, moves on and off, tag replacements and corrections, each with its
// legal deadline under the holding's rule set and its state (due, overdue, done, sent,
// accepted, rejected, superseded). It is pure: the service loads the facts and the
// submissions in a constant number of statements and hands them over; nothing here reads a
// database or a clock (docs/registry.md).
package notice

import (
	"sort"
	"time"

	"github.com/herdbook/herdbook/evidence"
)

// Kind names what a notice reports.
type Kind string

// The kinds of notice.
const (
	KindBirth          Kind = "birth"
	KindTagging        Kind = "tagging"
	KindDeath          Kind = "death"
	KindMoveOn         Kind = "move_on"
	KindMoveOff        Kind = "move_off"
	KindTagReplacement Kind = "tag_replacement"
	KindCorrection     Kind = "correction"
)

// Kinds lists every kind of notice.
var Kinds = []Kind{KindBirth, KindTagging, KindDeath, KindMoveOn, KindMoveOff, KindTagReplacement, KindCorrection}

// The states of a notice.
const (
	StateDue        = "due"        // not reported, deadline today or later
	StateOverdue    = "overdue"    // not reported, deadline passed
	StateDone       = "done"       // a clock the book itself satisfies (a tag recorded)
	StateSent       = "sent"       // submitted, no answer yet
	StateAccepted   = "accepted"   // the registry accepted it
	StateRejected   = "rejected"   // the registry refused it (cause on the submission)
	StateSuperseded = "superseded" // reported, then its fact was voided or amended: a correction replaces it
)

// States lists every state.
var States = []string{StateDue, StateOverdue, StateDone, StateSent, StateAccepted, StateRejected, StateSuperseded}

// Entry is one fact of the book as the derivation needs it.
type Entry struct {
	// Fact carries RecordItemID (its provenance) and the fact's fields.
	Fact   evidence.Fact
	FarmID string
	// Live is false once the fact's item or record was voided or amended.
	Live bool
	// EndedOn is the holding's local day on which a fact stopped being live.
	EndedOn string
	// Amends is the item id this fact's item replaced, if it is an amendment.
	Amends string
}

// Submission is the latest submission of a notice, as the service stored it.
type Submission struct {
	ID        string
	NoticeKey string
	State     string // pending, sent, accepted, rejected
	Channel   string
	Reference string
	Cause     string
	At        time.Time
}

// Input is everything a derivation reads.
type Input struct {
	Rules    Rules
	HerdType string
	// Today is the holding's local date, YYYY-MM-DD.
	Today   string
	Entries []Entry
	// Submissions are the holding's latest submission per notice key.
	Submissions map[string]Submission
}

// Notice is one statutory notice.
type Notice struct {
	Key      string `json:"key"`
	Kind     Kind   `json:"kind"`
	FarmID   string `json:"farm_id"`
	AnimalID string `json:"animal_id"`
	// EventDate is the day the clock runs from; Deadline the last day in time.
	EventDate string `json:"event_date"`
	Deadline  string `json:"deadline"`
	// DaysLeft counts calendar days from today to the deadline (negative when overdue).
	DaysLeft int    `json:"days_left"`
	State    string `json:"state"`
	RuleSet  string `json:"rule_set"`
	Rule     string `json:"rule"`
	// Sources are the record items the notice came from, the corrected one first.
	Sources []string `json:"sources"`
	// DoneOn is the day a book-satisfied clock was met (a tag's start), and Late whether
	// that was after the deadline.
	DoneOn string `json:"done_on,omitempty"`
	Late   bool   `json:"late,omitempty"`
	// Corrects names the superseded notice a correction replaces, and CorrectsKind its kind.
	Corrects     string      `json:"corrects,omitempty"`
	CorrectsKind Kind        `json:"corrects_kind,omitempty"`
	Submission   *Submission `json:"-"`
}

// Key is the stable key of a notice: its kind, the item its fact is on and the animal.
func Key(k Kind, itemID, animalID string) string { return string(k) + ":" + itemID + ":" + animalID }

// reported reports whether a submission made the registry know the notice.
func reported(s Submission, ok bool) bool {
	return ok && (s.State == StateSent || s.State == StateAccepted)
}

type raw struct {
	kind              Kind
	farm, animal, day string
	items             []string
	entry             *Entry
}

// official reports whether an identifier fact is an official ear tag (an EID or a visual tag).
func official(f evidence.Fact) bool {
	return f.Scheme == evidence.SchemeEID || f.Scheme == evidence.SchemeVisual
}

// Derive returns the holding's notices, ordered overdue first, then by deadline, kind and key.
func Derive(in Input) []Notice {
	// An animal's first official tag (live facts only): it meets the tagging clock.
	firstTag := map[string]string{}
	type span struct {
		item, start, end string
		e                *Entry
	}
	tags := map[string][]span{}
	departed := map[string]string{} // animal -> first day it left or died
	for i := range in.Entries {
		e := &in.Entries[i]
		f := e.Fact
		if !e.Live {
			continue
		}
		switch f.Kind {
		case evidence.KindIdentifier:
			if official(f) {
				if d, ok := firstTag[f.AnimalID]; !ok || f.StartDate < d {
					firstTag[f.AnimalID] = f.StartDate
				}
				tags[f.AnimalID+"|"+f.Scheme] = append(tags[f.AnimalID+"|"+f.Scheme], span{f.RecordItemID, f.StartDate, f.EndDate, e})
			}
		case evidence.KindDeath, evidence.KindSale, evidence.KindMovementOut:
			if d, ok := departed[f.AnimalID]; !ok || f.Date < d {
				departed[f.AnimalID] = f.Date
			}
		}
	}
	var raws []raw
	add := func(k Kind, e *Entry, animal, day string, items ...string) {
		if animal == "" || day == "" {
			return
		}
		raws = append(raws, raw{k, e.FarmID, animal, day, items, e})
	}
	for i := range in.Entries {
		e := &in.Entries[i]
		f := e.Fact
		switch f.Kind {
		case evidence.KindBirth:
			for _, o := range f.OffspringIDs {
				add(KindBirth, e, o, f.Date, f.RecordItemID)
				add(KindTagging, e, o, f.Date, f.RecordItemID)
			}
		case evidence.KindDeath:
			add(KindDeath, e, f.AnimalID, f.Date, f.RecordItemID)
		case evidence.KindPurchase, evidence.KindMovementIn:
			add(KindMoveOn, e, f.AnimalID, f.Date, f.RecordItemID)
		case evidence.KindSale, evidence.KindMovementOut:
			add(KindMoveOff, e, f.AnimalID, f.Date, f.RecordItemID)
		}
	}
	// A tag that stopped naming its animal while the animal stayed is a lost tag: its
	// replacement is due. The next tag of the same scheme, if recorded, is a source too.
	for _, ss := range tags {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		for i, s := range ss {
			if s.end == "" {
				continue
			}
			animal := s.e.Fact.AnimalID
			if d, ok := departed[animal]; ok && d <= s.end {
				continue
			}
			items := []string{s.item}
			if i+1 < len(ss) {
				items = append(items, ss[i+1].item)
			}
			add(KindTagReplacement, s.e, animal, s.end, items...)
		}
	}
	// Items whose amendment replaced them, for folding an amendment into its correction.
	amendedBy := map[string]string{}
	for _, e := range in.Entries {
		if e.Amends != "" {
			amendedBy[e.Amends] = e.Fact.RecordItemID
		}
	}
	byKey := map[string]raw{}
	for _, r := range raws {
		byKey[Key(r.kind, r.items[0], r.animal)] = r
	}
	var out []Notice
	for _, r := range raws {
		key := Key(r.kind, r.items[0], r.animal)
		sub, hasSub := in.Submissions[key]
		if !r.entry.Live {
			// A fact voided or amended before it was reported leaves nothing to report; one
			// that was reported stands superseded, and a correction is due from the day it
			// ended. Tagging is never reported, so it is never corrected.
			if r.kind == KindTagging || !reported(sub, hasSub) {
				continue
			}
			n := in.notice(r, key, sub, hasSub)
			n.State = StateSuperseded
			n.DaysLeft = 0
			out = append(out, n)
			ck := "correction:" + key
			c := raw{kind: KindCorrection, farm: r.farm, animal: r.animal, day: r.entry.EndedOn, items: append([]string{}, r.items...), entry: r.entry}
			if c.day == "" {
				c.day = in.Today
			}
			if nb := amendedBy[r.items[0]]; nb != "" {
				c.items = append(c.items, nb)
			}
			cs, ok := in.Submissions[ck]
			cn := in.noticeAs(c, ck, r.kind, cs, ok)
			cn.Corrects, cn.CorrectsKind = key, r.kind
			out = append(out, cn)
			continue
		}
		// An amendment of a reported fact is reported by the correction, not again.
		if old := r.entry.Amends; old != "" && r.kind != KindTagging {
			if prev, ok := in.Submissions[Key(r.kind, old, r.animal)]; reported(prev, ok) {
				continue
			}
		}
		n := in.notice(r, key, sub, hasSub)
		if r.kind == KindTagging {
			if d, ok := firstTag[r.animal]; ok && d <= in.Today {
				n.State, n.DoneOn, n.Late = StateDone, d, d > n.Deadline
			}
		}
		out = append(out, n)
	}
	_ = byKey
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.State == StateOverdue) != (b.State == StateOverdue) {
			return a.State == StateOverdue
		}
		if a.Deadline != b.Deadline {
			return a.Deadline < b.Deadline
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Key < b.Key
	})
	return out
}

func (in Input) notice(r raw, key string, sub Submission, hasSub bool) Notice {
	return in.noticeAs(r, key, r.kind, sub, hasSub)
}

// noticeAs builds a notice whose deadline runs under the period of kind period (a
// correction's is that of the kind it corrects).
func (in Input) noticeAs(r raw, key string, period Kind, sub Submission, hasSub bool) Notice {
	deadline, _ := in.Rules.Deadline(period, in.HerdType, r.day)
	n := Notice{Key: key, Kind: r.kind, FarmID: r.farm, AnimalID: r.animal, EventDate: r.day, Deadline: deadline,
		RuleSet: in.Rules.Name, Rule: in.Rules.Period(period, in.HerdType).Source, Sources: r.items}
	n.DaysLeft = daysBetween(in.Today, deadline)
	n.State = StateDue
	if n.DaysLeft < 0 {
		n.State = StateOverdue
	}
	if hasSub {
		s := sub
		n.Submission = &s
		switch sub.State {
		case StateSent, StateAccepted, StateRejected:
			n.State = sub.State
		}
	}
	return n
}

func daysBetween(from, to string) int {
	a, err1 := time.Parse(time.DateOnly, from)
	b, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil {
		return 0
	}
	return int(b.Sub(a).Hours() / 24)
}
