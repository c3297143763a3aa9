package herdbook

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/animal"
	"github.com/herdbook/herdbook/ent/auditentry"
	"github.com/herdbook/herdbook/ent/birthevent"
	"github.com/herdbook/herdbook/ent/birthpreview"
	"github.com/herdbook/herdbook/ent/birthsettings"
	"github.com/herdbook/herdbook/ent/farm"
	"github.com/herdbook/herdbook/ent/farmsettings"
	"github.com/herdbook/herdbook/ent/farmtask"
	"github.com/herdbook/herdbook/ent/file"
	"github.com/herdbook/herdbook/ent/followupprotocol"
	"github.com/herdbook/herdbook/ent/group"
	"github.com/herdbook/herdbook/ent/medicine"
	"github.com/herdbook/herdbook/ent/medicinepurchase"
	"github.com/herdbook/herdbook/ent/medicineversion"
	"github.com/herdbook/herdbook/ent/outsideanimal"
	"github.com/herdbook/herdbook/ent/record"
	"github.com/herdbook/herdbook/ent/recorditem"
	"github.com/herdbook/herdbook/ent/user"
	"github.com/herdbook/herdbook/evidence"
)

// The farm archive (docs/archive.md): a whole farm in one JSON document that imports into a
// new farm, on this server or another, with every id remapped. Its vocabulary is the ICAR
// Animal Data Exchange (github.com/adewg/ICAR) wherever ICAR has a resource or a property
// for the thing; what ICAR has no term for is in the herdbook namespace: sections named
// "herdbook:…", and "herdbook:…" properties on ICAR resources. The ICAR properties are a
// view for other systems, computed at export; a Herdbook import reads the ids and the
// herdbook properties, which hold every column of every row, so that nothing is lost.

// ArchiveFormat and ArchiveFormatVersion name the archive format; an import refuses any
// other. The version changes whenever a property is added, removed or changes meaning.
const (
	ArchiveFormat        = "herdbook.farm-archive"
	ArchiveFormatVersion = 2
	// archiveOldestVersion is the oldest version an import still reads: version 1 lacks only
	// what version 2 added (outside animals, the breeding settings, the ICAR breeding view),
	// so a version 1 archive is read as a version 2 one without them.
	archiveOldestVersion = 1
	// ArchiveVocabulary is the ICAR ADE version whose resource and property names the
	// archive uses.
	ArchiveVocabulary = "ICAR ADE 1.x (github.com/adewg/ICAR), extended with herdbook: terms"
	// ArchiveAnimalScheme is the identifier scheme of the animals' archive ids: ICAR events
	// name their animal by {id, scheme}.
	ArchiveAnimalScheme = "herdbook.animal"
	// ArchiveOutsideAnimalScheme is the scheme of the outside animals' archive ids (sires
	// and donors the farm does not hold), as ICAR's sireIdentifiers and donorIdentifiers name
	// them.
	ArchiveOutsideAnimalScheme = "herdbook.outsideAnimal"
	// ArchiveRegistrationScheme is the scheme of an outside animal's registration number when
	// the farm recorded no registry.
	ArchiveRegistrationScheme = "herdbook.registration"
	archiveSource             = "herdbook"
)

// Archive is a farm archive. Slices are in a stable order (creation, then id), so that two
// exports of an unchanged farm differ only in exportedAt.
type Archive struct {
	Format            string                    `json:"format"`
	FormatVersion     int                       `json:"formatVersion"`
	Vocabulary        string                    `json:"vocabulary"`
	ExportedAt        time.Time                 `json:"exportedAt"`
	WithFiles         bool                      `json:"withFiles"`
	Farm              ArchiveFarm               `json:"farm"`
	Settings          *ArchiveSettings          `json:"herdbook:settings,omitempty"`
	Users             []ArchiveUser             `json:"herdbook:users"`
	AnimalSets        []ArchiveGroup            `json:"animalSets"`
	Animals           []ArchiveAnimal           `json:"animals"`
	OutsideAnimals    []ArchiveOutsideAnimal    `json:"herdbook:outsideAnimals"`
	Files             []ArchiveFile             `json:"herdbook:files"`
	Medicines         []ArchiveMedicine         `json:"medicines"`
	MedicineVersions  []ArchiveMedicineVersion  `json:"herdbook:medicineVersions"`
	MedicinePurchases []ArchiveMedicinePurchase `json:"medicineTransactions"`
	Records           []ArchiveRecord           `json:"herdbook:records"`
	Events            []ArchiveEvent            `json:"events"`
	BirthSettings     []ArchiveVersioned        `json:"herdbook:birthSettings"`
	Protocols         []ArchiveVersioned        `json:"herdbook:followUpProtocols"`
	BirthPreviews     []ArchiveBirthPreview     `json:"herdbook:birthPreviews"`
	BirthEvents       []ArchiveBirthEvent       `json:"herdbook:birthEvents"`
	Tasks             []ArchiveTask             `json:"herdbook:tasks"`
	Audit             []ArchiveAuditEntry       `json:"herdbook:audit"`
}

// ICARIdentifier is ICAR's icarAnimalIdentifierType (and the other identifier types): an
// id within a scheme.
type ICARIdentifier struct {
	ID     string `json:"id"`
	Scheme string `json:"scheme"`
}

// ICARMeta is ICAR's icarMetaDataType.
type ICARMeta struct {
	Source   string     `json:"source"`
	Modified time.Time  `json:"modified"`
	Created  *time.Time `json:"created,omitempty"`
	Creator  string     `json:"creator,omitempty"`
}

func icarMeta(created, modified time.Time, creator *uuid.UUID) *ICARMeta {
	m := &ICARMeta{Source: archiveSource, Modified: modified.UTC()}
	c := created.UTC()
	m.Created = &c
	if creator != nil {
		m.Creator = creator.String()
	}
	return m
}

// ArchiveStamps are every row's creation and update times.
type ArchiveStamps struct {
	CreatedAt time.Time `json:"herdbook:createdAt"`
	UpdatedAt time.Time `json:"herdbook:updatedAt"`
}

// ArchiveBook are the audit fields of a book entry (a record or a record item): its author
// and time, and its void or amendment with their links (docs/audit.md).
type ArchiveBook struct {
	IsActive           bool       `json:"herdbook:isActive"`
	RecordedAt         time.Time  `json:"herdbook:recordedAt"`
	RecordedByUserID   *uuid.UUID `json:"herdbook:recordedByUserId,omitempty"`
	RecordedByClientID *string    `json:"herdbook:recordedByClientId,omitempty"`
	VoidedAt           *time.Time `json:"herdbook:voidedAt,omitempty"`
	VoidedByUserID     *uuid.UUID `json:"herdbook:voidedByUserId,omitempty"`
	VoidedByClientID   *string    `json:"herdbook:voidedByClientId,omitempty"`
	VoidReason         *string    `json:"herdbook:voidReason,omitempty"`
	AmendsID           *uuid.UUID `json:"herdbook:amendsId,omitempty"`
	SupersededByID     *uuid.UUID `json:"herdbook:supersededById,omitempty"`
}

// ArchiveFarm is the farm itself (ICAR has no farm resource in the ADE resources used here;
// its location types identify a holding, which Herdbook does not keep).
type ArchiveFarm struct {
	ID                  uuid.UUID  `json:"id"`
	Name                string     `json:"name"`
	Species             string     `json:"herdbook:species"`
	SpeciesOther        *string    `json:"herdbook:speciesOther,omitempty"`
	AllowPrivateThreads bool       `json:"herdbook:allowPrivateThreads"`
	CurrentMonthStart   *time.Time `json:"herdbook:currentMonthStart,omitempty"`
	ArchiveStamps
}

