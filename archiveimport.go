package herdbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/schema/schematype"
	"github.com/herdbook/herdbook/ent/schema/trail"
	"github.com/herdbook/herdbook/evidence"
)

// MaxArchiveBody is the largest archive an import reads (with files' bytes, base64).
const MaxArchiveBody = 512 << 20

// archiveInsertBatch is how many rows one INSERT writes: well under the bind-parameter
// limits of both databases for the widest row.
const archiveInsertBatch = 200

// ImportFarmArchive reads an archive (ExportFarmArchive) into a NEW farm owned by the
// caller, with every id remapped, in one transaction: a malformed archive, an unknown format
// or version, or a reference to an id the archive does not hold is a 400 naming the field,
// and nothing is written. It needs write:farms, write:animals and write:records.
func (s *Service) ImportFarmArchive(ctx context.Context, body io.Reader, opts ArchiveOptions) (*ent.Farm, error) {
	f, _, err := s.ImportFarmArchiveMapped(ctx, body, opts)
	return f, err
}

// ImportFarmArchiveMapped is ImportFarmArchive that also answers the id map, each id of the
// archive to its new id.
func (s *Service) ImportFarmArchiveMapped(ctx context.Context, body io.Reader, opts ArchiveOptions) (*ent.Farm, map[uuid.UUID]uuid.UUID, error) {
	v, err := authenticate(ctx, ScopeWriteFarms, ScopeWriteAnimals, ScopeWriteRecords)
	if err != nil {
		return nil, nil, err
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, nil, err
	}
	a, err := decodeArchive(raw)
	if err != nil {
		return nil, nil, err
	}
	ids, err := a.check()
	if err != nil {
		return nil, nil, err
	}
	opts.progress("checked", len(ids))
	m := remapIDs(ids)
	a, err = a.remapped(m)
	if err != nil {
		return nil, nil, err
	}
	var st interface {
		Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
		Delete(ctx context.Context, key string) error
	}
	if a.WithFiles && len(a.Files) > 0 {
		bs, err := s.store()
		if err != nil {
			return nil, nil, err
		}
		st = bs
	}
	var put []string
	err = s.inTx(ctx, func(ctx context.Context) error {
		return s.writeArchive(trail.Restoring(ctx), v.UserID, a, opts, func(ctx context.Context, key string, f ArchiveFile) error {
			if st == nil || f.Content == nil {
				return nil
			}
			if err := st.Put(ctx, key, bytes.NewReader(f.Content), int64(len(f.Content)), f.MimeType); err != nil {
				return err
			}
			put = append(put, key)
			return nil
		})
	})
	if err != nil {
		for _, k := range put {
			_ = st.Delete(context.WithoutCancel(ctx), k)
		}
		var ve *ent.ValidationError
		if errors.As(err, &ve) {
			return nil, nil, Invalid(FieldError{Field: ve.Name, Message: "is not valid: " + ve.Error()})
		}
		return nil, nil, err
	}
	f, err := s.farmWithMembers(ctx, a.Farm.ID)
	return f, m, err
}

