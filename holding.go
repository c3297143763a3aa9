package herdbook

import (
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/herdbook/herdbook/ent"
	"github.com/herdbook/herdbook/ent/holding"
	"github.com/herdbook/herdbook/ent/holdingfarm"
	"github.com/herdbook/herdbook/registry/notice"
	"github.com/herdbook/herdbook/registry/scheme"
)

// A holding is the place a registry knows (docs/registry.md): its number under a scheme, herd
// mark, keeper, address and the rule set its statutory notices fall due under. Farms link to
// it; it shares its identity and reporting among them.
//
// Who may do what: a holding belongs to the farms on it. A member of any of them (read:farms)
// reads it; an OWNER of any of them (write:farms) changes it. Creating a holding puts the
// viewer's own farm on it (OWNER of that farm). A farm joins an existing holding only by a
// viewer who is OWNER both of the farm and of a farm already on the holding, so nobody puts
// a farm on a stranger's holding or a stranger's farm on theirs; an OWNER of a farm takes
// it off. A holding with no farm left is seen by nobody.

// schemeCountry is the country each scheme's registry serves.
var schemeCountry = map[string]string{
	scheme.GBCPH: "GB", scheme.DEBNR: "DE", scheme.NLUBN: "NL", scheme.IEHerd: "IE", scheme.NZNAIT: "NZ", scheme.AUPIC: "AU",
}

// HoldingInput is a holding as written; PUT replaces every field (one left out is cleared).
type HoldingInput struct {
	Scheme          *string
	Identifier      *string
	Name            *string
	HerdMark        *string
	KeeperName      *string
	KeeperReference *string
	Address         *string
	Postcode        *string
	RuleSet         *string
	HerdType        *string
	TimeZone        *string
}

var (
	gbHerdMark    = regexp.MustCompile(`^[0-9]{6}$`)
	otherHerdMark = regexp.MustCompile(`^[0-9A-Z]{1,32}$`)
)

// validate checks the input and returns the identifier's canonical spelling.
func (in HoldingInput) validate() (string, error) {
	var fe fieldErrors
	canon := ""
	required := func(field string, v *string) bool {
		if v == nil {
			fe.add(field, "is required")
			return false
		}
		return true
	}
	if required("scheme", in.Scheme) && !slices.Contains(scheme.Schemes, *in.Scheme) {
		fe.add("scheme", "must be one of %s", strings.Join(scheme.Schemes, ", "))
	} else if in.Scheme != nil && required("identifier", in.Identifier) {
		c, err := scheme.Canonical(*in.Scheme, *in.Identifier)
		if err != nil {
			fe.add("identifier", "%s", err.Error())
		}
		canon = c
	}
	if required("keeper_name", in.KeeperName) {
		validateName(&fe, "keeper_name", *in.KeeperName, 1, 200)
	}
	if required("rule_set", in.RuleSet) && !notice.ValidRuleSet(*in.RuleSet) {
		fe.add("rule_set", "must be one of %s", strings.Join(notice.RuleSets, ", "))
	}
	if in.HerdType != nil && !slices.Contains(notice.HerdTypes, *in.HerdType) {
		fe.add("herd_type", "must be one of %s", strings.Join(notice.HerdTypes, ", "))
	}
	if required("time_zone", in.TimeZone) {
		if _, err := loadZone(*in.TimeZone); err != nil {
			fe.add("time_zone", "must be an IANA time zone name such as Europe/London")
		}
	}
	if in.HerdMark != nil {
		re := otherHerdMark
		if in.Scheme != nil && *in.Scheme == scheme.GBCPH {
			re = gbHerdMark
		}
		if !re.MatchString(*in.HerdMark) {
			if re == gbHerdMark {
				fe.add("herd_mark", "must be a GB herd mark of 6 digits, as on the ear tag after UK")
			} else {
				fe.add("herd_mark", "must be 1 to 32 capital letters or digits")
			}
		}
	}
	optional := func(field string, v *string, max int) {
		if v != nil {
			validateName(&fe, field, *v, 1, max)
		}
	}
	optional("name", in.Name, 200)
	optional("keeper_reference", in.KeeperReference, 64)
	optional("postcode", in.Postcode, 20)
	if in.Address != nil {
		if n := len([]rune(*in.Address)); n == 0 || n > 1000 || strings.TrimSpace(*in.Address) == "" {
			fe.add("address", "must be 1 to 1000 characters")
		}
	}
	return canon, fe.err()
}

func (in HoldingInput) herdType() string {
	if in.HerdType == nil {
		return notice.HerdBeef
	}
	return *in.HerdType
}

// HoldingView is a holding with the farms on it (those the viewer may see and the others by
// count, so that a member learns no farm ids of farms they are not on).
type HoldingView struct {
	*ent.Holding
	FarmIDs []uuid.UUID
	// ICARScheme is true when ICAR's list of well-known location schemes names the scheme.
	ICARScheme bool
}