// ArchiveSettings are the farm's settings (docs/settings.md).
type ArchiveSettings struct {
	TimeZone                     *string         `json:"timeZone,omitempty"`
	WithdrawalRules              *string         `json:"withdrawalRules,omitempty"`
	Organic                      bool            `json:"organic"`
	AllowTestTags                bool            `json:"allowTestTags"`
	MinimumBreedingAgeFemaleDays *int            `json:"minimumBreedingAgeFemaleDays,omitempty"`
	MinimumBreedingAgeMaleDays   *int            `json:"minimumBreedingAgeMaleDays,omitempty"`
	MinimumCalvingIntervalDays   *int            `json:"minimumCalvingIntervalDays,omitempty"`
	CalvingEaseScale             json.RawMessage `json:"calvingEaseScale,omitempty"`
	WeaningAgeOfDam              json.RawMessage `json:"weaningAgeOfDam,omitempty"`
	UpdatedBy                    *uuid.UUID      `json:"updatedBy,omitempty"`
	ArchiveStamps
}

// ArchiveUser names an author of the farm's entries: ids of users are kept as they are (an
// import on the same server shows the same authors), and their names travel for a reader
// on another server.
type ArchiveUser struct {
	ID       uuid.UUID `json:"id"`
	FullName *string   `json:"fullName,omitempty"`
}

// ArchiveGroup is a group as ICAR's icarAnimalSetResource. Its members on each day are the
// membership events (icarAnimalSetJoinEventResource, icarAnimalSetLeaveEventResource):
// member lists the animals in it on the day of the export, for an ICAR reader only.
type ArchiveGroup struct {
	ResourceType string           `json:"resourceType"`
	ID           uuid.UUID        `json:"id"`
	Name         string           `json:"name"`
	Member       []ICARIdentifier `json:"member"`
	Meta         *ICARMeta        `json:"meta,omitempty"`
	IsActive     bool             `json:"herdbook:isActive"`
	ArchiveStamps
}

// ArchiveAnimal is an animal as ICAR's icarAnimalCoreResource. Its identifier is its
// archive id in the herdbook.animal scheme, so that events can name it; managementTag is
// its tag, alternativeIdentifiers its official identifiers (EID, ear tags) from its
// identifier facts; gender and birthDate come from its profile fact. Only id, the
// herdbook: properties and the facts are read by an import.
type ArchiveAnimal struct {
	ResourceType           string           `json:"resourceType"`
	ID                     uuid.UUID        `json:"id"`
	Identifier             ICARIdentifier   `json:"identifier"`
	AlternativeIdentifiers []ICARIdentifier `json:"alternativeIdentifiers,omitempty"`
	Specie                 string           `json:"specie,omitempty"`
	Gender                 string           `json:"gender"`
	BirthDate              string           `json:"birthDate,omitempty"`
	ManagementTag          string           `json:"managementTag"`
	Name                   *string          `json:"name,omitempty"`
	Parentage              []ICARParent     `json:"parentage,omitempty"`
	Meta                   *ICARMeta        `json:"meta,omitempty"`
	Tag                    string           `json:"herdbook:tag"`
	HerdbookName           *string          `json:"herdbook:name,omitempty"`
	IsActive               bool             `json:"herdbook:isActive"`
	ArchiveStamps
}

// ArchiveOutsideAnimal is an outside animal (a sire or donor the farm records but does not
// hold: an AI bull, an embryo's donor) as ICAR's icarAnimalCoreResource: its identifier is
// its archive id in the herdbook.outsideAnimal scheme, alternativeIdentifiers its
// registration number in its registry's scheme, officialName its name. The herdbook:
// properties hold every column, the semen or embryo batch included; an import reads those.
type ArchiveOutsideAnimal struct {
	ResourceType           string           `json:"resourceType"`
	ID                     uuid.UUID        `json:"id"`
	Identifier             ICARIdentifier   `json:"identifier"`
	AlternativeIdentifiers []ICARIdentifier `json:"alternativeIdentifiers,omitempty"`
	Specie                 string           `json:"specie,omitempty"`
	Gender                 string           `json:"gender"`
	BirthDate              string           `json:"birthDate,omitempty"`
	OfficialName           string           `json:"officialName"`
	Meta                   *ICARMeta        `json:"meta,omitempty"`
	Name                   string           `json:"herdbook:name"`
	Sex                    string           `json:"herdbook:sex"`
	Breed                  *string          `json:"herdbook:breed,omitempty"`
	Registry               *string          `json:"herdbook:registry,omitempty"`
	RegistrationNumber     *string          `json:"herdbook:registrationNumber,omitempty"`
	Batch                  *string          `json:"herdbook:batch,omitempty"`
	HerdbookBirthDate      *string          `json:"herdbook:birthDate,omitempty"`
	CreatedBy              *uuid.UUID       `json:"herdbook:createdBy,omitempty"`
	ArchiveStamps
}

// ICARParent is ICAR's icarParentageType: a parent of an animal, with its relation
// (icarAnimalRelationType): Genetic, Recipient (the cow an embryo was carried by, when the
// genetic dam is another) or Adoptive (the cow that rears a fostered calf).
type ICARParent struct {
	ParentOf     ICARIdentifier `json:"parentOf"`
	Gender       string         `json:"gender"`
	Relation     string         `json:"relation,omitempty"`
	Identifier   ICARIdentifier `json:"identifier"`
	OfficialName string         `json:"officialName,omitempty"`
}

// ArchiveFile is a file's metadata, and with --with-files its bytes, base64 (standard
// alphabet, padded) in content.
type ArchiveFile struct {
	ID        uuid.UUID  `json:"id"`
	Name      string     `json:"name"`
	MimeType  string     `json:"mimeType"`
	Size      int64      `json:"size"`
	IsActive  bool       `json:"isActive"`
	DeletedAt *time.Time `json:"deletedAt,omitempty"`
	Content   []byte     `json:"content,omitempty"`
	ArchiveStamps
}

// ArchiveMedicine is a medicine as ICAR's icarMedicineResource, with its label as printed
// (herdbook: properties, docs/medicines.md) and its current version.
type ArchiveMedicine struct {
	ResourceType        string          `json:"resourceType"`
	ID                  uuid.UUID       `json:"id"`
	Name                string          `json:"name"`
	Meta                *ICARMeta       `json:"meta,omitempty"`
	ActiveSubstance     *string         `json:"herdbook:activeSubstance,omitempty"`
	Version             int             `json:"herdbook:version"`
	WithdrawalMeatDays  *int            `json:"herdbook:withdrawalMeatDays,omitempty"`
	WithdrawalMilkHours *int            `json:"herdbook:withdrawalMilkHours,omitempty"`
	SpeciesWithdrawals  json.RawMessage `json:"herdbook:speciesWithdrawals,omitempty"`
	DryCow              bool            `json:"herdbook:dryCow"`
	IsActive            bool            `json:"herdbook:isActive"`
	ArchiveStamps
}

// ArchiveMedicineVersion is one version of a medicine's label, as treatments name it.
type ArchiveMedicineVersion struct {
	ID                  uuid.UUID       `json:"id"`
	MedicineID          uuid.UUID       `json:"medicineId"`
	Version             int             `json:"version"`
	WithdrawalMeatDays  *int            `json:"withdrawalMeatDays,omitempty"`
	WithdrawalMilkHours *int            `json:"withdrawalMilkHours,omitempty"`
	SpeciesWithdrawals  json.RawMessage `json:"speciesWithdrawals,omitempty"`
	DryCow              bool            `json:"dryCow"`
	CreatedBy           *uuid.UUID      `json:"createdBy,omitempty"`
	ArchiveStamps
}