// decodeArchive reads the format and version first, so that an archive of another version
// is refused as such rather than for its first unknown property; then the whole archive,
// strictly: a property this version does not know is an error.
func decodeArchive(raw []byte) (*Archive, error) {
	if !utf8.Valid(raw) {
		return nil, Invalid(FieldError{Field: "body", Message: "must be valid UTF-8"})
	}
	var head struct {
		Format        *string `json:"format"`
		FormatVersion *int    `json:"formatVersion"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, archiveDecodeError(err)
	}
	switch {
	case head.Format == nil:
		return nil, Invalid(FieldError{Field: "format", Message: "is required: " + ArchiveFormat})
	case *head.Format != ArchiveFormat:
		return nil, Invalid(FieldError{Field: "format", Message: fmt.Sprintf("is %q; this server reads %q", *head.Format, ArchiveFormat)})
	case head.FormatVersion == nil:
		return nil, Invalid(FieldError{Field: "formatVersion", Message: "is required"})
	case *head.FormatVersion < archiveOldestVersion || *head.FormatVersion > ArchiveFormatVersion:
		return nil, Invalid(FieldError{Field: "formatVersion", Message: fmt.Sprintf("is %d; this server reads versions %d to %d",
			*head.FormatVersion, archiveOldestVersion, ArchiveFormatVersion)})
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var a Archive
	if err := dec.Decode(&a); err != nil {
		return nil, archiveDecodeError(err)
	}
	if a.FormatVersion < 2 && (a.OutsideAnimals != nil || (a.Settings != nil && (a.Settings.CalvingEaseScale != nil || a.Settings.WeaningAgeOfDam != nil))) {
		return nil, Invalid(FieldError{Field: "formatVersion", Message: "is 1, whose archives have no outside animals or breeding settings: version 2 has them"})
	}
	if dec.More() {
		return nil, Invalid(FieldError{Field: "body", Message: "has more after the archive's closing brace"})
	}
	return &a, nil
}

func archiveDecodeError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return Invalid(FieldError{Field: field, Message: fmt.Sprintf("must be %s, not a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)})
	case errors.As(err, &se):
		return Invalid(FieldError{Field: "body", Message: fmt.Sprintf("is not JSON: %v (at byte %d)", se, se.Offset)})
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return Invalid(FieldError{Field: name, Message: "is not a property of this archive version"})
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return Invalid(FieldError{Field: "body", Message: "ends before the archive does"})
	}
	// Values a type refuses (a malformed id or time) name no field in encoding/json.
	return Invalid(FieldError{Field: "body", Message: err.Error()})
}

func jsonKind(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "a number"
}

// archiveRefs collects the archive's ids by kind and the problems of its references.
type archiveRefs struct {
	fe   fieldErrors
	all  map[uuid.UUID]string // id → where it is defined
	kind map[string]map[uuid.UUID]bool
}

func (r *archiveRefs) define(kind, field string, id uuid.UUID) {
	if id == uuid.Nil {
		r.fe.add(field, "is required")
		return
	}
	if at, dup := r.all[id]; dup {
		r.fe.add(field, "repeats the id of %s", at)
		return
	}
	r.all[id] = field
	if r.kind[kind] == nil {
		r.kind[kind] = map[uuid.UUID]bool{}
	}
	r.kind[kind][id] = true
}

// defineWith defines an id that may also be the id of a row of kind with, by design: a
// calving's birth event has the id of its record. Both are remapped to one new id.
func (r *archiveRefs) defineWith(kind, with, field string, id uuid.UUID) {
	if r.kind[with][id] {
		if r.kind[kind][id] {
			r.fe.add(field, "repeats the id of %s", r.all[id])
			return
		}
		if r.kind[kind] == nil {
			r.kind[kind] = map[uuid.UUID]bool{}
		}
		r.kind[kind][id] = true
		return
	}
	r.define(kind, field, id)
}

func (r *archiveRefs) ref(kind, field string, id uuid.UUID) {
	if len(r.fe) >= 20 {
		return
	}
	if !r.kind[kind][id] {
		r.fe.add(field, "names %s %s, which the archive does not hold", strings.TrimSuffix(kind, "s"), id)
	}
}

// animalRef checks a reference to an animal a fact or a calving names, which may be one of
// the farm's animals or an outside animal (a sire, a donor).
func (r *archiveRefs) animalRef(field string, id uuid.UUID) {
	if len(r.fe) >= 20 || r.kind["animals"][id] || r.kind["outside animals"][id] {
		return
	}
	r.fe.add(field, "names animal %s, which the archive does not hold (in animals or herdbook:outsideAnimals)", id)
}

// idRef checks an id written as a string in a fact or a calving; what is not an id is left
// to the kinds' own rules.
func (r *archiveRefs) idRef(kind, field, id string) {
	if id == "" {
		return
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return
	}
	if kind == "animals" {
		r.animalRef(field, u)
	} else {
		r.ref(kind, field, u)
	}
}

// metadataRefs checks the ids an item's metadata names: its birth_history fact's animals,
// group and medicine, and the animals of the calving it keeps. The import remaps them with
// every other id, so an id the archive does not hold would name a row of another farm.
func (r *archiveRefs) metadataRefs(p string, raw json.RawMessage) {
	var md struct {
		Fact    *evidence.Fact `json:"birth_history"`
		Calving *struct {
			DamID string `json:"dam_id"`
			Sire  *struct {
				AnimalID string `json:"animal_id"`
			} `json:"sire"`
			Calves []struct {
				AnimalID       string  `json:"animal_id"`
				GeneticDamID   *string `json:"genetic_dam_id"`
				SurrogateDamID *string `json:"surrogate_dam_id"`
			} `json:"calves"`
		} `json:"calving"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &md) != nil {
		return
	}
	if f := md.Fact; f != nil {
		fp := p + "herdbook:metadata.birth_history."
		for _, x := range []struct{ name, id string }{{"animal_id", f.AnimalID}, {"sire_id", f.SireID}, {"dam_id", f.DamID},
			{"offspring_id", f.OffspringID}, {"parent_id", f.ParentID}, {"recipient_id", f.RecipientID}, {"genetic_dam_id", f.GeneticDamID}} {
			r.idRef("animals", fp+x.name, x.id)
		}
		for j, id := range f.OffspringIDs {
			r.idRef("animals", fmt.Sprintf("%soffspring_ids[%d]", fp, j), id)
		}
		r.idRef("groups", fp+"group_id", f.GroupID)
		r.idRef("medicines", fp+"medicine_id", f.MedicineID)
	}
	if c := md.Calving; c != nil {
		cp := p + "herdbook:metadata.calving."
		r.idRef("animals", cp+"dam_id", c.DamID)
		if c.Sire != nil {
			r.idRef("animals", cp+"sire.animal_id", c.Sire.AnimalID)
		}
		for j, calf := range c.Calves {
			at := fmt.Sprintf("%scalves[%d].", cp, j)
			r.idRef("animals", at+"animal_id", calf.AnimalID)
			if calf.GeneticDamID != nil {
				r.idRef("animals", at+"genetic_dam_id", *calf.GeneticDamID)
			}
			if calf.SurrogateDamID != nil {
				r.idRef("animals", at+"surrogate_dam_id", *calf.SurrogateDamID)
			}
		}
	}
}

func (r *archiveRefs) optRef(kind, field string, id *uuid.UUID) {
	if id != nil {
		r.ref(kind, field, *id)
	}
}