// authorizeHolding passes when the viewer has min on any farm on the holding; a holding none
// of whose farms the viewer is on is not found (as a farm is), and one whose farms the viewer
// is on below min is refused as authorizeFarm refuses.
func (s *Service) authorizeHolding(ctx context.Context, id uuid.UUID, min Role, scopes ...string) (*Viewer, []uuid.UUID, error) {
	v, err := authenticate(ctx, scopes...)
	if err != nil {
		return nil, nil, err
	}
	ids, err := s.farmIDsOfHolding(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	var refused error
	for _, f := range ids {
		_, _, err := s.authorizeFarm(ctx, f, min, scopes...)
		if err == nil {
			return v, ids, nil
		}
		switch ErrorCode(err) {
		case ENOTFOUND:
		case EUNAUTHORIZED:
			refused = err
		default:
			return nil, nil, err
		}
	}
	if refused != nil {
		return nil, nil, refused
	}
	return nil, nil, Errorf(ENOTFOUND, "holding %s not found", id)
}

// holdingFarmIDs returns the farms of a holding loaded with its farm links (WithFarms).
func holdingFarmIDs(h *ent.Holding) []uuid.UUID {
	ids := make([]uuid.UUID, len(h.Edges.Farms))
	for i, l := range h.Edges.Farms {
		ids[i] = l.FarmID
	}
	return ids
}

// farmIDsOfHolding returns the farms on a holding, in one statement.
func (s *Service) farmIDsOfHolding(ctx context.Context, id uuid.UUID) ([]uuid.UUID, error) {
	rows, err := s.Client(ctx).HoldingFarm.Query().Where(holdingfarm.HoldingID(id)).
		Order(ent.Asc(holdingfarm.FieldCreatedAt), ent.Asc(holdingfarm.FieldFarmID)).All(ctx)
	out := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		out[i] = r.FarmID
	}
	return out, err
}

// visibleFarms keeps the farms the viewer is a member of (answered from the request's
// memberships, or a statement each outside a request).
func (s *Service) visibleFarms(ctx context.Context, ids []uuid.UUID) []uuid.UUID {
	var out []uuid.UUID
	for _, f := range ids {
		if _, _, err := s.authorizeFarm(ctx, f, RoleReader); err == nil {
			out = append(out, f)
		}
	}
	return out
}

func (s *Service) holdingView(ctx context.Context, h *ent.Holding, ids []uuid.UUID) *HoldingView {
	return &HoldingView{Holding: h, FarmIDs: s.visibleFarms(ctx, ids), ICARScheme: scheme.WellKnown(h.Scheme)}
}

// CreateHolding records a holding and puts the farm on it (OWNER of the farm, write:farms).
// A farm already on a holding is refused (409): take it off first.
func (s *Service) CreateHolding(ctx context.Context, farmID uuid.UUID, in HoldingInput) (*HoldingView, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteFarms)
	if err != nil {
		return nil, err
	}
	canon, err := in.validate()
	if err != nil {
		return nil, err
	}
	if err := checkTextIn(in); err != nil {
		return nil, err
	}
	var out *ent.Holding
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		if on, err := c.HoldingFarm.Query().Where(holdingfarm.FarmID(farmID)).Exist(ctx); err != nil {
			return err
		} else if on {
			return Errorf(ECONFLICT, "farm %s is already on a holding; take it off (DELETE …/farm/{farm_id}/holding) before creating another", farmID)
		}
		out, err = c.Holding.Create().SetScheme(*in.Scheme).SetIdentifier(canon).SetNillableName(in.Name).
			SetNillableHerdMark(in.HerdMark).SetKeeperName(strings.TrimSpace(*in.KeeperName)).
			SetNillableKeeperReference(in.KeeperReference).SetNillableAddress(in.Address).SetNillablePostcode(in.Postcode).
			SetCountry(schemeCountry[*in.Scheme]).SetRuleSet(*in.RuleSet).SetHerdType(in.herdType()).
			SetTimeZone(*in.TimeZone).SetCreatedBy(v.UserID).Save(ctx)
		if err != nil {
			return err
		}
		return constraint(c.HoldingFarm.Create().SetHoldingID(out.ID).SetFarmID(farmID).SetLinkedBy(v.UserID).Exec(ctx),
			"the farm is already on a holding")
	})
	if err != nil {
		return nil, err
	}
	return &HoldingView{Holding: out, FarmIDs: []uuid.UUID{farmID}, ICARScheme: scheme.WellKnown(out.Scheme)}, nil
}

// Holding returns a holding to a member of a farm on it (read:farms).
func (s *Service) Holding(ctx context.Context, id uuid.UUID) (*HoldingView, error) {
	_, ids, err := s.authorizeHolding(ctx, id, RoleReader, ScopeReadFarms)
	if err != nil {
		return nil, err
	}
	h, err := s.Client(ctx).Holding.Get(ctx, id)
	if err != nil {
		return nil, notFound(err, "holding", id)
	}
	return s.holdingView(ctx, h, ids), nil
}