// ICARMedicineReference is ICAR's icarMedicineReferenceType.
type ICARMedicineReference struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// ArchiveMedicinePurchase is a purchase as ICAR's icarMedicineTransactionResource (an
// inventory transaction of kind Receipt).
type ArchiveMedicinePurchase struct {
	ResourceType      string                `json:"resourceType"`
	ID                uuid.UUID             `json:"id"`
	TransactionKind   string                `json:"transactionKind"`
	EventDateTime     string                `json:"eventDateTime"`
	Product           ICARMedicineReference `json:"product"`
	Quantity          float64               `json:"quantity"`
	Units             string                `json:"units"`
	SupplierName      string                `json:"supplierName"`
	ExpiryDate        *string               `json:"expiryDate,omitempty"`
	Meta              *ICARMeta             `json:"meta,omitempty"`
	MedicineID        uuid.UUID             `json:"herdbook:medicineId"`
	Batch             string                `json:"herdbook:batch"`
	SupplierAddress   string                `json:"herdbook:supplierAddress"`
	PurchasedOn       string                `json:"herdbook:purchasedOn"`
	DocumentReference *string               `json:"herdbook:documentReference,omitempty"`
	FileID            *uuid.UUID            `json:"herdbook:fileId,omitempty"`
	CreatedBy         *uuid.UUID            `json:"herdbook:createdBy,omitempty"`
	ArchiveStamps
}

// ArchiveRecord is a record: ICAR has no envelope of several events, so it is a herdbook
// section; its items are the events.
type ArchiveRecord struct {
	ID                    uuid.UUID   `json:"id"`
	Type                  string      `json:"type"`
	Name                  string      `json:"name"`
	Description           *string     `json:"description,omitempty"`
	AppliedAt             time.Time   `json:"appliedAt"`
	AcknowledgeWithdrawal bool        `json:"acknowledgeWithdrawal"`
	AnimalIDs             []uuid.UUID `json:"animalIds"`
	GroupIDs              []uuid.UUID `json:"groupIds"`
	FileIDs               []uuid.UUID `json:"fileIds"`
	ArchiveStamps
	ArchiveBook
}

// ArchiveReach is one animal a group treatment reached, as stored when it was recorded.
type ArchiveReach struct {
	ID               uuid.UUID  `json:"id"`
	AnimalID         uuid.UUID  `json:"animalId"`
	MembershipItemID *uuid.UUID `json:"membershipItemId,omitempty"`
}

// ICARMass is ICAR's icarMassMeasureType.
type ICARMass struct {
	Measurement json.Number `json:"measurement"`
	Units       string      `json:"units"`
}

// ArchiveEvent is a record item. An item with a dated fact takes the ICAR event resource of
// its kind (resourceType; docs/archive.md has the table), naming its animal and time the
// ICAR way; the item itself (its metadata, which holds the fact as written, and its audit
// fields) is in the herdbook: properties.
type ArchiveEvent struct {
	ResourceType  string                 `json:"resourceType"`
	ID            uuid.UUID              `json:"id"`
	Animal        *ICARIdentifier        `json:"animal,omitempty"`
	EventDateTime time.Time              `json:"eventDateTime"`
	Weight        *ICARMass              `json:"weight,omitempty"`
	Medicine      *ICARMedicineReference `json:"medicine,omitempty"`
	// icarReproInseminationEventResource: natural service, run with bull, insemination or
	// (an embryo transfer) implantation, the sire, the straw's batch and the embryo's donor.
	InseminationType string           `json:"inseminationType,omitempty"`
	SireIdentifiers  []ICARIdentifier `json:"sireIdentifiers,omitempty"`
	SireOfficialName string           `json:"sireOfficialName,omitempty"`
	Straw            *ICARStraw       `json:"straw,omitempty"`
	Embryo           *ICAREmbryo      `json:"embryo,omitempty"`
	// icarReproPregnancyCheckEventResource.
	Method string `json:"method,omitempty"`
	Result string `json:"result,omitempty"`
	// icarReproParturitionEventResource: a calving.
	IsEmbryoImplant *bool         `json:"isEmbryoImplant,omitempty"`
	LiveProgeny     *int          `json:"liveProgeny,omitempty"`
	TotalProgeny    *int          `json:"totalProgeny,omitempty"`
	ProgenyDetails  []ICARProgeny `json:"progenyDetails,omitempty"`
	Meta            *ICARMeta     `json:"meta,omitempty"`

	RecordID    uuid.UUID       `json:"herdbook:recordId"`
	Name        *string         `json:"herdbook:name,omitempty"`
	Description *string         `json:"herdbook:description,omitempty"`
	Metadata    json.RawMessage `json:"herdbook:metadata,omitempty"`
	FactKind    *string         `json:"herdbook:factKind,omitempty"`
	FactSubject *uuid.UUID      `json:"herdbook:factSubject,omitempty"`
	FactDam     *uuid.UUID      `json:"herdbook:factDam,omitempty"`
	FactGroup   *uuid.UUID      `json:"herdbook:factGroup,omitempty"`
	FactDate    *string         `json:"herdbook:factDate,omitempty"`
	FactUntil   *string         `json:"herdbook:factUntil,omitempty"`
	FactValue   *string         `json:"herdbook:factValue,omitempty"`
	FactTail    *string         `json:"herdbook:factTail,omitempty"`
	FactAnimals []ArchiveLink   `json:"herdbook:factAnimals,omitempty"`
	Reach       []ArchiveReach  `json:"herdbook:reach,omitempty"`
	ArchiveStamps
	ArchiveBook
}

// ICARStraw is ICAR's icarReproSemenStrawResource, as far as the farm knows it.
type ICARStraw struct {
	Batch            string           `json:"batch,omitempty"`
	SireIdentifiers  []ICARIdentifier `json:"sireIdentifiers,omitempty"`
	SireOfficialName string           `json:"sireOfficialName,omitempty"`
}

// ICAREmbryo is ICAR's icarReproEmbryoResource: the implanted embryo, its donor and sire.
type ICAREmbryo struct {
	ID               *ICARIdentifier  `json:"id,omitempty"`
	DonorIdentifiers []ICARIdentifier `json:"donorIdentifiers,omitempty"`
	SireIdentifiers  []ICARIdentifier `json:"sireIdentifiers,omitempty"`
	SireOfficialName string           `json:"sireOfficialName,omitempty"`
}

// ICARProgeny is ICAR's icarProgenyDetailsResource: one calf of a calving.
type ICARProgeny struct {
	Identifier    *ICARIdentifier `json:"identifier,omitempty"`
	Specie        string          `json:"specie,omitempty"`
	Gender        string          `json:"gender"`
	ManagementTag string          `json:"managementTag,omitempty"`
	BirthStatus   string          `json:"birthStatus,omitempty"`
	BirthWeight   *ICARMass       `json:"birthWeight,omitempty"`
}

// ArchiveLink is an item's link to an animal its fact names.
type ArchiveLink struct {
	ID       uuid.UUID `json:"id"`
	AnimalID uuid.UUID `json:"animalId"`
}

// ArchiveVersioned is a version of the birth-history settings or of the follow-up
// protocol (docs/birth-history.md).
type ArchiveVersioned struct {
	ID        uuid.UUID       `json:"id"`
	Version   int             `json:"version"`
	Body      json.RawMessage `json:"body"`
	CreatedBy *uuid.UUID      `json:"createdBy,omitempty"`
	ArchiveStamps
}

// ArchiveBirthPreview is a calving preview, with its evidence and planned tasks.
type ArchiveBirthPreview struct {
	ID              uuid.UUID       `json:"id"`
	DamID           uuid.UUID       `json:"damId"`
	BirthDate       string          `json:"birthDate"`
	SettingsVersion int             `json:"settingsVersion"`
	ProtocolVersion int             `json:"protocolVersion"`
	Evidence        json.RawMessage `json:"evidence"`
	Tasks           json.RawMessage `json:"tasks"`
	Stale           bool            `json:"stale"`
	ApprovedAt      *time.Time      `json:"approvedAt,omitempty"`
	BirthEventID    *uuid.UUID      `json:"birthEventId,omitempty"`
	CreatedBy       *uuid.UUID      `json:"createdBy,omitempty"`
	ArchiveStamps
}