// check validates the archive before anything is written and returns every id it defines.
func (a *Archive) check() ([]uuid.UUID, error) {
	r := &archiveRefs{all: map[uuid.UUID]string{}, kind: map[string]map[uuid.UUID]bool{}}
	in := FarmInput{Name: a.Farm.Name, Species: a.Farm.Species, SpeciesOther: a.Farm.SpeciesOther}
	if err := in.Validate(); err != nil {
		var e *Error
		if errors.As(err, &e) {
			for _, f := range e.Fields {
				r.fe.add("farm."+f.Field, "%s", f.Message)
			}
		} else {
			return nil, err
		}
	}
	r.define("farm", "farm.id", a.Farm.ID)
	if a.Settings != nil && a.Settings.TimeZone != nil {
		if _, err := loadZone(*a.Settings.TimeZone); err != nil {
			r.fe.add("herdbook:settings.timeZone", "is not an IANA time zone this server knows")
		}
	}
	for i, g := range a.AnimalSets {
		r.define("groups", fmt.Sprintf("animalSets[%d].id", i), g.ID)
		if n := len([]rune(g.Name)); n < 1 || n > 200 {
			r.fe.add(fmt.Sprintf("animalSets[%d].name", i), "must be 1 to 200 characters")
		}
	}
	for i, an := range a.Animals {
		r.define("animals", fmt.Sprintf("animals[%d].id", i), an.ID)
		if n := len([]rune(an.Tag)); n < 1 || n > 100 {
			r.fe.add(fmt.Sprintf("animals[%d].herdbook:tag", i), "must be 1 to 100 characters")
		}
	}
	for i, o := range a.OutsideAnimals {
		p := fmt.Sprintf("herdbook:outsideAnimals[%d].", i)
		r.define("outside animals", p+"id", o.ID)
		name, sex := o.Name, o.Sex
		in := OutsideAnimalInput{Name: &name, Sex: &sex, Breed: o.Breed, Registry: o.Registry,
			RegistrationNumber: o.RegistrationNumber, Batch: o.Batch, BirthDate: o.HerdbookBirthDate}
		if err := in.Validate(); err != nil {
			for _, f := range ErrorFields(err) {
				r.fe.add(p+"herdbook:"+archiveOutsideProperty[f.Field], "%s", f.Message)
			}
		}
	}
	if st := a.Settings; st != nil {
		scale, ages, err := st.breeding()
		if err != nil {
			r.fe = append(r.fe, ErrorFields(err)...)
		}
		var fe fieldErrors
		if scale != nil {
			validateEaseScale(&fe, scale)
		}
		if ages != nil {
			validateAgeOfDam(&fe, ages)
		}
		for _, f := range fe {
			r.fe.add("herdbook:settings."+f.Field, "%s", f.Message)
		}
	}
	for i, f := range a.Files {
		r.define("files", fmt.Sprintf("herdbook:files[%d].id", i), f.ID)
		if a.WithFiles && f.Content != nil && int64(len(f.Content)) != f.Size {
			r.fe.add(fmt.Sprintf("herdbook:files[%d].content", i), "has %d bytes; size says %d", len(f.Content), f.Size)
		}
	}
	for i, m := range a.Medicines {
		r.define("medicines", fmt.Sprintf("medicines[%d].id", i), m.ID)
	}
	for i, v := range a.MedicineVersions {
		r.define("medicine versions", fmt.Sprintf("herdbook:medicineVersions[%d].id", i), v.ID)
		r.ref("medicines", fmt.Sprintf("herdbook:medicineVersions[%d].medicineId", i), v.MedicineID)
	}
	for i, p := range a.MedicinePurchases {
		r.define("purchases", fmt.Sprintf("medicineTransactions[%d].id", i), p.ID)
		r.ref("medicines", fmt.Sprintf("medicineTransactions[%d].herdbook:medicineId", i), p.MedicineID)
		r.optRef("files", fmt.Sprintf("medicineTransactions[%d].herdbook:fileId", i), p.FileID)
	}
	for i, rec := range a.Records {
		r.define("records", fmt.Sprintf("herdbook:records[%d].id", i), rec.ID)
		if record.TypeValidator(record.Type(rec.Type)) != nil {
			r.fe.add(fmt.Sprintf("herdbook:records[%d].type", i), "must be one of OTHER, FEED, GENETIC, HEALTH, MOVEMENT")
		}
		for j, id := range rec.AnimalIDs {
			r.ref("animals", fmt.Sprintf("herdbook:records[%d].animalIds[%d]", i, j), id)
		}
		for j, id := range rec.GroupIDs {
			r.ref("groups", fmt.Sprintf("herdbook:records[%d].groupIds[%d]", i, j), id)
		}
		for j, id := range rec.FileIDs {
			r.ref("files", fmt.Sprintf("herdbook:records[%d].fileIds[%d]", i, j), id)
		}
	}
	for i, ev := range a.Events {
		r.define("events", fmt.Sprintf("events[%d].id", i), ev.ID)
	}
	for i, ev := range a.Events {
		p := fmt.Sprintf("events[%d].", i)
		r.ref("records", p+"herdbook:recordId", ev.RecordID)
		if len(ev.Metadata) > 0 && ev.Metadata[0] != '{' && string(ev.Metadata) != "null" {
			r.fe.add(p+"herdbook:metadata", "must be a JSON object")
		}
		for j, l := range ev.FactAnimals {
			r.define("links", fmt.Sprintf("%sherdbook:factAnimals[%d].id", p, j), l.ID)
			r.animalRef(fmt.Sprintf("%sherdbook:factAnimals[%d].animalId", p, j), l.AnimalID)
		}
		r.metadataRefs(p, ev.Metadata)
		for j, x := range ev.Reach {
			r.define("reach", fmt.Sprintf("%sherdbook:reach[%d].id", p, j), x.ID)
			r.ref("animals", fmt.Sprintf("%sherdbook:reach[%d].animalId", p, j), x.AnimalID)
			r.optRef("events", fmt.Sprintf("%sherdbook:reach[%d].membershipItemId", p, j), x.MembershipItemID)
		}
		r.optRef("events", p+"herdbook:amendsId", ev.AmendsID)
		r.optRef("events", p+"herdbook:supersededById", ev.SupersededByID)
	}
	for i, rec := range a.Records {
		r.optRef("records", fmt.Sprintf("herdbook:records[%d].herdbook:amendsId", i), rec.AmendsID)
		r.optRef("records", fmt.Sprintf("herdbook:records[%d].herdbook:supersededById", i), rec.SupersededByID)
	}
	for i, b := range a.BirthSettings {
		r.define("birth settings", fmt.Sprintf("herdbook:birthSettings[%d].id", i), b.ID)
	}
	for i, b := range a.Protocols {
		r.define("protocols", fmt.Sprintf("herdbook:followUpProtocols[%d].id", i), b.ID)
	}
	for i, p := range a.BirthPreviews {
		r.define("previews", fmt.Sprintf("herdbook:birthPreviews[%d].id", i), p.ID)
	}
	for i, e := range a.BirthEvents {
		// A calving's birth event has the id of the calving's record (docs/breeding.md).
		r.defineWith("births", "records", fmt.Sprintf("herdbook:birthEvents[%d].id", i), e.ID)
		if strings.HasPrefix(e.RequestID, calvingRequestPrefix) && !r.kind["records"][e.ID] {
			r.fe.add(fmt.Sprintf("herdbook:birthEvents[%d].id", i), "is a calving's birth, whose record (herdbook:records, the same id) the archive does not hold")
		}
		r.ref("animals", fmt.Sprintf("herdbook:birthEvents[%d].damId", i), e.DamID)
		r.ref("previews", fmt.Sprintf("herdbook:birthEvents[%d].previewId", i), e.PreviewID)
	}
	for i, p := range a.BirthPreviews {
		r.ref("animals", fmt.Sprintf("herdbook:birthPreviews[%d].damId", i), p.DamID)
		r.optRef("births", fmt.Sprintf("herdbook:birthPreviews[%d].birthEventId", i), p.BirthEventID)
	}
	for i, ev := range a.Events {
		if len(ev.Metadata) > 0 && schematype.Metadata(ev.Metadata).Field(CalvingKey) != nil && !r.kind["births"][ev.RecordID] {
			r.fe.add(fmt.Sprintf("events[%d].herdbook:metadata.calving", i),
				"is a calving whose birth (herdbook:birthEvents, the id of its record %s) the archive does not hold", ev.RecordID)
		}
	}
	for i, t := range a.Tasks {
		r.define("tasks", fmt.Sprintf("herdbook:tasks[%d].id", i), t.ID)
		r.ref("births", fmt.Sprintf("herdbook:tasks[%d].birthEventId", i), t.BirthEventID)
		if farmtask.StatusValidator(farmtask.Status(t.Status)) != nil {
			r.fe.add(fmt.Sprintf("herdbook:tasks[%d].status", i), "must be one of TODO, DONE, CANCELLED")
		}
		for j, id := range t.AnimalIDs {
			r.ref("animals", fmt.Sprintf("herdbook:tasks[%d].animalIds[%d]", i, j), id)
		}
	}
	for i, e := range a.Audit {
		r.define("audit entries", fmt.Sprintf("herdbook:audit[%d].id", i), e.ID)
		r.ref("records", fmt.Sprintf("herdbook:audit[%d].recordId", i), e.RecordID)
		r.optRef("events", fmt.Sprintf("herdbook:audit[%d].recordItemId", i), e.RecordItemID)
	}
	if len(r.fe) > 20 {
		r.fe = r.fe[:20]
	}
	if err := r.fe.err(); err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(r.all))
	for id := range r.all {
		ids = append(ids, id)
	}
	return ids, nil
}