// FarmHolding returns the holding a farm is on (READER of the farm, read:farms); a farm on
// no holding is answered ENOTFOUND.
func (s *Service) FarmHolding(ctx context.Context, farmID uuid.UUID) (*HoldingView, error) {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleReader, ScopeReadFarms); err != nil {
		return nil, err
	}
	h, err := s.holdingOfFarm(ctx, farmID)
	if err != nil {
		return nil, err
	}
	ids, err := s.farmIDsOfHolding(ctx, h.ID)
	if err != nil {
		return nil, err
	}
	return s.holdingView(ctx, h, ids), nil
}

// holdingOfFarm loads a farm's holding, in one statement.
func (s *Service) holdingOfFarm(ctx context.Context, farmID uuid.UUID) (*ent.Holding, error) {
	h, err := s.Client(ctx).Holding.Query().Where(holding.HasFarmsWith(holdingfarm.FarmID(farmID))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, Errorf(ENOTFOUND, "farm %s is on no holding", farmID)
	}
	return h, err
}

// UpdateHolding replaces a holding's fields (OWNER of a farm on it, write:farms).
func (s *Service) UpdateHolding(ctx context.Context, id uuid.UUID, in HoldingInput) (*HoldingView, error) {
	_, ids, err := s.authorizeHolding(ctx, id, RoleOwner, ScopeWriteFarms)
	if err != nil {
		return nil, err
	}
	canon, err := in.validate()
	if err != nil {
		return nil, err
	}
	if err := checkTextIn(in); err != nil {
		return nil, err
	}
	u := s.Client(ctx).Holding.UpdateOneID(id).SetScheme(*in.Scheme).SetIdentifier(canon).
		SetKeeperName(strings.TrimSpace(*in.KeeperName)).SetCountry(schemeCountry[*in.Scheme]).SetRuleSet(*in.RuleSet).
		SetHerdType(in.herdType()).SetTimeZone(*in.TimeZone)
	set := func(v *string, setter func(string), clear func()) {
		if v == nil {
			clear()
		} else {
			setter(*v)
		}
	}
	set(in.Name, func(v string) { u.SetName(v) }, func() { u.ClearName() })
	set(in.HerdMark, func(v string) { u.SetHerdMark(v) }, func() { u.ClearHerdMark() })
	set(in.KeeperReference, func(v string) { u.SetKeeperReference(v) }, func() { u.ClearKeeperReference() })
	set(in.Address, func(v string) { u.SetAddress(v) }, func() { u.ClearAddress() })
	set(in.Postcode, func(v string) { u.SetPostcode(v) }, func() { u.ClearPostcode() })
	h, err := u.Save(ctx)
	if err != nil {
		return nil, notFound(err, "holding", id)
	}
	return s.holdingView(ctx, h, ids), nil
}

// LinkFarmToHolding puts a farm on an existing holding: the viewer must be OWNER of the farm
// and of a farm already on the holding (write:farms). Linking a farm to the holding it is on
// is answered with the holding; a farm on another holding is refused (409).
func (s *Service) LinkFarmToHolding(ctx context.Context, farmID, holdingID uuid.UUID) (*HoldingView, error) {
	v, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteFarms)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.authorizeHolding(ctx, holdingID, RoleOwner, ScopeWriteFarms); err != nil {
		return nil, err
	}
	err = s.inTx(ctx, func(ctx context.Context) error {
		c := s.Client(ctx)
		cur, err := c.HoldingFarm.Query().Where(holdingfarm.FarmID(farmID)).Only(ctx)
		switch {
		case ent.IsNotFound(err):
		case err != nil:
			return err
		case cur.HoldingID == holdingID:
			return nil
		default:
			return Errorf(ECONFLICT, "farm %s is on another holding; take it off first", farmID)
		}
		return constraint(c.HoldingFarm.Create().SetHoldingID(holdingID).SetFarmID(farmID).SetLinkedBy(v.UserID).Exec(ctx),
			"the farm is already on a holding")
	})
	if err != nil {
		return nil, err
	}
	return s.Holding(ctx, holdingID)
}

// UnlinkFarmFromHolding takes a farm off its holding (OWNER of the farm, write:farms). The
// holding stays for its other farms.
func (s *Service) UnlinkFarmFromHolding(ctx context.Context, farmID uuid.UUID) error {
	if _, _, err := s.authorizeFarm(ctx, farmID, RoleOwner, ScopeWriteFarms); err != nil {
		return err
	}
	n, err := s.Client(ctx).HoldingFarm.Delete().Where(holdingfarm.FarmID(farmID)).Exec(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		return Errorf(ENOTFOUND, "farm %s is on no holding", farmID)
	}
	return nil
}