// ArchiveBirthEvent is an approved calving (the follow-up tasks' origin).
type ArchiveBirthEvent struct {
	ID              uuid.UUID  `json:"id"`
	DamID           uuid.UUID  `json:"damId"`
	BirthDate       string     `json:"birthDate"`
	PreviewID       uuid.UUID  `json:"previewId"`
	RequestID       string     `json:"requestId"`
	SettingsVersion int        `json:"settingsVersion"`
	ProtocolVersion int        `json:"protocolVersion"`
	CreatedBy       *uuid.UUID `json:"createdBy,omitempty"`
	ArchiveStamps
}

// ArchiveTask is a follow-up task.
type ArchiveTask struct {
	ID              uuid.UUID   `json:"id"`
	BirthEventID    uuid.UUID   `json:"birthEventId"`
	Name            string      `json:"name"`
	Status          string      `json:"status"`
	DueDate         *time.Time  `json:"dueDate,omitempty"`
	ProtocolVersion int         `json:"protocolVersion"`
	Step            int         `json:"step"`
	AnimalIDs       []uuid.UUID `json:"animalIds"`
	ArchiveStamps
}

// ArchiveAuditEntry is one entry of the audit trail, copied as it is (docs/audit.md).
type ArchiveAuditEntry struct {
	ID           uuid.UUID       `json:"id"`
	At           time.Time       `json:"at"`
	UserID       *uuid.UUID      `json:"userId,omitempty"`
	ClientID     *string         `json:"clientId,omitempty"`
	Action       string          `json:"action"`
	Entity       string          `json:"entity"`
	RecordID     uuid.UUID       `json:"recordId"`
	RecordItemID *uuid.UUID      `json:"recordItemId,omitempty"`
	Reason       *string         `json:"reason,omitempty"`
	OldValue     json.RawMessage `json:"oldValue,omitempty"`
	NewValue     json.RawMessage `json:"newValue,omitempty"`
}

// ArchiveOptions tune an export or an import.
type ArchiveOptions struct {
	// WithFiles puts the files' bytes into the archive.
	WithFiles bool
	// Progress, when set, hears each step: what was done, and how many rows.
	Progress func(step string, n int)
}

func (o ArchiveOptions) progress(step string, n int) {
	if o.Progress != nil {
		o.Progress(step, n)
	}
}

// archiveBatch is how many records, tasks or files an export reads per query, with their
// links: the statements grow with the farm's entries by a five-hundredth, never per animal.
const archiveBatch = 500

// icarEventTypes is the ICAR resource of each fact kind; kinds ICAR has no event for are
// herdbook: resources.
var icarEventTypes = map[evidence.Kind]string{
	evidence.KindBirth:          "icarMovementBirthEventResource",
	evidence.KindDeath:          "icarMovementDeathEventResource",
	evidence.KindSale:           "icarMovementDepartureEventResource",
	evidence.KindMovementOut:    "icarMovementDepartureEventResource",
	evidence.KindPurchase:       "icarMovementArrivalEventResource",
	evidence.KindMovementIn:     "icarMovementArrivalEventResource",
	evidence.KindWeight:         "icarWeightEventResource",
	evidence.KindTreatment:      "icarTreatmentEventResource",
	evidence.KindExposure:       "icarReproInseminationEventResource",
	evidence.KindHandMating:     "icarReproInseminationEventResource",
	evidence.KindInsemination:   "icarReproInseminationEventResource",
	evidence.KindEmbryoTransfer: "icarReproInseminationEventResource",
	evidence.KindHeat:           "icarReproHeatEventResource",
	evidence.KindPregnancyCheck: "icarReproPregnancyCheckEventResource",
	evidence.KindMembership:     "icarAnimalSetJoinEventResource",
	evidence.KindMembershipEnd:  "icarAnimalSetLeaveEventResource",
}

func icarEventType(kind *string) string {
	if kind == nil {
		return "herdbook:RecordItem"
	}
	if t, ok := icarEventTypes[evidence.Kind(*kind)]; ok {
		return t
	}
	// profile, castration, identifier, dna_parentage, weaning: no ICAR event of their own.
	k := *kind
	parts := strings.Split(k, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return "herdbook:" + strings.Join(parts, "") + "Event"
}

// icarSpecies maps the farm's species onto ICAR's icarAnimalSpecieType; species ICAR does
// not list are left out (herdbook:species on the farm says them).
var icarSpecies = map[string]string{"CATTLE": "Cattle", "SHEEP": "Sheep", "GOAT": "Goat", "HORSE": "Horse", "ELK": "Elk"}

// ExportFarmArchive writes the whole farm as an archive. Only the farm's OWNER may, with
// read:farms, read:animals and read:records: the archive holds everything the farm has,
// the audit trail and every voided entry included, which no narrower role reads in full.
// The statements are a constant number per kind of row plus one per 500 records, tasks or
// files: never one per animal.
func (s *Service) ExportFarmArchive(ctx context.Context, farmID uuid.UUID, opts ArchiveOptions) (*Archive, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeReadFarms, ScopeReadAnimals, ScopeReadRecords); err != nil {
		return nil, err
	}
	return s.exportArchive(ctx, farmID, opts)
}

func (s *Service) exportArchive(ctx context.Context, farmID uuid.UUID, opts ArchiveOptions) (*Archive, error) {
	var st blobStore
	if opts.WithFiles {
		bs, err := s.store()
		if err != nil {
			return nil, err
		}
		st = bs
	}
	var a *Archive
	// One read transaction: the archive is the farm at one moment.
	err := s.inTx(ctx, func(ctx context.Context) error {
		var err error
		a, err = s.readArchive(IncludeInactive(ctx), farmID, opts, st)
		return err
	})
	return a, err
}