// remapIDs gives each id a new one, keeping their order: lists ordered by id (ties of
// equal times, the audit trail's time-ordered ids) come back in the same order. The new
// ids are version 7 UUIDs, increasing, assigned to the old ids sorted.
func remapIDs(ids []uuid.UUID) map[uuid.UUID]uuid.UUID {
	sortIDs(ids)
	m := make(map[uuid.UUID]uuid.UUID, len(ids))
	for _, id := range ids {
		m[id] = newID()
	}
	return m
}

// remapped returns the archive with every id it defines replaced by its new one, wherever
// it appears: in id properties and inside JSON values (facts' metadata, the audit trail's
// old and new values, evidence). Ids it does not define (users) stay as they are.
func (a *Archive) remapped(m map[uuid.UUID]uuid.UUID) (*Archive, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if field, msg := archiveTextIn(tree, ""); msg != "" {
		return nil, Invalid(FieldError{Field: field, Message: msg})
	}
	tree = remapValue(tree, m)
	b, err = json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	var out Archive
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// archiveTextIn applies the text rule (prose: tabs and line breaks allowed) to every string of the
// archive, keys included, and answers the first that breaks it with its path.
func archiveTextIn(v any, path string) (string, string) {
	switch x := v.(type) {
	case string:
		return path, textProblem(x, true)
	case []any:
		for i, e := range x {
			if f, msg := archiveTextIn(e, fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return f, msg
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if msg := textProblem(k, false); msg != "" {
				return p, msg
			}
			if f, msg := archiveTextIn(x[k], p); msg != "" {
				return f, msg
			}
		}
	}
	return "", ""
}

// uuidIn finds the ids inside a string.
var uuidIn = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

func remapValue(v any, m map[uuid.UUID]uuid.UUID) any {
	switch x := v.(type) {
	case string:
		if len(x) == 36 {
			if id, err := uuid.Parse(x); err == nil {
				if n, ok := m[id]; ok {
					return n.String()
				}
			}
		}
		if len(x) > 36 {
			// Ids inside a longer string: a calving's request id (calving:<dam>:<date>), a
			// review's reason that names its record.
			return uuidIn.ReplaceAllStringFunc(x, func(s string) string {
				if id, err := uuid.Parse(s); err == nil {
					if n, ok := m[id]; ok {
						return n.String()
					}
				}
				return s
			})
		}
		return x
	case []any:
		for i := range x {
			x[i] = remapValue(x[i], m)
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = remapValue(e, m)
		}
		return x
	}
	return v
}

func meta(raw json.RawMessage) (schematype.Metadata, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return schematype.Metadata(buf.Bytes()), nil
}

// inBatches calls fn with successive slices of at most archiveInsertBatch of n items.
func inBatches(n int, fn func(lo, hi int) error) error {
	for lo := 0; lo < n; lo += archiveInsertBatch {
		if err := fn(lo, min(lo+archiveInsertBatch, n)); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) writeArchive(ctx context.Context, owner uuid.UUID, a *Archive, opts ArchiveOptions,
	putFile func(ctx context.Context, key string, f ArchiveFile) error) error {
	c := s.Client(ctx)
	farmID := a.Farm.ID
	if err := c.Farm.Create().SetID(farmID).SetName(strings.TrimSpace(a.Farm.Name)).SetSpecies(farm.Species(a.Farm.Species)).
		SetNillableSpeciesOther(a.Farm.SpeciesOther).SetAllowPrivateThreads(a.Farm.AllowPrivateThreads).
		SetNillableCurrentMonthStart(a.Farm.CurrentMonthStart).SetCreatedAt(a.Farm.CreatedAt).SetUpdatedAt(a.Farm.UpdatedAt).Exec(ctx); err != nil {
		return err
	}
	if err := c.FarmMember.Create().SetFarmID(farmID).SetUserID(owner).SetRole(RoleOwner).Exec(ctx); err != nil {
		return err
	}
	if err := c.Thread.Create().SetFarmID(farmID).SetTitle(WelcomeThreadTitle).SetCreatedBy(owner).Exec(ctx); err != nil {
		return err
	}
	if st := a.Settings; st != nil {
		scale, ages, err := st.breeding()
		if err != nil {
			return err
		}
		if err := c.FarmSettings.Create().SetCalvingEaseScale(scale).SetWeaningAgeOfDam(ages).SetFarmID(farmID).SetNillableTimeZone(st.TimeZone).SetNillableWithdrawalRules(st.WithdrawalRules).
			SetOrganic(st.Organic).SetAllowTestTags(st.AllowTestTags).SetNillableMinimumBreedingAgeFemaleDays(st.MinimumBreedingAgeFemaleDays).
			SetNillableMinimumBreedingAgeMaleDays(st.MinimumBreedingAgeMaleDays).SetNillableMinimumCalvingIntervalDays(st.MinimumCalvingIntervalDays).
			SetNillableUpdatedBy(st.UpdatedBy).SetCreatedAt(st.CreatedAt).SetUpdatedAt(st.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	err := inBatches(len(a.AnimalSets), func(lo, hi int) error {
		bs := make([]*ent.GroupCreate, 0, hi-lo)
		for _, g := range a.AnimalSets[lo:hi] {
			bs = append(bs, c.Group.Create().SetID(g.ID).SetFarmID(farmID).SetName(g.Name).SetIsActive(g.IsActive).
				SetCreatedAt(g.CreatedAt).SetUpdatedAt(g.UpdatedAt))
		}
		return c.Group.CreateBulk(bs...).Exec(ctx)
	})
	if err != nil {
		return err
	}
	err = inBatches(len(a.Animals), func(lo, hi int) error {
		bs := make([]*ent.AnimalCreate, 0, hi-lo)
		for _, an := range a.Animals[lo:hi] {
			bs = append(bs, c.Animal.Create().SetID(an.ID).SetFarmID(farmID).SetTag(an.Tag).SetNillableName(an.HerdbookName).
				SetIsActive(an.IsActive).SetCreatedAt(an.CreatedAt).SetUpdatedAt(an.UpdatedAt))
		}
		return c.Animal.CreateBulk(bs...).Exec(ctx)
	})
	if err != nil {
		return err
	}
	opts.progress("animals written", len(a.Animals))
	err = inBatches(len(a.OutsideAnimals), func(lo, hi int) error {
		bs := make([]*ent.OutsideAnimalCreate, 0, hi-lo)
		for _, o := range a.OutsideAnimals[lo:hi] {
			bs = append(bs, c.OutsideAnimal.Create().SetID(o.ID).SetFarmID(farmID).SetName(o.Name).SetSex(o.Sex).
				SetNillableBreed(o.Breed).SetNillableRegistry(o.Registry).SetNillableRegistrationNumber(o.RegistrationNumber).
				SetNillableBatch(o.Batch).SetNillableBirthDate(o.HerdbookBirthDate).SetNillableCreatedBy(o.CreatedBy).
				SetCreatedAt(o.CreatedAt).SetUpdatedAt(o.UpdatedAt))
		}
		return c.OutsideAnimal.CreateBulk(bs...).Exec(ctx)
	})
	if err != nil {
		return err
	}
	opts.progress("outside animals written", len(a.OutsideAnimals))
	for _, f := range a.Files {
		key := storageKey(farmID, f.ID)
		if err := c.File.Create().SetID(f.ID).SetFarmID(farmID).SetName(f.Name).SetMimeType(f.MimeType).SetSize(f.Size).
			SetStorageKey(key).SetIsActive(f.IsActive).SetNillableDeletedAt(f.DeletedAt).
			SetCreatedAt(f.CreatedAt).SetUpdatedAt(f.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
		if err := putFile(ctx, key, f); err != nil {
			return err
		}
	}
	for _, m := range a.Medicines {
		var sw []schematype.SpeciesWithdrawal
		if err := unmarshalOpt(m.SpeciesWithdrawals, &sw); err != nil {
			return Invalid(FieldError{Field: "medicines.herdbook:speciesWithdrawals", Message: err.Error()})
		}
		if err := c.Medicine.Create().SetID(m.ID).SetFarmID(farmID).SetName(m.Name).SetNillableActiveSubstance(m.ActiveSubstance).
			SetVersion(m.Version).SetNillableWithdrawalMeatDays(m.WithdrawalMeatDays).SetNillableWithdrawalMilkHours(m.WithdrawalMilkHours).
			SetSpeciesWithdrawals(sw).SetDryCow(m.DryCow).SetIsActive(m.IsActive).SetCreatedAt(m.CreatedAt).SetUpdatedAt(m.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	for _, v := range a.MedicineVersions {
		var sw []schematype.SpeciesWithdrawal
		if err := unmarshalOpt(v.SpeciesWithdrawals, &sw); err != nil {
			return Invalid(FieldError{Field: "herdbook:medicineVersions.speciesWithdrawals", Message: err.Error()})
		}
		if err := c.MedicineVersion.Create().SetID(v.ID).SetFarmID(farmID).SetMedicineID(v.MedicineID).SetVersion(v.Version).
			SetNillableWithdrawalMeatDays(v.WithdrawalMeatDays).SetNillableWithdrawalMilkHours(v.WithdrawalMilkHours).
			SetSpeciesWithdrawals(sw).SetDryCow(v.DryCow).SetNillableCreatedBy(v.CreatedBy).
			SetCreatedAt(v.CreatedAt).SetUpdatedAt(v.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	for _, p := range a.MedicinePurchases {
		if err := c.MedicinePurchase.Create().SetID(p.ID).SetFarmID(farmID).SetMedicineID(p.MedicineID).SetBatch(p.Batch).
			SetNillableExpiryDate(p.ExpiryDate).SetQuantity(p.Quantity).SetQuantityUnit(p.Units).SetSupplierName(p.SupplierName).
			SetSupplierAddress(p.SupplierAddress).SetPurchasedOn(p.PurchasedOn).SetNillableDocumentReference(p.DocumentReference).
			SetNillableFileID(p.FileID).SetNillableCreatedBy(p.CreatedBy).SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	opts.progress("medicines written", len(a.Medicines)+len(a.MedicineVersions)+len(a.MedicinePurchases))
	err = inBatches(len(a.Records), func(lo, hi int) error {
		bs := make([]*ent.RecordCreate, 0, hi-lo)
		var links RecordLinks
		for _, r := range a.Records[lo:hi] {
			b := r.ArchiveBook
			links.Add(c, farmID, r.ID, r.AnimalIDs, r.GroupIDs)
			bs = append(bs, c.Record.Create().SetID(r.ID).SetFarmID(farmID).SetType(record.Type(r.Type)).SetName(r.Name).
				SetNillableDescription(r.Description).SetAppliedAt(r.AppliedAt).SetAcknowledgeWithdrawal(r.AcknowledgeWithdrawal).
				SetIsActive(b.IsActive).SetRecordedAt(b.RecordedAt).SetNillableRecordedByUserID(b.RecordedByUserID).
				SetNillableRecordedByClientID(b.RecordedByClientID).SetNillableVoidedAt(b.VoidedAt).SetNillableVoidedByUserID(b.VoidedByUserID).
				SetNillableVoidedByClientID(b.VoidedByClientID).SetNillableVoidReason(b.VoidReason).SetNillableAmendsID(b.AmendsID).
				SetNillableSupersededByID(b.SupersededByID).SetCreatedAt(r.CreatedAt).SetUpdatedAt(r.UpdatedAt))
		}
		if err := c.Record.CreateBulk(bs...).Exec(ctx); err != nil {
			return err
		}
		return links.Save(ctx, c)
	})
	if err != nil {
		return err
	}
	var fileLinks []*ent.FileRecordCreate
	for _, r := range a.Records {
		for i, f := range r.FileIDs {
			if !slices.Contains(r.FileIDs[:i], f) {
				fileLinks = append(fileLinks, FileRecordLinks(c, farmID, f, r.ID)...)
			}
		}
	}
	if err := inBatches(len(fileLinks), func(lo, hi int) error { return c.FileRecord.CreateBulk(fileLinks[lo:hi]...).Exec(ctx) }); err != nil {
		return err
	}
	opts.progress("records written", len(a.Records))
	err = inBatches(len(a.Events), func(lo, hi int) error {
		bs := make([]*ent.RecordItemCreate, 0, hi-lo)
		for i, ev := range a.Events[lo:hi] {
			md, err := meta(ev.Metadata)
			if err != nil {
				return Invalid(FieldError{Field: fmt.Sprintf("events[%d].herdbook:metadata", lo+i), Message: "is not JSON"})
			}
			b := ev.ArchiveBook
			bs = append(bs, c.RecordItem.Create().SetID(ev.ID).SetRecordID(ev.RecordID).SetFarmID(farmID).SetNillableName(ev.Name).
				SetNillableDescription(ev.Description).SetMetadata(md).SetNillableFactKind(ev.FactKind).
				SetNillableFactSubject(ev.FactSubject).SetNillableFactDam(ev.FactDam).SetNillableFactGroup(ev.FactGroup).
				SetNillableFactDate(ev.FactDate).SetNillableFactUntil(ev.FactUntil).SetNillableFactValue(ev.FactValue).
				SetNillableFactTail(ev.FactTail).
				SetIsActive(b.IsActive).SetRecordedAt(b.RecordedAt).SetNillableRecordedByUserID(b.RecordedByUserID).
				SetNillableRecordedByClientID(b.RecordedByClientID).SetNillableVoidedAt(b.VoidedAt).SetNillableVoidedByUserID(b.VoidedByUserID).
				SetNillableVoidedByClientID(b.VoidedByClientID).SetNillableVoidReason(b.VoidReason).SetNillableAmendsID(b.AmendsID).
				SetNillableSupersededByID(b.SupersededByID).SetCreatedAt(ev.CreatedAt).SetUpdatedAt(ev.UpdatedAt))
		}
		return c.RecordItem.CreateBulk(bs...).Exec(ctx)
	})
	if err != nil {
		return err
	}
	var links []*ent.FactAnimalCreate
	var reach []*ent.TreatmentReachCreate
	for _, ev := range a.Events {
		for _, l := range ev.FactAnimals {
			links = append(links, c.FactAnimal.Create().SetID(l.ID).SetRecordItemID(ev.ID).SetFarmID(farmID).SetAnimalID(l.AnimalID))
		}
		for _, x := range ev.Reach {
			reach = append(reach, c.TreatmentReach.Create().SetID(x.ID).SetFarmID(farmID).SetRecordItemID(ev.ID).
				SetAnimalID(x.AnimalID).SetNillableMembershipItemID(x.MembershipItemID))
		}
	}
	if err := inBatches(len(links), func(lo, hi int) error { return c.FactAnimal.CreateBulk(links[lo:hi]...).Exec(ctx) }); err != nil {
		return err
	}
	if err := inBatches(len(reach), func(lo, hi int) error { return c.TreatmentReach.CreateBulk(reach[lo:hi]...).Exec(ctx) }); err != nil {
		return err
	}
	opts.progress("events written", len(a.Events))
	for i, b := range a.BirthSettings {
		var v evidence.Settings
		if err := unmarshalOpt(b.Body, &v); err != nil {
			return Invalid(FieldError{Field: fmt.Sprintf("herdbook:birthSettings[%d].body", i), Message: err.Error()})
		}
		if err := c.BirthSettings.Create().SetID(b.ID).SetFarmID(farmID).SetVersion(b.Version).SetSettings(v).
			SetNillableCreatedBy(b.CreatedBy).SetCreatedAt(b.CreatedAt).SetUpdatedAt(b.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	for i, p := range a.Protocols {
		var v []schematype.ProtocolStep
		if err := unmarshalOpt(p.Body, &v); err != nil {
			return Invalid(FieldError{Field: fmt.Sprintf("herdbook:followUpProtocols[%d].body", i), Message: err.Error()})
		}
		if err := c.FollowUpProtocol.Create().SetID(p.ID).SetFarmID(farmID).SetVersion(p.Version).SetSteps(v).
			SetNillableCreatedBy(p.CreatedBy).SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	for i, p := range a.BirthPreviews {
		var ev evidence.Evidence
		var tasks []schematype.PlannedTask
		if err := unmarshalOpt(p.Evidence, &ev); err != nil {
			return Invalid(FieldError{Field: fmt.Sprintf("herdbook:birthPreviews[%d].evidence", i), Message: err.Error()})
		}
		if err := unmarshalOpt(p.Tasks, &tasks); err != nil {
			return Invalid(FieldError{Field: fmt.Sprintf("herdbook:birthPreviews[%d].tasks", i), Message: err.Error()})
		}
		if err := c.BirthPreview.Create().SetID(p.ID).SetFarmID(farmID).SetDamID(p.DamID).SetBirthDate(p.BirthDate).
			SetSettingsVersion(p.SettingsVersion).SetProtocolVersion(p.ProtocolVersion).SetEvidence(ev).SetTasks(tasks).
			SetStale(p.Stale).SetNillableApprovedAt(p.ApprovedAt).SetNillableBirthEventID(p.BirthEventID).
			SetNillableCreatedBy(p.CreatedBy).SetCreatedAt(p.CreatedAt).SetUpdatedAt(p.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	for _, e := range a.BirthEvents {
		if err := c.BirthEvent.Create().SetID(e.ID).SetFarmID(farmID).SetDamID(e.DamID).SetBirthDate(e.BirthDate).
			SetPreviewID(e.PreviewID).SetRequestID(e.RequestID).SetSettingsVersion(e.SettingsVersion).
			SetProtocolVersion(e.ProtocolVersion).SetNillableCreatedBy(e.CreatedBy).
			SetCreatedAt(e.CreatedAt).SetUpdatedAt(e.UpdatedAt).Exec(ctx); err != nil {
			return err
		}
	}
	var taskLinks []*ent.FarmTaskAnimalCreate
	err = inBatches(len(a.Tasks), func(lo, hi int) error {
		bs := make([]*ent.FarmTaskCreate, 0, hi-lo)
		for _, t := range a.Tasks[lo:hi] {
			bs = append(bs, c.FarmTask.Create().SetID(t.ID).SetFarmID(farmID).SetBirthEventID(t.BirthEventID).SetName(t.Name).
				SetStatus(farmtask.Status(t.Status)).SetNillableDueDate(t.DueDate).SetProtocolVersion(t.ProtocolVersion).
				SetStep(t.Step).SetCreatedAt(t.CreatedAt).SetUpdatedAt(t.UpdatedAt))
			taskLinks = append(taskLinks, TaskAnimalLinks(c, farmID, t.ID, t.AnimalIDs...)...)
		}
		return c.FarmTask.CreateBulk(bs...).Exec(ctx)
	})
	if err != nil {
		return err
	}
	if err := inBatches(len(taskLinks), func(lo, hi int) error { return c.FarmTaskAnimal.CreateBulk(taskLinks[lo:hi]...).Exec(ctx) }); err != nil {
		return err
	}
	opts.progress("births and tasks written", len(a.BirthPreviews)+len(a.BirthEvents)+len(a.Tasks))
	err = inBatches(len(a.Audit), func(lo, hi int) error {
		bs := make([]*ent.AuditEntryCreate, 0, hi-lo)
		for i, e := range a.Audit[lo:hi] {
			o, err1 := meta(e.OldValue)
			n, err2 := meta(e.NewValue)
			if err := errors.Join(err1, err2); err != nil {
				return Invalid(FieldError{Field: fmt.Sprintf("herdbook:audit[%d]", lo+i), Message: "has a value that is not JSON"})
			}
			bs = append(bs, c.AuditEntry.Create().SetID(e.ID).SetFarmID(farmID).SetAt(e.At).SetNillableUserID(e.UserID).
				SetNillableClientID(e.ClientID).SetAction(e.Action).SetEntity(e.Entity).SetRecordID(e.RecordID).
				SetNillableRecordItemID(e.RecordItemID).SetNillableReason(e.Reason).SetOldValue(o).SetNewValue(n))
		}
		return c.AuditEntry.CreateBulk(bs...).Exec(ctx)
	})
	if err != nil {
		return err
	}
	opts.progress("audit entries written", len(a.Audit))
	// The writes above touched the farm (its change numbers); it keeps its own stamp.
	return c.Farm.UpdateOneID(farmID).SetUpdatedAt(a.Farm.UpdatedAt).Exec(ctx)
}

// breeding decodes the breeding settings (nil when unset).
func (st *ArchiveSettings) breeding() ([]schematype.CalvingEaseGrade, []schematype.AgeOfDamAdjustment, error) {
	var scale []schematype.CalvingEaseGrade
	var ages []schematype.AgeOfDamAdjustment
	var fe fieldErrors
	if err := unmarshalOpt(st.CalvingEaseScale, &scale); err != nil {
		fe.add("herdbook:settings.calvingEaseScale", "is not a calving-ease scale: %v", err)
	}
	if err := unmarshalOpt(st.WeaningAgeOfDam, &ages); err != nil {
		fe.add("herdbook:settings.weaningAgeOfDam", "is not a list of age-of-dam adjustments: %v", err)
	}
	return scale, ages, fe.err()
}

// archiveOutsideProperty is the archive's property of each field an outside animal's
// validation names.
var archiveOutsideProperty = map[string]string{"name": "name", "sex": "sex", "breed": "breed", "registry": "registry",
	"registration_number": "registrationNumber", "batch": "batch", "birth_date": "birthDate"}

// calvingRequestPrefix begins the request id of a calving's birth event (calvingRequestID).
const calvingRequestPrefix = "calving:"

func unmarshalOpt(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}