func (s *Service) readArchive(ctx context.Context, farmID uuid.UUID, opts ArchiveOptions, st blobStore) (*Archive, error) {
	c := s.Client(ctx)
	f, err := c.Farm.Query().Where(farm.ID(farmID)).Only(ctx)
	if err != nil {
		return nil, notFound(err, "farm", farmID)
	}
	a := &Archive{
		Format: ArchiveFormat, FormatVersion: ArchiveFormatVersion, Vocabulary: ArchiveVocabulary,
		ExportedAt: s.nowUTC(), WithFiles: opts.WithFiles,
		Farm: ArchiveFarm{ID: f.ID, Name: f.Name, Species: string(f.Species), SpeciesOther: f.SpeciesOther,
			AllowPrivateThreads: f.AllowPrivateThreads, CurrentMonthStart: utcPtr(f.CurrentMonthStart),
			ArchiveStamps: stamps(f.CreatedAt, f.UpdatedAt)},
		Users: []ArchiveUser{}, AnimalSets: []ArchiveGroup{}, Animals: []ArchiveAnimal{}, OutsideAnimals: []ArchiveOutsideAnimal{}, Files: []ArchiveFile{},
		Medicines: []ArchiveMedicine{}, MedicineVersions: []ArchiveMedicineVersion{}, MedicinePurchases: []ArchiveMedicinePurchase{},
		Records: []ArchiveRecord{}, Events: []ArchiveEvent{}, BirthSettings: []ArchiveVersioned{}, Protocols: []ArchiveVersioned{},
		BirthPreviews: []ArchiveBirthPreview{}, BirthEvents: []ArchiveBirthEvent{}, Tasks: []ArchiveTask{}, Audit: []ArchiveAuditEntry{},
	}
	authors := map[uuid.UUID]bool{}
	author := func(id *uuid.UUID) {
		if id != nil {
			authors[*id] = true
		}
	}

	if fs, err := c.FarmSettings.Query().Where(farmsettings.FarmID(farmID)).Only(ctx); err == nil {
		a.Settings = &ArchiveSettings{TimeZone: fs.TimeZone, WithdrawalRules: fs.WithdrawalRules, Organic: fs.Organic,
			AllowTestTags: fs.AllowTestTags, MinimumBreedingAgeFemaleDays: fs.MinimumBreedingAgeFemaleDays,
			MinimumBreedingAgeMaleDays: fs.MinimumBreedingAgeMaleDays, MinimumCalvingIntervalDays: fs.MinimumCalvingIntervalDays,
			CalvingEaseScale: rawJSON(fs.CalvingEaseScale), WeaningAgeOfDam: rawJSON(fs.WeaningAgeOfDam),
			UpdatedBy: fs.UpdatedBy, ArchiveStamps: stamps(fs.CreatedAt, fs.UpdatedAt)}
		author(fs.UpdatedBy)
	} else if !ent.IsNotFound(err) {
		return nil, err
	}

	groups, err := c.Group.Query().Where(group.FarmID(farmID)).Order(ent.Asc(group.FieldCreatedAt), ent.Asc(group.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	groupAt := map[uuid.UUID]int{}
	for _, g := range groups {
		groupAt[g.ID] = len(a.AnimalSets)
		a.AnimalSets = append(a.AnimalSets, ArchiveGroup{ResourceType: "icarAnimalSetResource", ID: g.ID, Name: g.Name,
			Member: []ICARIdentifier{}, Meta: icarMeta(g.CreatedAt, g.UpdatedAt, nil), IsActive: g.IsActive,
			ArchiveStamps: stamps(g.CreatedAt, g.UpdatedAt)})
	}
	opts.progress("groups", len(a.AnimalSets))

	animals, err := c.Animal.Query().Where(animal.FarmID(farmID)).Order(ent.Asc(animal.FieldCreatedAt), ent.Asc(animal.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	animalAt := make(map[uuid.UUID]int, len(animals))
	for _, an := range animals {
		animalAt[an.ID] = len(a.Animals)
		a.Animals = append(a.Animals, ArchiveAnimal{ResourceType: "icarAnimalCoreResource", ID: an.ID,
			Identifier: ICARIdentifier{ID: an.ID.String(), Scheme: ArchiveAnimalScheme}, Specie: icarSpecies[string(f.Species)],
			Gender: "Unknown", ManagementTag: an.Tag, Name: an.Name, Meta: icarMeta(an.CreatedAt, an.UpdatedAt, nil),
			Tag: an.Tag, HerdbookName: an.Name, IsActive: an.IsActive, ArchiveStamps: stamps(an.CreatedAt, an.UpdatedAt)})
	}
	opts.progress("animals", len(a.Animals))

	outside, err := c.OutsideAnimal.Query().Where(outsideanimal.FarmID(farmID)).
		Order(ent.Asc(outsideanimal.FieldCreatedAt), ent.Asc(outsideanimal.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	icarIDs := map[uuid.UUID]icarAnimalRef{}
	for _, an := range animals {
		icarIDs[an.ID] = icarAnimalRef{ids: []ICARIdentifier{{ID: an.ID.String(), Scheme: ArchiveAnimalScheme}}}
	}
	for _, o := range outside {
		author(o.CreatedBy)
		ao := ArchiveOutsideAnimal{ResourceType: "icarAnimalCoreResource", ID: o.ID,
			Identifier: ICARIdentifier{ID: o.ID.String(), Scheme: ArchiveOutsideAnimalScheme}, Specie: icarSpecies[string(f.Species)],
			Gender: icarGender(o.Sex), OfficialName: o.Name, Meta: icarMeta(o.CreatedAt, o.UpdatedAt, o.CreatedBy),
			Name: o.Name, Sex: o.Sex, Breed: o.Breed, Registry: o.Registry, RegistrationNumber: o.RegistrationNumber,
			Batch: o.Batch, HerdbookBirthDate: o.BirthDate, CreatedBy: o.CreatedBy, ArchiveStamps: stamps(o.CreatedAt, o.UpdatedAt)}
		if o.BirthDate != nil {
			ao.BirthDate = *o.BirthDate
		}
		ref := icarAnimalRef{ids: []ICARIdentifier{ao.Identifier}, name: o.Name}
		if o.RegistrationNumber != nil {
			scheme := ArchiveRegistrationScheme
			if o.Registry != nil {
				scheme = *o.Registry
			}
			ao.AlternativeIdentifiers = []ICARIdentifier{{ID: *o.RegistrationNumber, Scheme: scheme}}
			ref.ids = append(ref.ids, ao.AlternativeIdentifiers...)
		}
		if o.Batch != nil {
			ref.batch = *o.Batch
		}
		icarIDs[o.ID] = ref
		a.OutsideAnimals = append(a.OutsideAnimals, ao)
	}
	opts.progress("outside animals", len(a.OutsideAnimals))

	if err := s.archiveFiles(ctx, farmID, a, st); err != nil {
		return nil, err
	}
	opts.progress("files", len(a.Files))

	meds, err := c.Medicine.Query().Where(medicine.FarmID(farmID)).Order(ent.Asc(medicine.FieldCreatedAt), ent.Asc(medicine.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	medName := map[uuid.UUID]string{}
	for _, m := range meds {
		medName[m.ID] = m.Name
		a.Medicines = append(a.Medicines, ArchiveMedicine{ResourceType: "icarMedicineResource", ID: m.ID, Name: m.Name,
			Meta: icarMeta(m.CreatedAt, m.UpdatedAt, nil), ActiveSubstance: m.ActiveSubstance, Version: m.Version,
			WithdrawalMeatDays: m.WithdrawalMeatDays, WithdrawalMilkHours: m.WithdrawalMilkHours,
			SpeciesWithdrawals: rawJSON(m.SpeciesWithdrawals), DryCow: m.DryCow, IsActive: m.IsActive,
			ArchiveStamps: stamps(m.CreatedAt, m.UpdatedAt)})
	}
	versions, err := c.MedicineVersion.Query().Where(medicineversion.FarmID(farmID)).
		Order(ent.Asc(medicineversion.FieldCreatedAt), ent.Asc(medicineversion.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		author(v.CreatedBy)
		a.MedicineVersions = append(a.MedicineVersions, ArchiveMedicineVersion{ID: v.ID, MedicineID: v.MedicineID, Version: v.Version,
			WithdrawalMeatDays: v.WithdrawalMeatDays, WithdrawalMilkHours: v.WithdrawalMilkHours,
			SpeciesWithdrawals: rawJSON(v.SpeciesWithdrawals), DryCow: v.DryCow, CreatedBy: v.CreatedBy,
			ArchiveStamps: stamps(v.CreatedAt, v.UpdatedAt)})
	}
	purchases, err := c.MedicinePurchase.Query().Where(medicinepurchase.FarmID(farmID)).
		Order(ent.Asc(medicinepurchase.FieldCreatedAt), ent.Asc(medicinepurchase.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range purchases {
		author(p.CreatedBy)
		a.MedicinePurchases = append(a.MedicinePurchases, ArchiveMedicinePurchase{ResourceType: "icarMedicineTransactionResource",
			ID: p.ID, TransactionKind: "Receipt", EventDateTime: p.PurchasedOn,
			Product:  ICARMedicineReference{ID: p.MedicineID.String(), Name: medName[p.MedicineID]},
			Quantity: p.Quantity, Units: p.QuantityUnit, SupplierName: p.SupplierName, ExpiryDate: p.ExpiryDate,
			Meta: icarMeta(p.CreatedAt, p.UpdatedAt, p.CreatedBy), MedicineID: p.MedicineID, Batch: p.Batch,
			SupplierAddress: p.SupplierAddress, PurchasedOn: p.PurchasedOn, DocumentReference: p.DocumentReference,
			FileID: p.FileID, CreatedBy: p.CreatedBy, ArchiveStamps: stamps(p.CreatedAt, p.UpdatedAt)})
	}
	opts.progress("medicines", len(a.Medicines)+len(a.MedicineVersions)+len(a.MedicinePurchases))

	today := s.nowUTC().Format(time.DateOnly)
	specie := icarSpecies[string(f.Species)]
	parent := func(child uuid.UUID, id, gender, relation string) {
		u, err := uuid.Parse(id)
		i, ok := animalAt[child]
		if err != nil || !ok {
			return
		}
		ref, ok := icarIDs[u]
		if !ok {
			return
		}
		p := ICARParent{ParentOf: a.Animals[i].Identifier, Gender: gender, Relation: relation, Identifier: ref.ids[0], OfficialName: ref.name}
		if !slices.Contains(a.Animals[i].Parentage, p) {
			a.Animals[i].Parentage = append(a.Animals[i].Parentage, p)
		}
	}
	if err := s.archiveRecords(ctx, farmID, a, medName, author, func(ev *ArchiveEvent, live bool) {
		icarBreeding(ev, icarIDs, specie)
		if live {
			// The ICAR parentage of the animals: the birth facts' dam and sire (an embryo
			// transfer calf's genetic dam, the dam then its recipient), a calving's foster.
			var md struct {
				Birth *struct {
					Kind         evidence.Kind `json:"kind"`
					DamID        string        `json:"dam_id"`
					SireID       string        `json:"sire_id"`
					GeneticDamID string        `json:"genetic_dam_id"`
					OffspringIDs []string      `json:"offspring_ids"`
				} `json:"birth_history"`
				Calving *Calving `json:"calving"`
			}
			if json.Unmarshal(ev.Metadata, &md) == nil {
				if b := md.Birth; b != nil && b.Kind == evidence.KindBirth {
					for _, o := range b.OffspringIDs {
						child, err := uuid.Parse(o)
						if err != nil {
							continue
						}
						if b.GeneticDamID != "" && b.GeneticDamID != b.DamID {
							parent(child, b.GeneticDamID, "Female", "Genetic")
							parent(child, b.DamID, "Female", "Recipient")
						} else {
							parent(child, b.DamID, "Female", "Genetic")
						}
						parent(child, b.SireID, "Male", "Genetic")
					}
				}
				if c := md.Calving; c != nil {
					for _, calf := range c.Calves {
						if calf.SurrogateDamID != nil {
							parent(calf.AnimalID, *calf.SurrogateDamID, "Female", "Adoptive")
						}
					}
				}
			}
		}
		// The ICAR view of the animals: gender, birth date, official identifiers, and the
		// sets they are in today, from the facts in force.
		if !live || ev.FactKind == nil || ev.FactSubject == nil {
			return
		}
		i, ok := animalAt[*ev.FactSubject]
		if !ok {
			return
		}
		var fact evidence.Fact
		if json.Unmarshal(ev.Metadata, &struct {
			F *evidence.Fact `json:"birth_history"`
		}{&fact}) != nil {
			return
		}
		an := &a.Animals[i]
		switch evidence.Kind(*ev.FactKind) {
		case evidence.KindProfile:
			switch fact.Sex {
			case "male":
				an.Gender = "Male"
			case "female":
				an.Gender = "Female"
			}
			if fact.BirthDate != "" {
				an.BirthDate = fact.BirthDate
			}
		case evidence.KindIdentifier:
			if fact.Value != "" {
				an.AlternativeIdentifiers = append(an.AlternativeIdentifiers, ICARIdentifier{ID: fact.Value, Scheme: fact.Scheme})
			}
		case evidence.KindMembership:
			if ev.FactGroup != nil && (ev.FactDate == nil || *ev.FactDate <= today) && (ev.FactUntil == nil || *ev.FactUntil > today) {
				if g, ok := groupAt[*ev.FactGroup]; ok {
					a.AnimalSets[g].Member = append(a.AnimalSets[g].Member, an.Identifier)
				}
			}
		}
	}); err != nil {
		return nil, err
	}
	opts.progress("records", len(a.Records))
	opts.progress("events", len(a.Events))

	if err := s.archiveBirths(ctx, farmID, a, author); err != nil {
		return nil, err
	}
	opts.progress("births and tasks", len(a.BirthPreviews)+len(a.BirthEvents)+len(a.Tasks))

	trail, err := c.AuditEntry.Query().Where(auditentry.FarmID(farmID)).Order(ent.Asc(auditentry.FieldAt), ent.Asc(auditentry.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, e := range trail {
		author(e.UserID)
		a.Audit = append(a.Audit, ArchiveAuditEntry{ID: e.ID, At: e.At.UTC(), UserID: e.UserID, ClientID: e.ClientID, Action: e.Action,
			Entity: e.Entity, RecordID: e.RecordID, RecordItemID: e.RecordItemID, Reason: e.Reason,
			OldValue: metadataJSON(e.OldValue), NewValue: metadataJSON(e.NewValue)})
	}
	opts.progress("audit entries", len(a.Audit))

	if len(authors) > 0 {
		ids := make([]uuid.UUID, 0, len(authors))
		for id := range authors {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
		users, err := c.User.Query().Where(user.IDIn(ids...)).Order(ent.Asc(user.FieldID)).All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			a.Users = append(a.Users, ArchiveUser{ID: u.ID, FullName: u.FullName})
		}
	}
	return a, nil
}

type blobStore interface {
	Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
}

func (s *Service) archiveFiles(ctx context.Context, farmID uuid.UUID, a *Archive, st blobStore) error {
	c := s.Client(ctx)
	var last *ent.File
	for {
		q := c.File.Query().Where(file.FarmID(farmID))
		if last != nil {
			q.Where(file.Or(file.CreatedAtGT(last.CreatedAt), file.And(file.CreatedAt(last.CreatedAt), file.IDGT(last.ID))))
		}
		batch, err := q.Order(ent.Asc(file.FieldCreatedAt), ent.Asc(file.FieldID)).Limit(archiveBatch).All(ctx)
		if err != nil {
			return err
		}
		for _, fl := range batch {
			af := ArchiveFile{ID: fl.ID, Name: fl.Name, MimeType: fl.MimeType, Size: fl.Size, IsActive: fl.IsActive,
				DeletedAt: utcPtr(fl.DeletedAt), ArchiveStamps: stamps(fl.CreatedAt, fl.UpdatedAt)}
			if st != nil && fl.DeletedAt == nil {
				rc, err := st.Get(ctx, fl.StorageKey, 0, -1)
				if err != nil {
					return err
				}
				af.Content, err = io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return err
				}
				if af.Content == nil {
					af.Content = []byte{}
				}
			}
			a.Files = append(a.Files, af)
		}
		if len(batch) < archiveBatch {
			return nil
		}
		last = batch[len(batch)-1]
	}
}

func (s *Service) archiveRecords(ctx context.Context, farmID uuid.UUID, a *Archive, medName map[uuid.UUID]string,
	author func(*uuid.UUID), view func(ev *ArchiveEvent, live bool)) error {
	c := s.Client(ctx)
	var last *ent.Record
	for {
		q := c.Record.Query().Where(record.FarmID(farmID))
		if last != nil {
			q.Where(record.Or(record.CreatedAtGT(last.CreatedAt), record.And(record.CreatedAt(last.CreatedAt), record.IDGT(last.ID))))
		}
		batch, err := q.Order(ent.Asc(record.FieldCreatedAt), ent.Asc(record.FieldID)).Limit(archiveBatch).
			WithAnimals(func(q *ent.AnimalQuery) { q.Select(animal.FieldID) }, animalsOf(farmID)).
			WithGroups(func(q *ent.GroupQuery) { q.Select(group.FieldID).Where(linkedOf(record.GroupsTable, farmID)) }).
			WithFiles(func(q *ent.FileQuery) { q.Select(file.FieldID) }, filesOf(farmID)).
			WithItems(func(q *ent.RecordItemQuery) {
				q.Where(farmOf(farmID)).Order(ent.Asc(recorditem.FieldCreatedAt), ent.Asc(recorditem.FieldID)).
					WithFactAnimals(func(q *ent.FactAnimalQuery) { q.Where(farmOf(farmID)) }).
					WithReach(func(q *ent.TreatmentReachQuery) { q.Where(farmOf(farmID)) })
			}).All(ctx)
		if err != nil {
			return err
		}
		for _, r := range batch {
			author(r.RecordedByUserID)
			author(r.VoidedByUserID)
			ar := ArchiveRecord{ID: r.ID, Type: string(r.Type), Name: r.Name, Description: r.Description, AppliedAt: r.AppliedAt.UTC(),
				AcknowledgeWithdrawal: r.AcknowledgeWithdrawal, AnimalIDs: []uuid.UUID{}, GroupIDs: []uuid.UUID{}, FileIDs: []uuid.UUID{},
				ArchiveStamps: stamps(r.CreatedAt, r.UpdatedAt),
				ArchiveBook: ArchiveBook{IsActive: r.IsActive, RecordedAt: r.RecordedAt.UTC(), RecordedByUserID: r.RecordedByUserID,
					RecordedByClientID: r.RecordedByClientID, VoidedAt: utcPtr(r.VoidedAt), VoidedByUserID: r.VoidedByUserID,
					VoidedByClientID: r.VoidedByClientID, VoidReason: r.VoidReason, AmendsID: r.AmendsID, SupersededByID: r.SupersededByID}}
			for _, x := range r.Edges.Animals {
				ar.AnimalIDs = append(ar.AnimalIDs, x.ID)
			}
			for _, x := range r.Edges.Groups {
				ar.GroupIDs = append(ar.GroupIDs, x.ID)
			}
			for _, x := range r.Edges.Files {
				ar.FileIDs = append(ar.FileIDs, x.ID)
			}
			sortIDs(ar.AnimalIDs)
			sortIDs(ar.GroupIDs)
			sortIDs(ar.FileIDs)
			a.Records = append(a.Records, ar)
			for _, it := range r.Edges.Items {
				author(it.RecordedByUserID)
				author(it.VoidedByUserID)
				ev := ArchiveEvent{ResourceType: icarEventType(it.FactKind), ID: it.ID, EventDateTime: r.AppliedAt.UTC(),
					Meta: icarMeta(it.CreatedAt, it.UpdatedAt, it.RecordedByUserID), RecordID: r.ID, Name: it.Name,
					Description: it.Description, Metadata: metadataJSON(it.Metadata), FactKind: it.FactKind,
					FactSubject: it.FactSubject, FactDam: it.FactDam, FactGroup: it.FactGroup, FactDate: it.FactDate,
					FactUntil: it.FactUntil, FactValue: it.FactValue, FactTail: it.FactTail,
					ArchiveStamps: stamps(it.CreatedAt, it.UpdatedAt),
					ArchiveBook: ArchiveBook{IsActive: it.IsActive, RecordedAt: it.RecordedAt.UTC(), RecordedByUserID: it.RecordedByUserID,
						RecordedByClientID: it.RecordedByClientID, VoidedAt: utcPtr(it.VoidedAt), VoidedByUserID: it.VoidedByUserID,
						VoidedByClientID: it.VoidedByClientID, VoidReason: it.VoidReason, AmendsID: it.AmendsID, SupersededByID: it.SupersededByID}}
				if it.FactSubject != nil {
					ev.Animal = &ICARIdentifier{ID: it.FactSubject.String(), Scheme: ArchiveAnimalScheme}
				}
				if it.FactKind != nil {
					switch evidence.Kind(*it.FactKind) {
					case evidence.KindWeight, evidence.KindWeaning:
						var w struct {
							F struct {
								KG json.Number `json:"kg"`
							} `json:"birth_history"`
						}
						if json.Unmarshal(it.Metadata, &w) == nil && w.F.KG != "" {
							ev.Weight = &ICARMass{Measurement: w.F.KG, Units: "KGM"}
						}
					case evidence.KindTreatment:
						var t struct {
							F struct {
								MedicineID string `json:"medicine_id"`
							} `json:"birth_history"`
						}
						if json.Unmarshal(it.Metadata, &t) == nil && t.F.MedicineID != "" {
							ev.Medicine = &ICARMedicineReference{ID: t.F.MedicineID}
							if id, err := uuid.Parse(t.F.MedicineID); err == nil {
								ev.Medicine.Name = medName[id]
							}
						}
					}
				}
				for _, fa := range it.Edges.FactAnimals {
					ev.FactAnimals = append(ev.FactAnimals, ArchiveLink{ID: fa.ID, AnimalID: fa.AnimalID})
				}
				slices.SortFunc(ev.FactAnimals, func(x, y ArchiveLink) int { return strings.Compare(x.ID.String(), y.ID.String()) })
				for _, rc := range it.Edges.Reach {
					ev.Reach = append(ev.Reach, ArchiveReach{ID: rc.ID, AnimalID: rc.AnimalID, MembershipItemID: rc.MembershipItemID})
				}
				slices.SortFunc(ev.Reach, func(x, y ArchiveReach) int { return strings.Compare(x.ID.String(), y.ID.String()) })
				view(&ev, r.IsActive && it.IsActive)
				a.Events = append(a.Events, ev)
			}
		}
		if len(batch) < archiveBatch {
			return nil
		}
		last = batch[len(batch)-1]
	}
}

func (s *Service) archiveBirths(ctx context.Context, farmID uuid.UUID, a *Archive, author func(*uuid.UUID)) error {
	c := s.Client(ctx)
	bs, err := c.BirthSettings.Query().Where(birthsettings.FarmID(farmID)).Order(ent.Asc(birthsettings.FieldVersion)).All(ctx)
	if err != nil {
		return err
	}
	for _, b := range bs {
		author(b.CreatedBy)
		a.BirthSettings = append(a.BirthSettings, ArchiveVersioned{ID: b.ID, Version: b.Version, Body: rawJSON(b.Settings),
			CreatedBy: b.CreatedBy, ArchiveStamps: stamps(b.CreatedAt, b.UpdatedAt)})
	}
	ps, err := c.FollowUpProtocol.Query().Where(followupprotocol.FarmID(farmID)).Order(ent.Asc(followupprotocol.FieldVersion)).All(ctx)
	if err != nil {
		return err
	}
	for _, p := range ps {
		author(p.CreatedBy)
		a.Protocols = append(a.Protocols, ArchiveVersioned{ID: p.ID, Version: p.Version, Body: rawJSON(p.Steps),
			CreatedBy: p.CreatedBy, ArchiveStamps: stamps(p.CreatedAt, p.UpdatedAt)})
	}
	previews, err := c.BirthPreview.Query().Where(birthpreview.FarmID(farmID)).
		Order(ent.Asc(birthpreview.FieldCreatedAt), ent.Asc(birthpreview.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	for _, p := range previews {
		author(p.CreatedBy)
		a.BirthPreviews = append(a.BirthPreviews, ArchiveBirthPreview{ID: p.ID, DamID: p.DamID, BirthDate: p.BirthDate,
			SettingsVersion: p.SettingsVersion, ProtocolVersion: p.ProtocolVersion, Evidence: rawJSON(p.Evidence),
			Tasks: rawJSON(p.Tasks), Stale: p.Stale, ApprovedAt: utcPtr(p.ApprovedAt), BirthEventID: p.BirthEventID,
			CreatedBy: p.CreatedBy, ArchiveStamps: stamps(p.CreatedAt, p.UpdatedAt)})
	}
	events, err := c.BirthEvent.Query().Where(birthevent.FarmID(farmID)).
		Order(ent.Asc(birthevent.FieldCreatedAt), ent.Asc(birthevent.FieldID)).All(ctx)
	if err != nil {
		return err
	}
	for _, e := range events {
		author(e.CreatedBy)
		a.BirthEvents = append(a.BirthEvents, ArchiveBirthEvent{ID: e.ID, DamID: e.DamID, BirthDate: e.BirthDate, PreviewID: e.PreviewID,
			RequestID: e.RequestID, SettingsVersion: e.SettingsVersion, ProtocolVersion: e.ProtocolVersion, CreatedBy: e.CreatedBy,
			ArchiveStamps: stamps(e.CreatedAt, e.UpdatedAt)})
	}
	var last *ent.FarmTask
	for {
		q := c.FarmTask.Query().Where(farmtask.FarmID(farmID))
		if last != nil {
			q.Where(farmtask.Or(farmtask.CreatedAtGT(last.CreatedAt), farmtask.And(farmtask.CreatedAt(last.CreatedAt), farmtask.IDGT(last.ID))))
		}
		batch, err := q.Order(ent.Asc(farmtask.FieldCreatedAt), ent.Asc(farmtask.FieldID)).Limit(archiveBatch).
			WithAnimals(func(q *ent.AnimalQuery) { q.Select(animal.FieldID) }, taskAnimalsOf(farmID)).All(ctx)
		if err != nil {
			return err
		}
		for _, t := range batch {
			at := ArchiveTask{ID: t.ID, BirthEventID: t.BirthEventID, Name: t.Name, Status: string(t.Status), DueDate: utcPtr(t.DueDate),
				ProtocolVersion: t.ProtocolVersion, Step: t.Step, AnimalIDs: []uuid.UUID{}, ArchiveStamps: stamps(t.CreatedAt, t.UpdatedAt)}
			for _, x := range t.Edges.Animals {
				at.AnimalIDs = append(at.AnimalIDs, x.ID)
			}
			sortIDs(at.AnimalIDs)
			a.Tasks = append(a.Tasks, at)
		}
		if len(batch) < archiveBatch {
			return nil
		}
		last = batch[len(batch)-1]
	}
}

func stamps(created, updated time.Time) ArchiveStamps {
	return ArchiveStamps{CreatedAt: created.UTC(), UpdatedAt: updated.UTC()}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func sortIDs(ids []uuid.UUID) {
	slices.SortFunc(ids, func(x, y uuid.UUID) int { return strings.Compare(x.String(), y.String()) })
}

// rawJSON encodes a JSON column's value; a nil slice or map gives no value.
func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// metadataJSON is a Metadata column as JSON, nil for SQL NULL.
func metadataJSON(m []byte) json.RawMessage {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return json.RawMessage(slices.Clone(m))
}

// icarAnimalRef is how ICAR names an animal the farm's facts name: its archive id (and for
// an outside animal its registration number), its official name and the batch of its semen
// or embryos the farm holds.
type icarAnimalRef struct {
	ids   []ICARIdentifier
	name  string
	batch string
}

func icarGender(sex string) string {
	switch sex {
	case evidence.SexMale:
		return "Male"
	case evidence.SexFemale:
		return "Female"
	}
	return "Unknown"
}

// icarInseminationTypes is ICAR's icarReproInseminationType of each service kind.
var icarInseminationTypes = map[evidence.Kind]string{
	evidence.KindExposure:       "RunWithBull",
	evidence.KindHandMating:     "NaturalService",
	evidence.KindInsemination:   "Insemination",
	evidence.KindEmbryoTransfer: "Implantation",
}

// icarBreeding fills the ICAR view of a breeding event from its item's metadata: a service
// as icarReproInseminationEventResource (its sire, straw and embryo), a pregnancy check's
// method and result, and a calving (the item that keeps it) as
// icarReproParturitionEventResource with its progeny. It reads nothing from the database.
func icarBreeding(ev *ArchiveEvent, refs map[uuid.UUID]icarAnimalRef, specie string) {
	ref := func(id string) (icarAnimalRef, bool) {
		u, err := uuid.Parse(id)
		if err != nil {
			return icarAnimalRef{}, false
		}
		r, ok := refs[u]
		return r, ok
	}
	if ev.FactKind == nil {
		var kept struct {
			C *Calving `json:"calving"`
		}
		if json.Unmarshal(ev.Metadata, &kept) != nil || kept.C == nil {
			return
		}
		ev.ResourceType = "icarReproParturitionEventResource"
		ev.Animal = &ICARIdentifier{ID: kept.C.DamID.String(), Scheme: ArchiveAnimalScheme}
		live, total, implant := 0, len(kept.C.Calves), false
		ev.ProgenyDetails = []ICARProgeny{}
		for _, calf := range kept.C.Calves {
			p := ICARProgeny{Identifier: &ICARIdentifier{ID: calf.AnimalID.String(), Scheme: ArchiveAnimalScheme}, Specie: specie,
				Gender: icarGender(calf.Sex), ManagementTag: calf.Tag}
			switch calf.Status {
			case CalfAlive:
				p.BirthStatus = "Alive"
				live++
			case CalfStillborn:
				p.BirthStatus = "Stillborn"
			}
			if calf.BirthWeight != nil {
				p.BirthWeight = &ICARMass{Measurement: json.Number(formatKG(*calf.BirthWeight)), Units: "KGM"}
			}
			if calf.GeneticDamID != nil {
				implant = true
			}
			ev.ProgenyDetails = append(ev.ProgenyDetails, p)
		}
		ev.LiveProgeny, ev.TotalProgeny, ev.IsEmbryoImplant = &live, &total, &implant
		return
	}
	var fact evidence.Fact
	if json.Unmarshal(ev.Metadata, &struct {
		F *evidence.Fact `json:"birth_history"`
	}{&fact}) != nil {
		return
	}
	kind := evidence.Kind(*ev.FactKind)
	if kind == evidence.KindPregnancyCheck {
		ev.Method = map[string]string{evidence.MethodScan: "Echography", evidence.MethodPalpation: "Palpation",
			evidence.MethodBlood: "Blood"}[fact.Method]
		ev.Result = map[string]string{"pregnant": "Pregnant", "empty": "Empty", "recheck": "Unknown"}[fact.Result]
		return
	}
	it, ok := icarInseminationTypes[kind]
	if !ok {
		return
	}
	ev.InseminationType = it
	sire, hasSire := ref(fact.SireID)
	if kind == evidence.KindEmbryoTransfer {
		if fact.RecipientID != "" {
			ev.Animal = &ICARIdentifier{ID: fact.RecipientID, Scheme: ArchiveAnimalScheme}
		}
		e := &ICAREmbryo{}
		if fact.Embryo != "" {
			e.ID = &ICARIdentifier{ID: fact.Embryo, Scheme: "herdbook.embryo"}
		}
		if donor, ok := ref(fact.DamID); ok {
			e.DonorIdentifiers = donor.ids
		}
		if hasSire {
			e.SireIdentifiers, e.SireOfficialName = sire.ids, sire.name
		}
		ev.Embryo = e
		return
	}
	if kind != evidence.KindExposure && fact.DamID != "" {
		ev.Animal = &ICARIdentifier{ID: fact.DamID, Scheme: ArchiveAnimalScheme}
	}
	if !hasSire {
		return
	}
	ev.SireIdentifiers, ev.SireOfficialName = sire.ids, sire.name
	if kind == evidence.KindInsemination {
		batch := fact.Straw
		if batch == "" {
			batch = sire.batch
		}
		ev.Straw = &ICARStraw{Batch: batch, SireIdentifiers: sire.ids, SireOfficialName: sire.name}
	}
}
